package runtime

import (
	"errors"
	"net/http"
	"strconv"
)

// ErrUncertain is matched by every *UncertainError.
var ErrUncertain = errors.New("runtime: outcome uncertain")

// UncertainError reports a write whose outcome cannot be settled: it may or
// may not have taken effect. It is recorded for a person to reconcile and
// never retried automatically.
type UncertainError struct {
	Operation   string // operationId
	BusinessKey string
	ProviderKey string
	Owner       string // who is told
	Attempts    int
	Reason      string // "ambiguous without key or lookup", "key window expired", ...
	Cause       error  // the last cause, if any
}

func (e *UncertainError) Error() string {
	s := "runtime: operation " + quote(e.Operation) + " key " + quote(e.BusinessKey) +
		": outcome uncertain after " + strconv.Itoa(e.Attempts) + " attempt"
	if e.Attempts != 1 {
		s += "s"
	}
	s += ": " + e.Reason
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Is reports whether target is ErrUncertain.
func (e *UncertainError) Is(target error) bool { return target == ErrUncertain }

// Unwrap returns the last cause.
func (e *UncertainError) Unwrap() error { return e.Cause }

// ErrRejected is matched by a *StatusError with a 4xx status: the provider
// answered that it did not perform the operation.
var ErrRejected = errors.New("runtime: rejected by provider")

// ErrNotSent is matched by the error of a call that ended before any
// attempt obtained a connection: nothing reached the provider.
var ErrNotSent = errors.New("runtime: request not sent")

// ErrInProgress is returned when another caller holds the ledger claim for
// the same business key and the context ended before it settled.
var ErrInProgress = errors.New("runtime: call in progress elsewhere")

// StatusError reports a response whose status is not a success.
type StatusError struct {
	Operation string
	Status    int
	Header    http.Header
	Body      []byte // the response body, as received
	Attempts  int

	unsettled bool // the cause of an uncertain outcome: not a rejection
}

func (e *StatusError) Error() string {
	s := "runtime: operation " + quote(e.Operation) + ": status " + strconv.Itoa(e.Status)
	if t := http.StatusText(e.Status); t != "" {
		s += " " + t
	}
	if len(e.Body) > 0 {
		b := e.Body
		if len(b) > 200 {
			b = b[:200]
		}
		s += ": " + strconv.Quote(string(b))
	}
	return s
}

// Is reports whether target is ErrRejected and the status is a 4xx that
// settled the call (not the cause of an *UncertainError).
func (e *StatusError) Is(target error) bool {
	return target == ErrRejected && e.Status >= 400 && e.Status <= 499 && !e.unsettled
}

func quote(s string) string { return strconv.Quote(s) }
