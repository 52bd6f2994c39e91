package runtime

import (
	"context"
	"errors"
	"time"
)

// State is the state of a ledger row.
type State string

// The states of a ledger row.
const (
	StateClaimed     State = "claimed"     // a caller holds the lease and is calling
	StateActive      State = "active"      // the receipt (or acknowledgement) is stored
	StateRejected    State = "rejected"    // a definite answer about this request: nothing happened, final
	StateNotApplied  State = "not_applied" // nothing happened; the key may be claimed again
	StateUncertain   State = "uncertain"   // a person reconciles it (or Resume re-drives it, promise 31)
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
	Owner       string
	State       State
	ProviderID  string // the provider's durable id: an attribute, never identity
	Status      int
	Body        []byte // receipt body, rejection body, or the raw 2xx kept with an uncertain row
	Request     []byte // writegenimpl.EncodeRequest bytes
	Digest      []byte // SHA-256 of Request (promise 25)
	Attempts    int
	LastError   string
	Fence       int64 // incremented by every claim and takeover; Settle and Renew must present it
	LeaseOwner  string
	LeaseUntil  time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Settlement is what Settle records.
type Settlement struct {
	ProviderID string
	Status     int
	Body       []byte
	Attempts   int
	LastError  string
	// Redrive marks an uncertain row that Resume may drive on (its key
	// window or strong lookup can still answer).
	Redrive bool
	// RedriveUntil is when the provider key's window ends; zero = no window
	// limit.
	RedriveUntil time.Time
}

// ErrLeaseLost is returned by Renew and Settle with a stale fence.
var ErrLeaseLost = errors.New("writegen: ledger lease lost")

// Ledger is the durable record of logical writes that lets many callers
// share one provider call per identity. Implementations live in
// runtime/ledger.
type Ledger interface {
	// Claim inserts rec (Identity, OperationID, ProviderKey, Reference, Owner, Request, Digest)
	// in state claimed with lease (owner, until), or claims a not_applied row of the same
	// identity again. won reports whether this caller holds the claim; the Record is the row as
	// stored (with its Fence when won). The caller compares Digest when !won.
	Claim(ctx context.Context, rec Record, owner string, until time.Time) (row Record, won bool, err error)
	// Renew extends the lease of row id held with fence; ErrLeaseLost when the row is no longer
	// claimed with that fence.
	Renew(ctx context.Context, id, fence int64, until time.Time) error
	// Settle moves row id, claimed with fence, to its final state; ErrLeaseLost when the fence
	// is stale (someone took over), an error of the ledger's own (ledger.ErrTransition) when
	// the row is not claimed.
	Settle(ctx context.Context, id, fence int64, to State, s Settlement) error
	// Await blocks until row id leaves state claimed, or ctx ends (error matches ErrInProgress).
	Await(ctx context.Context, id int64) (Record, error)
	// TakeOver hands the caller the rows of scope (and tenant, and operation when not "")
	// that need driving on: rows claimed whose lease expired before now, and uncertain rows
	// marked re-drivable (see Redrive). Each row returned is claimed by owner with a new fence
	// and lease until `until`; no two callers get the same row.
	TakeOver(ctx context.Context, scope, tenant, operation string, now time.Time, owner string, until time.Time, limit int) ([]Record, error)
	// Record inserts a row that is already settled (an uncertain outcome of a write without
	// dedupe, so that it is listed for a person, promise 31). Its identity may repeat: rows
	// recorded this way are not claims (they do not block a later Claim of the same identity).
	Record(ctx context.Context, rec Record) (id int64, err error)
}
