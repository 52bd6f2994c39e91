// Package scenario runs the escalation relay end to end against the simulators: a ledger
// (SQLite or PostgreSQL), the generated support and chat clients, the relay and its workers, and
// a support desk and a chat platform on 127.0.0.1 that inject faults from a seeded Schedule.
//
// An Env is built once and runs schedules one after another; after each, Run waits until every
// webhook has been delivered and handled and every obligation sent or settled, then checks what
// must hold whatever the faults:
//
//   - no conversation has two threads at the desk;
//   - no reply is delivered into a conversation twice, and only the first reply is;
//   - every escalation ends with its thread recorded, or uncertain in the ledger, listed for a
//     person;
//   - every webhook event was stored and handled, and every obligation sent or left uncertain.
//
// The demo (../cmd/demo) runs one large schedule; the soak test runs a thousand small ones.
package scenario
