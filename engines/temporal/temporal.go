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
// a new run of the workflow (a workflow retry, a reset, continue-as-new
// replaying the same code) scheduling the same activity. The run ID is not
// part of it: every workflow retry and reset starts a run with a new run ID,
// so a key that held it would make the write of the second run a new write,
// and the provider a second payment. Give activities that make writes an
// explicit ActivityID (workflow.ActivityOptions.ActivityID) when the order
// in which a workflow schedules them can change between versions of its
// code: the default ID is the activity's position in the workflow's history.
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
//     backoff: another attempt holds the key and writegen's Resume settles
//     it once that attempt's lease ends;
//   - runtime.ErrRejected, runtime.ErrKeyConflict, runtime.ErrCompensated
//     and runtime.ErrEmptyKey: non-retryable, each of its own type.
//
// # Retry policies
//
// Temporal runs an activity again after any failure it does not know to be
// final, and after a worker died or an attempt timed out, without a word
// from the activity. Writes.Register checks the activity's retry policy
// against the write's answers in WRITE_SAFETY.json and refuses a policy that
// would run again a write writegen would not send again: one that may have
// reached the provider and has neither a ledger claim (dedupe: ledger) nor a
// provider key that writegen re-sends after an ambiguous failure.
//
// # Resume, scheduled by Temporal
//
// A worker that dies in the middle of a write leaves its ledger claim
// behind; the attempt Temporal runs next, on another worker, finds the
// claim and waits for it. Uncertain writes whose lookup could not answer yet
// are to be asked again later (runtime.WithReask). Both are the work of the
// generated client's Resume, and Temporal runs it: RegisterResume registers
// on each worker the workflow ResumeWorkflow, whose activity calls Resume,
// and ScheduleResume keeps a Temporal schedule that starts it every
// period. The schedule is kept by the Temporal server, not by a process of
// the application, so Resume goes on whichever workers die or restart, and
// runs on one worker at a time. A write that waits on a dead worker's claim
// returns once the scheduled Resume has settled it (after the claim's lease
// and at most one period): give its activity a heartbeat timeout (Run
// heartbeats) or a start-to-close timeout longer than that.
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

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/writegen/writegen/runtime"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// Key returns the business key of the write made by the activity of ctx:
// "<workflow ID>/<activity ID>". It does not hold the run ID, which a
// workflow retry changes (see the package documentation).
func Key(ctx context.Context) string {
	info := activity.GetInfo(ctx)
	return info.WorkflowExecution.ID + "/" + info.ActivityID
}

// The application error types Error returns, for RetryPolicy's
// NonRetryableErrorTypes and for workflow code that tells them apart with
// temporal.ApplicationError.Type.
const (
	TypeUncertain   = "writegen.Uncertain"
	TypeNotApplied  = "writegen.NotApplied"
	TypeInProgress  = "writegen.InProgress"
	TypeRejected    = "writegen.Rejected"
	TypeKeyConflict = "writegen.KeyConflict"
	TypeCompensated = "writegen.Compensated"
	TypeEmptyKey    = "writegen.EmptyKey"
)

// Uncertain is the detail of a TypeUncertain error: what a person needs to
// reconcile the write. Get it with ApplicationError.Details(&u).
type Uncertain struct {
	Operation   string // the operationId
	Scope       string // the provider scope
	Tenant      string
	KeyScope    string // the operation's key scope
	BusinessKey string
	ProviderKey string
	Owner       string // who was told
	Attempts    int
	Reason      string
	Recorded    string // where the outcome is recorded: "ledger row 42", "notifier", "log"
	Row         int64  // the ledger row, 0 when the outcome is not in a ledger
	Reconcile   string // what to do about it
}

// Error returns the error an activity returns for err, the error of a
// write of a generated client (nil for nil).
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var ue *runtime.UncertainError
	switch {
	case errors.As(err, &ue):
		u := uncertain(ue)
		return temporal.NewApplicationErrorWithOptions(msg, TypeUncertain, temporal.ApplicationErrorOptions{
			NonRetryable: true, Cause: err, Details: []any{u},
		})
	case errors.Is(err, runtime.ErrUncertain):
		return temporal.NewNonRetryableApplicationError(msg, TypeUncertain, err)
	case errors.Is(err, runtime.ErrNotApplied):
		return temporal.NewApplicationErrorWithCause(msg, TypeNotApplied, err)
	case errors.Is(err, runtime.ErrInProgress):
		return temporal.NewApplicationErrorWithCause(msg, TypeInProgress, err)
	case errors.Is(err, runtime.ErrRejected):
		return temporal.NewNonRetryableApplicationError(msg, TypeRejected, err)
	case errors.Is(err, runtime.ErrKeyConflict):
		return temporal.NewNonRetryableApplicationError(msg, TypeKeyConflict, err)
	case errors.Is(err, runtime.ErrCompensated):
		return temporal.NewNonRetryableApplicationError(msg, TypeCompensated, err)
	case errors.Is(err, runtime.ErrEmptyKey):
		return temporal.NewNonRetryableApplicationError(msg, TypeEmptyKey, err)
	}
	// Anything else happened before a request was sent (a body that does
	// not encode, a client without a ledger): the engine's policy decides.
	return err
}

func uncertain(ue *runtime.UncertainError) Uncertain {
	u := Uncertain{
		Operation: ue.OperationID, Scope: ue.Scope, Tenant: ue.Tenant, KeyScope: ue.Operation,
		BusinessKey: ue.BusinessKey, ProviderKey: ue.ProviderKey, Owner: ue.Owner, Attempts: ue.Attempts,
		Reason: ue.Reason, Recorded: ue.Recorded,
	}
	if n, ok := strings.CutPrefix(ue.Recorded, "ledger row "); ok {
		u.Row, _ = strconv.ParseInt(n, 10, 64)
	}
	switch {
	case u.Row != 0:
		u.Reconcile = "check at the provider whether it took effect, then " +
			"`writegen ledger resolve -id " + strconv.FormatInt(u.Row, 10) + " -committed -provider-id ID -reason TEXT` " +
			"or `... -not-applied -reason TEXT`; a row re-driven with `writegen ledger redrive` is sent again by Resume"
	default:
		u.Reconcile = "check at the provider whether the write with provider key " + strconv.Quote(u.ProviderKey) +
			" took effect; " + u.Owner + " was told"
	}
	return u
}

// Resumer is a generated client: its Resume drives on the writes whose
// ledger claim outlived the attempt that made it, and asks again the
// uncertain writes that are due to be asked.
type Resumer interface {
	Resume(ctx context.Context) (runtime.ResumeReport, error)
}

// Run calls write with the business key of the activity of ctx and returns
// its result, with its error turned into the activity's by Error. When the
// activity has a heartbeat timeout (ActivityOptions.HeartbeatTimeout), Run
// records a heartbeat every third of it while write runs: a write may wait
// on the claim of an attempt whose worker died until the engine's Resume
// (RegisterResume, ScheduleResume) takes it over, and must not look dead
// meanwhile; a worker that dies is then noticed within the heartbeat
// timeout, not the start-to-close timeout.
func Run[R any](ctx context.Context, write func(ctx context.Context, key string) (R, error)) (R, error) {
	stop := heartbeat(ctx)
	r, err := write(ctx, Key(ctx))
	stop()
	return r, Error(err)
}
