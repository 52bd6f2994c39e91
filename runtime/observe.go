package runtime

import (
	"context"
	"time"
)

// Class is the classification of one attempt.
type Class uint8

// The classes of an attempt.
const (
	ClassNotSent   Class = iota + 1 // the request's headers were never written: nothing reached the provider
	ClassAmbiguous                  // it was written and no status arrived, or the transport sent it twice
	ClassStatus                     // a status other than 2xx arrived
	ClassOK                         // a 2xx status arrived
)

func (c Class) String() string {
	switch c {
	case ClassNotSent:
		return "not_sent"
	case ClassAmbiguous:
		return "ambiguous"
	case ClassStatus:
		return "status"
	case ClassOK:
		return "ok"
	}
	return "unknown"
}

// CallInfo describes one logical call to the hooks. The runtime owns it;
// hooks may read it until CallDone returns.
type CallInfo struct {
	OperationID string
	Method      string
	Path        string // the path template, "/threads/{id}"
	Write       bool
	Identity    // Scope is set for every call; the rest is empty for reads and unkeyed writes
	ProviderKey string
}

// Attempt describes one finished attempt.
type Attempt struct {
	Number int // 1 for the first attempt
	Class  Class
	Status int           // the HTTP status, 0 when none arrived
	Err    error         // the transport error, if any
	Delay  time.Duration // the wait before the next attempt, 0 if none follows or a lookup decides first
	// Conns counts the connections the attempt used. More than one means
	// the transport tried again below the runtime; an attempt whose
	// request was written more than once is ambiguous whatever its status.
	Conns int
}

// Outcome describes how a logical call ended.
type Outcome struct {
	Attempts int    // attempts this caller made (0 when the outcome came from the ledger)
	Source   Source // where a receipt or acknowledgement came from
	State    State  // the state the call settled in, as a ledger row would record it
	Err      error  // nil for a receipt, an acknowledgement or a read's body
}

// Hooks observe calls without tying the runtime to a logging or tracing
// library. Every field is optional. Hooks run on the caller's goroutine
// and must not block. CallStart, AttemptStart and LookupStart may return a
// context derived from the one they are given (a span of a tracer): the
// call, its attempt's HTTP request or its lookup then runs with it, and
// AttemptDone, LookupDone and CallDone are given that context, so a tracer
// can end the span it began. A nil return keeps the context as it was.
// When no hook is set, observing costs nothing.
type Hooks struct {
	CallStart    func(ctx context.Context, c *CallInfo) context.Context
	AttemptStart func(ctx context.Context, c *CallInfo, n int) context.Context
	AttemptDone  func(ctx context.Context, c *CallInfo, a Attempt)
	LookupStart  func(ctx context.Context, c *CallInfo) context.Context
	LookupDone   func(ctx context.Context, c *CallInfo, found int, err error)
	CallDone     func(ctx context.Context, c *CallInfo, o Outcome)
	// LedgerFailed is told when the ledger could not record an outcome the
	// caller still gets (a receipt whose settle failed: the row stays
	// claimed until Resume drives it on).
	LedgerFailed func(ctx context.Context, c *CallInfo, err error)
}

// Notifier is told about every uncertain outcome, once, by the caller that
// produced it; e.Owner says who should reconcile it and e.Recorded where
// it is recorded. A ledger row that Resume drives on and leaves uncertain
// again is not told again by the client that told it; another process, or
// the same after a restart, tells it once more (at least once, so that a
// process that died between settling a row and telling it leaves it to
// the next).
type Notifier interface {
	Uncertain(ctx context.Context, e *UncertainError)
}
