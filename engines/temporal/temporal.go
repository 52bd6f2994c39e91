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
// on the claim of an attempt whose worker died until that claim's lease
// ends and the write takes it over, and must not look dead meanwhile; a
// worker that dies is then noticed within the heartbeat timeout, not the
// start-to-close timeout.
func Run[R any](ctx context.Context, write func(ctx context.Context, key string) (R, error)) (R, error) {
	stop := heartbeat(ctx)
	r, err := write(ctx, Key(ctx))
	stop()
	return r, Error(err)
}
