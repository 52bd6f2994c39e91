package writegenimpl

import (
	"time"

	"github.com/writegen/writegen/runtime"
)

// SupportPackageIsVersion8 is referenced by generated code
// (const _ = writegenimpl.SupportPackageIsVersion8) so that code generated
// for another version of this package fails to compile on that line, which
// says to generate it again, instead of on a type it no longer has. Version
// 8: Resume's table is of ResumableWrite values, whose methods the compiler
// checks, no longer of values ResumeAll checks and calls through
// reflection. Version 7: parameters are passed as the texts the generated
// code writes with their types' formatters (PathSegment, AddQuery,
// AddQueryList, ...), no longer as values the runtime formats by
// reflection.
const SupportPackageIsVersion8 = true

// Operation describes one API operation. Generated code declares one per
// operation as an unexported package-level variable; the runtime never
// modifies it.
type Operation struct {
	ID           string         // operationId, for messages and hooks
	Scope        string         // key scope (stable across operationId renames), "" for reads and unkeyed writes
	Method       string         // "POST"
	Path         string         // path template, "/threads/{id}"
	Effect       runtime.Effect // what repeating it does
	Retry        runtime.Retry  // the compile-time retry set
	Attempts     int            // maximum attempts including the first (values below 1 mean 1)
	KeyHeader    string         // idempotency header the provider honours, "" if none
	Keyed        bool           // the provider honours a key (header, body or query)
	KeyMaxLength int            // longest key the provider accepts; 0 = no limit
	KeyWindow    time.Duration  // how long the provider remembers a key; KeyForever; 0 = unknown (see KeyForever)
	Receipt      bool           // a 2xx is a receipt; false = acknowledgement
	// IDPointer is the JSON pointer of a receipt's durable id in the 2xx
	// body ("/id", "/ticket/id"): a body that does not decode still gives
	// its id through it, and the write is settled done. "" leaves such a
	// body uncertain.
	IDPointer string
	Lookup    runtime.Consistency
	// LookupLag is how long after a write the lookup is sure to see it (an
	// eventual lookup's lag, a strong one's settle time): "not found"
	// counts only once it has passed since the last moment an attempt
	// could still run. 0: "not found" from an eventual lookup never counts,
	// and a strong lookup waits DefaultSettle.
	LookupLag time.Duration
	// Marker is the text a write without a field for its reference
	// appends to a free-text field, with {ref} for the reference (" [ref:{ref}]");
	// "" when it stores the reference in a field. A found effect is the
	// write's when its Found.Ref is the reference or, with a marker, holds
	// it.
	Marker string
	// Joined says the reference is stored joined with the values its
	// lookup needs (JoinReference).
	Joined bool
	Dedupe bool // claim the business key in the ledger before calling
	// Retention is how long the ledger remembers a business key of a
	// Dedupe operation once its write is settled for good (active,
	// rejected, not applied, compensated), by the ledger's clock: a repeat
	// with the key within it gets the first outcome, after it the key may
	// be forgotten and a repeat is a new write. The annotation states it,
	// never shorter than the operation's dedupe horizon; Resume prunes the
	// rows past it (runtime.Pruner). Uncertain and claimed rows are kept
	// until they are settled. 0 keeps every key for good.
	Retention time.Duration
	Owner     string // who is told when an outcome is uncertain
	// RotationSafe is set when the provider's token refresh leaves tokens in
	// flight valid, so a 401 or 403 is a plain auth failure even while the
	// token rotates. By default such an auth failure is ambiguous then.
	RotationSafe bool
	// Refused reads a decoded 2xx body (a *T) for the provider's refusal
	// (Slack's {"ok": false, "error": "..."}): it returns why, "" when the
	// body is a success. A refused write did not happen: the call settles
	// rejected with a *runtime.StatusError whose Refusal says why. Nil when
	// a 2xx is always a success.
	Refused func(body any) string
}

// DefaultSettle is how long after the last moment an attempt could run a
// strong lookup's "not found" counts when the Operation declares no settle
// time (LookupLag): generated code always declares one, as the provider's.
const DefaultSettle = 5 * time.Second

// KeyForever is the KeyWindow of a provider that remembers keys for good.
//
// A KeyWindow of 0 means nobody declared how long the provider remembers a
// key. The key is then relied on only by the call that first sends it: its
// retries re-send it (a provider that honours keys at all remembers one for
// as long as a call retries), but a later caller, Resume, or a takeover of
// the row never re-send it, since the provider may have forgotten it and
// would make a second effect. They ask the lookup, or leave the outcome
// uncertain for a person, as for a key past its window.
const KeyForever time.Duration = -1

// keyScope returns the Operation part of the operation's identity: its key
// scope, or its operationId when it declares none.
func (op *Operation) keyScope() string {
	if op.Scope != "" {
		return op.Scope
	}
	return op.ID
}
