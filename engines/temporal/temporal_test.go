package wgtemporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/engines/internal/enginetest"
	"github.com/writegen/writegen/engines/internal/payments"
	wgtemporal "github.com/writegen/writegen/engines/temporal"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

var (
	seed      = flag.Uint64("seed", 23, "the seed of TestSeededRun's losses and kills")
	workflows = flag.Int("workflows", 200, "the workflows of TestSeededRun")
)

// A lost answer is retried by writegen inside the attempt with the same
// provider key: one payment in one attempt, or, when the answers of all
// its attempts were lost, an uncertain outcome that Temporal does not run
// again, still with one payment.
func TestLostAnswerOneEffect(t *testing.T) {
	h := newHarness(t, 1)
	h.provider.Lose(0.4)
	paid := 0
	for i := range 20 {
		order := fmt.Sprint(i)
		r := h.execute(order, "pay", h.pay, "createPayment", payOptions, nil)
		var ae *temporal.ApplicationError
		switch {
		case r.err == nil && r.id != "":
			paid++
		case errors.As(r.err, &ae) && ae.Type() == wgtemporal.TypeUncertain:
		default:
			t.Fatalf("order %s: %q, %v", order, r.id, r.err)
		}
		if r.attempts != 1 {
			t.Errorf("order %s: %d attempts, want 1", order, r.attempts)
		}
		if n := h.provider.Effects("/payments", order); n != 1 {
			t.Errorf("order %s: %d payments, want 1", order, n)
		}
	}
	if h.provider.Lost() == 0 || paid == 0 {
		t.Fatalf("%d answers lost, %d orders paid: the test tested nothing", h.provider.Lost(), paid)
	}
}

// A worker killed after the provider committed and before it answered:
// Temporal runs the activity again on another worker, whose write finds
// the dead worker's claim, takes it over once its lease has ended by the
// ledger's clock and settles it with the same provider key. One payment,
// the first one's id. (The SDK's test environment runs every worker in
// the test's process: a killed worker is played by cutting its ledger
// connection and its network after the provider committed, and its
// attempt ends in a retryable failure, as a dead worker's ends in a
// timeout; engines/temporal/servertest kills worker processes.)
func TestWorkerKilledMidActivity(t *testing.T) {
	h := newHarness(t, 2)
	killed := false
	h.provider.OnCommit(func(string, string) bool {
		if killed {
			return false
		}
		killed = true
		h.kill()
		return true
	})
	r := h.execute("k", "pay", h.pay, "createPayment", payOptions, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.attempts != 2 {
		t.Errorf("%d attempts, want 2 (the killed one and its retry)", r.attempts)
	}
	if n := h.provider.Effects("/payments", "k"); n != 1 {
		t.Errorf("%d payments, want 1", n)
	}
	rows, err := h.ledger.List(context.Background(), ledger.Filter{Scope: "payments", State: runtime.StateActive})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].BusinessKey != "order-k/1" {
		t.Errorf("active rows %+v, want one with business key order-k/1", rows)
	}
}

// An uncertain write becomes a non-retryable error that carries its
// ledger row: Temporal's default policy (unlimited attempts) does not run
// it again.
func TestUncertainIsNotRetried(t *testing.T) {
	h := newHarness(t, 3)
	h.provider.Lose(1)
	r := h.execute("u", "pay", h.pay, "createPayment", payOptions, nil)
	var ae *temporal.ApplicationError
	if !errors.As(r.err, &ae) || ae.Type() != wgtemporal.TypeUncertain || !ae.NonRetryable() {
		t.Fatalf("workflow error %v, want a non-retryable %s", r.err, wgtemporal.TypeUncertain)
	}
	if r.attempts != 1 {
		t.Errorf("%d attempts, want 1", r.attempts)
	}
	var u wgtemporal.Uncertain
	if err := ae.Details(&u); err != nil {
		t.Fatal(err)
	}
	row, err := h.ledger.Get(context.Background(), u.Row)
	if err != nil {
		t.Fatalf("row %d of the details: %v", u.Row, err)
	}
	if row.State != runtime.StateUncertain || row.BusinessKey != "order-u/1" || u.ProviderKey != row.ProviderKey {
		t.Errorf("row %+v, details %+v: want the uncertain row of order-u/1", row.Record, u)
	}
	if !strings.Contains(u.Reconcile, fmt.Sprintf("writegen ledger resolve -id %d", u.Row)) || u.Owner != "payments-ops" {
		t.Errorf("details %+v: want the reconcile hint of row %d and owner payments-ops", u, u.Row)
	}
	if n := h.provider.Effects("/payments", "u"); n != 1 {
		t.Errorf("%d payments, want 1", n)
	}
}

// Nothing happened (a 429 outside the write's retry set): the error is
// retryable and Temporal's next attempt makes the payment.
func TestNotAppliedIsRetried(t *testing.T) {
	h := newHarness(t, 4)
	h.provider.Throttle(1)
	r := h.execute("n", "pay", h.pay, "createPayment", payOptions, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.attempts != 2 {
		t.Errorf("%d attempts, want 2", r.attempts)
	}
	if n := h.provider.Effects("/payments", "n"); n != 1 {
		t.Errorf("%d payments, want 1", n)
	}
}

func TestErrorTypes(t *testing.T) {
	for _, c := range []struct {
		err          error
		typ          string
		nonRetryable bool
	}{
		{&runtime.UncertainError{OperationID: "createPayment", Recorded: "ledger row 7"}, wgtemporal.TypeUncertain, true},
		{&runtime.NotAppliedError{Operation: "createPayment", Reason: "not sent"}, wgtemporal.TypeNotApplied, false},
		{fmt.Errorf("wrapped: %w", runtime.ErrInProgress), wgtemporal.TypeInProgress, false},
		{&runtime.StatusError{Operation: "createPayment", Status: 400}, wgtemporal.TypeRejected, true},
		{&runtime.KeyConflictError{OperationID: "createPayment"}, wgtemporal.TypeKeyConflict, true},
		{fmt.Errorf("x: %w", runtime.ErrCompensated), wgtemporal.TypeCompensated, true},
		{&runtime.EmptyKeyError{Operation: "createPayment"}, wgtemporal.TypeEmptyKey, true},
	} {
		var ae *temporal.ApplicationError
		if err := wgtemporal.Error(c.err); !errors.As(err, &ae) || ae.Type() != c.typ || ae.NonRetryable() != c.nonRetryable {
			t.Errorf("Error(%v) = %v, want type %s, non-retryable %v", c.err, err, c.typ, c.nonRetryable)
		}
	}
	if wgtemporal.Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
}

// A retry policy that would run again what writegen refuses to send again
// is refused when the activity is registered.
func TestRegisterRefusesPolicy(t *testing.T) {
	env := newEnv()
	ws := wgtemporal.NewWrites(payments.Writes())
	send := func(context.Context, string) (string, error) { return "", nil }
	for _, c := range []struct {
		write string
		rp    *temporal.RetryPolicy
		want  string // "" to accept
	}{
		{"sendNotice", nil, "unlimited attempts (Temporal's default)"},
		{"sendNotice", &temporal.RetryPolicy{MaximumAttempts: 3}, "3 attempts"},
		{"sendNotice", &temporal.RetryPolicy{MaximumAttempts: 1}, ""},
		{"createPayment", nil, ""},
		{"requestPayout", &temporal.RetryPolicy{MaximumAttempts: 10}, ""},
		{"deletePayment", nil, `write "deletePayment" is not one of the writes of scope "payments"`},
	} {
		err := ws.Register(env, wgtemporal.Activity{Name: c.write, Func: send, Write: c.write,
			Options: workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: c.rp}})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s with %+v: %v", c.write, c.rp, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s with %+v: %v, want an error saying %q", c.write, c.rp, err, c.want)
		}
	}
}

// Rerunnable reads the typed answers: a ledger claim or a provider key
// makes a write safe to run again, a lookup alone does not, and an effect
// writegen re-sends after an ambiguous failure with neither is idempotent.
func TestRerunnable(t *testing.T) {
	amb := runtime.RetryNotSent | runtime.RetryAmbiguous
	for _, c := range []struct {
		w    runtime.WriteInfo
		ok   bool
		want string
	}{
		{runtime.WriteInfo{Retry: runtime.RetryNotSent, Dedupe: true}, true, "the ledger claims its business key"},
		{runtime.WriteInfo{Retry: amb, ProviderKey: true}, true, "same provider key"},
		{runtime.WriteInfo{Retry: amb, Effect: runtime.EffectIdempotent}, true, "idempotent"},
		{runtime.WriteInfo{Retry: amb, Lookup: runtime.Strong}, false, "only its lookup (strong)"},
		{runtime.WriteInfo{Retry: runtime.RetryNotSent, ProviderKey: true}, false, "(retry: not_sent)"},
	} {
		ok, why := wgtemporal.Rerunnable(c.w)
		if ok != c.ok || !strings.Contains(why, c.want) {
			t.Errorf("Rerunnable(%+v) = %v, %q; want %v, saying %q", c.w, ok, why, c.ok, c.want)
		}
	}
	err := wgtemporal.NewWrites(nil).Register(newEnv(), wgtemporal.Activity{Name: "pay", Func: func() {}, Write: "createPayment"})
	if err == nil || !strings.Contains(err.Error(), "NewWrites was given no writes") {
		t.Errorf("Register with no writes: %v, want it refused", err)
	}
}

// An acknowledged payout completes its activity asynchronously: the
// activity returns ErrResultPending, and the webhook inbox completes it by
// task token when the provider's payout.paid event arrives.
func TestAckCompletedByWebhook(t *testing.T) {
	h := newHarness(t, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	acks, err := wgtemporal.NewAcks(ctx, h.ledger.Ledger)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "whsec_dGVzdCBzZWNyZXQgb2YgdGhlIHBheW91dHM="
	v, err := ledger.NewStandardWebhooks(secret, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var complete wgtemporal.Completer
	inbox, err := h.ledger.Inbox(ledger.InboxConfig{
		Source: "payments", Verifier: v, Order: ledger.AnyOrder,
		WorkerOptions: ledger.WorkerOptions{Poll: 10 * time.Millisecond},
		Handle: func(ctx context.Context, e ledger.Event) error {
			var ev enginetest.PayoutEvent
			if err := json.Unmarshal(e.Body, &ev); err != nil {
				return err
			}
			return acks.Complete(ctx, complete, ev.Key, e.Body)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(inbox)
	defer srv.Close()
	go inbox.Run(ctx) //nolint:errcheck // ends with ctx
	if err := h.provider.Webhooks(srv.URL, secret); err != nil {
		t.Fatal(err)
	}

	// The test environment moves its clock on whenever no activity runs,
	// and an activity that completes asynchronously is not running: the
	// activity wait runs beside it until the webhook completed it (or the
	// event was in before the activity waited, and it returned at once), so
	// that its timeouts do not fire at once.
	completed := make(chan struct{})
	var once sync.Once
	settled := func() { once.Do(func() { close(completed) }) }
	payout := func(ctx context.Context, order string) (wgtemporal.Settled, error) {
		ack, err := wgtemporal.Run(ctx, func(ctx context.Context, key string) (*runtime.Ack[payments.RequestPayoutResponse], error) {
			return h.worker().client.RequestPayout(ctx, payments.RequestPayoutKey{Ref: key}, payments.NewPayment{Order: order, Cents: 500})
		})
		if err != nil {
			return wgtemporal.Settled{}, err
		}
		s, err := acks.Pending(ctx, ack.ProviderKey)
		if err == nil {
			settled() // the event came first: no completion follows
		}
		return s, err
	}
	var s wgtemporal.Settled
	env := newEnv()
	complete = completerFunc(func(_ context.Context, token []byte, result any, err error) error {
		defer settled()
		return env.CompleteActivity(token, result, err)
	})
	env.RegisterActivityWithOptions(func(ctx context.Context) error {
		select {
		case <-completed:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, activity.RegisterOptions{Name: "wait"})
	ws := wgtemporal.NewWrites(payments.Writes())
	if err := ws.Register(env, wgtemporal.Activity{Name: "payout", Func: payout, Write: "requestPayout", Options: payOptions}); err != nil {
		t.Fatal(err)
	}
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, order string) (wgtemporal.Settled, error) {
		wait := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, payOptions), "wait")
		var s wgtemporal.Settled
		if err := ws.Execute(ctx, "payout", order).Get(ctx, &s); err != nil {
			return s, err
		}
		return s, wait.Get(ctx, nil)
	}, workflow.RegisterOptions{Name: "payout"})
	env.ExecuteWorkflow("payout", "p1")
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if err := env.GetWorkflowResult(&s); err != nil {
		t.Fatal(err)
	}
	var ev enginetest.PayoutEvent
	if err := json.Unmarshal(s.Event, &ev); err != nil || ev.Type != "payout.paid" || ev.Key != s.ProviderKey || s.ProviderKey == "" {
		t.Errorf("settled %+v (%v), want the payout.paid event of its provider key", s, err)
	}
	if n := h.provider.Effects("/payouts", "p1"); n != 1 {
		t.Errorf("%d payouts, want 1", n)
	}
}

type completerFunc func(ctx context.Context, token []byte, result any, err error) error

func (f completerFunc) CompleteActivity(ctx context.Context, token []byte, result any, err error) error {
	return f(ctx, token, result, err)
}

// The seeded run: workflows that each pay one order, against a provider
// that loses answers and with workers killed after the provider committed,
// once with writegen and once as the anchor, the same activity written as
// one POST under Temporal's default retry policy, in the SDK's test
// environment (engines/temporal/servertest runs it on a real server, with
// worker processes killed). go test -v prints both.
func TestSeededRun(t *testing.T) {
	const lose, kill = 0.2, 0.1
	var figures [2]enginetest.Figures
	for i, writegen := range []bool{true, false} {
		h := newHarness(t, *seed)
		h.provider.Lose(lose)
		h.provider.OnCommit(func(string, string) bool {
			if h.provider.Draw() >= kill {
				return false
			}
			h.kill()
			return true
		})
		f := &figures[i]
		for n := range *workflows {
			order := fmt.Sprint(n)
			var r run
			if writegen {
				r = h.execute(order, "pay", h.pay, "createPayment", payOptions, nil)
			} else {
				r = h.execute(order, "pay", h.payPlain, "", payOptions, nil)
			}
			var ae *temporal.ApplicationError
			uncertain := errors.As(r.err, &ae) && ae.Type() == wgtemporal.TypeUncertain
			f.Count(h.provider.Effects("/payments", order), r.err == nil, uncertain)
		}
		f.Kills, f.Lost = h.killed(), h.provider.Lost()
	}
	t.Logf("temporal, writegen:          %v", figures[0])
	t.Logf("temporal, anchor (no writegen, default retry): %v", figures[1])
	if w := figures[0]; w.Duplicates != 0 || w.Missing != 0 || w.Failed != 0 {
		t.Errorf("writegen: %v: want no duplicate, no missing payment and no plain failure", w)
	}
	if figures[0].Kills == 0 || figures[0].Lost == 0 {
		t.Error("no worker was killed or no answer lost: the run tested nothing")
	}
}

// A new run of a workflow that replays its code from the start (a
// workflow retry, the workflow started again under its ID) schedules the
// payment again with the same key, the workflow ID and the activity ID: the
// ledger answers the first run's payment and the provider is not called
// again. (The SDK's test environment runs no workflow retry policy and
// gives every run the same run ID, so each run here is an environment of
// its own; servertest resets a workflow on a real server.)
func TestNewRunIsOneWrite(t *testing.T) {
	h := newHarness(t, 6)
	first := h.execute("w", "pay", h.pay, "createPayment", payOptions, nil)
	second := h.execute("w", "pay", h.pay, "createPayment", payOptions, nil)
	if first.err != nil || second.err != nil || first.id == "" || first.id != second.id {
		t.Fatalf("runs paid %q (%v) and %q (%v), want one payment", first.id, first.err, second.id, second.err)
	}
	if n := h.provider.Effects("/payments", "w"); n != 1 {
		t.Errorf("%d payments, want 1", n)
	}
}

// The Resume workflow that RegisterResume registers asks an uncertain
// payment again (its provider key is in its window, so it is sent again
// with that key) and returns what Resume did.
func TestResumeWorkflow(t *testing.T) {
	h := newHarness(t, 7)
	h.provider.Lose(1)
	r := h.execute("r", "pay", h.pay, "createPayment", payOptions, nil)
	var ae *temporal.ApplicationError
	if !errors.As(r.err, &ae) || ae.Type() != wgtemporal.TypeUncertain {
		t.Fatalf("workflow error %v, want %s", r.err, wgtemporal.TypeUncertain)
	}
	h.provider.Lose(0)
	env := newEnv()
	wgtemporal.RegisterResume(env, h.worker().client)
	env.ExecuteWorkflow(wgtemporal.ResumeWorkflow)
	var rep runtime.ResumeReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	if rep.Taken != 1 || rep.Reasked != 1 || rep.Active != 1 {
		t.Errorf("report %+v, want one uncertain row asked again and settled active", rep)
	}
	rows, err := h.ledger.List(context.Background(), ledger.Filter{Scope: "payments", State: runtime.StateActive})
	if err != nil || len(rows) != 1 || rows[0].BusinessKey != "order-r/1" {
		t.Errorf("active rows %+v (%v), want the row of order-r/1", rows, err)
	}
	if n := h.provider.Effects("/payments", "r"); n != 1 {
		t.Errorf("%d payments, want 1", n)
	}
}

// Writes.Execute keeps the ActivityID that the workflow gives in the
// activity options of its context, and the write's key holds it: the
// activity's other options are those it was registered with.
func TestExecuteKeepsActivityID(t *testing.T) {
	h := newHarness(t, 8)
	env := newEnv()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "order-i", TaskQueue: "payments"})
	ws := wgtemporal.NewWrites(payments.Writes())
	if err := ws.Register(env, wgtemporal.Activity{Name: "pay", Func: h.pay, Write: "createPayment", Options: payOptions}); err != nil {
		t.Fatal(err)
	}
	var timeout time.Duration
	env.SetOnActivityStartedListener(func(_ *activity.Info, ctx context.Context, _ converter.EncodedValues) {
		timeout = activity.GetInfo(ctx).StartToCloseTimeout
	})
	env.RegisterWorkflowWithOptions(payWorkflow(func(ctx workflow.Context, name string, args ...any) workflow.Future {
		return ws.Execute(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{ActivityID: "payment"}), name, args...)
	}, "pay"), workflow.RegisterOptions{Name: "pay"})
	env.ExecuteWorkflow("pay", "i")
	var id string
	if err := env.GetWorkflowResult(&id); err != nil {
		t.Fatal(err)
	}
	row, err := h.ledger.Find(context.Background(), runtime.Identity{Scope: "payments", Operation: "createpayment", BusinessKey: "order-i/payment"})
	if err != nil || row.ProviderID != id {
		t.Errorf("the row of order-i/payment: %+v, %v: want the payment %q", row.Record, err, id)
	}
	if timeout != payOptions.StartToCloseTimeout {
		t.Errorf("start-to-close timeout %v, want the registered %v", timeout, payOptions.StartToCloseTimeout)
	}
}
