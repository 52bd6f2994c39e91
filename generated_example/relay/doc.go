// Package relay is the escalation relay: when a user talking to the assistant asks for a person,
// it opens a thread in the support desk, links it to the conversation, and relays the first
// agent reply back into the chat.
//
// Every step is built so that repeats converge on one effect:
//
//   - Both webhooks (the chat platform's escalation requests, the support desk's replies) go
//     through the ledger's inbox: the signature is checked, the event is stored once per event
//     id and answered 204 at once, and the work runs afterwards, at least once, on the relay's
//     workers. Re-deliveries are stored once and do nothing.
//   - An escalation is our own row, one per conversation (a unique constraint), with our own
//     surrogate id. The thread is created by the generated support client with the business key
//     "escalation:<id>": the client claims that key in the ledger before it calls, derives the
//     desk's idempotency key and the thread's external reference from it, retries only what its
//     annotations allow, and searches by reference before giving up. The desk's thread id is
//     stored as an attribute of our row.
//   - The first agent reply wins with a conditional UPDATE (first_reply_id IS NULL) whose
//     transaction also records the obligation to deliver it in the ledger's outbox. Later
//     replies and re-delivered events change nothing.
//   - The outbox worker delivers each obligation with its dedupe key as the business key of the
//     generated client (so the provider's idempotency key is the same on every try) and the
//     ledger stores the receipt before the item is marked sent. Obligations go both ways: the
//     user's request is posted into the new thread, and the first reply into the conversation.
//   - What cannot be settled ends uncertain in the ledger, where "writegen ledger list" shows it
//     to a person, and never turns into a second thread.
//   - Run calls Resume now and again (ResumeEvery): the clients take over the claims of a relay
//     that died or stalled for longer than its lease, and drive on the uncertain writes whose
//     key or lookup can still settle them; then the relay asks the ledger again for the threads
//     of its uncertain escalations, so that what was settled since reaches them.
//
// Several relays, in several processes or machines, may share one ledger (PostgreSQL): a webhook
// is handled by whichever relay it reaches, an obligation by whichever outbox worker leases it,
// and every Resume may run at once, since the ledger hands each claim to one caller under a
// lease and fences out a caller whose lease was taken over.
package relay
