// Package scenario runs the escalation relay end to end against the simulators: a ledger
// (SQLite or PostgreSQL), the generated support and chat clients, the relay and its workers, and
// a support desk and a chat platform on 127.0.0.1 that inject faults from a seeded Schedule.
//
// The relay runs in this process, or, with Options.Replicas, in several processes of its own on
// one ledger (the program run again; it must call ReplicaMain first). Each replica has its own
// webhook server, inbox and outbox workers and periodic Resume; the simulators deliver each
// webhook to one of them, and the schedule kills one (and starts it again) or stops it for longer
// than the lease while it holds claims, so that the other takes them over.
//
// An Env is built once and runs schedules one after another; after each, Run waits until every
// webhook has been delivered and handled, every obligation sent or settled and every claim
// settled, holds the periodic Resume of every relay, and checks what must hold whatever the
// faults:
//
//   - no conversation has two threads at the desk, no request is posted into a thread twice, and
//     no reply is delivered into a conversation twice (and only the first reply is);
//   - no outcome is lost: every escalation ends with its thread recorded, or uncertain in the
//     ledger, listed for a person, and so does every request to post and every reply to deliver;
//   - every write of the run that is uncertain is listed by the ledger and was told to the
//     notifier, and every outcome told to the notifier is recorded in the ledger;
//   - every webhook event was stored and handled, and every obligation sent or left uncertain.
//
// Settle, after the last schedule, lets the relays' Resume ask again the lookups of the notes
// that could not answer yet (their lag had not passed when the call ended), then checks every
// escalation of every schedule once more; Figures.End counts what it found, and NoteFigure
// how many of the notes stayed uncertain.
//
// The demo (../cmd/demo) runs one large schedule; the soak tests run a thousand small ones with
// the relay in this process, and, on PostgreSQL, a hundred (or a thousand) with two replicas.
package scenario
