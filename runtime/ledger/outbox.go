package ledger

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/writegen/writegen/runtime"
)

// Obligation is a write recorded now, in the caller's transaction, and
// sent later by an Outbox.
type Obligation struct {
	// Scope and Tenant say whose obligation it is, as a claim's identity
	// does: the provider scope of the client that will send it and the
	// tenant it sends for (runtime.WithTenant), "" for one. The same
	// operation and dedupe key of two scopes or tenants are two obligations.
	// An Outbox leases the items of every scope and tenant: its Sender sends
	// each with the client of item.Scope and item.Tenant.
	Scope, Tenant string
	Operation     string // the operation to call, e.g. "createThread"
	// DedupeKey is unique per scope, tenant and operation: recording it
	// twice records one obligation, and the sender uses it as the
	// provider's idempotency key (with a generated client: as the business
	// key) on every try.
	DedupeKey string
	Payload   []byte // what the sender needs to build the request
}

// OutboxState is the state of an outbox item.
type OutboxState string

// The states of an outbox item. An item is pending until it is sent or
// ends otherwise; the other states are final.
const (
	OutboxPending   OutboxState = "pending"
	OutboxSent      OutboxState = "sent"      // the receipt is stored
	OutboxRejected  OutboxState = "rejected"  // the provider refused (runtime.ErrRejected)
	OutboxUncertain OutboxState = "uncertain" // the send ended uncertain (runtime.ErrUncertain)
	OutboxFailed    OutboxState = "failed"    // WorkerOptions.MaxAttempts were spent
)

// OutboxItem is one obligation and what became of it.
type OutboxItem struct {
	ID int64
	Obligation
	State     OutboxState
	Attempts  int // including the one being made
	LastError string
	Delivery  // the receipt once sent, or the provider's refusal
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Delivery is what a sender got from the provider.
type Delivery struct {
	ProviderID string // the durable id of the effect; an attribute of the item
	Status     int
	Body       []byte
}

// Sender sends one item, with item.DedupeKey as the provider's idempotency
// key. Its error decides what becomes of the item:
//
//   - one matching runtime.ErrUncertain ends it as uncertain: the runtime
//     found no safe way to learn or repeat the outcome, and the outbox does
//     not guess either (a person reconciles the item, as a direct write);
//   - one matching runtime.ErrRejected ends it as rejected (a
//     *runtime.StatusError's status and body are kept), except 408, 409,
//     425 and 429, which say "later";
//   - any other error, such as runtime.ErrNotApplied, or a panic, is retried
//     after a backoff, with the same key.
type Sender func(ctx context.Context, item OutboxItem) (Delivery, error)

// EnqueueOn records ob with the statement runner q, which is meant to be
// the caller's own transaction, so that the obligation is committed or
// rolled back with the caller's work. An obligation whose (scope, tenant,
// operation, dedupe key) is already recorded is not recorded again. sqlite.Ledger and
// postgres.Ledger have an Enqueue that takes their driver's transaction.
func (l *Ledger) EnqueueOn(ctx context.Context, q Querier, ob Obligation) error {
	if ob.Operation == "" || ob.DedupeKey == "" {
		return fmt.Errorf("ledger: enqueue needs an operation and a dedupe key (got %q, %q)", ob.Operation, ob.DedupeKey)
	}
	_, err := q.Exec(ctx, l.q.outboxInsert, ob.Scope, ob.Tenant, ob.Operation, ob.DedupeKey, bytes(ob.Payload), micros(l.clock.Now()), l.leaseNow())
	if err != nil {
		return fmt.Errorf("ledger: enqueue %s %q: %w", ob.Operation, ob.DedupeKey, err)
	}
	return nil
}

// Outbox sends recorded obligations. Several outboxes, in one process or
// many, may work on one database.
type Outbox struct {
	l    *Ledger
	send Sender
	o    WorkerOptions
}

// Outbox returns a worker that sends the ledger's obligations with send.
func (l *Ledger) Outbox(send Sender, o WorkerOptions) *Outbox {
	return &Outbox{l: l, send: send, o: o.withDefaults()}
}

// Run sends due items until ctx ends, then returns ctx.Err().
func (ob *Outbox) Run(ctx context.Context) error { return run(ctx, ob.o, nil, ob.sendOne) }

// SendDue sends the items that are due now, one at a time, and returns how
// many it tried.
func (ob *Outbox) SendDue(ctx context.Context) (int, error) { return drain(ctx, ob.sendOne) }

// sendOne leases one due item and sends it.
func (ob *Outbox) sendOne(ctx context.Context) (bool, error) {
	l := ob.l
	rows, err := l.conn.Query(ctx, l.q.outboxLease, ob.o.Name, ob.o.Lease.Microseconds(), micros(l.clock.Now()), l.leaseNow())
	if err != nil {
		return false, fmt.Errorf("ledger: outbox: lease: %w", err)
	}
	items, err := scanAll(rows, scanOutboxItem)
	if err != nil || len(items) == 0 {
		return false, err
	}
	it := items[0]
	d, err := ob.sendItem(ctx, it)
	stopping := ctx.Err() != nil
	// The outcome is recorded even when the worker is stopping.
	return true, ob.record(context.WithoutCancel(ctx), it, d, err, stopping)
}

// sendItem sends it within the lease, and turns a panic of the sender
// into an error: the item is tried again, with the same key.
func (ob *Outbox) sendItem(ctx context.Context, it OutboxItem) (d Delivery, err error) {
	ctx, cancel := context.WithTimeout(ctx, ob.o.Lease)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			ob.o.Logger.ErrorContext(ctx, "ledger outbox: sender panicked", "item", it.ID, "attempt", it.Attempts,
				"panic", v, "stack", string(debug.Stack()))
			d, err = Delivery{}, fmt.Errorf("sender panicked: %v", v)
		}
	}()
	return ob.send(ctx, it)
}

// record ends item it as the send's outcome says, or schedules another try.
func (ob *Outbox) record(ctx context.Context, it OutboxItem, d Delivery, sendErr error, stopping bool) error {
	to := OutboxSent
	var se *runtime.StatusError
	switch {
	case sendErr == nil:
	case stopping:
		// Tried again soon, with the same key, by whichever worker runs.
		return ob.retry(ctx, it, sendErr, 0)
	case errors.Is(sendErr, runtime.ErrUncertain):
		to = OutboxUncertain
	case errors.As(sendErr, &se) && later(se.Status):
		return ob.retry(ctx, it, sendErr, ob.o.Backoff(it.Attempts))
	case errors.Is(sendErr, runtime.ErrRejected):
		to = OutboxRejected
		if errors.As(sendErr, &se) && d.Status == 0 {
			d.Status, d.Body = se.Status, se.Body
		}
	case ob.o.MaxAttempts > 0 && it.Attempts >= ob.o.MaxAttempts:
		to = OutboxFailed
	default:
		return ob.retry(ctx, it, sendErr, ob.o.Backoff(it.Attempts))
	}
	l := ob.l
	n, err := l.conn.Exec(ctx, outboxFinish, it.ID, string(to), d.ProviderID, d.Status, bytes(d.Body),
		errorText(sendErr), micros(l.clock.Now()), ob.o.Name)
	if err != nil {
		return fmt.Errorf("ledger: outbox: record item %d as %s: %w", it.ID, to, err)
	}
	if n == 0 {
		ob.o.Logger.WarnContext(ctx, "ledger outbox: the item's lease passed while it was sent, and another worker holds it: its outcome is that worker's",
			"item", it.ID, "attempt", it.Attempts, "outcome", string(to))
	}
	return nil
}

// later reports whether a status asks to try again later: the request was
// not performed, or not yet.
func later(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	}
	return false
}

func (ob *Outbox) retry(ctx context.Context, it OutboxItem, sendErr error, after time.Duration) error {
	if err := ob.l.reschedule(ctx, ob.l.q.outboxRetry, it.ID, ob.o.Name, sendErr, after); err != nil {
		return fmt.Errorf("ledger: outbox: reschedule item %d: %w", it.ID, err)
	}
	return nil
}

// OutboxItems returns the items in state, oldest first.
func (l *Ledger) OutboxItems(ctx context.Context, state OutboxState) ([]OutboxItem, error) {
	rows, err := l.conn.Query(ctx, outboxByState, string(state))
	if err != nil {
		return nil, fmt.Errorf("ledger: outbox items %s: %w", state, err)
	}
	return scanAll(rows, scanOutboxItem)
}

// OutboxItem returns the outbox item id.
func (l *Ledger) OutboxItem(ctx context.Context, id int64) (OutboxItem, error) {
	rows, err := l.conn.Query(ctx, outboxByID, id)
	if err != nil {
		return OutboxItem{}, fmt.Errorf("ledger: outbox item %d: %w", id, err)
	}
	its, err := scanAll(rows, scanOutboxItem)
	if err != nil {
		return OutboxItem{}, fmt.Errorf("ledger: outbox item %d: %w", id, err)
	}
	if len(its) == 0 {
		return OutboxItem{}, fmt.Errorf("ledger: there is no outbox item %d", id)
	}
	return its[0], nil
}

// RedriveOutbox makes the uncertain outbox item id pending again, due at
// once: the next worker sends it with the same dedupe key. A person (or a
// program that knows) asks for it, with a reason kept in the item's last
// error, when sending again cannot make a second effect: the sender's
// write is deduplicated in the ledger (its own row answers once it is
// settled, without calling the provider), or the provider still keeps the
// key. Otherwise find out at the provider first. Any other state is
// refused with ErrTransition.
func (l *Ledger) RedriveOutbox(ctx context.Context, id int64, reason string) error {
	if strings.TrimSpace(reason) == "" {
		return fmt.Errorf("ledger: redrive outbox item %d: a reason is required", id)
	}
	it, err := l.OutboxItem(ctx, id)
	if err != nil {
		return err
	}
	n, err := l.conn.Exec(ctx, l.q.outboxRedrive, id, redriveNote("re-driven: "+reason, it.LastError), micros(l.clock.Now()), l.leaseNow())
	if err != nil {
		return fmt.Errorf("ledger: redrive outbox item %d: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("ledger: outbox item %d is %s, not uncertain: %w", id, it.State, ErrTransition)
	}
	return nil
}

func scanOutboxItem(s scanner) (OutboxItem, error) {
	var it OutboxItem
	var state string
	var created, updated int64
	err := s.Scan(&it.ID, &it.Scope, &it.Tenant, &it.Operation, &it.DedupeKey, &it.Payload, &state, &it.Attempts, &it.LastError,
		&it.ProviderID, &it.Status, &it.Body, &created, &updated)
	it.State, it.CreatedAt, it.UpdatedAt = OutboxState(state), fromMicros(created), fromMicros(updated)
	return it, err
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
