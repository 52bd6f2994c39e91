package wgtemporal

import (
	"errors"
	"fmt"
	"slices"

	"github.com/writegen/writegen/runtime"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Rerunnable reports whether running the write w again after an attempt
// that may have reached the provider, as a new call with the same business
// key, cannot make a second effect, and why. That holds when the ledger
// claims the key (the new call gets the first one's outcome, or Resume
// drives the claim on), or when writegen itself sends the write again after
// an ambiguous failure and the new call does what that retry does: with a
// provider key, or as an effect that is idempotent (ambiguous in the retry
// set with neither key nor lookup, which generation allows only for those).
// A write that leans on its lookup after an ambiguous failure is not: a new
// call does not know that an earlier one may have committed, and sends.
func Rerunnable(w runtime.WriteInfo) (bool, string) {
	ambiguous := w.Retry.Has(runtime.RetryAmbiguous)
	switch {
	case w.Dedupe:
		return true, "the ledger claims its business key"
	case ambiguous && w.ProviderKey:
		return true, "it is sent again with the same provider key"
	case ambiguous && w.Lookup == runtime.NoLookup:
		return true, "its effect is idempotent"
	case ambiguous:
		return false, "it has no ledger claim and no provider key: only its lookup (" + w.Lookup.String() + "), which a new call does not ask, keeps an ambiguous failure from being sent again"
	}
	return false, "it has no ledger claim (dedupe: ledger), and writegen does not send it again after an ambiguous failure (retry: " + w.Retry.String() + ")"
}

// CheckPolicy reports whether p, the retry policy of an activity that makes
// the write w (nil is Temporal's default: unlimited attempts), is one
// writegen agrees with: a policy that runs the activity again is refused
// unless the write is Rerunnable, as the engine re-runs an attempt whose
// worker died or that timed out, and writegen cannot tell it apart from a
// new write.
func CheckPolicy(w runtime.WriteInfo, p *temporal.RetryPolicy) error {
	if p != nil && p.MaximumAttempts == 1 {
		return nil
	}
	if ok, why := Rerunnable(w); !ok {
		attempts := "unlimited attempts (Temporal's default)"
		if p != nil && p.MaximumAttempts > 1 {
			attempts = fmt.Sprintf("%d attempts", p.MaximumAttempts)
		}
		return fmt.Errorf("its retry policy allows %s, so Temporal would run the write again after an attempt that may have reached the provider (a worker that died, a timeout), which writegen would not: %s; "+
			"set RetryPolicy.MaximumAttempts to 1, or claim the write in the ledger (dedupe: ledger)", attempts, why)
	}
	return nil
}

// Registry is where activities are registered: a worker.Worker, or the
// test suite's environments.
type Registry interface {
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Activity is an activity that makes one write of a generated client.
type Activity struct {
	Name    string                   // the activity type
	Func    any                      // the activity function
	Write   string                   // the write's operationId (runtime.WriteInfo.OperationID)
	Options workflow.ActivityOptions // the options workflows schedule it with
}

// Writes registers activities that make writes, after checking their retry
// policies, and gives workflows the options they were checked with.
type Writes struct {
	writes  []runtime.WriteInfo
	options map[string]workflow.ActivityOptions
}

// NewWrites returns a Writes for writes, the writes of a generated package
// as its function Writes describes them:
//
//	ws := wgtemporal.NewWrites(payments.Writes())
func NewWrites(writes []runtime.WriteInfo) *Writes {
	return &Writes{writes: slices.Clone(writes), options: map[string]workflow.ActivityOptions{}}
}

// Register checks a and registers its function on r. It refuses an
// activity whose write is not one of the writes given to NewWrites, and one
// whose retry policy would run again a write writegen refuses to send again
// (CheckPolicy).
func (ws *Writes) Register(r Registry, a Activity) error {
	if a.Name == "" || a.Func == nil {
		return errors.New("wgtemporal: register: an activity needs a name and a function")
	}
	i := slices.IndexFunc(ws.writes, func(w runtime.WriteInfo) bool { return w.OperationID == a.Write })
	switch {
	case i < 0 && len(ws.writes) == 0:
		return fmt.Errorf("wgtemporal: activity %q: write %q: NewWrites was given no writes", a.Name, a.Write)
	case i < 0:
		return fmt.Errorf("wgtemporal: activity %q: write %q is not one of the writes of scope %q given to NewWrites", a.Name, a.Write, ws.writes[0].Scope)
	}
	if err := CheckPolicy(ws.writes[i], a.Options.RetryPolicy); err != nil {
		return fmt.Errorf("wgtemporal: activity %q (write %q): %w", a.Name, a.Write, err)
	}
	r.RegisterActivityWithOptions(a.Func, activity.RegisterOptions{Name: a.Name})
	ws.options[a.Name] = a.Options
	return nil
}

// Execute schedules the registered activity name in a workflow with the
// options it was registered with, and with the ActivityID of the activity
// options of ctx when they have one (the write's key holds it; see the
// package documentation).
func (ws *Writes) Execute(ctx workflow.Context, name string, args ...any) workflow.Future {
	o, ok := ws.options[name]
	if !ok {
		f, s := workflow.NewFuture(ctx)
		s.SetError(temporal.NewNonRetryableApplicationError("wgtemporal: activity "+name+" was not registered with Writes.Register", "wgtemporal.Unregistered", nil))
		return f
	}
	if id := workflow.GetActivityOptions(ctx).ActivityID; id != "" {
		o.ActivityID = id
	}
	return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), name, args...)
}
