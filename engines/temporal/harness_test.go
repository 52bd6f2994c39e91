package wgtemporal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
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
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// lease is the ledger lease of the test workers' clients: a claim left by
// a killed worker is taken over this long after its last renewal.
const lease = 600 * time.Millisecond

var errKilled = errors.New("the worker was killed")

// deadLedger is the ledger as a worker sees it: once the worker is killed,
// nothing it does reaches the database any more.
type deadLedger struct {
	l    *sqlite.Ledger
	dead *atomic.Bool
}

func (d deadLedger) Claim(ctx context.Context, rec runtime.Record, h runtime.Holder, lease time.Duration) (runtime.Record, bool, error) {
	if d.dead.Load() {
		return runtime.Record{}, false, errKilled
	}
	return d.l.Claim(ctx, rec, h, lease)
}

func (d deadLedger) Renew(ctx context.Context, id, fence int64, lease time.Duration) error {
	if d.dead.Load() {
		return errKilled
	}
	return d.l.Renew(ctx, id, fence, lease)
}

func (d deadLedger) Settle(ctx context.Context, id, fence int64, to runtime.State, s runtime.Settlement) error {
	if d.dead.Load() {
		return errKilled
	}
	return d.l.Settle(ctx, id, fence, to, s)
}

func (d deadLedger) Await(ctx context.Context, id int64) (runtime.Record, error) {
	if d.dead.Load() {
		return runtime.Record{}, errKilled
	}
	return d.l.Await(ctx, id)
}

func (d deadLedger) TakeOver(ctx context.Context, scope, tenant, operation string, now time.Time, h runtime.Holder, lease time.Duration, limit int) ([]runtime.Record, error) {
	if d.dead.Load() {
		return nil, errKilled
	}
	return d.l.TakeOver(ctx, scope, tenant, operation, now, h, lease, limit)
}

func (d deadLedger) TakeOverRow(ctx context.Context, id int64, now time.Time, h runtime.Holder, lease time.Duration) (runtime.Record, bool, error) {
	if d.dead.Load() {
		return runtime.Record{}, false, errKilled
	}
	return d.l.TakeOverRow(ctx, id, now, h, lease)
}

// Now reads the ledger's clock, which judges leases: a write that finds a
// dead worker's claim takes it over once its lease has ended by it.
func (d deadLedger) Now(ctx context.Context) (time.Time, error) {
	if d.dead.Load() {
		return time.Time{}, errKilled
	}
	return d.l.Now(ctx)
}

func (d deadLedger) Record(ctx context.Context, rec runtime.Record) (int64, error) {
	if d.dead.Load() {
		return 0, errKilled
	}
	return d.l.Record(ctx, rec)
}

// deadTransport sends nothing once the worker is killed.
type deadTransport struct{ dead *atomic.Bool }

func (d deadTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if d.dead.Load() {
		return nil, errKilled
	}
	return http.DefaultTransport.RoundTrip(r)
}

// simWorker is one worker process: its client, its ledger connection and its
// network, all of which stop when it is killed.
type simWorker struct {
	client *payments.Client
	dead   atomic.Bool
}

// harness is a fleet of workers in front of one provider and one ledger:
// a killed worker is replaced by a new one, as a supervisor restarts it.
type harness struct {
	t        testing.TB
	provider *enginetest.Provider
	ledger   *sqlite.Ledger

	mu    sync.Mutex
	cur   *simWorker // guarded by mu
	kills int        // guarded by mu
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
	h := &harness{t: t, provider: p, ledger: l}
	h.cur = h.start()
	return h
}

func (h *harness) start() *simWorker {
	w := &simWorker{}
	c, err := payments.NewClient(h.provider.URL, deadLedger{h.ledger, &w.dead},
		runtime.WithHTTPClient(&http.Client{Transport: deadTransport{&w.dead}}),
		runtime.WithLease(lease), runtime.WithAttemptTimeout(lease*2/5), runtime.WithBackoff(5*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		h.t.Fatal(err)
	}
	w.client = c
	return w
}

// worker returns the live worker.
func (h *harness) worker() *simWorker {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur
}

// kill kills the live worker and starts another.
func (h *harness) kill() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cur.dead.Store(true)
	h.cur = h.start()
	h.kills++
}

// killed returns how many workers were killed.
func (h *harness) killed() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.kills
}

// pay is the activity that makes an order's payment with writegen.
func (h *harness) pay(ctx context.Context, order string) (string, error) {
	w := h.worker()
	r, err := wgtemporal.Run(ctx, func(ctx context.Context, key string) (*runtime.Receipt[payments.Payment], error) {
		return w.client.CreatePayment(ctx, payments.CreatePaymentKey{Ref: key}, payments.NewPayment{Order: order, Cents: 100})
	})
	if w.dead.Load() {
		// The worker died during the attempt: Temporal sees the attempt
		// time out and runs the activity again on another worker.
		return "", errKilled
	}
	if err != nil {
		return "", err
	}
	return r.ID, nil
}

// payPlain is the activity a team writes without writegen: one POST, any
// failure returned for Temporal to retry.
func (h *harness) payPlain(ctx context.Context, order string) (string, error) {
	w := h.worker()
	body, _ := json.Marshal(payments.NewPayment{Order: order, Cents: 100})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.provider.URL+"/payments", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: deadTransport{&w.dead}}).Do(req)
	if w.dead.Load() {
		return "", errKilled
	}
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	var p payments.Payment
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return "", err
	}
	return p.ID, nil
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
		ws := wgtemporal.NewWrites(payments.Writes())
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

// newEnv returns a test environment that logs nothing. Its workflow
// tasks may run for a minute before the SDK takes them for deadlocked,
// not the default second, which a loaded machine exceeds (the tests
// failed with "Potential deadlock detected" on two shared cores).
func newEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(quiet))
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	return env
}
