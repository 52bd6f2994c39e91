package ledger

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
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
	clock   runtime.Clock // the process's: stamps rows
	db      runtime.Clock // stands for the database's clock, when a test gave one (WithClock); nil: the database's own
	driver  []any         // what WithDriver passed; read by the database packages
	changed signal        // broadcast when a claim leaves state claimed in this process
	group   *group        // commits the claims and settlements made together

	mu           sync.Mutex       // guards incarnations
	incarnations map[string]int64 // the run of each instance that Incarnate numbered
}

var _ runtime.Ledger = (*Ledger)(nil)

// Option configures a Ledger.
type Option func(*Ledger)

// WithClock replaces both clocks of the ledger: the process's, which
// stamps rows (WithProcessClock), and the database's, which sets and judges
// the leases of claims, outbox items and inbox events and says when items
// and events are due. Tests give one so that no test sleeps.
func WithClock(c runtime.Clock) Option { return func(l *Ledger) { l.clock, l.db = c, c } }

// WithProcessClock sets the clock of this process alone, as the clock of a
// machine that runs ahead or behind: it stamps rows (created_at,
// updated_at), verifies webhook signatures and dates what the ledger
// commands show, while every lease and due time is still set and judged by
// the database's clock. Tests give a replica one to show that a process's
// clock never decides a lease.
func WithProcessClock(c runtime.Clock) Option { return func(l *Ledger) { l.clock = c } }

// Clock returns the clock of this process (WithProcessClock), which
// stamps rows.
func (l *Ledger) Clock() runtime.Clock { return l.clock }

// leaseNow is the time that stands for the database's clock in the
// statements that set and compare leases and due times ({now $n}): 0, the
// database's own, unless a test gave the ledger a clock (WithClock).
func (l *Ledger) leaseNow() int64 {
	if l.db != nil {
		return micros(l.db.Now())
	}
	return 0
}

// Now returns the time by the ledger's clock, the database's, which sets
// and judges every lease and due time.
func (l *Ledger) Now(ctx context.Context) (time.Time, error) {
	var us int64
	if _, err := queryRow(ctx, l.conn, l.q.databaseNow, l.leaseNow())(&us); err != nil {
		return time.Time{}, fmt.Errorf("ledger: read the database's clock: %w", err)
	}
	return fromMicros(us), nil
}

// WithDriver passes v to the database package that opens the ledger,
// which defines the values it reads (sqlite.WithSynchronousNormal returns
// an Option made with it); New ignores them.
func WithDriver(v any) Option { return func(l *Ledger) { l.driver = append(l.driver, v) } }

// DriverOptions returns, in order, the values that opts pass with
// WithDriver: a database package's Open reads its own among them.
func DriverOptions(opts []Option) []any {
	var l Ledger
	for _, o := range opts {
		o(&l)
	}
	return l.driver
}

// New migrates the database behind c to the dialect's newest schema and
// returns a Ledger that owns c.
func New(ctx context.Context, c Conn, d Dialect, opts ...Option) (*Ledger, error) {
	l := &Ledger{conn: c, dialect: d, q: newQueries(d), clock: runtime.SystemClock}
	for _, o := range opts {
		o(l)
	}
	if err := l.migrate(ctx); err != nil {
		return nil, err
	}
	l.group = newGroup(c, d.Writers)
	return l, nil
}

// Close closes the database, once the claims and settlements being
// committed are.
func (l *Ledger) Close() error {
	l.group.close()
	return l.conn.Close()
}

// Dialect returns the name of the ledger's database: "sqlite" or "postgres".
func (l *Ledger) Dialect() string { return l.dialect.Name }

// Querier returns the ledger's database, for statements on the caller's own
// tables kept beside the ledger's.
func (l *Ledger) Querier() Querier { return l.conn.Shared() }

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
	if _, err := queryRow(ctx, tx, selectVersion)(&version); err != nil {
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
	_, err := queryRow(ctx, l.conn, selectVersion)(&v)
	return v, err
}

// Claim inserts rec in state claimed, held by h for lease from now by the
// database's clock, with fence 1, unless its identity (rec.Identity) is
// claimed already; a row of the identity in state not_applied is claimed
// again, with the next fence, rec's request and digest, and its outcome
// cleared. won reports whether this caller holds the claim. The record
// returned is the row as stored: the caller's, with its id, fence and
// lease's end, or the one already there, whose Digest the caller compares
// with its own.
//
// An error means that no claim of this call stands, and none will: the
// claim was never made, or, made after ctx ended, it was settled
// not_applied before Claim returned (the key is free, as it was). The one
// exception matches runtime.ErrInProgress: the database failed while the
// claim was being made (a commit whose answer was lost), and claiming
// again failed too, so nobody can tell whether it was recorded; a claim
// that was is taken over once its lease ends, and driven on.
func (l *Ledger) Claim(ctx context.Context, rec runtime.Record, h runtime.Holder, lease time.Duration) (runtime.Record, bool, error) {
	id := rec.Identity
	if id.Operation == "" || id.BusinessKey == "" {
		return runtime.Record{}, false, fmt.Errorf("ledger: claim needs an operation and a business key (got %q, %q)", id.Operation, id.BusinessKey)
	}
	c := &claim{l: l, rec: rec, h: h, lease: lease, now: l.clock.Now(), token: newToken()}
	err := l.group.do(ctx, c.run)
	switch {
	case errors.Is(err, errNotBegun):
		return runtime.Record{}, false, fmt.Errorf("ledger: claim %s: %w", describe(id), err)
	case err != nil:
		// The statements may have committed, and their answer been lost
		// with the connection: claim again, on a context of this claim's
		// own, which recognises the first claim by its token, or waits for
		// it to end if it is still running, and then makes the claim.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), groupTimeout)
		again := l.group.do(actx, c.run)
		cancel()
		if again != nil {
			return runtime.Record{}, false, fmt.Errorf("ledger: claim %s: %w: the ledger cannot tell whether the claim was recorded "+
				"(%v; claiming again: %v); a claim recorded is taken over and driven on once its lease ends", describe(id),
				runtime.ErrInProgress, err, again)
		}
	}
	if c.won && ctx.Err() != nil {
		// The caller has left: the claim it will not use is released
		// before anyone can take it over and send the request.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), groupTimeout)
		defer cancel()
		s := runtime.Settlement{LastError: "the caller left before its claim was recorded: " + ctx.Err().Error()}
		if err := l.Settle(sctx, c.rowID, c.fence, runtime.StateNotApplied, s); err != nil {
			return runtime.Record{}, false, fmt.Errorf("ledger: claim %s: %w: the claim was recorded after the caller left (%v), "+
				"and could not be released (%v); it is taken over and driven on once its lease ends", describe(id),
				runtime.ErrInProgress, ctx.Err(), err)
		}
		return runtime.Record{}, false, fmt.Errorf("ledger: claim %s: the claim was recorded after the caller left, and released: %w",
			describe(id), ctx.Err())
	}
	if !c.won {
		if c.existing.ID == 0 {
			return runtime.Record{}, false, fmt.Errorf("%w: %s", ErrNotFound, describe(id))
		}
		return c.existing.Record, false, nil
	}
	won := runtime.Record{
		ID: c.rowID, Identity: id, OperationID: rec.OperationID, ProviderKey: rec.ProviderKey,
		Reference: rec.Reference, Owner: rec.Owner, State: runtime.StateClaimed,
		Request: rec.Request, Digest: rec.Digest, Fence: c.fence, LeaseOwner: h.Owner, LeaseInstance: h.Instance,
		LeaseIncarnation: h.Incarnation, LeaseUntil: fromMicros(c.until), CreatedAt: fromMicros(c.created),
		UpdatedAt: fromMicros(micros(c.now)),
	}
	return won, true, nil
}

// claim is one call of Claim: its statements, run by a group, and what
// they found.
type claim struct {
	l     *Ledger
	rec   runtime.Record
	h     runtime.Holder
	lease time.Duration
	now   time.Time
	token string // stored with the claim until it is settled: this call's

	won                          bool
	rowID, fence, created, until int64
	existing                     Row // the row that holds the identity, when !won
}

// run makes the claim on q: it inserts the row, or claims again a
// not_applied one, or reads the row that holds the identity, which is
// this call's own claim when it carries the call's token (a claim made
// before, whose answer was lost).
func (c *claim) run(ctx context.Context, q Querier) error {
	l, id, rec, h := c.l, c.rec.Identity, c.rec, c.h
	c.won, c.existing = false, Row{}
	var err error
	c.won, err = queryRow(ctx, q, l.q.claimInsert, id.Scope, id.Tenant, id.Operation, id.BusinessKey,
		rec.OperationID, rec.ProviderKey, rec.Reference, rec.Owner, bytes(rec.Request), bytes(rec.Digest),
		h.Owner, c.lease.Microseconds(), micros(c.now), l.leaseNow(), h.Instance, h.Incarnation, c.token)(&c.rowID, &c.fence, &c.created, &c.until)
	if err == nil && !c.won {
		// Taken: by a row that may be claimed again only if nothing was applied.
		c.won, err = queryRow(ctx, q, l.q.claimRetake, id.Scope, id.Tenant, id.Operation, id.BusinessKey,
			rec.OperationID, rec.ProviderKey, rec.Reference, rec.Owner, bytes(rec.Request), bytes(rec.Digest),
			bytes(nil), h.Owner, c.lease.Microseconds(), micros(c.now), l.leaseNow(), h.Instance, h.Incarnation, c.token)(&c.rowID, &c.fence, &c.created, &c.until)
	}
	if err == nil && !c.won {
		// Read in the same transaction: the row may be a claim of this group.
		c.existing, err = one(ctx, q, describe(id), claimByIdentity, id.Scope, id.Tenant, id.Operation, id.BusinessKey)
		if errors.Is(err, ErrNotFound) {
			return nil // settled and gone between the two statements: reported as it was
		}
		if e := c.existing; err == nil && e.State == runtime.StateClaimed && e.token == c.token {
			c.won, c.existing = true, Row{}
			c.rowID, c.fence, c.created, c.until = e.ID, e.Fence, micros(e.CreatedAt), micros(e.LeaseUntil)
		}
	}
	return err
}

// newToken returns a claim's token: random, never repeated in practice.
func newToken() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Renew makes the lease of row id, held with fence, end lease from now by
// the database's clock. It fails with an error matching
// runtime.ErrLeaseLost when the row is no longer claimed with that fence:
// another caller took it over, or it was settled.
func (l *Ledger) Renew(ctx context.Context, id, fence int64, lease time.Duration) error {
	n, err := l.conn.Exec(ctx, l.q.claimRenew, id, fence, lease.Microseconds(), micros(l.clock.Now()), l.leaseNow())
	if err != nil {
		return fmt.Errorf("ledger: renew the lease of row %d: %w", id, err)
	}
	if n == 0 {
		return l.lost(ctx, "renew the lease of", id, fence, "")
	}
	return nil
}

// Settle moves row id, claimed with fence, to state to (active, rejected,
// not_applied, uncertain or compensated) and records s; s.Redrive,
// s.RedriveUntil and s.RedriveAfter are kept for an uncertain row only.
// The row's lease ends at the settle, by the database's clock: a taker of
// the row later learns how long ago that was (Record.LeaseLeft), and a
// row marked Redrive is due again s.RedriveAfter after it. It fails with an error
// matching runtime.ErrLeaseLost when the fence is stale, because another
// caller took the row over, and with a *TransitionError when the row, with
// this fence, is settled already: a settled row stays settled. Settling
// again as the row is, with the same state, provider id and status, is not
// refused: a caller that could not tell whether its settlement was
// recorded (the connection broke) may make it again.
func (l *Ledger) Settle(ctx context.Context, id, fence int64, to runtime.State, s runtime.Settlement) error {
	switch to {
	case runtime.StateActive, runtime.StateRejected, runtime.StateNotApplied, runtime.StateUncertain, runtime.StateCompensated:
	default:
		return &TransitionError{ID: id, From: runtime.StateClaimed, To: to}
	}
	redrive, until, after := false, int64(0), int64(0)
	if to == runtime.StateUncertain && s.Redrive {
		redrive = true
		if !s.RedriveUntil.IsZero() {
			until = micros(s.RedriveUntil)
		}
		after = max(s.RedriveAfter, 0).Microseconds()
	}
	now := micros(l.clock.Now())
	var n int64
	err := l.group.do(ctx, func(ctx context.Context, q Querier) error {
		var err error
		n, err = q.Exec(ctx, l.q.claimSettle, id, fence, string(to), s.ProviderID, s.Status, bytes(s.Body),
			s.Attempts, s.LastError, redrive, until, now, l.leaseNow(), after)
		return err
	})
	if err != nil {
		return fmt.Errorf("ledger: settle row %d as %s: %w", id, to, err)
	}
	if n == 0 {
		row, err := l.Get(ctx, id)
		if err == nil && row.Fence == fence && row.State == to && row.ProviderID == s.ProviderID && row.Status == s.Status {
			return nil // this caller's own settlement, made again
		}
		return l.lost(ctx, "settle", id, fence, to)
	}
	l.changed.broadcast()
	return nil
}

// lost explains why a fenced update of row id changed nothing.
func (l *Ledger) lost(ctx context.Context, what string, id, fence int64, to runtime.State) error {
	row, err := l.Get(ctx, id)
	if err != nil {
		return err
	}
	if row.Fence != fence {
		return fmt.Errorf("ledger: %s row %d with fence %d: %w: the row has fence %d, %s by %q",
			what, id, fence, runtime.ErrLeaseLost, row.Fence, row.State, row.LeaseOwner)
	}
	if to == "" { // a renewal of a row settled with this fence
		return fmt.Errorf("ledger: %s row %d: %w: the row is %s", what, id, runtime.ErrLeaseLost, row.State)
	}
	return &TransitionError{ID: id, From: row.State, To: to}
}

// Await returns row id once it has left state claimed. It is woken by
// settlements in this process and looks again from time to time for those
// of other processes. When ctx ends first it returns an error matching
// runtime.ErrInProgress, with the row as last seen (if it was read).
func (l *Ledger) Await(ctx context.Context, id int64) (runtime.Record, error) {
	delay := time.Millisecond
	for {
		changed := l.changed.wait()
		row, err := l.Get(ctx, id)
		if ctx.Err() != nil {
			return row.Record, fmt.Errorf("ledger: row %d: %w: %w", id, runtime.ErrInProgress, ctx.Err())
		}
		if err != nil || row.State != runtime.StateClaimed {
			return row.Record, err
		}
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

// TakeOver hands the caller, oldest first and at most limit (0 for no
// limit), the claims of scope and tenant (and operation, unless "") that
// need driving on: rows claimed whose lease has ended by the database's
// clock, as their holder stopped renewing it, rows claimed by an earlier
// incarnation of h's instance (h.Instance, when not ""), which is gone,
// and uncertain rows marked re-drivable whose window has not ended at now,
// the caller's time, and whose Settlement.RedriveAfter has passed since
// their settle, by the database's clock. Each row returned is claimed by h
// for lease, with the next fence, so the caller that held it can no longer
// renew or settle it; no two callers get the same row. Each says how long
// its previous lease had left (Record.LeaseLeft: negative for a lease that
// had ended, or for an uncertain row, the time since its settle), and an
// uncertain row's Redrives counts this takeover.
func (l *Ledger) TakeOver(ctx context.Context, scope, tenant, operation string, now time.Time, h runtime.Holder, lease time.Duration, limit int) ([]runtime.Record, error) {
	if limit <= 0 || limit > math.MaxInt32 {
		limit = math.MaxInt32
	}
	rows, err := l.conn.Query(ctx, l.q.claimsTakeOver, scope, tenant, operation, micros(now), h.Owner, lease.Microseconds(),
		micros(l.clock.Now()), limit, h.Instance, h.Incarnation, l.leaseNow())
	if err != nil {
		return nil, fmt.Errorf("ledger: take over rows of %s: %w", describe(runtime.Identity{Scope: scope, Tenant: tenant, Operation: operation}), err)
	}
	recs, err := scanAll(rows, scanRecord)
	if err != nil {
		return nil, fmt.Errorf("ledger: take over rows of %s: %w", describe(runtime.Identity{Scope: scope, Tenant: tenant, Operation: operation}), err)
	}
	slices.SortFunc(recs, func(a, b runtime.Record) int { return cmp.Compare(a.ID, b.ID) })
	return recs, nil
}

// TakeOverRow hands row id to h for lease, with the next fence, when
// TakeOver at now would hand it out: a claim whose lease has ended or
// whose holder was an earlier incarnation of h's instance, or an uncertain
// row marked re-drivable whose window has not ended at now, due or not
// (the caller waits out the rest of its RedriveAfter itself, counting from
// the row's LeaseLeft). The row is returned as TakeOver returns it. won reports
// whether it did; otherwise the row is returned as it is (an error
// matching ErrNotFound when there is none). Of the callers that take one
// row at once, by TakeOver or TakeOverRow, at most one gets it.
func (l *Ledger) TakeOverRow(ctx context.Context, id int64, now time.Time, h runtime.Holder, lease time.Duration) (runtime.Record, bool, error) {
	rows, err := l.conn.Query(ctx, l.q.claimTakeOverRow, id, micros(now), h.Owner, lease.Microseconds(), micros(l.clock.Now()),
		h.Instance, h.Incarnation, l.leaseNow())
	if err != nil {
		return runtime.Record{}, false, fmt.Errorf("ledger: take over row %d: %w", id, err)
	}
	recs, err := scanAll(rows, scanRecord)
	if err != nil {
		return runtime.Record{}, false, fmt.Errorf("ledger: take over row %d: %w", id, err)
	}
	if len(recs) == 1 {
		return recs[0], true, nil
	}
	row, err := l.Get(ctx, id)
	return row.Record, false, err
}

var (
	_ runtime.RowTaker     = (*Ledger)(nil)
	_ runtime.Incarnations = (*Ledger)(nil)
)

// Incarnate returns this handle's run of instance: the first call for an
// instance numbers a new run in writegen_instances, one more than the
// last, and later calls return it. Each Open of the ledger is a new run of
// the instances it is asked for, and takes over at once the claims their
// earlier runs hold: an instance name must be used by one process at a
// time (a pod's name, not a deployment's), with one handle of the ledger.
func (l *Ledger) Incarnate(ctx context.Context, instance string) (int64, error) {
	if strings.TrimSpace(instance) == "" {
		return 0, errors.New("ledger: incarnate: an instance needs a name")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.incarnations[instance]; ok {
		return n, nil
	}
	var n int64
	if _, err := queryRow(ctx, l.conn, l.q.instanceIncarnate, instance, l.leaseNow())(&n); err != nil {
		return 0, fmt.Errorf("ledger: number a run of instance %q: %w", instance, err)
	}
	if l.incarnations == nil {
		l.incarnations = map[string]int64{}
	}
	l.incarnations[instance] = n
	return n, nil
}

// Record inserts rec, a row that is already settled (rec.State is not
// claimed), and returns its id. It is not a claim: its identity may repeat,
// and it never blocks a Claim of the same identity. It records, for a
// person, outcomes that were not claimed first: the uncertain outcome of
// a write without dedupe, a duplicate effect a lookup found.
func (l *Ledger) Record(ctx context.Context, rec runtime.Record) (int64, error) {
	switch rec.State {
	case runtime.StateActive, runtime.StateRejected, runtime.StateNotApplied, runtime.StateUncertain, runtime.StateCompensated:
	default:
		return 0, fmt.Errorf("ledger: record %s: state %q is not a settled state", describe(rec.Identity), rec.State)
	}
	if rec.Operation == "" && rec.OperationID == "" {
		return 0, errors.New("ledger: record needs an operation or an operationId")
	}
	now := micros(l.clock.Now())
	var id int64
	_, err := queryRow(ctx, l.conn, claimRecord, rec.Scope, rec.Tenant, rec.Operation, rec.BusinessKey,
		rec.OperationID, rec.ProviderKey, rec.Reference, rec.Owner, string(rec.State), rec.ProviderID,
		rec.Status, bytes(rec.Body), bytes(rec.Request), bytes(rec.Digest), rec.Attempts, rec.LastError, now)(&id)
	if err != nil {
		return 0, fmt.Errorf("ledger: record %s: %w", describe(rec.Identity), err)
	}
	return id, nil
}

// describe names an identity in messages: scope/tenant/operation "key".
func describe(id runtime.Identity) string {
	var b strings.Builder
	if id.Scope == "" {
		b.WriteString("(unscoped)")
	} else {
		b.WriteString(id.Scope)
	}
	if id.Tenant != "" {
		b.WriteString("/" + strconv.Quote(id.Tenant))
	}
	if id.Operation != "" {
		b.WriteString("/" + id.Operation)
	}
	if id.BusinessKey != "" {
		b.WriteString(" " + strconv.Quote(id.BusinessKey))
	}
	return b.String()
}

// Row is a ledger row as List, Get and Find read it: the record and what
// only the ledger keeps.
type Row struct {
	runtime.Record
	// Claim is false for a row written by Record: listed, never claimed.
	Claim bool
	// Redrive marks an uncertain row the next TakeOver hands out, until
	// RedriveUntil when that is not zero, and from RedriveAt, by the
	// database's clock (zero: at once).
	Redrive      bool
	RedriveUntil time.Time
	RedriveAt    time.Time

	token string // the token of the call that claimed it, until it is settled
}

// Get returns row id, or an error matching ErrNotFound.
func (l *Ledger) Get(ctx context.Context, id int64) (Row, error) {
	return l.one(ctx, fmt.Sprintf("row %d", id), claimByID, id)
}

// Find returns the claim of identity id, or an error matching ErrNotFound.
func (l *Ledger) Find(ctx context.Context, id runtime.Identity) (Row, error) {
	return l.one(ctx, describe(id), claimByIdentity, id.Scope, id.Tenant, id.Operation, id.BusinessKey)
}

func (l *Ledger) one(ctx context.Context, what, query string, args ...any) (Row, error) {
	return one(ctx, l.conn, what, query, args...)
}

func one(ctx context.Context, q Querier, what, query string, args ...any) (Row, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return Row{}, fmt.Errorf("ledger: read %s: %w", what, err)
	}
	recs, err := scanAll(rows, scanRow)
	if err != nil {
		return Row{}, fmt.Errorf("ledger: read %s: %w", what, err)
	}
	if len(recs) == 0 {
		return Row{}, fmt.Errorf("%w: %s", ErrNotFound, what)
	}
	return recs[0], nil
}

// Filter selects the rows List returns.
type Filter struct {
	State     runtime.State // "" matches every state
	Operation string        // the operation's key scope; "" matches every operation
	// Scope and Tenant match exactly, "" included: scope "" holds the rows
	// written before ledgers had scopes (see Adopt), tenant "" the rows of
	// clients that serve one tenant. AnyScope and AnyTenant match every
	// value instead.
	Scope, Tenant       string
	AnyScope, AnyTenant bool
}

// List returns the rows f selects, oldest first: List(ctx, Filter{State:
// runtime.StateUncertain, Scope: "support-desk", AnyTenant: true}) is what
// a person reconciles for one provider.
func (l *Ledger) List(ctx context.Context, f Filter) ([]Row, error) {
	query, args := claimsList(f)
	rows, err := l.conn.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: list: %w", err)
	}
	return scanAll(rows, scanRow)
}

// Resolution is a person's answer for an uncertain row.
type Resolution struct {
	// Committed reports that the effect exists at the provider: the row
	// becomes active with ProviderID. Otherwise the effect was not applied:
	// the row becomes not_applied, and its identity may be claimed again.
	Committed  bool
	ProviderID string // the provider's id of the effect; required when Committed
	Reason     string // how the person knows; required
}

// Resolve settles the uncertain row id with a person's answer, which
// replaces the row's last error. It fails with a *TransitionError when the
// row is not uncertain.
func (l *Ledger) Resolve(ctx context.Context, id int64, r Resolution) error {
	to := runtime.StateNotApplied
	if r.Committed {
		to = runtime.StateActive
		if r.ProviderID == "" {
			return fmt.Errorf("ledger: resolve row %d: a committed effect needs the provider's id", id)
		}
	} else if r.ProviderID != "" {
		return fmt.Errorf("ledger: resolve row %d: an effect that was not applied has no provider id", id)
	}
	if strings.TrimSpace(r.Reason) == "" {
		return fmt.Errorf("ledger: resolve row %d: a reason is required", id)
	}
	note := "resolved by a person as not applied: " + r.Reason
	if r.Committed {
		note = "resolved by a person as committed: " + r.Reason
	}
	return l.person(ctx, "resolve", id, to, l.q.claimResolve, id, string(to), r.ProviderID, note, micros(l.clock.Now()), l.leaseNow())
}

// Redrive marks the uncertain claim id re-drivable, with a person's
// reason: the next TakeOver of its scope hands it out, and the runtime's
// Resume drives it on by the operation's rules (the same provider key
// inside its window, or a lookup), or settles it uncertain again. It fails
// with a *TransitionError when the row is not an uncertain claim.
func (l *Ledger) Redrive(ctx context.Context, id int64, reason string) error {
	if strings.TrimSpace(reason) == "" {
		return fmt.Errorf("ledger: redrive row %d: a reason is required", id)
	}
	row, err := l.Get(ctx, id)
	if err != nil {
		return err
	}
	if !row.Claim {
		return fmt.Errorf("ledger: redrive row %d: the row was recorded without a claim: nothing can drive it on; resolve it", id)
	}
	note := redriveNote("re-drive asked by a person: "+reason, row.LastError)
	return l.person(ctx, "redrive", id, runtime.StateClaimed, claimRedrive, id, note, micros(l.clock.Now()))
}

// redriveNote is the last error a re-driven row or item keeps: why, and
// what it was before.
func redriveNote(why, was string) string {
	if was == "" {
		return why
	}
	return why + "; was: " + was
}

// Compensate records that a person undid the effect of row id (a
// duplicate, or an effect that must not stand): the uncertain or active
// row becomes compensated, for good. It fails with a *TransitionError from
// any other state.
func (l *Ledger) Compensate(ctx context.Context, id int64, reason string) error {
	if strings.TrimSpace(reason) == "" {
		return fmt.Errorf("ledger: compensate row %d: a reason is required", id)
	}
	return l.person(ctx, "compensate", id, runtime.StateCompensated, l.q.claimCompensate, id,
		"compensated by a person: "+reason, micros(l.clock.Now()), l.leaseNow())
}

// person runs a person's conditional update of row id, explaining a
// refusal.
func (l *Ledger) person(ctx context.Context, what string, id int64, to runtime.State, statement string, args ...any) error {
	n, err := l.conn.Exec(ctx, statement, args...)
	if err != nil {
		return fmt.Errorf("ledger: %s row %d: %w", what, id, err)
	}
	if n == 0 {
		row, err := l.Get(ctx, id)
		if err != nil {
			return err
		}
		return &TransitionError{ID: id, From: row.State, To: to}
	}
	l.changed.broadcast()
	return nil
}

func scanRow(s scanner) (Row, error) {
	var r Row
	var state string
	var leaseUntil, redriveUntil, created, updated, leaseLeft, redrives, redriveAt int64
	err := s.Scan(&r.ID, &r.Scope, &r.Tenant, &r.Operation, &r.BusinessKey, &r.OperationID, &r.ProviderKey,
		&r.Reference, &r.Owner, &state, &r.ProviderID, &r.Status, &r.Body, &r.Request, &r.Digest, &r.Attempts,
		&r.LastError, &r.Fence, &r.LeaseOwner, &leaseUntil, &r.Claim, &r.Redrive, &redriveUntil, &created, &updated,
		&r.LeaseInstance, &r.LeaseIncarnation, &leaseLeft, &redrives, &redriveAt, &r.token)
	r.State, r.CreatedAt, r.UpdatedAt = runtime.State(state), fromMicros(created), fromMicros(updated)
	r.LeaseLeft, r.Redrives = time.Duration(leaseLeft)*time.Microsecond, int(redrives)
	if redriveAt != 0 {
		r.RedriveAt = fromMicros(redriveAt)
	}
	if leaseUntil != 0 {
		r.LeaseUntil = fromMicros(leaseUntil)
	}
	if redriveUntil != 0 {
		r.RedriveUntil = fromMicros(redriveUntil)
	}
	return r, err
}

func scanRecord(s scanner) (runtime.Record, error) {
	r, err := scanRow(s)
	return r.Record, err
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

var _ runtime.Pruner = (*Ledger)(nil)

// pruneBatch is the most rows one statement of Prune removes, so that its
// locks are held for a bounded time.
const pruneBatch = 1000

// Prune forgets the business keys of scope, tenant and operation settled
// for good (active, rejected, not_applied, compensated) more than keep
// ago, by the database's clock: it removes at most limit of their rows
// (0: all), oldest first, in statements of at most 1,000 rows, and
// returns how many it removed. Uncertain and claimed rows are never
// removed, nor rows written by Record. A key whose row was removed may be
// claimed anew: a repeat of its write is a new write. keep is the
// operation's retention, which a person states (never shorter than the
// horizon within which a repeat must be caught); it must be positive.
func (l *Ledger) Prune(ctx context.Context, scope, tenant, operation string, keep time.Duration, limit int) (int64, error) {
	what := describe(runtime.Identity{Scope: scope, Tenant: tenant, Operation: operation})
	switch {
	case operation == "":
		return 0, errors.New("ledger: prune needs an operation")
	case keep <= 0:
		return 0, fmt.Errorf("ledger: prune %s: the retention %s is not positive", what, keep)
	}
	var n int64
	for _, state := range []runtime.State{runtime.StateActive, runtime.StateRejected, runtime.StateNotApplied, runtime.StateCompensated} {
		for limit <= 0 || n < int64(limit) {
			batch := pruneBatch
			if limit > 0 {
				batch = min(batch, limit-int(n))
			}
			m, err := l.conn.Exec(ctx, l.q.claimsPrune, scope, tenant, operation, keep.Microseconds(), batch, l.leaseNow(), string(state))
			n += m
			if err != nil {
				return n, fmt.Errorf("ledger: prune %s: %w", what, err)
			}
			if m < int64(batch) {
				break
			}
		}
	}
	return n, nil
}
