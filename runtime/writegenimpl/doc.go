// Package writegenimpl is imported by code that writegen generates and by
// writegen's own packages (the generator reads the retry kinds here:
// RetryKinds, ParseRetry), and by nothing else: its API may
// change with every SupportPackageIsVersionN, and a program calls a
// generated client instead. Users' types (keys, receipts, errors, options,
// the Ledger interface) live in package runtime; what the options set is
// Settings here.
//
// It holds the executor of generated clients: Operation descriptors, the
// Request builder, and WriteInto, SubmitInto, Read, Do and ResumeAll. Their
// type parameters are instantiated with pointers only (*Thread,
// *runtime.Receipt[Thread]), which share one shape: a package with
// thousands of operations and hundreds of response types compiles each of
// them once, and the executor behind them not at all. A Call is erased into
// a codec by closures compiled with them, and the receipt is filled through
// reflection. ResumeAll is given a table of ResumableWrite values, laid out
// as data, whose lookups and compensations the compiler checks against the
// client and the response type. Write, Submit and Resume, generic in the
// response type, serve code written by hand.
//
// The small helpers every operation calls (NewRequest, AddQuery,
// PathSegment, TimeText, Read, Do) are marked //go:noinline. Inlined into
// each of the thousands of operations of a large generated package, they
// cost its compile about a fifth of its memory; the call they save costs
// nothing beside a request.
//
// The executor's rules, in short (package runtime's documentation gives
// them in full):
//
//   - A keyed write derives its provider key from its runtime.Identity
//     (scope, tenant, key scope, business key), builds its request once and
//     sends the same bytes on every attempt. Its request body has no
//     GetBody, so neither HTTP/1.1 nor HTTP/2 can re-send it below the
//     runtime; an attempt whose headers were written more than once is
//     ambiguous whatever its status.
//   - An attempt whose request headers were never written is not_sent;
//     one written without a complete answer is ambiguous. Every attempt
//     has a deadline.
//   - With dedupe, the key is claimed in the ledger under a lease that a
//     heartbeat renews while the call runs; settling presents the claim's
//     fence, and a caller whose row was taken over learns the other's
//     outcome or ends uncertain.
//   - Resume takes over rows whose lease expired and uncertain rows marked
//     re-drivable, and drives each with its stored request.
package writegenimpl
