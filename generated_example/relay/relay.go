package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writegen/writegen/generated_example/chat"
	"github.com/writegen/writegen/generated_example/support"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// schema is the relay's own table; %s is the dialect's surrogate key column.
const schema = `CREATE TABLE IF NOT EXISTS relay_escalations (
	id              %s,
	conversation_id TEXT   NOT NULL UNIQUE, -- one escalation per conversation
	request_text    TEXT   NOT NULL,
	status          TEXT   NOT NULL,        -- creating, active, uncertain, failed
	thread_id       TEXT,                   -- the desk's id: an attribute, never identity
	first_reply_id  TEXT,                   -- the desk's id of the reply relayed to the user
	first_reply_at  BIGINT,
	last_error      TEXT   NOT NULL DEFAULT '',
	created_at      BIGINT NOT NULL,        -- microseconds since the Unix epoch
	updated_at      BIGINT NOT NULL
)`

// The statements of the relay.
const (
	insertEscalation = `INSERT INTO relay_escalations (conversation_id, request_text, status, created_at, updated_at)
VALUES ($1, $2, 'creating', $3, $3)
ON CONFLICT (conversation_id) DO NOTHING`

	// selectEscalation reads what opening the thread needs: the request stored with the first
	// event, so that every handler of the escalation sends the same request.
	selectEscalation = `SELECT id, COALESCE(thread_id, ''), request_text FROM relay_escalations WHERE conversation_id = $1`

	selectEscalationFull = `SELECT id, status, COALESCE(thread_id, ''), COALESCE(first_reply_id, ''), last_error
FROM relay_escalations WHERE conversation_id = $1`

	// selectUncertain lists the escalations whose thread ended uncertain, for reconcile.
	selectUncertain = `SELECT id, conversation_id, request_text FROM relay_escalations
WHERE status = 'uncertain' AND thread_id IS NULL ORDER BY id`

	selectStatus = `SELECT status FROM relay_escalations WHERE id = $1`

	recordThread = `UPDATE relay_escalations SET status = 'active', thread_id = $2, last_error = '', updated_at = $3
WHERE id = $1 AND thread_id IS NULL`

	recordStatus = `UPDATE relay_escalations SET status = $2, last_error = $3, updated_at = $4
WHERE id = $1 AND thread_id IS NULL AND status <> $2`

	// claimFirstReply picks the first reply of a conversation: only one UPDATE finds
	// first_reply_id still NULL.
	claimFirstReply = `UPDATE relay_escalations SET first_reply_id = $2, first_reply_at = $3, updated_at = $3
WHERE conversation_id = $1 AND first_reply_id IS NULL
RETURNING id`
)

// The operations of the outbox obligations, named after the generated methods that send them.
const (
	opPostMessage  = "postMessage"             // the user's request, into the thread
	opAddNote      = "addNote"                 // the agents' note of where the thread came from
	opPostToChat   = "postConversationMessage" // the first reply, into the conversation
	openingPrefix  = "escalation-opening:"     // + escalation id
	notePrefix     = "escalation-note:"        // + escalation id
	firstReplyPref = "escalation-first-reply:" // + escalation id
)

// Config configures a Relay.
type Config struct {
	// Ledger is the ledger; the relay keeps its own table in the ledger's database, so that its
	// writes and the outbox obligations they create commit in one transaction.
	Ledger *ledger.Ledger
	// Support and Chat are the generated clients, built with Ledger.
	Support *support.Client
	Chat    *chat.Client
	// ChatSecret and SupportSecret verify the webhooks ("whsec_" and base64).
	ChatSecret, SupportSecret string
	// Workers tunes the inbox and outbox workers (Name, Workers, Lease, Poll, Backoff, Logger).
	Workers ledger.WorkerOptions
	// ResumeEvery is how often Run calls Resume; default a minute. Every replica of the relay
	// may run it: the ledger hands each row to one of them.
	ResumeEvery time.Duration
}

// Relay relays escalations between the chat platform and the support desk. Several relays, in
// several processes, may share one ledger: each webhook is handled by the relay it reaches,
// each obligation is sent by one of their outbox workers, and each write has one effect.
type Relay struct {
	cfg     Config
	ledger  *ledger.Ledger
	chatIn  *ledger.Inbox
	deskIn  *ledger.Inbox
	outbox  *ledger.Outbox
	handler http.Handler
	resumer chan struct{} // held by a periodic Resume while it runs, and by HoldResume

	mu    sync.Mutex
	stats Stats
}

// Stats counts what a Relay did.
type Stats struct {
	Requests      int // escalation requests handled
	Repeats       int // requests whose outcome our records already held: nothing sent for them
	Threads       int // threads recorded on an escalation
	FromLookup    int // of those, threads an earlier attempt created, found by searching the desk
	FromLedger    int // of those, threads another call created, read from the ledger
	Reconciled    int // of those, threads of escalations that were uncertain, settled since
	Uncertain     int // escalations whose thread could not be settled (some are reconciled later)
	Failed        int // escalations the desk refused, or whose key held another request
	NotApplied    int // calls that certainly did nothing: tried again later with the same key
	Replies       int // reply events handled
	FirstReplies  int // replies chosen as the answer and queued for delivery
	LaterReplies  int // replies that came after the answer: not relayed
	Sent          int // obligations delivered, receipt stored
	SendUncertain int // obligations whose delivery could not be settled
	Redriven      int // uncertain obligations sent again once their write was settled

	Resumes int                  // Resume passes
	Resumed runtime.ResumeReport // what they did: rows taken over, and how each was settled
}

// New creates the relay's table if needed and returns a relay.
func New(ctx context.Context, cfg Config) (*Relay, error) {
	if cfg.Ledger == nil || cfg.Support == nil || cfg.Chat == nil {
		return nil, errors.New("relay: Ledger, Support and Chat are required")
	}
	if cfg.ResumeEvery <= 0 {
		cfg.ResumeEvery = time.Minute
	}
	if err := Migrate(ctx, cfg.Ledger); err != nil {
		return nil, err
	}
	r := &Relay{cfg: cfg, ledger: cfg.Ledger, resumer: make(chan struct{}, 1)}
	var err error
	if r.chatIn, err = r.inbox("chat", cfg.ChatSecret, r.escalate); err != nil {
		return nil, err
	}
	if r.deskIn, err = r.inbox("support", cfg.SupportSecret, r.reply); err != nil {
		return nil, err
	}
	r.outbox = r.ledger.Outbox(r.send, cfg.Workers)
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/chat", r.chatIn)
	mux.Handle("POST /webhooks/support", r.deskIn)
	r.handler = mux
	return r, nil
}

func (r *Relay) inbox(source, secret string, handle func(context.Context, ledger.Event) error) (*ledger.Inbox, error) {
	v, err := ledger.NewStandardWebhooks(secret, 0)
	if err != nil {
		return nil, fmt.Errorf("relay: %s webhook secret: %w", source, err)
	}
	return r.ledger.Inbox(ledger.InboxConfig{
		Source:        source,
		Verifier:      v,
		Handle:        handle,
		Order:         ledger.AnyOrder,
		WorkerOptions: r.cfg.Workers,
	})
}

// Handler receives the webhooks: POST /webhooks/chat and POST /webhooks/support.
func (r *Relay) Handler() http.Handler { return r.handler }

// Run calls Resume, then handles events and delivers obligations, calling Resume again every
// ResumeEvery, until ctx ends; it returns ctx.Err().
func (r *Relay) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { r.chatIn.Run(ctx) })
	wg.Go(func() { r.deskIn.Run(ctx) })
	wg.Go(func() { r.outbox.Run(ctx) })
	wg.Go(func() {
		t := time.NewTicker(r.cfg.ResumeEvery)
		defer t.Stop()
		for {
			select {
			case r.resumer <- struct{}{}:
			case <-ctx.Done():
				return
			}
			_, err := r.Resume(ctx)
			<-r.resumer
			if err != nil && ctx.Err() == nil {
				r.logger().ErrorContext(ctx, "relay: resume", "err", err)
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	})
	wg.Wait()
	return ctx.Err()
}

// HoldResume keeps Run from starting another periodic Resume until release is called, after
// waiting for the one in progress to end; it fails only when ctx ends first. A Resume called
// directly is not held. (The soak holds the Resume of every relay while it checks the ledger.)
func (r *Relay) HoldResume(ctx context.Context) (release func(), err error) {
	select {
	case r.resumer <- struct{}{}:
		return sync.OnceFunc(func() { <-r.resumer }), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Resume drives on the writes of both clients that need it: claims whose caller stopped
// renewing its lease (it crashed, or stalled for longer than the lease), and uncertain writes
// the runtime may still settle (their provider key is inside its window, or the desk's search
// can answer). Several relays may run it at once: the ledger hands each row to one of them.
// Then it reconciles the escalations whose thread was uncertain, so that what a Resume, here or
// elsewhere, or a person settled reaches them. It returns what the clients' Resume did.
func (r *Relay) Resume(ctx context.Context) (runtime.ResumeReport, error) {
	desk, err1 := r.cfg.Support.Resume(ctx)
	chat, err2 := r.cfg.Chat.Resume(ctx)
	rep := desk.Add(chat)
	r.count(func(s *Stats) {
		s.Resumes++
		s.Resumed = s.Resumed.Add(rep)
	})
	_, err3 := r.Reconcile(ctx)
	return rep, errors.Join(err1, err2, err3)
}

// Reconcile asks the ledger again for the thread of every escalation whose thread was
// uncertain: the same call with the same key, which reads the row and sends nothing while the
// row is settled. A row settled active since (by a Resume, here or in another relay, or by a
// person) records its thread; an uncertain one stays so. Then it sends again the obligations
// whose send ended uncertain while their write was settled since (see redriveOutbox). It
// returns how many escalations that were uncertain had their thread recorded while it ran.
// Resume calls it.
func (r *Relay) Reconcile(ctx context.Context) (int, error) {
	before := r.Stats().Reconciled
	err := r.reconcile(ctx)
	return r.Stats().Reconciled - before, err
}

func (r *Relay) reconcile(ctx context.Context) error {
	type uncertain struct {
		id         int64
		conv, text string
	}
	rows, err := r.ledger.Querier().Query(ctx, selectUncertain)
	if err != nil {
		return fmt.Errorf("relay: list uncertain escalations: %w", err)
	}
	var es []uncertain
	for rows.Next() {
		var e uncertain
		if err := rows.Scan(&e.id, &e.conv, &e.text); err != nil {
			rows.Close()
			return fmt.Errorf("relay: list uncertain escalations: %w", err)
		}
		es = append(es, e)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("relay: list uncertain escalations: %w", err)
	}
	var errs []error
	for _, e := range es {
		// A row another relay is driving now is waited for, within a period (a second at
		// least); what is not settled by then is left to the next reconcile.
		cctx, cancel := context.WithTimeout(ctx, max(r.cfg.ResumeEvery, time.Second))
		err := r.open(cctx, e.id, e.conv, e.text, false)
		late := cctx.Err() != nil
		cancel()
		if err != nil && !late && !errors.Is(err, runtime.ErrInProgress) {
			errs = append(errs, err)
		}
	}
	if err := r.redriveOutbox(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// outboxWrites are the identities of the writes the outbox's items make, as the annotation
// files name them: the item's dedupe key is the write's business key, and an item is recorded
// in its write's scope.
var outboxWrites = map[string]runtime.Identity{
	opPostMessage: {Scope: "support-desk", Operation: "post-message"},
	opAddNote:     {Scope: "support-desk", Operation: "add-note"},
	opPostToChat:  {Scope: "chat", Operation: "post-conversation-message"},
}

// redriveOutbox sends again the obligations whose send ended uncertain while their write has
// been settled since (by a Resume, here or in another relay, or by a person). Both writes are
// deduplicated in the ledger, so the send is answered from the write's row (its receipt, or
// its rejection) without calling the provider, and the item ends as its write did. An item
// whose write is still uncertain is left alone: Resume may settle the write, a person may.
func (r *Relay) redriveOutbox(ctx context.Context) error {
	items, err := r.ledger.OutboxItems(ctx, ledger.OutboxUncertain)
	if err != nil {
		return fmt.Errorf("relay: list uncertain obligations: %w", err)
	}
	var errs []error
	for _, it := range items {
		id, ok := outboxWrites[it.Operation]
		if !ok || it.Scope != id.Scope {
			continue
		}
		id.Tenant, id.BusinessKey = it.Tenant, it.DedupeKey
		row, err := r.ledger.Find(ctx, id)
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("relay: obligation %d: %w", it.ID, err))
			continue
		case row.State == runtime.StateUncertain || row.State == runtime.StateClaimed:
			continue
		}
		err = r.ledger.RedriveOutbox(ctx, it.ID, "its write was settled "+string(row.State)+" since")
		if err != nil && !errors.Is(err, ledger.ErrTransition) { // another relay was first
			errs = append(errs, fmt.Errorf("relay: obligation %d: %w", it.ID, err))
			continue
		}
		if err == nil {
			r.count(func(s *Stats) { s.Redriven++ })
		}
	}
	return errors.Join(errs...)
}

// Pending reports how many events and obligations are still to be handled.
func (r *Relay) Pending(ctx context.Context) (int, error) { return Pending(ctx, r.ledger) }

// Pending reports how many events and obligations in l are still to be handled, by any relay.
func Pending(ctx context.Context, l *ledger.Ledger) (int, error) {
	n := 0
	for _, src := range []string{"chat", "support"} {
		evs, err := l.Events(ctx, src, ledger.EventPending)
		if err != nil {
			return 0, err
		}
		n += len(evs)
	}
	items, err := l.OutboxItems(ctx, ledger.OutboxPending)
	return n + len(items), err
}

// Escalation is the relay's record of one conversation's escalation.
type Escalation struct {
	ID           int64  // our own surrogate id: the business key of its thread
	Status       string // creating, active, uncertain or failed
	ThreadID     string // the desk's thread, once recorded
	FirstReplyID string // the desk's id of the reply relayed to the user, once chosen
	LastError    string // why there is no thread, when uncertain or failed
}

// Escalation returns the escalation of a conversation; found is false when it has none.
func (r *Relay) Escalation(ctx context.Context, conversationID string) (e Escalation, found bool, err error) {
	return ReadEscalation(ctx, r.ledger, conversationID)
}

// ReadEscalation returns the escalation of a conversation as the relays sharing l recorded it;
// found is false when it has none.
func ReadEscalation(ctx context.Context, l *ledger.Ledger, conversationID string) (e Escalation, found bool, err error) {
	found, err = queryRow(ctx, l.Querier(), selectEscalationFull, []any{conversationID},
		&e.ID, &e.Status, &e.ThreadID, &e.FirstReplyID, &e.LastError)
	return e, found, err
}

// Stats returns the relay's counts.
func (r *Relay) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

func (r *Relay) count(f func(*Stats)) {
	r.mu.Lock()
	f(&r.stats)
	r.mu.Unlock()
}

func (r *Relay) logger() *slog.Logger {
	if r.cfg.Workers.Logger != nil {
		return r.cfg.Workers.Logger
	}
	return slog.Default()
}

// now stamps the relay's rows, in microseconds since the Unix epoch as the ledger's.
func (r *Relay) now() int64 { return time.Now().UnixMicro() }

// escalate handles an escalation.requested event: it records the escalation (one per
// conversation, with the text of the first request) and opens its thread, unless it has one.
func (r *Relay) escalate(ctx context.Context, e ledger.Event) error {
	var ev escalationRequested
	if err := json.Unmarshal(e.Body, &ev); err != nil || ev.ConversationID == "" {
		r.logger().WarnContext(ctx, "relay: unreadable escalation event", "event", e.EventID, "err", err)
		return nil // a retry cannot make it readable
	}
	db := r.ledger.Querier()
	if _, err := db.Exec(ctx, insertEscalation, ev.ConversationID, ev.Text, r.now()); err != nil {
		return fmt.Errorf("relay: record escalation of %s: %w", ev.ConversationID, err)
	}
	var id int64
	var threadID, text string
	if _, err := queryRow(ctx, db, selectEscalation, []any{ev.ConversationID}, &id, &threadID, &text); err != nil {
		return fmt.Errorf("relay: read escalation of %s: %w", ev.ConversationID, err)
	}
	r.count(func(s *Stats) { s.Requests++ })
	if threadID != "" {
		r.count(func(s *Stats) { s.Repeats++ })
		return nil
	}
	return r.open(ctx, id, ev.ConversationID, text, true)
}

// open opens the thread of escalation id and records the outcome. Every handler of the
// escalation gets here until its thread is recorded, and reconcile after it was uncertain: the
// request is built from what the escalation stores, never from the event at hand, so each of
// them asks for the same write. The ledger lets one of them call the desk and hands the others
// its outcome, uncertain included, without a call (and, once a Resume or a person has settled an
// uncertain thread, the thread). repeat says whether an outcome another handler recorded first
// counts as a repeat request.
func (r *Relay) open(ctx context.Context, id int64, conv, text string, repeat bool) error {
	create := func() (*runtime.Receipt[support.Thread], error) {
		return r.cfg.Support.CreateThread(ctx, support.CreateThreadKey{EscalationID: id}, support.NewThread{
			ConversationID: conv,
			Subject:        "Escalation " + strconv.FormatInt(id, 10) + ": " + firstLine(text),
		})
	}
	rec, err := create()
	switch {
	case err == nil:
		return r.recordThread(ctx, id, rec, repeat)
	case errors.Is(err, runtime.ErrUncertain):
		// Listed by "writegen ledger list" for a person, and driven on by Resume while the desk's
		// key or search can still settle it; never retried into a second thread.
		changed, serr := r.setStatus(ctx, id, "uncertain", err, repeat, func(s *Stats) { s.Uncertain++ })
		if serr != nil || !changed {
			return serr
		}
		// A Resume may have settled the row between the call's end and the status: its
		// reconcile did not see the escalation uncertain yet. One more look at the ledger
		// closes the gap (a Resume that settles the row later reconciles it).
		if rec, err := create(); err == nil {
			return r.recordThread(ctx, id, rec, false)
		}
		return nil
	case errors.Is(err, runtime.ErrRejected), errors.Is(err, runtime.ErrKeyConflict), errors.Is(err, runtime.ErrCompensated):
		// For good: the desk refused the request, the key holds another request (a bug of ours),
		// or the thread was undone.
		_, serr := r.setStatus(ctx, id, "failed", err, repeat, func(s *Stats) { s.Failed++ })
		return serr
	case errors.Is(err, runtime.ErrNotApplied):
		// Nothing happened and the key is free: the inbox tries again later, with the same key.
		r.count(func(s *Stats) { s.NotApplied++ })
		return fmt.Errorf("relay: escalation %d: %w", id, err)
	}
	return err // another caller's call still running, or the ledger failing: tried again
}

// recordThread stores the thread on the escalation and, in the same transaction, the obligations
// to post the user's request into it and to note where it came from. It counts only what was committed.
func (r *Relay) recordThread(ctx context.Context, id int64, rec *runtime.Receipt[support.Thread], repeat bool) error {
	var recorded bool
	var was string
	err := r.ledger.InTx(ctx, func(tx ledger.Querier) error {
		if _, err := queryRow(ctx, tx, selectStatus, []any{id}, &was); err != nil {
			return err
		}
		n, err := tx.Exec(ctx, recordThread, id, rec.ID, r.now())
		if err != nil || n == 0 {
			return err // n == 0: recorded by another handler of the same escalation
		}
		var text, conv string
		if _, err := queryRow(ctx, tx, `SELECT request_text, conversation_id FROM relay_escalations WHERE id = $1`, []any{id}, &text, &conv); err != nil {
			return err
		}
		payload, err := json.Marshal(opening{ThreadID: rec.ID, Text: text})
		if err != nil {
			return err
		}
		note, err := json.Marshal(opening{ThreadID: rec.ID, Text: "Escalated from chat conversation " + conv + "."})
		if err != nil {
			return err
		}
		recorded = true
		if err := r.ledger.EnqueueOn(ctx, tx, ledger.Obligation{
			Scope:     outboxWrites[opPostMessage].Scope,
			Operation: opPostMessage,
			DedupeKey: openingPrefix + strconv.FormatInt(id, 10),
			Payload:   payload,
		}); err != nil {
			return err
		}
		return r.ledger.EnqueueOn(ctx, tx, ledger.Obligation{
			Scope:     outboxWrites[opAddNote].Scope,
			Operation: opAddNote,
			DedupeKey: notePrefix + strconv.FormatInt(id, 10),
			Payload:   note,
		})
	})
	switch {
	case err != nil:
		return fmt.Errorf("relay: record the thread of escalation %d: %w", id, err)
	case recorded:
		r.count(func(s *Stats) {
			s.Threads++
			switch rec.Source {
			case runtime.AdoptedLookup:
				s.FromLookup++
			case runtime.AdoptedLedger:
				s.FromLedger++
			}
			if was == "uncertain" {
				s.Reconciled++
			}
		})
	case repeat:
		r.count(func(s *Stats) { s.Repeats++ })
	}
	return nil
}

// setStatus records why an escalation has no thread, and reports whether its status changed;
// counted runs when it did.
func (r *Relay) setStatus(ctx context.Context, id int64, status string, cause error, repeat bool, counted func(*Stats)) (bool, error) {
	n, err := r.ledger.Querier().Exec(ctx, recordStatus, id, status, cause.Error(), r.now())
	switch {
	case err != nil:
		return false, fmt.Errorf("relay: record escalation %d as %s: %w", id, status, err)
	case n > 0:
		r.count(counted)
	case repeat:
		// Recorded by another handler of the same escalation.
		r.count(func(s *Stats) { s.Repeats++ })
	}
	return n > 0, nil
}

// escalationRequested is the body of the chat platform's escalation.requested webhook: the user
// asked for a person.
type escalationRequested struct {
	EventID        string `json:"event_id"`
	ConversationID string `json:"conversation_id"`
	Text           string `json:"text"` // what the user wrote
}

// replyCreated is the body of the support desk's reply.created webhook: an agent replied in a
// thread. The desk sends back the conversation the thread was opened for.
type replyCreated struct {
	EventID        string          `json:"event_id"`
	ThreadID       string          `json:"thread_id"`
	ConversationID string          `json:"conversation_id"`
	Message        support.Message `json:"message"`
}

// opening is the payload of the obligation to post the user's request into the thread.
type opening struct {
	ThreadID string `json:"thread_id"`
	Text     string `json:"text"`
}

// answer is the payload of the obligation to post the first reply into the conversation.
type answer struct {
	ConversationID string `json:"conversation_id"`
	ReplyID        string `json:"reply_id"`
	Author         string `json:"author"`
	Text           string `json:"text"`
}

// reply handles a reply.created event: the first reply of a conversation is queued for delivery,
// in the transaction that marks it the first.
func (r *Relay) reply(ctx context.Context, e ledger.Event) error {
	var ev replyCreated
	if err := json.Unmarshal(e.Body, &ev); err != nil || ev.ConversationID == "" {
		r.logger().WarnContext(ctx, "relay: unreadable reply event", "event", e.EventID, "err", err)
		return nil
	}
	r.count(func(s *Stats) { s.Replies++ })
	var first bool
	err := r.ledger.InTx(ctx, func(tx ledger.Querier) error {
		var id int64
		var err error
		first, err = queryRow(ctx, tx, claimFirstReply, []any{ev.ConversationID, ev.Message.ID, r.now()}, &id)
		if err != nil || !first {
			return err
		}
		payload, err := json.Marshal(answer{ConversationID: ev.ConversationID, ReplyID: ev.Message.ID, Author: ev.Message.Author, Text: ev.Message.Text})
		if err != nil {
			return err
		}
		return r.ledger.EnqueueOn(ctx, tx, ledger.Obligation{
			Scope:     outboxWrites[opPostToChat].Scope,
			Operation: opPostToChat,
			DedupeKey: firstReplyPref + strconv.FormatInt(id, 10),
			Payload:   payload,
		})
	})
	switch {
	case err != nil:
		return fmt.Errorf("relay: reply %s: %w", ev.Message.ID, err)
	case first:
		r.count(func(s *Stats) { s.FirstReplies++ })
	default:
		r.count(func(s *Stats) { s.LaterReplies++ })
	}
	return nil
}

// send delivers one obligation with its dedupe key as the business key.
func (r *Relay) send(ctx context.Context, it ledger.OutboxItem) (ledger.Delivery, error) {
	var d ledger.Delivery
	var err error
	switch it.Operation {
	case opPostMessage:
		var p opening
		if err := json.Unmarshal(it.Payload, &p); err != nil {
			return d, err
		}
		d, err = delivered(r.cfg.Support.PostMessage(ctx, support.PostMessageKey{DedupeKey: it.DedupeKey},
			support.PostMessageParams{ThreadID: p.ThreadID}, support.NewMessage{Author: "customer", Text: p.Text}))
	case opAddNote:
		var p opening
		if err := json.Unmarshal(it.Payload, &p); err != nil {
			return d, err
		}
		d, err = delivered(r.cfg.Support.AddNote(ctx, support.AddNoteKey{DedupeKey: it.DedupeKey},
			support.AddNoteParams{ThreadID: p.ThreadID}, support.NewNote{Text: p.Text}))
	case opPostToChat:
		var p answer
		if err := json.Unmarshal(it.Payload, &p); err != nil {
			return d, err
		}
		d, err = delivered(r.cfg.Chat.PostConversationMessage(ctx, chat.PostConversationMessageKey{DedupeKey: it.DedupeKey},
			chat.PostConversationMessageParams{ConversationID: p.ConversationID},
			chat.NewChatMessage{Author: p.Author, Text: p.Text, InReplyTo: &p.ReplyID}))
	default:
		return d, fmt.Errorf("relay: unknown obligation %s", it.Operation)
	}
	r.count(func(s *Stats) {
		switch {
		case err == nil:
			s.Sent++
		case errors.Is(err, runtime.ErrUncertain):
			s.SendUncertain++
		}
	})
	return d, err
}

// delivered turns a receipt into what the outbox stores.
func delivered[T any](rec *runtime.Receipt[T], err error) (ledger.Delivery, error) {
	if err != nil {
		return ledger.Delivery{}, err
	}
	body, err := json.Marshal(rec.Body)
	return ledger.Delivery{ProviderID: rec.ID, Status: rec.Status, Body: body}, err
}

// firstLine returns the first line of s, at most 60 characters of it.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60])
	}
	return s
}
