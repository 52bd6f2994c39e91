package wgtemporal_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/writegen/writegen/engines/internal/enginetest"
	"github.com/writegen/writegen/engines/internal/payments"
	wgtemporal "github.com/writegen/writegen/engines/temporal"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// lease is the ledger lease of the test's client.
const lease = 600 * time.Millisecond

// harness is a worker in front of one provider and one ledger.
type harness struct {
	t        testing.TB
	provider *enginetest.Provider
	ledger   *sqlite.Ledger
	safety   *wgtemporal.Safety
	client   *payments.Client
}

func newHarness(t testing.TB, seed uint64) *harness {
	t.Helper()
	p := enginetest.NewProvider(seed)
	t.Cleanup(p.Close)
	l, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	s, err := wgtemporal.ParseSafety(payments.WriteSafetyJSON)
	if err != nil {
		t.Fatal(err)
	}
	c, err := payments.NewClient(p.URL, l, runtime.WithLease(lease), runtime.WithAttemptTimeout(lease*2/5),
		runtime.WithBackoff(5*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, provider: p, ledger: l, safety: s, client: c}
}

// pay is the activity that makes an order's payment with writegen.
func (h *harness) pay(ctx context.Context, order string) (string, error) {
	r, err := wgtemporal.Run(ctx, func(ctx context.Context, key string) (*runtime.Receipt[payments.Payment], error) {
		return h.client.CreatePayment(ctx, payments.CreatePaymentKey{Ref: key}, payments.NewPayment{Order: order, Cents: 100})
	})
	if err != nil {
		return "", err
	}
	return r.ID, nil
}

// payWorkflow pays one order with the activity name, scheduled by execute.
func payWorkflow(execute func(workflow.Context, string, ...any) workflow.Future, name string) func(ctx workflow.Context, order string) (string, error) {
	return func(ctx workflow.Context, order string) (string, error) {
		var id string
		err := execute(ctx, name, order).Get(ctx, &id)
		return id, err
	}
}

// run is one workflow execution in the SDK's test environment.
type run struct {
	id       string
	err      error
	attempts int
}

// execute runs the workflow of order, whose workflow ID is "order-<order>",
// with its activity act registered as the write write with options o, or,
// when write is "", registered as it is, without writegen.
func (h *harness) execute(order, name string, act any, write string, o workflow.ActivityOptions, edit func(*testsuite.TestWorkflowEnvironment)) run {
	h.t.Helper()
	env := newEnv()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "order-" + order, TaskQueue: "payments"})
	if write != "" {
		ws := wgtemporal.NewWrites(h.safety)
		if err := ws.Register(env, wgtemporal.Activity{Name: name, Func: act, Write: write, Options: o}); err != nil {
			h.t.Fatal(err)
		}
		env.RegisterWorkflowWithOptions(payWorkflow(ws.Execute, name), workflow.RegisterOptions{Name: "pay"})
	} else {
		// The anchor: no writegen, the activity as Temporal users register it.
		env.RegisterActivityWithOptions(act, activity.RegisterOptions{Name: name})
		env.RegisterWorkflowWithOptions(payWorkflow(func(ctx workflow.Context, name string, args ...any) workflow.Future {
			return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), name, args...)
		}, name), workflow.RegisterOptions{Name: "pay"})
	}
	var r run
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { r.attempts++ })
	if edit != nil {
		edit(env)
	}
	env.ExecuteWorkflow("pay", order)
	if !env.IsWorkflowCompleted() {
		h.t.Fatalf("workflow of order %s did not complete", order)
	}
	if r.err = env.GetWorkflowError(); r.err == nil {
		if err := env.GetWorkflowResult(&r.id); err != nil {
			h.t.Fatal(err)
		}
	}
	return r
}

// payOptions are the options of the payment activity: Temporal's default
// retry policy (unlimited attempts).
var payOptions = workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second}

// quiet discards the logs of the SDK's test environment and of writegen
// (which logs an uncertain outcome at ERROR): a seeded run makes many.
var quiet = slog.New(slog.DiscardHandler)

func TestMain(m *testing.M) {
	slog.SetDefault(quiet)
	os.Exit(m.Run())
}

// newEnv returns a test environment that logs nothing.
func newEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(quiet))
	return s.NewTestWorkflowEnvironment()
}
