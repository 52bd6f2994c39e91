package runtime

import (
	"context"
	"time"
)

// Class is the classification of one attempt.
type Class uint8

// The classes of an attempt.
const (
	ClassNotSent   Class = iota + 1 // no connection was obtained: nothing reached the provider
	ClassAmbiguous                  // a connection was obtained and no status arrived
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

// Attempt describes one finished attempt.
type Attempt struct {
	Operation string
	Number    int // 1 for the first attempt
	Class     Class
	Status    int           // the HTTP status, 0 when none arrived
	Err       error         // the transport error, if any
	Delay     time.Duration // the wait before the next attempt, 0 if none follows
}

// Hooks observe calls. Every field is optional. Hooks run on the caller's
// goroutine and must not block.
type Hooks struct {
	AttemptStart func(ctx context.Context, op *Operation, n int)
	AttemptDone  func(ctx context.Context, op *Operation, a Attempt)
	Outcome      func(ctx context.Context, op *Operation, attempts int, err error)
}

// Notifier is told about every outcome that ends uncertain, once, by the
// caller that made the provider call; e.Owner says who should reconcile it.
type Notifier interface {
	Uncertain(ctx context.Context, e *UncertainError)
}
