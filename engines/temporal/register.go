package wgtemporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Safety is what a generated package's WRITE_SAFETY.json says about its
// writes: the answers the retry policies of their activities are checked
// against.
type Safety struct {
	Scope  string        `json:"scope"`
	Writes []WriteSafety `json:"writes"`
}

// WriteSafety holds the answers of one write, as WRITE_SAFETY.json spells
// them.
type WriteSafety struct {
	Operation   string `json:"operation"`
	KeyScope    string `json:"key_scope"`
	Idempotency string `json:"idempotency"` // "header Idempotency-Key", "body /request_id", "" for none
	Retry       string `json:"retry"`       // "not_sent|ambiguous|status_409"
	Lookup      string `json:"lookup"`      // "none", or how the effect is looked up
	Dedupe      string `json:"dedupe"`      // "ledger" or "none"
}

// ParseSafety reads WRITE_SAFETY.json (embed it, or read it from the
// generated package's directory).
func ParseSafety(data []byte) (*Safety, error) {
	var s Safety
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("wgtemporal: WRITE_SAFETY.json: %w", err)
	}
	if len(s.Writes) == 0 {
		return nil, errors.New("wgtemporal: WRITE_SAFETY.json lists no writes")
	}
	for _, w := range s.Writes {
		if _, err := w.retry(); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

func (w WriteSafety) retry() (runtime.Retry, error) {
	var r runtime.Retry
	if w.Retry == "" || w.Retry == "none" {
		return 0, nil
	}
	for name := range strings.SplitSeq(w.Retry, "|") {
		k, ok := writegenimpl.ParseRetry(name)
		if !ok {
			return 0, fmt.Errorf("wgtemporal: WRITE_SAFETY.json: write %q: unknown retry kind %q", w.Operation, name)
		}
		r |= k
	}
	return r, nil
}

// Rerunnable reports whether running the write again after an attempt that
// may have reached the provider, as a new call with the same business key,
// cannot make a second effect, and why. That holds when the ledger claims
// the key (the new call gets the first one's outcome, or Resume drives the
// claim on), or when writegen itself sends the write again after an
// ambiguous failure and the new call does what that retry does: with a
// provider key, or as an effect that is idempotent (ambiguous in the retry
// set with neither key nor lookup, which generation allows only for those).
// A write that leans on its lookup after an ambiguous failure is not: a new
// call does not know that an earlier one may have committed, and sends.
func (w WriteSafety) Rerunnable() (bool, string) {
	r, _ := w.retry()
	keyed := w.Idempotency != "" && w.Idempotency != "none"
	lookup := w.Lookup != "" && w.Lookup != "none"
	switch {
	case w.Dedupe == "ledger":
		return true, "the ledger claims its business key"
	case r.Has(runtime.RetryAmbiguous) && keyed:
		return true, "it is sent again with the same provider key"
	case r.Has(runtime.RetryAmbiguous) && !lookup:
		return true, "its effect is idempotent"
	case r.Has(runtime.RetryAmbiguous):
		return false, "it has no ledger claim and no provider key: only its lookup, which a new call does not ask, keeps an ambiguous failure from being sent again"
	}
	return false, "it has no ledger claim (dedupe: ledger), and writegen does not send it again after an ambiguous failure (retry: " + r.String() + ")"
}

// CheckPolicy reports whether p, the retry policy of an activity that makes
// this write (nil is Temporal's default: unlimited attempts), is one
// writegen agrees with: a policy that runs the activity again is refused
// unless the write is Rerunnable, as the engine re-runs an attempt whose
// worker died or that timed out, and writegen cannot tell it apart from a
// new write.
func (w WriteSafety) CheckPolicy(p *temporal.RetryPolicy) error {
	if p != nil && p.MaximumAttempts == 1 {
		return nil
	}
	if ok, why := w.Rerunnable(); !ok {
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
	Write   string                   // the write's operationId, as in WRITE_SAFETY.json
	Options workflow.ActivityOptions // the options workflows schedule it with
}

// Writes registers activities that make writes, after checking their retry
// policies, and gives workflows the options they were checked with.
type Writes struct {
	safety  *Safety
	options map[string]workflow.ActivityOptions
}

// NewWrites returns a Writes for the writes that safety describes.
func NewWrites(safety *Safety) *Writes {
	return &Writes{safety: safety, options: map[string]workflow.ActivityOptions{}}
}

// Register checks a and registers its function on r. It refuses an
// activity whose write is not in WRITE_SAFETY.json, and one whose retry
// policy would run again a write writegen refuses to send again
// (WriteSafety.CheckPolicy).
func (ws *Writes) Register(r Registry, a Activity) error {
	if a.Name == "" || a.Func == nil {
		return errors.New("wgtemporal: register: an activity needs a name and a function")
	}
	var w *WriteSafety
	for i := range ws.safety.Writes {
		if ws.safety.Writes[i].Operation == a.Write {
			w = &ws.safety.Writes[i]
		}
	}
	if w == nil {
		return fmt.Errorf("wgtemporal: activity %q: write %q is not in WRITE_SAFETY.json of scope %q", a.Name, a.Write, ws.safety.Scope)
	}
	if err := w.CheckPolicy(a.Options.RetryPolicy); err != nil {
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
