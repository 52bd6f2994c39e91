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
// A write whose operation declares "dedupe: ledger" claims its identity
// before the provider is called: (scope, tenant, operation, business key),
// runtime.Identity, where the scope names the provider (the annotation
// file's "scope"), the tenant one account of it (WithTenant), and the
// operation is the operation's key scope. Claim is a conditional insert
// that exactly one caller wins. The winner calls the provider and settles
// the row; every other caller waits for the winner's outcome (Await) and
// makes no call of its own, after comparing the request digest the row
// holds with its own. Clients of different providers, and of different
// tenants of one provider, can share a ledger: every statement keeps to one
// scope and tenant, and no row of one is ever claimed, taken over or
// listed as another's.
//
// # Leases and fences
//
// A claim is held under a lease that the caller renews while its call
// runs (Renew), and a fence: a number that every claim and every takeover
// of the row increments. Renew and Settle present the fence they got; with
// a stale one they fail with runtime.ErrLeaseLost and change nothing.
// TakeOver hands out the claims whose lease has passed, each to one
// caller, with the next fence, so a caller that stopped renewing (it died,
// or hangs) is shut out of the row its taker now drives; age alone never
// hands a live call's row to someone else. TakeOverRow does the same for
// one row, by its id: a call with the row's business key drives it on at
// once, and of the callers that take one row at once, by TakeOver or
// TakeOverRow, one gets it. A row handed over says how long its previous
// holder's lease still had to run, by the database's clock
// (runtime.Record.LeaseLeft; for an uncertain row, minus the time since
// its settle), so that its taker knows until when an attempt of the
// previous holder may still land at the provider.
//
// A caller gives a lease as a length. The ledger sets its end, and
// compares it when taking over, by one clock: on PostgreSQL the server's
// (clock_timestamp() in the statement), so that the clocks of the
// machines that share the database, which drift and are stepped, never
// judge each other's leases; a caller counts its lease from when it sent
// the statement, by its own clock, which ends it no later than the
// database does. On SQLite the clock is SQLite's, that of the machine that
// runs the process: every process that opens one SQLite file is assumed
// to run on that machine (a file shared over a network is not safe for
// SQLite's locks either). The leases of outbox and inbox workers, and when
// an item or an event is due, are set and judged by the same clock. The
// process's own clock only stamps rows and verifies signatures. WithClock,
// for tests, replaces both clocks; WithProcessClock the process's alone,
// as a machine that runs ahead or behind.
//
// # Holders and restarts
//
// A claim names its holder (runtime.Holder): the client, and, when the
// program named its instance (runtime.WithInstance: a pod's name, stable
// across restarts, used by one process at a time), the instance and its
// incarnation, a number Incarnate gives each run of the instance (kept
// in writegen_instances; each handle of the ledger is one run). A claim
// held by an earlier incarnation of the taker's own instance is held by a
// process that is gone: TakeOver and TakeOverRow hand it to the new run at
// once, fenced as any takeover, so an instance that restarts after a crash
// drives its claims on at start-up (Resume) or when a call repeats the
// write, instead of waiting out their leases. Another instance still
// waits for the lease.
//
// # States
//
// A row moves once, from claimed to one of:
//
//	active       the receipt (or acknowledgement) is stored
//	rejected     a definite answer about this request: nothing happened, for good
//	not_applied  nothing happened (never sent, a 429, an auth failure outside a
//	             rotation, a person's "not applied"): the identity may be claimed again
//	uncertain    nobody can tell yet: a person reconciles it, or, marked
//	             re-drivable, the next TakeOver hands it out again
//	compensated  the effect was undone
//
// A claim's answer is final: Claim returns an error only once no claim of
// the call stands, nor ever will (it was never begun, or, recorded after
// the caller's context ended, it was settled not_applied before Claim
// returned), so that a caller told "not applied" is never followed by its
// request sent by someone's Resume; when the database failed so that this
// cannot be known, the error matches runtime.ErrInProgress instead, which
// promises nothing.
//
// Settle refuses a row that is not claimed, so a claimed row is never
// turned into permission to create a second effect. Only not_applied rows
// are claimed again, and besides expired claims TakeOver hands out only
// re-drivable uncertain rows: settled with Settlement.Redrive, until its
// RedriveUntil, once its RedriveAfter has passed since the settle by the
// database's clock, or marked by a person with Redrive (due at once, its
// Redrives counted anew). Record writes rows that
// are settled already and are not claims (an uncertain outcome of a write
// without dedupe, a duplicate a lookup found): they are listed, never
// claimed or taken over. The provider's identifiers are attributes of a
// row; its identity is its own surrogate id.
//
// # Reconciliation
//
// Rows are listed by scope, tenant, operation and state (List, Filter) and
// settled by a person: Resolve (committed, or not applied), Redrive and
// Compensate, from Go or with "writegen ledger" (package ledgercli). The
// runtime's Notifier tells an operation's owner when a write ends
// uncertain. Rows written before ledgers had scopes have scope "" until
// Adopt assigns them to the client that writes them now.
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
// retries and backoff; a handler that panics has failed that attempt, and
// an event that fails MaxAttempts times is set aside as failed while the
// others go on. Event ids are kept for a retention period (72 hours by
// default) so that a provider's retries are recognised; Prune removes older
// ones. An inbox whose retention is shorter than twice its verifier's
// signature tolerance is refused, as a replay could verify after its event
// was forgotten. The handler declares how events that arrive out of order
// are handled (Order: any, in_order or latest, the annotation file's
// words).
//
// # Schema
//
// Every table's name starts with writegen_. The schema is created and
// migrated by Open, in order, under a lock, and its version is recorded in
// writegen_schema_version; a database migrated by a newer writegen is
// refused. Version 2 identifies claims by scope, tenant, operation and
// business key (a unique index over the rows that are claims), and adds
// the lease, the fence and the request digest; it keeps the rows of
// version 1, unscoped, and makes their not_sent rows, and those a person
// resolved "not applied", not_applied. Version 3 gives outbox items a
// scope and a tenant, and makes (scope, tenant, operation, dedupe key) what
// records an obligation once; items of version 2 keep theirs, unscoped.
// Version 4 adds the holder's instance and incarnation to claims (rows of
// version 3 keep theirs, with none) and the writegen_instances table.
// Version 5 adds what a takeover tells its taker (lease_left: how long the
// previous lease had left, by the database's clock; redrives: how often an
// uncertain row was handed over) and when a re-drivable row is due
// (redrive_at, by the database's clock); Settle sets a settled row's lease
// end to the moment of its settle. Rows of version 4 are due at once and
// have no redrives.
// Version 6 keeps, with a claim until it is settled, a token of the call
// that made it: a caller whose claim's commit lost its answer claims again
// and recognises its own claim by it.
// Version 7 ends the state index with the moment a row was settled
// (lease_until), so that Prune finds the rows past a retention without
// reading the others.
//
// # Retention
//
// A row is kept for good unless its operation states a retention: how
// long a business key is remembered once its write is settled for good.
// Prune (and Resume, for an operation whose Retention is set, and
// "writegen ledger prune") removes the active, rejected, not_applied and
// compensated claims settled longer ago than that by the database's clock;
// a repeat of such a write is then a new write. Uncertain and claimed rows
// are never pruned: they stay until they are settled.
// Times are stored as microseconds since the Unix epoch, UTC; lease ends,
// due times and an event's arrival by the database's clock, the others by
// the process's.
//
// # Statements
//
// The ledger's statements are fixed texts, named after what they do
// (queries.go), each run as one statement. The database packages prepare
// each once per database connection and keep it: the sqlite package runs
// them on one connection of its own, the postgres package in pgx's
// statement cache.
package ledger
