// Package safety is the generator's safety check: it binds the annotation file's entries to the
// operations of the spec (Resolver.Bind), decides which are in scope, and resolves every answer
// of every write in scope into the IR's Safety, or refuses it at its position. The rules are a
// table (Rules), applied in order; each is written in rule_<name>.go with every refusal of its
// answer, and the lookup's proofs in lookup_*.go. It also derives what the IR records of the
// answers: the tools' hints (HintsOf) and the identities of WRITE_SAFETY.json (Identity,
// CheckIdentity).
//
// # What the check counts
//
// Only what works at run time. A lookup by reference counts when the reference reaches the
// provider with the write (a reference field or query parameter, or the idempotency key in a
// body field or query parameter), and it must find the write's response type: writegen never
// converts one type into another. A member of a retry set that can never cause another attempt
// is refused: after an answer that may come from a committed write (none at all, a 5xx), the
// runtime sends again only an idempotent write, a keyed write inside its key's window, or one a
// strongly consistent lookup did not find; a 409 means "still running" only for a write with an
// idempotency key. Every answer acts: compensate is called for every duplicate a lookup finds
// beyond the first (so it needs a lookup that can find several, and an idempotent compensation
// without a business key), an inbox answer builds the inbox's constructor, reversible is gone
// (a duplicate that can be undone is still a second effect: ambiguous, with compensate).
//
// # Identity
//
// A write's provider key and ledger row are derived from the provider scope (the file's
// scope), its key scope (key.scope, by default the entry's name lower-cased with every run of
// other characters than [a-z0-9._-] replaced by '-') and its business key: an operationId
// renamed upstream keeps its identity when key.scope is kept. Identity writes the answers that
// identity depends on into WRITE_SAFETY.json, and CheckIdentity refuses, against the record of
// the package being regenerated, a change of scope, key scope, key format or max length, a
// widened retry set, a weaker lookup or a dropped ledger claim, each at the answer that
// changed, unless the write's acknowledge (or the defaults') names the old value.
package safety
