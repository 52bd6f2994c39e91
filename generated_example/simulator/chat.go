package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"
)

// ChatConfig configures a chat platform.
type ChatConfig struct {
	// Faults decides the fault of each write request; nil injects none. Token rotation faults
	// are ignored: the platform's bot token does not rotate.
	Faults FaultFunc
	// SlowCommit, when set, says how long the commits of SlowCommit faults run while their
	// requests wait (see SlowCommit).
	SlowCommit SlowCommitFunc
	// Token is the bot token the relay must send as "Authorization: Bearer <Token>".
	Token string
	// WebhookURL receives the escalation.requested events, signed with WebhookSecret and
	// delivered as Deliveries says; Route, when set, chooses the URL of each delivery instead.
	WebhookURL    string
	Route         RouteFunc
	WebhookSecret []byte
	Deliveries    DeliveryFunc
	// Clock tells the platform's time, that of its webhook signatures; nil means time.Now.
	Clock func() time.Time
}

// Chat is a running chat platform. Its methods are safe for concurrent use.
type Chat struct {
	server
	token string

	mu       sync.Mutex
	messages map[string][]ChatMessage // by conversation
	count    int
	events   int
	stats    ChatStats
}

// ChatMessage is a message the relay posted into a conversation.
type ChatMessage struct {
	ID             string    `json:"id"`
	ConversationID string    `json:"conversation_id"`
	Author         string    `json:"author"`
	Text           string    `json:"text"`
	InReplyTo      string    `json:"in_reply_to,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
}

// EscalationEvent is the body of an escalation.requested webhook: the user asked for a person.
type EscalationEvent struct {
	EventID        string `json:"event_id"`
	Type           string `json:"type"`
	ConversationID string `json:"conversation_id"`
	Text           string `json:"text"`
}

// ChatStats counts what the platform did.
type ChatStats struct {
	Messages     int // messages posted into conversations
	Unauthorized int // requests refused for a wrong bot token
	Writes       WriteStats
	Webhook      WebhookStats
}

// NewChat starts a chat platform on 127.0.0.1.
func NewChat(cfg ChatConfig) *Chat {
	c := &Chat{
		token:    cfg.Token,
		messages: make(map[string][]ChatMessage),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /conversations/{conversation_id}/messages", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+c.token {
			c.mu.Lock()
			c.stats.Unauthorized++
			c.mu.Unlock()
			problem(w, http.StatusUnauthorized, "invalid bot token")
			return
		}
		id := r.PathValue("conversation_id")
		c.writes.serve(w, r, "postChatMessage", func(body []byte, _ time.Time) (int, any) { return c.post(id, body) })
	})
	c.server = newServer(mux, newWrites(cfg.Faults, cfg.SlowCommit, nil), newWebhook(cfg.WebhookURL, cfg.Route, cfg.Clock, cfg.WebhookSecret, cfg.Deliveries))
	return c
}

// RequestEscalation sends an escalation.requested event for the conversation in the background
// and returns its event id.
func (c *Chat) RequestEscalation(conversationID, text string) string {
	c.mu.Lock()
	c.events++
	e := EscalationEvent{
		EventID:        c.eventID("evc", c.events),
		Type:           "escalation.requested",
		ConversationID: conversationID,
		Text:           text,
	}
	c.mu.Unlock()
	b, _ := json.Marshal(e)
	c.webhook.send(e.EventID, b)
	return e.EventID
}

// Messages returns the messages posted into the conversation, oldest first.
func (c *Chat) Messages(conversationID string) []ChatMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.messages[conversationID])
}

// Stats returns the platform's counts.
func (c *Chat) Stats() ChatStats {
	c.mu.Lock()
	st := c.stats
	c.mu.Unlock()
	st.Writes = c.writes.snapshot()
	st.Webhook = c.webhook.snapshot()
	return st
}

func (c *Chat) post(conversationID string, body []byte) (int, any) {
	in, ok := readMessage(body)
	if !ok {
		return http.StatusBadRequest, problemBody("author and text are required")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count++
	c.stats.Messages++
	m := ChatMessage{
		ID:             fmt.Sprintf("cm_%06d", c.count),
		ConversationID: conversationID,
		Author:         in.Author,
		Text:           in.Text,
		InReplyTo:      in.InReplyTo,
		CreatedAt:      time.Now().UTC(),
	}
	c.messages[conversationID] = append(c.messages[conversationID], m)
	return http.StatusCreated, m
}
