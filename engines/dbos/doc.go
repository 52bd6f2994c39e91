// Package wgdbos runs the writes of writegen's generated clients as steps
// of DBOS Transact workflows. DBOS runs a step at least once: a step that
// was running when its process died runs again when the workflow is
// recovered. Write makes that re-run the same logical write.
//
// # The business key
//
// Key returns the key a write takes inside a step: the workflow ID and the
// step's ID, its position in the workflow. Both are the same when DBOS
// recovers the workflow and runs the interrupted step again, on this
// process or another executor.
//
// # Retries
//
// Write runs the step with DBOS's step retries off (WithStepMaxRetries(0),
// after any option given): the generated client retries what may be
// retried, with the same provider key, and nothing else, and a step retry
// would be a new call that cannot know what the last one sent. A write that
// finds the claim that an earlier run of the step left behind (its process
// died holding it) waits until the claim's lease has ended by the ledger's
// clock, then takes it over, fenced, and drives it on with the same
// provider key: it returns the first run's outcome.
//
// # Resume, scheduled by DBOS
//
// The claims of writes whose process died and whose step no recovered
// workflow runs again (the workflow was cancelled, or the write was made
// outside a workflow), and uncertain writes whose lookup could not answer
// yet (runtime.WithReask), are driven on by the generated client's Resume,
// and DBOS runs it: RegisterResume registers the workflow ResumeWorkflow,
// whose one step calls Resume, and ScheduleResume keeps a DBOS schedule, in
// DBOS's system database, that starts it on a cron expression. Every
// process that launches DBOS with the workflow registered runs the
// schedule, and DBOS starts one workflow per tick whichever process ticks
// first, so Resume goes on while any process is up and starts again with
// the first one that comes back. The example of ScheduleResume runs the
// schedule on an uncertain payment.
//
// # Outcomes
//
// The step records its outcome as its output, so that what it returns
// after a recovery is what it returned the first time, typed: a receipt, or
// an *Error that matches runtime.ErrUncertain, ErrRejected, ErrNotApplied,
// ErrKeyConflict, ErrCompensated or ErrEmptyKey with errors.Is and carries
// the ledger row of an uncertain write. (DBOS records a step's error as its
// text alone.) A workflow that returns that *Error keeps its type too when
// its result is read from the database (a workflow handle in another
// process, after a restart): DBOS encodes workflow errors with
// encoding/gob, and this package registers Error with it. ErrInProgress is
// never recorded: the step waits on the claim
// until it settles, or until the workflow is cancelled, which DBOS does not
// checkpoint. A write that ended not applied made no effect: the workflow
// may call Write again (a new step, so a new key; nothing happened under the
// old one).
//
// # Transactions
//
// DBOS runs a transaction as a step (RunAsTransaction over a DataSource;
// when the data source is DBOS's system database the step's checkpoint
// commits in the same transaction). writegen's claim is not made in it: the
// claim must be committed before the provider is called, or a process that
// dies during the call takes its uncommitted claim with it and the
// recovered step sends the write again as a new one; and the generated
// client makes its claim through runtime.Ledger inside the call, which has
// no way to join a caller's transaction. With DBOS's system database and
// the ledger in one PostgreSQL database, the claim and the step's
// checkpoint are two commits in one database.
package wgdbos
