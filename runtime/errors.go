package runtime

import (
	"errors"
	"net/http"
	"strconv"
)

// The outcomes of a call that did not end in a receipt or an
// acknowledgement. Each error a write returns, and each outcome replayed
// from the ledger, matches exactly one of them (or ErrEmptyKey, or is a
// plain error about something that happened before anything was sent).
// ErrDecode is the one that comes with a receipt or an acknowledgement.
var (
	// ErrUncertain is matched by every *UncertainError: the write may or
	// may not have taken effect.
	ErrUncertain = errors.New("writegen: outcome uncertain")
	// ErrRejected is matched by a *StatusError holding a definite answer
	// about this request (a 4xx such as 400, 404 or 422): nothing happened,
	// and the same request will be refused again.
	ErrRejected = errors.New("writegen: rejected by provider")
	// ErrNotApplied is matched when nothing this call sent took effect: no
	// attempt was sent, or the provider answered 429, 408, 425, or 401/403
	// outside a credential rotation, with no earlier attempt of the call
	// that may have committed, or a person resolved its ledger row "not
	// applied". With dedupe the row is then not_applied and the key may be
	// claimed again; without a ledger it says nothing of earlier calls with
	// the same key. *NotAppliedError carries why.
	ErrNotApplied = errors.New("writegen: not applied")
	// ErrInProgress is matched when another caller holds the ledger claim
	// of the same business key and the context ended before it settled.
	ErrInProgress = errors.New("writegen: call in progress elsewhere")
	// ErrKeyConflict is matched by every *KeyConflictError: the business
	// key was used before with a different request. Nothing is sent.
	ErrKeyConflict = errors.New("writegen: business key used with another request")
	// ErrCompensated is matched when the ledger row of the business key
	// records an effect that was compensated (undone): the key is settled.
	ErrCompensated = errors.New("writegen: effect compensated")
	// ErrDecode is matched by every *DecodeError: a 2xx answer whose body
	// did not decode into the response type. A write so answered took
	// effect: it returns its receipt (or acknowledgement) with the error,
	// the id read from the raw body, and its ledger row is settled done; it
	// is never sent again. A receipt whose id cannot be read from the body
	// ends uncertain instead.
	ErrDecode = errors.New("writegen: response body did not decode")
)

// DecodeError reports a 2xx answer whose body did not decode into the
// operation's response type: the provider answered outside its spec. The
// receipt returned with it has the id read from Body and a nil Body field
// of its own: Raw holds what came.
type DecodeError struct {
	Operation string // operationId
	Status    int
	Body      []byte // the body as received
	Cause     error  // what encoding/json said
}

func (e *DecodeError) Error() string {
	s := "writegen: operation " + quote(e.Operation) + ": the " + strconv.Itoa(e.Status) + " response body did not decode"
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Is reports whether target is ErrDecode.
func (e *DecodeError) Is(target error) bool { return target == ErrDecode }

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Cause }

// UncertainError reports a write whose outcome cannot be settled: it may or
// may not have taken effect. It is recorded for a person to reconcile
// (Recorded says where), its Owner is notified, and it is never retried
// automatically, except while the provider key is inside its window or a
// strongly consistent lookup can answer: then Resume, or the next call with
// the same business key and request, drives it on (one of them, fenced).
type UncertainError struct {
	Identity           // Scope, Tenant, Operation (key scope), BusinessKey
	OperationID string // the operationId, for messages
	ProviderKey string
	Owner       string // who is told
	Attempts    int
	Reason      string // a short phrase: "ambiguous without key or lookup", "superseded by another caller", ...
	Status      int    // the last HTTP status (a 2xx that could not be read), 0 if none
	Body        []byte // the raw 2xx body, kept when it did not decode or had no id
	Recorded    string // where the outcome is recorded: "ledger row 42", "notifier" or "log"
	Cause       error  // the last cause, if any
}

func (e *UncertainError) Error() string {
	s := "writegen: operation " + quote(e.OperationID) + keyPhrase(e.Identity) +
		": outcome uncertain after " + plural(e.Attempts, "attempt") + ": " + e.Reason
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	if e.Recorded != "" {
		s += " (recorded in " + e.Recorded + ")"
	}
	return s
}

// Is reports whether target is ErrUncertain.
func (e *UncertainError) Is(target error) bool { return target == ErrUncertain }

// Unwrap returns the last cause.
func (e *UncertainError) Unwrap() error { return e.Cause }

// StatusError reports a response whose status is not a success.
//
// It matches ErrRejected when the status settled the call as rejected (a
// definite 4xx answer about this request), and ErrNotApplied when it left
// the key free (429, 408, 425, 401 or 403 outside a rotation, with no
// earlier attempt that may have committed). As the cause of an
// *UncertainError it matches neither.
type StatusError struct {
	Operation string // operationId
	Status    int
	Header    http.Header
	Body      []byte // the response body, as received
	Attempts  int

	// State is how the status settled the call: StateRejected,
	// StateNotApplied, or StateUncertain when the status is the cause of an
	// *UncertainError. "" (a StatusError built by hand) lets Status decide:
	// 408, 425 and 429 are not applied, other 4xx rejected.
	State State

	// Refusal is set when a 2xx body is the provider's refusal (response.ok
	// false: Slack's {"ok": false, "error": "channel_not_found"}): why, in
	// the provider's words. The write did not happen.
	Refusal string
}

func (e *StatusError) Error() string {
	s := "writegen: operation " + quote(e.Operation) + ": status " + strconv.Itoa(e.Status)
	if t := http.StatusText(e.Status); t != "" {
		s += " " + t
	}
	if e.Refusal != "" {
		s += ", refused by the provider: " + e.Refusal
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

// Is reports whether target is the sentinel the status settled the call
// with: ErrRejected or ErrNotApplied.
func (e *StatusError) Is(target error) bool {
	st := e.State
	if st == "" {
		switch {
		case e.Status == 408 || e.Status == 425 || e.Status == 429:
			st = StateNotApplied
		case e.Status >= 400 && e.Status <= 499:
			st = StateRejected
		}
	}
	return st == StateRejected && target == ErrRejected || st == StateNotApplied && target == ErrNotApplied
}

// NotAppliedError reports a write that did not happen: the business key is
// free to be used again.
type NotAppliedError struct {
	Operation string // operationId
	Reason    string // "not sent", "status 429 Too Many Requests", "resolved not applied", ...
	Cause     error  // what happened, if anything: a dial error, the *StatusError, ctx.Err()
}

func (e *NotAppliedError) Error() string {
	s := "writegen: operation " + quote(e.Operation) + ": not applied: " + e.Reason
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Is reports whether target is ErrNotApplied.
func (e *NotAppliedError) Is(target error) bool { return target == ErrNotApplied }

// Unwrap returns the cause.
func (e *NotAppliedError) Unwrap() error { return e.Cause }

// KeyConflictError reports a business key used with a request other than
// the one its ledger row holds: the caller's bug (or two intents sharing a
// key). Nothing is sent, and the first call's receipt is not returned.
type KeyConflictError struct {
	Identity
	OperationID string
	RowID       int64 // the ledger row that holds the other request
}

func (e *KeyConflictError) Error() string {
	return "writegen: operation " + quote(e.OperationID) + keyPhrase(e.Identity) +
		": used before with another request (ledger row " + strconv.FormatInt(e.RowID, 10) + "); nothing was sent"
}

// Is reports whether target is ErrKeyConflict.
func (e *KeyConflictError) Is(target error) bool { return target == ErrKeyConflict }

// keyPhrase names the business key (and tenant) of an error message.
func keyPhrase(id Identity) string {
	s := ""
	if id.Tenant != "" {
		s += " tenant " + quote(id.Tenant)
	}
	if id.BusinessKey != "" {
		s += " key " + quote(id.BusinessKey)
	}
	return s
}

func plural(n int, what string) string {
	s := strconv.Itoa(n) + " " + what
	if n != 1 {
		s += "s"
	}
	return s
}

func quote(s string) string { return strconv.Quote(s) }
