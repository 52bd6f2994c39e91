package ledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// Order says how an inbox handles events that arrive out of order.
type Order uint8

// The orders. InOrder and Latest need InboxConfig.Sequence.
const (
	// AnyOrder handles every event once, in whatever order, several at a
	// time when there are several workers.
	AnyOrder Order = iota
	// InOrder handles the events of one ordering key one at a time, lowest
	// sequence first among those received; an event that arrives after a
	// later one was handled is still handled.
	InOrder
	// Latest is InOrder, except that an event that arrives after one with
	// the same or a higher sequence was handled is skipped, not handled.
	Latest
)

// orders are the words of the orders, as the annotation file writes them.
var orders = [...]string{AnyOrder: "any", InOrder: "in_order", Latest: "latest"}

// String returns the order's word: "any", "in_order" or "latest".
func (o Order) String() string {
	if int(o) < len(orders) {
		return orders[o]
	}
	return "Order(" + strconv.Itoa(int(o)) + ")"
}

// ParseOrder returns the order a word names: "any", "in_order" or
// "latest".
func ParseOrder(s string) (Order, error) {
	for o, w := range orders {
		if s == w {
			return Order(o), nil
		}
	}
	return 0, fmt.Errorf("ledger: order %q: want any, in_order or latest", s)
}

// EventState is the state of an inbox event.
type EventState string

// The states of an inbox event.
const (
	EventPending EventState = "pending" // stored, not handled yet
	EventDone    EventState = "done"    // handled
	EventSkipped EventState = "skipped" // older than an event already handled (Latest)
	EventFailed  EventState = "failed"  // WorkerOptions.MaxAttempts were spent
)

// Event is one stored webhook delivery.
type Event struct {
	ID         int64  // the inbox's own id
	Source     string // InboxConfig.Source
	EventID    string // the provider's id of the event
	OrderKey   string // "" when the event is not ordered
	Seq        int64
	Body       []byte
	State      EventState
	Attempts   int // including the one being made
	LastError  string
	ReceivedAt time.Time
}

// InboxConfig configures an Inbox.
type InboxConfig struct {
	// Source names the provider; event ids are unique per source. A
	// program that receives one provider's webhooks for several tenants,
	// whose event ids may repeat from one tenant to another, gives each
	// tenant's inbox a source of its own ("desk/acme"): events of one
	// source with the same id are one event.
	Source string
	// Verifier authenticates deliveries; required.
	Verifier Verifier
	// Handle does the work of one event. It runs after the delivery was
	// answered, at least once per event: an error is retried after a
	// backoff, and a crash after the work but before it was recorded runs
	// it again. A panic is recovered and counts as a failed attempt, so a
	// poison event is set aside as failed after MaxAttempts while the
	// worker goes on with the others.
	Handle func(ctx context.Context, e Event) error
	// Order says how events that arrive out of order are handled.
	Order Order
	// Sequence returns an event's ordering key and its position in that
	// key's sequence; a key of "" leaves the event unordered. Required with
	// InOrder and Latest; a delivery it fails on is answered 400.
	Sequence func(body []byte) (key string, seq int64, err error)
	// Retention is how long event ids are kept to recognise a provider's
	// retries; it must be at least as long as the provider retries, and at
	// least twice the verifier's signature tolerance (see Verifier), or a
	// replayed delivery could be accepted after its event was forgotten.
	// Default 72 hours.
	Retention time.Duration
	// MaxBody is the largest delivery accepted, in bytes; default 1 MiB.
	MaxBody int64
	WorkerOptions
}

// Inbox receives a provider's webhooks (it is an http.Handler) and hands
// the events to InboxConfig.Handle (Run or HandleDue).
type Inbox struct {
	l    *Ledger
	cfg  InboxConfig
	wake chan struct{} // a new event is stored; buffered, never blocks
}

// Inbox returns an inbox for cfg.Source.
func (l *Ledger) Inbox(cfg InboxConfig) (*Inbox, error) {
	switch {
	case cfg.Source == "":
		return nil, errors.New("ledger: inbox: a source is required")
	case cfg.Verifier == nil:
		return nil, fmt.Errorf("ledger: inbox %s: a verifier is required", cfg.Source)
	case cfg.Handle == nil:
		return nil, fmt.Errorf("ledger: inbox %s: a handler is required", cfg.Source)
	case cfg.Order != AnyOrder && cfg.Sequence == nil:
		return nil, fmt.Errorf("ledger: inbox %s: an ordered inbox needs a Sequence function", cfg.Source)
	}
	if cfg.Order == AnyOrder {
		cfg.Sequence = nil
	}
	if cfg.Retention <= 0 {
		cfg.Retention = 72 * time.Hour
	}
	if t, ok := cfg.Verifier.(tolerant); ok {
		// A delivery signed at ts verifies while now is within the tolerance
		// of ts, and may arrive as early as ts minus the tolerance: its id
		// must be kept for twice the tolerance after it arrived.
		if tol := t.Tolerance(); cfg.Retention < 2*tol {
			return nil, fmt.Errorf("ledger: inbox %s: retention %s is shorter than twice the verifier's signature tolerance (%s): "+
				"a replayed delivery would verify after its event id was pruned, and run the handler again", cfg.Source, cfg.Retention, tol)
		}
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 1 << 20
	}
	cfg.WorkerOptions = cfg.WorkerOptions.withDefaults()
	return &Inbox{l: l, cfg: cfg, wake: make(chan struct{}, 1)}, nil
}

// ServeHTTP verifies a delivery, stores its event once per event id and
// answers 204 before any work is done; a delivery of an event already
// stored is answered 204 too. A bad signature is answered 401.
func (in *Inbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, in.cfg.MaxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "delivery too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "cannot read the delivery", http.StatusBadRequest)
		}
		return
	}
	now := in.l.clock.Now()
	eventID, err := in.cfg.Verifier.Verify(r.Header, body, now)
	if err != nil {
		if errors.Is(err, ErrSignature) {
			http.Error(w, "signature does not verify", http.StatusUnauthorized)
		} else {
			http.Error(w, "bad delivery", http.StatusBadRequest)
		}
		return
	}
	var key string
	var seq int64
	if in.cfg.Sequence != nil {
		if key, seq, err = in.cfg.Sequence(body); err != nil {
			http.Error(w, "event has no sequence: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	if _, err := in.l.conn.Exec(r.Context(), in.l.q.inboxInsert, in.cfg.Source, eventID, key, seq, body, micros(now), in.l.leaseNow()); err != nil {
		in.cfg.Logger.ErrorContext(r.Context(), "ledger inbox: store event", "source", in.cfg.Source, "event", eventID, "err", err)
		http.Error(w, "cannot store the event", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// Run handles due events until ctx ends, and prunes events older than the
// retention every hour; it returns ctx.Err().
func (in *Inbox) Run(ctx context.Context) error {
	var pruner sync.WaitGroup
	defer pruner.Wait()
	pruner.Go(func() {
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		for {
			if _, err := in.Prune(ctx); err != nil && ctx.Err() == nil {
				in.cfg.Logger.ErrorContext(ctx, "ledger inbox: prune", "source", in.cfg.Source, "err", err)
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	})
	return run(ctx, in.cfg.WorkerOptions, in.wake, in.handleOne)
}

// HandleDue handles the events that are due now, one at a time, and
// returns how many it took.
func (in *Inbox) HandleDue(ctx context.Context) (int, error) { return drain(ctx, in.handleOne) }

// Prune forgets the handled and skipped events received longer than the
// retention ago (keeping the newest handled event of each ordering key) and
// returns how many it removed.
func (in *Inbox) Prune(ctx context.Context) (int64, error) {
	n, err := in.l.conn.Exec(ctx, in.l.q.inboxPrune, in.cfg.Source, in.cfg.Retention.Microseconds(), in.l.leaseNow())
	if err != nil {
		return 0, fmt.Errorf("ledger: inbox %s: prune: %w", in.cfg.Source, err)
	}
	return n, nil
}

// handleOne leases one due event and handles it.
func (in *Inbox) handleOne(ctx context.Context) (bool, error) {
	l, o := in.l, in.cfg.WorkerOptions
	rows, err := l.conn.Query(ctx, l.q.inboxLease, in.cfg.Source, o.Name, o.Lease.Microseconds(), micros(l.clock.Now()), l.leaseNow())
	if err != nil {
		return false, fmt.Errorf("ledger: inbox %s: lease: %w", in.cfg.Source, err)
	}
	events, err := scanAll(rows, scanEvent)
	if err != nil || len(events) == 0 {
		return false, err
	}
	e := events[0]
	if in.cfg.Order == Latest && e.OrderKey != "" {
		var later int
		if _, err := queryRow(ctx, l.conn, inboxHandledSince, e.Source, e.OrderKey, e.Seq)(&later); err != nil {
			return true, fmt.Errorf("ledger: inbox %s: event %q: %w", in.cfg.Source, e.EventID, err)
		}
		if later > 0 {
			return true, in.finish(ctx, e, EventSkipped, nil)
		}
	}
	err = in.handle(ctx, e)
	stopping := ctx.Err() != nil
	ctx = context.WithoutCancel(ctx) // the outcome is recorded even when the worker is stopping
	switch {
	case err == nil:
		return true, in.finish(ctx, e, EventDone, nil)
	case stopping:
		return true, in.retry(ctx, e, err, 0)
	case o.MaxAttempts > 0 && e.Attempts >= o.MaxAttempts:
		return true, in.finish(ctx, e, EventFailed, err)
	}
	return true, in.retry(ctx, e, err, o.Backoff(e.Attempts))
}

// handle runs the handler on e, within the lease, and turns a panic into
// an error.
func (in *Inbox) handle(ctx context.Context, e Event) (err error) {
	ctx, cancel := context.WithTimeout(ctx, in.cfg.Lease)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			in.cfg.Logger.ErrorContext(ctx, "ledger inbox: handler panicked", "source", in.cfg.Source,
				"event", e.EventID, "attempt", e.Attempts, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("handler panicked: %v", v)
		}
	}()
	return in.cfg.Handle(ctx, e)
}

func (in *Inbox) finish(ctx context.Context, e Event, to EventState, handleErr error) error {
	l := in.l
	n, err := l.conn.Exec(ctx, inboxFinish, e.ID, string(to), errorText(handleErr), micros(l.clock.Now()), in.cfg.Name)
	if err != nil {
		return fmt.Errorf("ledger: inbox %s: record event %q as %s: %w", in.cfg.Source, e.EventID, to, err)
	}
	if n == 0 {
		in.cfg.Logger.WarnContext(ctx, "ledger inbox: the event's lease passed while it was handled, and another worker holds it: its outcome is that worker's",
			"source", in.cfg.Source, "event", e.EventID, "attempt", e.Attempts, "outcome", string(to))
	}
	return nil
}

func (in *Inbox) retry(ctx context.Context, e Event, handleErr error, after time.Duration) error {
	if err := in.l.reschedule(ctx, in.l.q.inboxRetry, e.ID, in.cfg.Name, handleErr, after); err != nil {
		return fmt.Errorf("ledger: inbox %s: reschedule event %q: %w", in.cfg.Source, e.EventID, err)
	}
	return nil
}

// Events returns the events of source in state, oldest first.
func (l *Ledger) Events(ctx context.Context, source string, state EventState) ([]Event, error) {
	rows, err := l.conn.Query(ctx, inboxByState, source, string(state))
	if err != nil {
		return nil, fmt.Errorf("ledger: inbox %s: events %s: %w", source, state, err)
	}
	return scanAll(rows, scanEvent)
}

// EventSources returns the sources of the events in the inbox.
func (l *Ledger) EventSources(ctx context.Context) ([]string, error) {
	rows, err := l.conn.Query(ctx, inboxSources)
	if err != nil {
		return nil, fmt.Errorf("ledger: inbox sources: %w", err)
	}
	return scanAll(rows, func(s scanner) (src string, err error) { return src, s.Scan(&src) })
}

func scanEvent(s scanner) (Event, error) {
	var e Event
	var state string
	var received int64
	err := s.Scan(&e.ID, &e.Source, &e.EventID, &e.OrderKey, &e.Seq, &e.Body, &state, &e.Attempts,
		&e.LastError, &received)
	e.State, e.ReceivedAt = EventState(state), fromMicros(received)
	return e, err
}
