package ledger

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/writegen/writegen/runtime"
)

// ErrNotFound is returned for a row that does not exist.
var ErrNotFound = errors.New("ledger: no such row")

// ErrTransition is matched by every *TransitionError.
var ErrTransition = errors.New("ledger: state transition refused")

// TransitionError reports a state change the ledger refuses: settling a
// row that is not claimed, or resolving one that is not uncertain.
type TransitionError struct {
	ID   int64
	From runtime.State // the row's state
	To   runtime.State // the state asked for
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("ledger: row %d is %s: cannot move it to %s", e.ID, e.From, e.To)
}

// Is reports whether target is ErrTransition.
func (e *TransitionError) Is(target error) bool { return target == ErrTransition }

// Ledger implements runtime.Ledger, reconciliation, the outbox and the
// inbox on a database given by a Conn and its Dialect. Programs get one
// from sqlite.Open or postgres.Open. It is safe for concurrent use.
type Ledger struct {
	conn    Conn
	dialect Dialect
	q       queries
	clock   runtime.Clock
	changed signal // broadcast when a claim leaves state claimed in this process
}

var _ runtime.Ledger = (*Ledger)(nil)

// Option configures a Ledger.
type Option func(*Ledger)

// WithClock sets the clock that stamps rows and decides when outbox items
// and inbox events are due. Tests inject one so that no test sleeps.
func WithClock(c runtime.Clock) Option { return func(l *Ledger) { l.clock = c } }

// New migrates the database behind c to the dialect's newest schema and
// returns a Ledger that owns c.
func New(ctx context.Context, c Conn, d Dialect, opts ...Option) (*Ledger, error) {
	l := &Ledger{conn: c, dialect: d, q: newQueries(d), clock: systemClock{}}
	for _, o := range opts {
		o(l)
	}
	if err := l.migrate(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// Close closes the database.
func (l *Ledger) Close() error { return l.conn.Close() }

// Dialect returns the name of the ledger's database: "sqlite" or "postgres".
func (l *Ledger) Dialect() string { return l.dialect.Name }

// Querier returns the ledger's database, for statements on the caller's own
// tables kept beside the ledger's.
func (l *Ledger) Querier() Querier { return l.conn }

// InTx runs fn in a transaction of the ledger's database, committed when fn
// returns nil and rolled back otherwise. The caller's own statements and
// EnqueueOn share it, so an outbox obligation commits or vanishes with the
// work that created it.
func (l *Ledger) InTx(ctx context.Context, fn func(tx Querier) error) error {
	tx, err := l.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("ledger: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}

func (l *Ledger) migrate(ctx context.Context) error {
	tx, err := l.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("ledger: migrate %s: %w", l.dialect.Name, err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if l.dialect.LockMigrations != "" {
		if _, err := tx.Exec(ctx, l.dialect.LockMigrations); err != nil {
			return fmt.Errorf("ledger: migrate %s: lock: %w", l.dialect.Name, err)
		}
	}
	if _, err := tx.Exec(ctx, createVersionTable); err != nil {
		return fmt.Errorf("ledger: migrate %s: %w", l.dialect.Name, err)
	}
	var version int
	if err := queryRow(ctx, tx, selectVersion)(&version); err != nil {
		return fmt.Errorf("ledger: migrate %s: %w", l.dialect.Name, err)
	}
	files, err := fs.Glob(l.dialect.Migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("ledger: migrate %s: %w", l.dialect.Name, err)
	}
	if version > len(files) {
		return fmt.Errorf("ledger: %s schema version %d is newer than this program knows (%d)",
			l.dialect.Name, version, len(files))
	}
	for v := version; v < len(files); v++ {
		migration, err := fs.ReadFile(l.dialect.Migrations, files[v])
		if err != nil {
			return fmt.Errorf("ledger: migrate %s to version %d: %w", l.dialect.Name, v+1, err)
		}
		if _, err := tx.Exec(ctx, string(migration)); err != nil {
			return fmt.Errorf("ledger: migrate %s to version %d: %w", l.dialect.Name, v+1, err)
		}
		if _, err := tx.Exec(ctx, insertVersion, v+1, micros(l.clock.Now())); err != nil {
			return fmt.Errorf("ledger: migrate %s to version %d: %w", l.dialect.Name, v+1, err)
		}
	}
	return tx.Commit(ctx)
}

// SchemaVersion returns the version of the database's schema.
func (l *Ledger) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := queryRow(ctx, l.conn, selectVersion)(&v)
	return v, err
}

// Claim inserts (rec.Operation, rec.BusinessKey) in state claimed with
// rec's provider key, owner and request, unless the pair is there already.
// won reports whether this caller made the row; the returned record is the
// row as stored, the caller's or the one already there.
func (l *Ledger) Claim(ctx context.Context, rec runtime.Record) (runtime.Record, bool, error) {
	if rec.Operation == "" || rec.BusinessKey == "" {
		return runtime.Record{}, false, fmt.Errorf("ledger: claim needs an operation and a business key (got %q, %q)", rec.Operation, rec.BusinessKey)
	}
	now := l.clock.Now()
	rows, err := l.conn.Query(ctx, claimInsert, rec.Operation, rec.BusinessKey, rec.ProviderKey, rec.Owner,
		bytes(rec.Request), micros(now))
	if err != nil {
		return runtime.Record{}, false, fmt.Errorf("ledger: claim %s %q: %w", rec.Operation, rec.BusinessKey, err)
	}
	ids, err := scanAll(rows, scanID)
	if err == nil && len(ids) == 0 {
		// Taken: by a row that may be claimed again only if its call reached nobody.
		rows, err = l.conn.Query(ctx, claimRetake, rec.Operation, rec.BusinessKey, rec.ProviderKey, rec.Owner,
			bytes(rec.Request), bytes(nil), micros(now))
		if err == nil {
			ids, err = scanAll(rows, scanID)
		}
	}
	if err != nil {
		return runtime.Record{}, false, fmt.Errorf("ledger: claim %s %q: %w", rec.Operation, rec.BusinessKey, err)
	}
	if len(ids) == 0 {
		existing, err := l.byKey(ctx, rec.Operation, rec.BusinessKey)
		return existing, false, err
	}
	won := runtime.Record{
		ID: ids[0], Operation: rec.Operation, BusinessKey: rec.BusinessKey, ProviderKey: rec.ProviderKey,
		Owner: rec.Owner, State: runtime.StateClaimed, Request: rec.Request,
		CreatedAt: fromMicros(micros(now)), UpdatedAt: fromMicros(micros(now)),
	}
	return won, true, nil
}

// Await returns the row of (operation, businessKey) once it has left state
// claimed. When ctx ends first it returns an error matching
// runtime.ErrInProgress, with the row as last seen (if it was read).
func (l *Ledger) Await(ctx context.Context, operation, businessKey string) (runtime.Record, error) {
	delay := time.Millisecond
	for {
		changed := l.changed.wait()
		rec, err := l.byKey(ctx, operation, businessKey)
		if ctx.Err() != nil {
			return rec, fmt.Errorf("ledger: %s %q: %w: %w", operation, businessKey, runtime.ErrInProgress, ctx.Err())
		}
		if err != nil || rec.State != runtime.StateClaimed {
			return rec, err
		}
		// Another process may settle the row: look again after a while.
		t := time.NewTimer(delay)
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// Settle moves the claimed row id to state to (active, rejected, not_sent,
// uncertain or compensated) and records s. It fails with a *TransitionError when the
// row is not claimed: a settled row stays settled.
func (l *Ledger) Settle(ctx context.Context, id int64, to runtime.State, s runtime.Settlement) error {
	switch to {
	case runtime.StateActive, runtime.StateRejected, runtime.StateNotSent, runtime.StateUncertain, runtime.StateCompensated:
	default:
		return &TransitionError{ID: id, From: runtime.StateClaimed, To: to}
	}
	n, err := l.conn.Exec(ctx, claimSettle, id, string(to), s.ProviderID, s.Status, bytes(s.Body),
		s.Attempts, s.LastError, micros(l.clock.Now()))
	if err != nil {
		return fmt.Errorf("ledger: settle row %d: %w", id, err)
	}
	if n == 0 {
		return l.refused(ctx, id, to)
	}
	l.changed.broadcast()
	return nil
}

// refused explains why a conditional update of row id changed nothing.
func (l *Ledger) refused(ctx context.Context, id int64, to runtime.State) error {
	rec, err := l.Get(ctx, id)
	if err != nil {
		return err
	}
	return &TransitionError{ID: id, From: rec.State, To: to}
}

// Pending returns the rows of operation ("" for every operation) left
// claimed and untouched since before olderThan, oldest first, for
// runtime.Resume to drive on. It hands each row to one caller: the rows it
// returns count as touched now, so a concurrent Pending with the same
// threshold, in this process or another, does not return them again.
func (l *Ledger) Pending(ctx context.Context, operation string, olderThan time.Time) ([]runtime.Record, error) {
	rows, err := l.conn.Query(ctx, claimsTakePending, operation, micros(olderThan), micros(l.clock.Now()))
	if err != nil {
		return nil, fmt.Errorf("ledger: pending %s: %w", operation, err)
	}
	recs, err := scanAll(rows, scanRecord)
	if err != nil {
		return nil, fmt.Errorf("ledger: pending %s: %w", operation, err)
	}
	slices.SortFunc(recs, func(a, b runtime.Record) int { return int(a.ID - b.ID) })
	return recs, nil
}

// Get returns row id, or an error matching ErrNotFound.
func (l *Ledger) Get(ctx context.Context, id int64) (runtime.Record, error) {
	return l.one(ctx, fmt.Sprintf("row %d", id), claimByID, id)
}

func (l *Ledger) byKey(ctx context.Context, operation, businessKey string) (runtime.Record, error) {
	return l.one(ctx, fmt.Sprintf("%s %q", operation, businessKey), claimByKey, operation, businessKey)
}

func (l *Ledger) one(ctx context.Context, what, query string, args ...any) (runtime.Record, error) {
	rows, err := l.conn.Query(ctx, query, args...)
	if err != nil {
		return runtime.Record{}, fmt.Errorf("ledger: read %s: %w", what, err)
	}
	recs, err := scanAll(rows, scanRecord)
	if err != nil {
		return runtime.Record{}, fmt.Errorf("ledger: read %s: %w", what, err)
	}
	if len(recs) == 0 {
		return runtime.Record{}, fmt.Errorf("%w: %s", ErrNotFound, what)
	}
	return recs[0], nil
}

// List returns the rows in state, oldest first: List(ctx,
// runtime.StateUncertain) is what a person reconciles.
func (l *Ledger) List(ctx context.Context, state runtime.State) ([]runtime.Record, error) {
	rows, err := l.conn.Query(ctx, claimsByState, string(state))
	if err != nil {
		return nil, fmt.Errorf("ledger: list %s: %w", state, err)
	}
	return scanAll(rows, scanRecord)
}

// Resolution is a person's answer for an uncertain row.
type Resolution struct {
	// Committed reports that the effect exists at the provider: the row
	// becomes active with ProviderID. Otherwise the effect was not applied
	// and the row becomes rejected.
	Committed  bool
	ProviderID string // the provider's id of the effect; required when Committed
	Reason     string // how the person knows; required
}

// Resolve settles the uncertain row id with a person's answer, which
// replaces the row's last error. It fails with a *TransitionError when the
// row is not uncertain.
func (l *Ledger) Resolve(ctx context.Context, id int64, r Resolution) error {
	to := runtime.StateRejected
	if r.Committed {
		to = runtime.StateActive
		if r.ProviderID == "" {
			return fmt.Errorf("ledger: resolve row %d: a committed effect needs the provider's id", id)
		}
	} else if r.ProviderID != "" {
		return fmt.Errorf("ledger: resolve row %d: an effect that was not applied has no provider id", id)
	}
	if r.Reason == "" {
		return fmt.Errorf("ledger: resolve row %d: a reason is required", id)
	}
	note := "resolved by a person as not applied: " + r.Reason
	if r.Committed {
		note = "resolved by a person as committed: " + r.Reason
	}
	n, err := l.conn.Exec(ctx, claimResolve, id, string(to), r.ProviderID, note, micros(l.clock.Now()))
	if err != nil {
		return fmt.Errorf("ledger: resolve row %d: %w", id, err)
	}
	if n == 0 {
		return l.refused(ctx, id, to)
	}
	return nil
}

func scanRecord(s scanner) (runtime.Record, error) {
	var r runtime.Record
	var state string
	var created, updated int64
	err := s.Scan(&r.ID, &r.Operation, &r.BusinessKey, &r.ProviderKey, &r.Owner, &state, &r.ProviderID,
		&r.Status, &r.Body, &r.Request, &r.Attempts, &r.LastError, &created, &updated)
	r.State, r.CreatedAt, r.UpdatedAt = runtime.State(state), fromMicros(created), fromMicros(updated)
	return r, err
}

// signal wakes every goroutine waiting at the time of a broadcast.
type signal struct {
	mu sync.Mutex
	ch chan struct{} // closed by the next broadcast; guarded by mu
}

func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *signal) broadcast() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}
