// Package runtime holds what programs that use writegen's generated
// clients call and see: business keys, options, receipts, the errors an
// outcome ends in, the Ledger interface, hooks and credentials. The clients
// themselves send each logical write so that it has one effect, or ends in
// an outcome of its own type, *UncertainError, that a person reconciles.
// The package uses the standard library only. (Generated code also imports
// runtime/writegenimpl, its executor; programs never need to.)
//
// # Words
//
// A logical write is what the caller means once ("open the thread of
// escalation 42"); an attempt is one HTTP request of it. The business key
// names the logical write; the provider key (the idempotency key) is
// derived from it. A write is ambiguous after an attempt that may have
// taken effect without an answer saying so. A lookup is a read that asks
// the provider whether an earlier attempt took effect; to adopt is to
// return the effect it found (or one another caller got) as this call's
// receipt. The ledger is a database of claims: a claim is the row that
// says one caller is sending a logical write, held under a lease (a time
// limit the holder keeps renewing) and a fence (a number every new holder
// increments, so a stale holder's writes to the row are refused). To take
// over is to become the holder of a claim whose lease ran out. A row is
// settled when its outcome is stored: active (the receipt), rejected, not
// applied, uncertain or compensated. Resume drives on the claims of callers
// that died and the uncertain rows that can still be settled.
//
// The examples show the four things a program does: a write (Example),
// reading an uncertain outcome (ExampleUncertainError), and, in package
// ledger, the webhook inbox (ExampleLedger_Inbox) and Resume after a
// restart.
//
// # Keys and identity
//
// A write method takes a typed business key (a Key): "escalation:42" names
// the caller's intent, not an attempt. Together with the provider scope of
// the annotation file, the tenant (WithTenant) and the operation's key
// scope it makes the write's Identity, which ProviderKey turns into the
// provider's idempotency key, optionally behind an HMAC (WithKeySecret).
// The same intent gives the same key after a retry, a restart, on another
// machine and after the operationId is renamed; another provider, tenant or
// operation never shares it. An empty key is refused before anything is
// sent. The request is built once and every attempt, including one made by
// Resume in another process, sends the same bytes.
//
// # Classification
//
// Each attempt is classified with net/http/httptrace: not_sent when the
// request's headers were never written (nothing reached the provider),
// ambiguous when they were and no complete response arrived (the write may
// or may not have happened), or by its status. Nothing below the runtime
// sends a write again: write bodies cannot be rewound, so neither
// HTTP/1.1's replay on a broken reused connection nor HTTP/2's retry after
// RST_STREAM or GOAWAY can happen, and an attempt whose headers were
// written more than once is ambiguous whatever its status. Writes never
// follow redirects, the idempotency header is only sent to providers that
// honour it, and every attempt has a deadline (WithAttemptTimeout).
//
// # Retries
//
// An operation's retry set is a constant in generated code; WithRetryMask
// and WithMaxAttempts can only narrow it. Once an attempt may have taken
// effect (ambiguous, 5xx, or 409 "still running"), a write is sent again
// only while re-sending cannot make a second effect: its key is inside the
// provider's window (a window nobody declared covers only the call that
// first sends the key) or its effect is idempotent. Otherwise the operation's
// lookup is asked: what it finds is adopted (Receipt.Source is
// AdoptedLookup), and further effects it finds for the same reference are
// duplicates, compensated where the annotation says how. Only an effect
// that carries the write's reference (Found.Ref) is adopted, whatever the
// provider's search matched. Its "not found" allows another attempt only
// when the read covered every effect the write could have made (WalkList)
// and the settle time or lag the annotation declares for the provider has
// passed since the last moment an attempt could still run (its end, or the
// end of its holder's lease for a row taken over); an eventually
// consistent lookup without a lag never allows one. What the lookup cannot
// settle yet, Resume asks again later (WithReask). Without key or lookup the call ends
// uncertain, as it does when the context ends after a send or the provider
// reports the key reused with another payload. Backoff uses full jitter
// and honours Retry-After up to WithMaxRetryAfter (a longer one ends the
// call instead of waiting); provider hints (Stripe-Should-Retry: false) can
// stop a retry, never add one; a retry budget shared by the client stops
// retry storms. A 409 "still in progress" on a keyed write is waited for,
// not failed: the whole backoff, growing with each send and at least the
// provider's Retry-After; such waits count neither against the operation's
// attempts nor the retry budget, and are bounded by the attempt budget's
// time (the operation's attempts × WithAttemptTimeout), the context's
// deadline and the key's window, past which no 409 is sent again. Reads are retried on not_sent, ambiguous, 408, 425, 429 and
// 5xx.
//
// # Outcomes
//
// A receipt write returns a *Receipt, the proof of a durable effect with
// its id; an acknowledgement write returns an *Ack. A 2xx that does not
// decode took effect: the write returns its receipt (the id read from the
// raw body) or acknowledgement with a *DecodeError, matching ErrDecode, and
// is settled done. A receipt whose id cannot be read, from a body that
// decodes or not, is uncertain, with the raw body kept. Every other outcome
// matches exactly one sentinel with errors.Is:
//
//   - ErrUncertain: it may have happened; recorded (UncertainError.Recorded
//     says where) and told to the Notifier;
//   - ErrRejected: a definite answer about this request, such as a 400;
//   - ErrNotApplied: nothing happened and the key is free: nothing was
//     sent, or the provider answered 429, 408, 425, or 401/403 outside a
//     credential rotation before anything may have committed;
//   - ErrKeyConflict: the business key was used before with another
//     request; nothing is sent;
//   - ErrInProgress: another caller holds the key and the context ended;
//   - ErrCompensated: the key's effect was compensated.
//
// A write that may have committed never ends in a plain error.
//
// # Ledger
//
// An operation with "dedupe: ledger" claims its identity in a Ledger
// before calling, with the request's digest. The claim is held under a
// lease (WithLease) that a heartbeat renews while the call runs, set and
// judged by the ledger's clock (the database's), and is settled with the
// claim's fence. A receipt the ledger could not record is kept by the
// client and recorded before its next claim, or at Resume, so that the
// next caller adopts it. With WithInstance, a restarted instance takes
// the claims its earlier run left at once. Every other caller waits for the row and
// returns the same receipt (Source AdoptedLedger) or the same error
// without calling the provider; a caller with another request for the same
// key gets a *KeyConflictError. A claimed row is never turned back into
// permission to create: only a row whose lease expired (its caller died or
// stalled) is taken over, by the generated client's Resume in any process,
// with a new fence, and driven on with the stored request and key, through
// the lookup, or to uncertain; the caller that stalled then learns the
// other's outcome, or ends uncertain. Resume also drives uncertain rows
// whose key is still inside its window, or whose lookup can answer later
// (once its lag has passed, on the bounded schedule of WithReask), and
// so does, at once, the next call with the row's business key and
// request when the Ledger is a RowTaker: it takes the row over fenced (of
// it, Resume and other replicas, one gets it), re-sends the stored request
// with the same key or asks the lookup, and returns the receipt or
// uncertain. A row that cannot be driven on is returned as recorded,
// without calling the provider.
// Rows that ended not applied may be claimed again. A write whose receipt
// the ledger could not record still returns it (Hooks.LedgerFailed is
// told) and its row stays claimed for Resume. Uncertain outcomes of writes
// without dedupe are recorded with Ledger.Record when the client has a
// ledger, else only told to the Notifier, else logged with log/slog.
//
// # Credentials and hooks
//
// WithTokenSource authenticates each attempt; a Refresher shares one
// bounded refresh of a credential between all callers, on its own context,
// and persists a rotated token before anyone uses it. An auth failure while
// the token rotated under the request is ambiguous, not a rejection. Hooks
// observe calls, attempts, lookups and the ledger without tying the
// runtime to a logging or tracing library; their contexts make one span
// per logical write with a child per attempt.
package runtime
