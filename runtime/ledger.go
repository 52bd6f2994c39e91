package runtime

import (
	"context"
	"time"
)

// State is the state of a ledger row.
type State string

// The states of a ledger row. A row is claimed before the provider is
// called and moves once to one of the other states. Only a not_sent row,
// whose call certainly reached nobody, may be claimed again.
const (
	StateClaimed     State = "claimed"     // the provider is being called
	StateActive      State = "active"      // the receipt is stored
	StateRejected    State = "rejected"    // the provider refused: nothing happened
	StateNotSent     State = "not_sent"    // no attempt reached the provider; the key may be claimed again
	StateUncertain   State = "uncertain"   // a person must reconcile it
	StateCompensated State = "compensated" // the effect was undone
)

// Record is one ledger row: one logical write, identified by operation and
// business key. The provider's identifiers are attributes, never identity.
type Record struct {
	ID          int64
	Operation   string
	BusinessKey string
	ProviderKey string
	Owner       string
	State       State
	ProviderID  string // the durable id the provider gave the effect
	Status      int    // the last HTTP status, 0 if none
	Body        []byte // the receipt body or the provider's rejection
	Request     []byte // EncodeRequest of the request, so a resume re-sends the same bytes
	Attempts    int
	LastError   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Ledger is the durable record of logical writes that lets many callers
// share one provider call per business key. Implementations live in
// sub-packages of runtime/ledger.
type Ledger interface {
	// Claim inserts (operation, business key) in state claimed if absent,
	// or claims a not_sent row again. won reports whether this caller holds
	// the claim. The record returned is the row as stored: the caller's,
	// with its ID, or the one already there.
	Claim(ctx context.Context, rec Record) (existing Record, won bool, err error)
	// Await blocks until the row leaves state claimed, or ctx ends (then it
	// returns an error matching ErrInProgress).
	Await(ctx context.Context, operation, businessKey string) (Record, error)
	// Settle moves a claimed row to its final state; it fails if the row is
	// not claimed (a claimed row is never turned back into permission to
	// create).
	Settle(ctx context.Context, id int64, to State, s Settlement) error
	// Pending lists the rows of operation left claimed since before olderThan.
	Pending(ctx context.Context, operation string, olderThan time.Time) ([]Record, error)
}

// Settlement is what Settle records about the outcome of a claimed row.
type Settlement struct {
	ProviderID string
	Status     int
	Body       []byte
	Attempts   int
	LastError  string
}
