package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SupportConfig configures a support desk.
type SupportConfig struct {
	// Faults decides the fault of each write request; nil injects none.
	Faults FaultFunc
	// SlowCommit, when set, says how long the commits of SlowCommit faults run while their
	// requests wait (see SlowCommit).
	SlowCommit SlowCommitFunc
	// Rotate is called when a RotateToken or RotateAfterCommit fault strikes, while the request
	// is held: it must make the client refresh its token now, through POST /oauth/token, as a
	// concurrent request of the same client would. Nil ignores those faults.
	Rotate func(ctx context.Context) error
	// SearchDown, when set and true, has the thread search (GET /threads) answer 503, as a
	// desk in an outage answers its reads too.
	SearchDown func() bool
	// TokenLifetime is the lifetime of the access tokens the desk issues (default one hour).
	TokenLifetime time.Duration

	// Replies says how many agents answer a new thread, all at nearly the same moment; nil
	// means none.
	Replies func(conversationID string) int
	// WebhookURL receives the reply.created events, signed with WebhookSecret and delivered as
	// Deliveries says; Route, when set, chooses the URL of each delivery instead.
	WebhookURL    string
	Route         RouteFunc
	WebhookSecret []byte
	Deliveries    DeliveryFunc
	// Clock tells the desk's time, that of its webhook signatures and of the creation times it
	// stores; nil means time.Now.
	Clock func() time.Time
	// NoteLag bounds how long a committed note takes to show in listNotes, as a real desk's
	// replicated list lags its writes: each note is listed from a time drawn from [0, NoteLag)
	// after its commit, by the desk's clock, and missing from every page until then (the note
	// is committed all the same: Threads shows it at once). 0 means DefaultNoteLag; a negative
	// value lists every note as soon as it commits.
	NoteLag time.Duration
}

// DefaultNoteLag is the longest a note takes to show in listNotes unless SupportConfig.NoteLag
// says otherwise; support.yaml documents it, and writesafety.yaml declares a lag that covers it.
const DefaultNoteLag = 300 * time.Millisecond

// Support is a running support desk. Its methods are safe for concurrent use.
type Support struct {
	server
	replies func(string) int
	life    time.Duration
	now     func() time.Time
	noteLag time.Duration // the bound of a note's lag; 0: none
	down    func() bool   // SupportConfig.SearchDown

	mu       sync.Mutex
	threads  []*Thread
	byRef    map[string][]*Thread
	byID     map[string]*Thread
	messages int
	notes    int
	events   int
	tokenGen int
	stats    SupportStats
}

// Thread is a thread as the desk stores it.
type Thread struct {
	ID                string    `json:"id"`
	ExternalReference string    `json:"external_reference"`
	ConversationID    string    `json:"conversation_id"`
	Subject           string    `json:"subject"`
	CreatedAt         time.Time `json:"created_at"`
	Deleted           bool      `json:"-"`
	Messages          []Message `json:"-"`
	Notes             []Note    `json:"-"`
}

// Note is an internal note on a thread. The desk takes no idempotency key for notes: every
// request it carries out adds one.
type Note struct {
	ID        string    `json:"id"`
	ThreadID  string    `json:"thread_id"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
	// Listed is when the note shows in listNotes, by the desk's clock: its commit plus its lag.
	Listed time.Time `json:"-"`
}

// Message is a message in a thread.
type Message struct {
	ID        string    `json:"id"`
	ThreadID  string    `json:"thread_id"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
}

// ReplyEvent is the body of a reply.created webhook.
type ReplyEvent struct {
	EventID        string  `json:"event_id"`
	Type           string  `json:"type"`
	ThreadID       string  `json:"thread_id"`
	ConversationID string  `json:"conversation_id"`
	Message        Message `json:"message"`
}

// SupportStats counts what the desk did.
type SupportStats struct {
	Threads      int // threads created
	Messages     int // messages posted through the API
	Notes        int // notes added
	NoteLists    int // pages of notes listed
	Replies      int // agent replies written
	Deleted      int // threads deleted
	Lookups      int // searches by external reference
	Refreshes    int // token pairs issued by a refresh
	BadRefresh   int // refreshes refused (a refresh token used twice, or unknown)
	Unauthorized int // requests refused for a token that is not the current one
	Writes       WriteStats
	Webhook      WebhookStats
}

// NewSupport starts a support desk on 127.0.0.1.
func NewSupport(cfg SupportConfig) *Support {
	s := &Support{
		replies: cfg.Replies,
		life:    cfg.TokenLifetime,
		now:     cfg.Clock,
		noteLag: cfg.NoteLag,
		down:    cfg.SearchDown,
		byRef:   make(map[string][]*Thread),
		byID:    make(map[string]*Thread),
	}
	if s.life <= 0 {
		s.life = time.Hour
	}
	if s.now == nil {
		s.now = time.Now
	}
	switch {
	case s.noteLag == 0:
		s.noteLag = DefaultNoteLag
	case s.noteLag < 0:
		s.noteLag = 0
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /threads", s.authed(func(w http.ResponseWriter, r *http.Request) {
		s.writes.serve(w, r, "createThread", s.createThread)
	}))
	mux.HandleFunc("GET /threads", s.authed(s.searchThreads))
	mux.HandleFunc("GET /threads/{thread_id}", s.authed(s.getThread))
	mux.HandleFunc("DELETE /threads/{thread_id}", s.authed(s.deleteThread))
	mux.HandleFunc("POST /threads/{thread_id}/messages", s.authed(func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("thread_id")
		s.writes.serve(w, r, "postMessage", func(body []byte, at time.Time) (int, any) { return s.postMessage(id, body, at) })
	}))
	mux.HandleFunc("POST /threads/{thread_id}/notes", s.authed(func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("thread_id")
		s.writes.serve(w, r, "addNote", func(body []byte, at time.Time) (int, any) { return s.addNote(id, body, at) })
	}))
	mux.HandleFunc("GET /threads/{thread_id}/notes", s.authed(s.listNotes))
	mux.HandleFunc("POST /oauth/token", s.issueToken)
	s.server = newServer(mux, newWrites(cfg.Faults, cfg.SlowCommit, cfg.Rotate), newWebhook(cfg.WebhookURL, cfg.Route, cfg.Clock, cfg.WebhookSecret, cfg.Deliveries))
	s.writes.now = s.now
	return s
}

// Credentials returns the desk's current token pair and the access token's lifetime, as a
// client would have stored them.
func (s *Support) Credentials() (access, refresh string, lifetime time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accessToken(), s.refreshToken(), s.life
}

// Threads returns every thread, deleted ones included, in creation order.
func (s *Support) Threads() []Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Thread, len(s.threads))
	for i, t := range s.threads {
		out[i] = *t
		out[i].Messages = slices.Clone(t.Messages)
		out[i].Notes = slices.Clone(t.Notes)
	}
	return out
}

// Stats returns the desk's counts.
func (s *Support) Stats() SupportStats {
	s.mu.Lock()
	st := s.stats
	s.mu.Unlock()
	st.Writes = s.writes.snapshot()
	st.Webhook = s.webhook.snapshot()
	return st
}

func (s *Support) accessToken() string  { return fmt.Sprintf("access-%d", s.tokenGen) }
func (s *Support) refreshToken() string { return fmt.Sprintf("refresh-%d", s.tokenGen) }

// authed refuses requests that do not carry the current access token.
func (s *Support) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		ok := r.Header.Get("Authorization") == "Bearer "+s.accessToken()
		if !ok {
			s.stats.Unauthorized++
		}
		s.mu.Unlock()
		if !ok {
			problem(w, http.StatusUnauthorized, "invalid access token")
			return
		}
		h(w, r)
	}
}

// issueToken exchanges the current refresh token for a new pair; the old pair stops working.
func (s *Support) issueToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		problem(w, http.StatusBadRequest, "unreadable form")
		return
	}
	s.mu.Lock()
	if r.PostForm.Get("grant_type") != "refresh_token" || r.PostForm.Get("refresh_token") != s.refreshToken() {
		s.stats.BadRefresh++
		s.mu.Unlock()
		problem(w, http.StatusBadRequest, "invalid_grant")
		return
	}
	s.tokenGen++
	s.stats.Refreshes++
	pair := struct {
		Access  string `json:"access_token"`
		Refresh string `json:"refresh_token"`
		Expires int64  `json:"expires_in"`
	}{s.accessToken(), s.refreshToken(), int64(s.life / time.Second)}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(pair)
}

func (s *Support) createThread(body []byte, at time.Time) (int, any) {
	var in struct {
		ExternalReference string `json:"external_reference"`
		ConversationID    string `json:"conversation_id"`
		Subject           string `json:"subject"`
	}
	if err := decode(body, &in); err != nil || in.ExternalReference == "" || in.ConversationID == "" {
		return http.StatusBadRequest, problemBody("external_reference and conversation_id are required")
	}
	s.mu.Lock()
	t := &Thread{
		ID:                fmt.Sprintf("th_%06d", len(s.threads)+1),
		ExternalReference: in.ExternalReference,
		ConversationID:    in.ConversationID,
		Subject:           in.Subject,
		CreatedAt:         at.UTC(),
	}
	s.threads = append(s.threads, t)
	s.byRef[t.ExternalReference] = append(s.byRef[t.ExternalReference], t)
	s.byID[t.ID] = t
	s.stats.Threads++
	created := *t
	n := 0
	if s.replies != nil {
		n = s.replies(t.ConversationID)
	}
	events := make([]ReplyEvent, n)
	for i := range events {
		m := s.addMessage(t, fmt.Sprintf("agent-%d", i+1), fmt.Sprintf("Hello, this is agent %d: how can I help?", i+1), at)
		s.stats.Replies++
		s.events++
		events[i] = ReplyEvent{
			EventID:        s.eventID("evs", s.events),
			Type:           "reply.created",
			ThreadID:       t.ID,
			ConversationID: t.ConversationID,
			Message:        m,
		}
	}
	s.mu.Unlock()
	for _, e := range events {
		b, _ := json.Marshal(e)
		s.webhook.send(e.EventID, b)
	}
	return http.StatusCreated, created
}

// addMessage appends a message to t, committed at at; s.mu must be held.
func (s *Support) addMessage(t *Thread, author, text string, at time.Time) Message {
	s.messages++
	m := Message{
		ID:        fmt.Sprintf("msg_%06d", s.messages),
		ThreadID:  t.ID,
		Author:    author,
		Text:      text,
		CreatedAt: at.UTC(),
	}
	t.Messages = append(t.Messages, m)
	return m
}

func (s *Support) postMessage(threadID string, body []byte, at time.Time) (int, any) {
	in, ok := readMessage(body)
	if !ok || in.InReplyTo != "" {
		return http.StatusBadRequest, problemBody("author and text are required, and nothing else")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.byID[threadID]
	if t == nil || t.Deleted {
		return http.StatusNotFound, problemBody("no such thread")
	}
	s.stats.Messages++
	return http.StatusCreated, s.addMessage(t, in.Author, in.Text, at)
}

func (s *Support) addNote(threadID string, body []byte, at time.Time) (int, any) {
	var in struct {
		Text string `json:"text"`
	}
	if err := decode(body, &in); err != nil || in.Text == "" {
		return http.StatusBadRequest, problemBody("text is required, and nothing else")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.byID[threadID]
	if t == nil || t.Deleted {
		return http.StatusNotFound, problemBody("no such thread")
	}
	s.stats.Notes++
	s.notes++
	n := Note{ID: fmt.Sprintf("note_%06d", s.notes), ThreadID: t.ID, Text: in.Text, CreatedAt: at.UTC()}
	n.Listed = n.CreatedAt.Add(s.lagOf(n))
	// In the order of their commits: a slow commit carried out late committed at its time.
	i := len(t.Notes)
	for i > 0 && t.Notes[i-1].CreatedAt.After(n.CreatedAt) {
		i--
	}
	t.Notes = slices.Insert(t.Notes, i, n)
	return http.StatusCreated, n
}

// lagOf draws how long note n takes to show in listNotes, from [0, noteLag): fixed by the note's
// id and text, so that the same writes meet the same lags.
func (s *Support) lagOf(n Note) time.Duration {
	if s.noteLag <= 0 {
		return 0
	}
	h := fnv.New64a()
	io.WriteString(h, n.ID+"\x00"+n.Text)
	x := h.Sum64()
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9 // FNV's high bits barely move with the last byte
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return time.Duration((x ^ x>>31) % uint64(s.noteLag))
}

// listNotes answers a page of a thread's notes, newest first (or oldest first with
// order=oldest); the cursor is the id of the last note of the previous page. A note is listed
// only once its lag has passed (SupportConfig.NoteLag).
func (s *Support) listNotes(w http.ResponseWriter, r *http.Request) {
	s.writes.due()
	q := r.URL.Query()
	oldest := false
	switch q.Get("order") {
	case "", "newest":
	case "oldest":
		oldest = true
	default:
		problem(w, http.StatusBadRequest, "order is newest or oldest")
		return
	}
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			problem(w, http.StatusBadRequest, "limit is a number from 1 to 100")
			return
		}
		limit = n
	}
	s.mu.Lock()
	t := s.byID[r.PathValue("thread_id")]
	if t == nil || t.Deleted {
		s.mu.Unlock()
		problem(w, http.StatusNotFound, "no such thread")
		return
	}
	s.stats.NoteLists++
	now := s.now()
	var notes []Note // oldest first
	for _, n := range t.Notes {
		if !now.Before(n.Listed) {
			notes = append(notes, n)
		}
	}
	s.mu.Unlock()
	if !oldest {
		slices.Reverse(notes)
	}
	i := 0 // the first note not yet listed
	if c := q.Get("cursor"); c != "" {
		if i = slices.IndexFunc(notes, func(n Note) bool { return n.ID == c }); i < 0 {
			problem(w, http.StatusBadRequest, "unknown cursor")
			return
		}
		i++
	}
	page := struct {
		Notes      []Note `json:"notes"`
		NextCursor string `json:"next_cursor,omitempty"`
	}{Notes: []Note{}}
	for ; i < len(notes) && len(page.Notes) < limit; i++ {
		page.Notes = append(page.Notes, notes[i])
	}
	if i < len(notes) {
		page.NextCursor = page.Notes[len(page.Notes)-1].ID
	}
	writeJSON(w, http.StatusOK, page)
}

func (s *Support) searchThreads(w http.ResponseWriter, r *http.Request) {
	ref := r.URL.Query().Get("external_reference")
	s.mu.Lock()
	s.stats.Lookups++
	if s.down != nil && s.down() {
		s.mu.Unlock()
		problem(w, http.StatusServiceUnavailable, "search is unavailable")
		return
	}
	items := []Thread{}
	for _, t := range s.byRef[ref] {
		if !t.Deleted {
			items = append(items, *t)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, struct {
		Items []Thread `json:"items"`
	}{items})
}

func (s *Support) getThread(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	t := s.byID[r.PathValue("thread_id")]
	var found Thread
	if t != nil && !t.Deleted {
		found = *t
	}
	s.mu.Unlock()
	if found.ID == "" {
		problem(w, http.StatusNotFound, "no such thread")
		return
	}
	writeJSON(w, http.StatusOK, found)
}

func (s *Support) deleteThread(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if t := s.byID[r.PathValue("thread_id")]; t != nil && !t.Deleted {
		t.Deleted = true
		s.stats.Deleted++
	}
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func problemBody(title string) any {
	return struct {
		Title string `json:"title"`
	}{title}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// TokenPair is what the desk's token endpoint issues.
type TokenPair struct {
	Access, Refresh string
	Expiry          time.Time
}

// RefreshToken exchanges refresh for a new pair at the token endpoint (POST /oauth/token) of
// the desk at deskURL, as a connector's token refresher does; the pair expires in the
// expires_in the desk answers, counted from now().
func RefreshToken(ctx context.Context, deskURL, refresh string, now func() time.Time) (TokenPair, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, deskURL+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		return TokenPair{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return TokenPair{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return TokenPair{}, fmt.Errorf("token refresh: status %d", resp.StatusCode)
	}
	var pair struct {
		Access  string `json:"access_token"`
		Refresh string `json:"refresh_token"`
		Expires int64  `json:"expires_in"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&pair); err != nil {
		return TokenPair{}, err
	}
	return TokenPair{pair.Access, pair.Refresh, now().Add(time.Duration(pair.Expires) * time.Second)}, nil
}
