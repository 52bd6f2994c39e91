package runtime

import "time"

// SupportPackageIsVersion1 is referenced by generated code
// (const _ = runtime.SupportPackageIsVersion1) so that code generated for a
// newer runtime fails to compile against an older one.
const SupportPackageIsVersion1 = true

// Effect says what repeating an operation does to the provider's state.
type Effect uint8

// The effects an annotation can declare.
const (
	EffectReadOnly      Effect = iota + 1 // no effect
	EffectIdempotent                      // repeating it is harmless (PUT, DELETE)
	EffectReversible                      // a duplicate can be undone
	EffectCompensatable                   // a duplicate can be offset by another operation
	EffectAmbiguous                       // a duplicate is a second effect
)

// Consistency describes the lookup an operation declares.
type Consistency uint8

// The kinds of lookup.
const (
	NoLookup Consistency = iota // no lookup
	Strong                      // "not found" means the write did not commit
	Eventual                    // "found" can be adopted; "not found" proves nothing
)

// Operation describes one API operation. Generated code declares one per
// operation as an unexported package-level variable; the runtime never
// modifies it.
type Operation struct {
	Name         string        // operationId, e.g. "createThread"
	Method       string        // "POST"
	Path         string        // path template, "/threads/{id}"
	Effect       Effect        // what repeating it does
	Retry        Retry         // the compile-time retry set
	Attempts     int           // maximum attempts including the first (values below 1 mean 1)
	KeyHeader    string        // idempotency header the provider honours, "" if none
	Keyed        bool          // the provider honours a key (header, body or query)
	KeyMaxLength int           // longest key the provider accepts; 0 = no limit
	KeyWindow    time.Duration // how long the provider remembers a key; 0 = forever
	Receipt      bool          // a 2xx is a receipt; false = acknowledgement
	IDPointer    string        // JSON pointer of the durable id in the 2xx body ("/id")
	Lookup       Consistency   // the lookup's consistency, NoLookup when there is none
	Dedupe       bool          // claim the business key in the ledger before calling
	Owner        string        // who is told when an outcome is uncertain
	// RotationSafe is set when the provider's token refresh leaves tokens in
	// flight valid, so a 401 or 403 is a rejection even while the token
	// rotates. By default such an auth failure is ambiguous.
	RotationSafe bool
}

// Empty is the body type of operations whose response has no body.
type Empty struct{}
