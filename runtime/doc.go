// Package runtime is linked by every client writegen generates. It sends a
// provider's writes so that each logical write has one effect, or ends in
// an outcome of its own type, *UncertainError, that a person reconciles; it
// uses the standard library only.
//
// # Keys
//
// A write method takes a typed business key (a Key): "escalation:42"
// names the caller's intent, not an attempt. ProviderKey derives the
// provider's idempotency key from it, scoped to the operation and
// optionally hidden behind an HMAC (WithKeySecret), so the same intent
// gives the same key after a retry, a restart or on another machine. An
// empty key is refused before anything is sent. The request is built once
// and every attempt, including one made by Resume after a crash, sends the
// same bytes.
//
// # Classification
//
// Each attempt is classified with net/http/httptrace: not_sent when no
// connection was obtained (nothing reached the provider), ambiguous when a
// connection was obtained but no response arrived (the write may or may not
// have happened), or by its status. Writes never follow redirects, and the
// idempotency header, which net/http replays by itself on a broken reused
// connection, is only sent to providers that honour it.
//
// # Retries
//
// An Operation's Retry set is a constant in generated code; options such as
// WithRetryMask and WithMaxAttempts can only narrow it. Once an attempt may
// have taken effect (ambiguous, 5xx, or 409 "still running"), a write is
// sent again only while re-sending cannot make a second effect: its key is
// inside the provider's window (Operation.KeyWindow) or its effect is
// idempotent. Otherwise the operation's lookup is asked: what it finds is
// adopted (Receipt.Source is AdoptedLookup); a strongly consistent lookup's
// "not found" allows another attempt, an eventually consistent one's never
// does. Without key or lookup the call ends uncertain, as it does when the
// context ends after a send or the provider reports the key reused with
// another payload. Backoff uses full jitter and honours Retry-After;
// provider hints (Stripe-Should-Retry: false) can stop a retry, never add
// one; a retry budget shared by the client stops retry storms. Reads are
// retried on not_sent, ambiguous, 408, 425, 429 and 5xx.
//
// # Ledger
//
// An operation with Dedupe claims its business key in a Ledger before
// calling. The caller that wins the claim calls the provider and settles
// the row: active with the receipt, rejected, or uncertain. Every other
// caller waits for the row and returns the same receipt (Source
// AdoptedLedger) or the same error without calling the provider. A claimed
// row is never turned back into permission to create: rows left claimed by
// a crash are driven on by Resume, with the stored request and key, through
// the lookup, or to uncertain. The one exception is a call that reached
// nobody (every attempt not_sent): its row settles not_sent, and a later
// call may claim the key again, since nothing can have happened.
//
// # Outcomes
//
// Write returns a *Receipt, the proof of a durable effect; Submit returns an
// *Ack, which only says the provider accepted the request. Errors are found
// with errors.Is: ErrUncertain (the Notifier tells the operation's Owner),
// ErrRejected (a 4xx: nothing happened), ErrNotSent, ErrEmptyKey and
// ErrInProgress. Hooks observe attempts without tying the runtime to a
// logging or tracing library.
package runtime
