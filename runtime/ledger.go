package runtime

import (
	"context"
	"errors"
	"time"
)

// State is the state of a ledger row.
type State string

// The states of a ledger row. A claim is inserted claimed and moves once to
// one of the other states; only a not_applied row, whose call certainly
// made no effect, may be claimed again, and only an uncertain row that
// may be driven on (Settlement.Redrive) is claimed once more: by Resume,
// or by a call with its business key (RowTaker).
const (
	StateClaimed     State = "claimed"     // a caller holds the lease and is calling
	StateActive      State = "active"      // the receipt (or acknowledgement) is stored
	StateRejected    State = "rejected"    // a definite answer about this request: nothing happened, final
	StateNotApplied  State = "not_applied" // nothing happened; the key may be claimed again
	StateUncertain   State = "uncertain"   // a person reconciles it, unless Resume can drive it on
	StateCompensated State = "compensated" // a duplicate effect that was compensated
)

// Record is one ledger row: one logical write, identified by its Identity.
// The provider's identifiers are attributes, never identity.
type Record struct {
	ID int64
	Identity
	OperationID string // the operationId when the row was written (informational)
	ProviderKey string
	Reference   string // what the lookup searches for ("" = ProviderKey)
	Owner       string // who is told when the outcome is uncertain
	State       State
	ProviderID  string // the provider's durable id of the effect
	Status      int    // the last HTTP status, 0 if none
	Body        []byte // receipt body, rejection body, or the raw 2xx kept with an uncertain row
	Request     []byte // writegenimpl.EncodeRequest bytes: Resume re-sends exactly these
	Digest      []byte // SHA-256 of Request: the same key with another request is refused
	Attempts    int
	LastError   string
	Fence       int64     // incremented by every claim and takeover; Settle and Renew must present it
	LeaseOwner  string    // the client (of one process) holding the claim
	LeaseUntil  time.Time // when the claim may be taken over unless renewed, by the ledger's clock
	// LeaseInstance and LeaseIncarnation name the holder's instance and
	// its run, when it named one (Holder).
	LeaseInstance    string
	LeaseIncarnation int64
	// LeaseLeft is set in the rows TakeOver and TakeOverRow hand over: how
	// long the previous holder's lease still had to run when the row was
	// taken, by the ledger's clock; negative, how long before it had ended
	// (for a row that was settled, how long before it was settled). The
	// runtime keeps every attempt inside its lease, so an attempt of the
	// previous holder may still run until then, and a lookup's "not found"
	// counts only from then on (promise 49).
	LeaseLeft time.Duration
	// Redrives counts how often the row was handed over as an uncertain
	// row (by TakeOver or TakeOverRow): Resume asks such rows again on a
	// bounded schedule (promise 50). A person's redrive starts it anew.
	Redrives  int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Settlement is what Settle records about the outcome of a claimed row.
type Settlement struct {
	ProviderID string
	Status     int
	Body       []byte
	Attempts   int
	LastError  string
	// Redrive marks an uncertain row that Resume, or the next call with its
	// business key, may drive on: its provider key is inside its window, or
	// a strongly consistent lookup can still answer.
	Redrive bool
	// RedriveUntil is when the provider key's window ends (Resume leaves
	// the row to a person after it); zero means no limit.
	RedriveUntil time.Time
	// RedriveAfter delays a row marked Redrive: TakeOver hands it over
	// only once this long has passed since the settle, by the ledger's
	// clock (a lookup's lag or settle time, the next step of Resume's
	// schedule). TakeOverRow does not wait for it: the caller that takes
	// the row waits itself, counting from LeaseLeft. Zero: at once.
	RedriveAfter time.Duration
}

// ErrLeaseLost is returned by Renew and Settle when the fence presented is
// no longer the row's: another caller took the row over.
var ErrLeaseLost = errors.New("writegen: ledger lease lost")

// Holder is who holds a claim. Owner names one client of one process.
// Instance is the stable name the program gave its instance
// (WithInstance: a pod's name, a host's), "" for none, and Incarnation the
// run of that instance, numbered by the ledger (Incarnations): a claim
// held by an earlier run of the taker's own instance is held by nobody,
// since an instance runs once at a time, and is taken over at once, fenced
// as any takeover.
type Holder struct {
	Owner       string
	Instance    string
	Incarnation int64
}

// Ledger is the durable record of logical writes that lets many callers,
// processes and machines share one provider call per business key.
// runtime/ledger implements it on SQLite and PostgreSQL.
//
// A caller claims an identity under a lease, renews the lease while its
// call runs and settles the row with the fence its claim returned. A row
// whose lease has expired is taken over by Resume (TakeOver) with a new
// fence, so the first caller's late Renew or Settle fails with
// ErrLeaseLost instead of overwriting the outcome.
//
// A caller gives a lease as a length, never as a time of its clock: the
// ledger sets the lease's end and compares it by one clock of its own (the
// database's), so callers whose clocks disagree never judge each other's
// leases. A caller may count its lease as lasting the length from the
// moment it sent the statement.
type Ledger interface {
	// Claim inserts rec (Identity, OperationID, ProviderKey, Reference,
	// Owner, Request, Digest) in state claimed, held by h for lease, or
	// claims a not_applied row of the same identity again. won reports
	// whether this caller holds the claim; the Record is the row as stored
	// (with its Fence when won). The caller compares Digest when !won.
	// An error means that no claim of this call stands, nor will (the
	// caller is told ErrNotApplied), except one matching ErrInProgress: the
	// ledger cannot tell whether the claim was recorded, and one that was is
	// taken over once its lease ends (promise 52).
	Claim(ctx context.Context, rec Record, h Holder, lease time.Duration) (row Record, won bool, err error)
	// Renew makes the lease of row id held with fence end lease from now.
	// It fails with ErrLeaseLost when the row is no longer claimed with
	// that fence.
	Renew(ctx context.Context, id, fence int64, lease time.Duration) error
	// Settle moves row id, claimed with fence, to its final state. It fails
	// with ErrLeaseLost when the fence is stale (someone took the row
	// over), and with another error when the row is not claimed.
	Settle(ctx context.Context, id, fence int64, to State, s Settlement) error
	// Await blocks until row id leaves state claimed, or ctx ends (then
	// its error matches ErrInProgress).
	Await(ctx context.Context, id int64) (Record, error)
	// TakeOver hands the caller the rows of scope (and tenant, and
	// operation when not "") that need driving on: rows claimed whose lease
	// has ended, or whose holder was an earlier incarnation of h's
	// instance, and uncertain rows marked re-drivable whose RedriveUntil
	// has not passed at now (the caller's clock: the window is the
	// provider's) and whose RedriveAfter has passed since they were settled
	// (the ledger's clock). Each row returned is claimed by h with a new
	// fence, for lease, with its LeaseLeft, and Redrives counted when it
	// was uncertain; no two callers get the same row. Age alone never hands
	// a row over.
	TakeOver(ctx context.Context, scope, tenant, operation string, now time.Time, h Holder, lease time.Duration, limit int) ([]Record, error)
	// Record inserts a row that is already settled, such as the uncertain
	// outcome of a write without dedupe, so that it is listed for a
	// person. Its identity may repeat: rows written by Record are not
	// claims and never block a Claim of the same identity.
	Record(ctx context.Context, rec Record) (id int64, err error)
}

// RowTaker is a Ledger that can hand over one row by its id, as TakeOver
// hands over rows in bulk. A call whose business key finds its row
// uncertain takes that row over with it and drives it on at once, as
// Resume would; with a Ledger that is not a RowTaker the call returns the
// recorded uncertain outcome and only Resume moves the row. The ledgers of
// runtime/ledger are RowTakers.
type RowTaker interface {
	// TakeOverRow claims row id for h, for lease, with the next fence,
	// when TakeOver at now would hand it out: a claim whose lease has
	// ended or whose holder was an earlier incarnation of h's instance, or
	// an uncertain claim marked re-drivable whose RedriveUntil has not
	// passed, whether or not its RedriveAfter has (the caller waits out
	// the rest itself, from LeaseLeft). won reports whether it did;
	// otherwise the Record is the row as stored. Of callers taking one row at once (by TakeOver or
	// TakeOverRow), at most one gets it.
	TakeOverRow(ctx context.Context, id int64, now time.Time, h Holder, lease time.Duration) (row Record, won bool, err error)
}

// Incarnations is a Ledger that numbers the runs of named instances
// (Holder). The ledgers of runtime/ledger are.
type Incarnations interface {
	// Incarnate returns the incarnation of instance for this handle of
	// the ledger: its first call for an instance numbers a new run, higher
	// than every run of the instance before, and later calls return the
	// same number.
	Incarnate(ctx context.Context, instance string) (int64, error)
}

// Pruner is a Ledger that forgets settled business keys past a retention
// (promise 55). Resume prunes the rows of an operation that states one
// (its generated code sets writegenimpl.Operation.Retention). The ledgers
// of runtime/ledger are Pruners.
type Pruner interface {
	// Prune removes at most limit (0: every) rows of scope, tenant and
	// operation settled for good (active, rejected, not_applied,
	// compensated) more than keep ago by the ledger's clock, and returns how
	// many it removed. Uncertain and claimed rows are never removed. A
	// business key whose row was removed may be claimed anew: a repeat of
	// its write after keep is a new write.
	Prune(ctx context.Context, scope, tenant, operation string, keep time.Duration, limit int) (int64, error)
}
