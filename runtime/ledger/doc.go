// Package ledger is the durable ledger of writegen: the database-independent
// half of the runtime.Ledger implementations, the outbox and the webhook
// inbox. The databases live in sub-packages so that a program links only the
// driver it uses:
//
//	runtime/ledger/sqlite    embedded, a file path is all it needs (modernc.org/sqlite)
//	runtime/ledger/postgres  shared by many machines (pgx/v5)
//
// # Claims
//
// A write whose operation declares "dedupe: ledger" claims (operation,
// business key) before the provider is called: a conditional insert that
// exactly one caller wins. The winner calls the provider and settles the row;
// every other caller waits for the winner's outcome (Await) and makes no
// call of its own. A row moves once, from claimed to active (the receipt is
// stored), rejected, uncertain or compensated. Settle refuses a row that is
// not claimed, so a claimed row is never turned into permission to create a
// second effect, and Resolve refuses a row that is not uncertain. The
// provider's identifiers are attributes of a row; its identity is its own
// surrogate id.
//
// Rows left claimed by a process that died are handed out by Pending, which
// runtime.Resume drives on with the same provider key, through a lookup, or
// to uncertain.
//
// # Reconciliation
//
// Uncertain rows are listed (List) and resolved by a person (Resolve), from
// Go or with "writegen ledger list" and "writegen ledger resolve". The
// runtime's Notifier tells an operation's owner when a write ends uncertain.
//
// # Outbox
//
// An obligation is recorded in the caller's own transaction (Enqueue of the
// database sub-package) with a dedupe key that is unique per operation. An
// Outbox worker leases due items (FOR UPDATE SKIP LOCKED on PostgreSQL, so
// several workers on several machines share the work), sends each with its
// dedupe key as the provider's idempotency key, and stores the receipt in
// the same statement that marks the item sent. A worker that dies loses its
// lease and another one picks the item up again, with the same key.
//
// # Inbox
//
// An Inbox is an http.Handler for a provider's webhooks: it verifies the
// signature (Standard Webhooks by default, any Verifier otherwise), stores
// the event once per (source, event id), answers 204 before any work is
// done, and hands events to the handler asynchronously, at least once, with
// retries and backoff. Event ids are kept for a retention period (72 hours
// by default) so that a provider's retries are recognised; Prune removes
// older ones. The handler declares how events that arrive out of order are
// handled (Order).
//
// # Schema
//
// Every table's name starts with writegen_. The schema is created and
// migrated by Open, in order, under a lock, and its version is recorded in
// writegen_schema_version; a database migrated by a newer writegen is
// refused. Times are stored as microseconds since the Unix epoch, UTC.
package ledger
