// Package wgtemporal runs the writes of writegen's generated clients inside
// Temporal activities, so that the engine's retries and writegen's answers
// agree: the engine re-runs an activity at least once, and writegen makes
// the re-run the same logical write, or says that it cannot.
//
// # The business key
//
// Key returns the key a write takes inside an activity: the workflow ID and
// the activity's ID. Both stay the same whenever Temporal runs the activity
// again: a retried attempt, an attempt on another worker after one died, and
// a new run of the workflow that replays the same code from the start (a
// workflow retry, continue-as-new, the workflow started again under its ID)
// scheduling the same activity. The run ID is not part of it: every
// workflow retry and reset starts a run with a new run ID, so a key that
// held it would make the write of the second run a new write, and the
// provider a second payment.
//
// The SDK's default activity ID is the ID of the event the scheduling will
// be in the workflow's history. A reset keeps the history up to its point
// and appends events (the failed and the new workflow task), so a write
// scheduled after that point gets another default ID, hence another key:
// on a real server, a reset run paid a second time with default IDs.
// Give each activity that makes a write an explicit ActivityID, unique in
// its workflow, when the workflow may be reset, or when the order in which
// it schedules activities can change between versions of its code:
// Writes.Execute keeps the ActivityID of the activity options of its
// context (workflow.WithActivityOptions).
//
// # Outcomes
//
// Error turns a write's error into the error the activity returns:
//
//   - runtime.ErrUncertain: a non-retryable application error of type
//     TypeUncertain whose details are an Uncertain (the ledger row, the
//     provider key, who was told and how to reconcile it): the engine must
//     not run again what writegen refused to send again;
//   - runtime.ErrNotApplied: retryable (TypeNotApplied): nothing happened;
//   - runtime.ErrInProgress: retryable (TypeInProgress), with the engine's
//     backoff: another attempt holds the key and its lease had not ended
//     when this attempt's context did; the next attempt waits for it again,
//     and takes it over once the lease ends;
//   - runtime.ErrRejected, runtime.ErrKeyConflict, runtime.ErrCompensated
//     and runtime.ErrEmptyKey: non-retryable, each of its own type.
//
// # Retry policies
//
// Temporal runs an activity again after any failure it does not know to be
// final, and after a worker died or an attempt timed out, without a word
// from the activity. Writes.Register checks the activity's retry policy
// against the write's answers, as the generated package's Writes describes
// them (runtime.WriteInfo: NewWrites(payments.Writes())), and refuses a
// policy that would run again a write writegen would not send again: one
// that may have reached the provider and has neither a ledger claim (dedupe:
// ledger) nor a provider key that writegen re-sends after an ambiguous
// failure.
//
// # Resume, scheduled by Temporal
//
// A worker that dies in the middle of a write leaves its ledger claim
// behind; the attempt Temporal runs next, on another worker, finds the
// claim, waits until its lease has ended by the ledger's clock, then takes
// it over, fenced, and drives it on with the same provider key. A claim no
// attempt comes back for (the workflow was cancelled or terminated, the
// activity ran out of attempts), and uncertain writes whose lookup could
// not answer yet and are to be asked again later (runtime.WithReask), are
// the work of the generated client's Resume, and Temporal runs it:
// RegisterResume registers on each worker the workflow ResumeWorkflow,
// whose activity calls Resume, and ScheduleResume keeps a Temporal schedule
// that starts it every period. The schedule is kept by the Temporal server,
// not by a process of the application, so Resume goes on whichever workers
// die or restart, and runs on one worker at a time. A write that waits on a
// dead worker's claim returns once the claim's lease has ended (or once the
// scheduled Resume settled it, if that came first): give its activity a
// heartbeat timeout (Run heartbeats) or a start-to-close timeout longer than
// the lease. The example of RegisterResume runs the Resume workflow on an
// uncertain payment in the SDK's test environment; the tests in
// engines/temporal/servertest run the schedule on a real Temporal server,
// on a worker started after the one that kept it was killed.
//
// # Acknowledgements
//
// A write whose answer is an acknowledgement (runtime.Ack) is settled later,
// by the provider's webhook. Acks.Pending records the activity's task token
// under the write's provider key and returns activity.ErrResultPending, so
// the activity completes asynchronously; the webhook inbox's handler calls
// Acks.Complete with the provider key the event names, which completes the
// activity by its task token (client.Client.CompleteActivity).
package wgtemporal
