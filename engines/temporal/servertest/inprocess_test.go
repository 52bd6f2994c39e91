package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/writegen/writegen/engines/internal/enginetest"
	wgtemporal "github.com/writegen/writegen/engines/temporal"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// inProcess is a worker in the test's process, on a task queue of its own,
// in front of a provider of its own and a SQLite ledger.
type inProcess struct {
	t        *testing.T
	provider *enginetest.Provider
	app      *app
	queue    string
	client   client.Client
}

func newInProcess(t *testing.T, seed uint64) *inProcess {
	t.Helper()
	p := enginetest.NewProvider(seed)
	t.Cleanup(p.Close)
	a, err := newApp(context.Background(), appConfig{Provider: p.URL, Ledger: "sqlite:" + filepath.Join(t.TempDir(), "ledger.db"), Name: "in-process"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	c := srv().GetDefaultClient()
	queue := t.Name()
	w := worker.New(c, queue, worker.Options{})
	if err := a.register(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return &inProcess{t: t, provider: p, app: a, queue: queue, client: c}
}

// id is the workflow ID of order: the task queue's name and the order.
func (h *inProcess) id(order string) string { return h.queue + "-" + order }

// run runs the workflow typ for order under the workflow ID h.id(order)
// and returns its run and what it returned into result.
func (h *inProcess) run(typ, order string, result any) (client.WorkflowRun, error) {
	h.t.Helper()
	r, err := h.client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: h.id(order), TaskQueue: h.queue}, typ, order)
	if err != nil {
		h.t.Fatal(err)
	}
	return r, r.Get(context.Background(), result)
}

// runs runs the workflow typ for order, resets its run to its first
// workflow task (a new run, with a new run ID, that schedules the payment
// again) and then starts it again under its workflow ID (a third run). It
// returns what each run paid and the ledger key of each run's payment.
func (h *inProcess) runs(typ, order string) (paid, keys [3]string) {
	h.t.Helper()
	ctx := context.Background()
	r1, err := h.run(typ, order, &paid[0])
	if err != nil || paid[0] == "" {
		h.t.Fatalf("paid %q: %v", paid[0], err)
	}
	wf := h.id(order)
	var resetTo int64
	for _, e := range events(h.t, h.client, wf) {
		if e.GetEventType() == enums.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && resetTo == 0 {
			resetTo = e.GetEventId()
		}
	}
	reset, err := h.client.ResetWorkflowExecution(ctx, &workflowservice.ResetWorkflowExecutionRequest{
		Namespace:                 srv().GetDefaultNamespace(),
		WorkflowExecution:         &commonpb.WorkflowExecution{WorkflowId: wf, RunId: r1.GetRunID()},
		Reason:                    "test: a reset runs the workflow again",
		WorkflowTaskFinishEventId: resetTo,
		RequestId:                 uuid.NewString(),
	})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.client.GetWorkflow(ctx, wf, reset.GetRunId()).Get(ctx, &paid[1]); err != nil {
		h.t.Fatal(err)
	}
	r3, err := h.run(typ, order, &paid[2])
	if err != nil {
		h.t.Fatal(err)
	}
	for i, run := range []string{r1.GetRunID(), reset.GetRunId(), r3.GetRunID()} {
		for _, e := range events(h.t, h.client, wf, run) {
			if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
				keys[i] = wf + "/" + a.GetActivityId()
			}
		}
	}
	return paid, keys
}

// The business key is the workflow ID and the activity ID. With an
// explicit activity ID (given in the workflow's context, which
// Writes.Execute keeps), a reset of the workflow (a new run, with a new
// run ID) schedules the payment again with the same key, and so does a new
// run started under the same workflow ID; the ledger answers the first
// run's payment, and the provider is called once. With the SDK's default
// activity ID, the ID of the scheduling event, the reset run's payment is
// scheduled at another event, so it is another key and a second payment;
// the new run replays the first one's history and key.
func TestKeyFromWorkflowAndActivityIDs(t *testing.T) {
	h := newInProcess(t, 11)
	paid, keys := h.runs("pay-id", "k")
	if paid[1] != paid[0] || paid[2] != paid[0] || keys[0] != h.id("k")+"/payment" || keys[1] != keys[0] || keys[2] != keys[0] {
		t.Errorf("explicit activity ID: runs paid %q under keys %q: want one payment under %s/payment", paid, keys, h.id("k"))
	}
	if n := h.provider.Effects("/payments", "k"); n != 1 {
		t.Errorf("explicit activity ID: %d payments, want 1", n)
	}
	row, err := h.app.ledger.Find(context.Background(), runtime.Identity{Scope: "payments", Operation: "createpayment", BusinessKey: keys[0]})
	if err != nil || row.State != runtime.StateActive || row.ProviderID != paid[0] {
		t.Errorf("the row of %s: %+v, %v: want it active with %q", keys[0], row.Record, err, paid[0])
	}

	paid, keys = h.runs("pay", "d")
	if keys[1] == keys[0] || paid[1] == paid[0] || keys[2] != keys[0] || paid[2] != paid[0] {
		t.Errorf("default activity ID: runs paid %q under keys %q: want the reset run under another key, the new run under the first", paid, keys)
	}
	if n := h.provider.Effects("/payments", "d"); n != 2 {
		t.Errorf("default activity ID: %d payments, want 2 (the reset run's is another write)", n)
	}
}

// An uncertain payment fails its workflow with a non-retryable
// application error whose details name the ledger row: Temporal's default
// retry policy (unlimited attempts) does not run it again.
func TestUncertainIsNotRetried(t *testing.T) {
	h := newInProcess(t, 12)
	h.provider.Lose(1)
	var id string
	_, err := h.run("pay", "u", &id)
	ae := appErr(err)
	if ae == nil || ae.Type() != wgtemporal.TypeUncertain || !ae.NonRetryable() {
		t.Fatalf("workflow error %v, want a non-retryable %s", err, wgtemporal.TypeUncertain)
	}
	if n := attempts(t, h.client, h.id("u")); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
	var u wgtemporal.Uncertain
	if err := ae.Details(&u); err != nil {
		t.Fatal(err)
	}
	row, err := h.app.ledger.Get(context.Background(), u.Row)
	if err != nil || row.State != runtime.StateUncertain || !strings.HasPrefix(row.BusinessKey, h.id("u")+"/") || row.ProviderKey != u.ProviderKey {
		t.Fatalf("row %d of the details %+v: %+v, %v: want the uncertain row of %s", u.Row, u, row.Record, err, h.id("u"))
	}
	if !strings.Contains(u.Reconcile, fmt.Sprintf("writegen ledger resolve -id %d", u.Row)) || u.Owner != "payments-ops" {
		t.Errorf("details %+v: want the reconcile hint of row %d and owner payments-ops", u, u.Row)
	}
	if n := h.provider.Effects("/payments", "u"); n != 1 {
		t.Errorf("%d payments, want 1", n)
	}
}

// Register on a real worker: a retry policy that would run again a write
// writegen does not send again is refused, and the activity is not
// registered (a workflow scheduling it fails, non-retryable); the same
// write under MaximumAttempts 1 is registered and runs once.
func TestRegisterOnWorker(t *testing.T) {
	h := newInProcess(t, 13)
	if h.app.refused == nil || !strings.Contains(h.app.refused.Error(), "unlimited attempts (Temporal's default)") {
		t.Fatalf("Register with Temporal's default policy for sendNotice: %v, want it refused", h.app.refused)
	}
	var id string
	_, err := h.run("notice", "n", &id)
	if ae := appErr(err); ae == nil || ae.Type() != "wgtemporal.Unregistered" || !ae.NonRetryable() {
		t.Fatalf("workflow error %v, want the non-retryable wgtemporal.Unregistered", err)
	}
	if _, err := h.run("notice-once", "n1", &id); err != nil || id == "" {
		t.Fatalf("notice-once: %q, %v", id, err)
	}
	if n := h.provider.Effects("/notices", "n1"); n != 1 {
		t.Errorf("%d notices, want 1", n)
	}
	if n := h.provider.Effects("/notices", "n"); n != 0 {
		t.Errorf("%d notices sent by the refused activity, want 0", n)
	}
}

// An acknowledged payout completes its activity asynchronously: the
// activity returns ErrResultPending, and the webhook inbox's handler
// completes it through its task token (client.CompleteActivity) when the
// provider's payout.paid event arrives; the server hands the result to the
// workflow.
func TestAckCompletedByWebhook(t *testing.T) {
	h := newInProcess(t, 14)
	ctx, cancel := context.WithCancel(context.Background())
	v, err := ledger.NewStandardWebhooks(webhookSecret, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	inbox, err := h.app.ledger.Inbox(ledger.InboxConfig{
		Source: "payments", Verifier: v, Order: ledger.AnyOrder,
		WorkerOptions: ledger.WorkerOptions{Poll: 10 * time.Millisecond},
		Handle: func(ctx context.Context, e ledger.Event) error {
			var ev enginetest.PayoutEvent
			if err := json.Unmarshal(e.Body, &ev); err != nil {
				return err
			}
			return h.app.acks.Complete(ctx, h.client, ev.Key, e.Body)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewServer(inbox)
	defer hook.Close()
	done := make(chan struct{})
	go func() { defer close(done); inbox.Run(ctx) }() //nolint:errcheck // ends with ctx
	defer func() { cancel(); <-done }()
	if err := h.provider.Webhooks(hook.URL, webhookSecret); err != nil {
		t.Fatal(err)
	}
	var s wgtemporal.Settled
	if _, err := h.run("payout", "p1", &s); err != nil {
		t.Fatal(err)
	}
	var ev enginetest.PayoutEvent
	if err := json.Unmarshal(s.Event, &ev); err != nil || ev.Type != "payout.paid" || ev.Key != s.ProviderKey || s.ProviderKey == "" {
		t.Errorf("settled %+v (%v), want the payout.paid event of its provider key", s, err)
	}
	if n := h.provider.Effects("/payouts", "p1"); n != 1 {
		t.Errorf("%d payouts, want 1", n)
	}
	if n := attempts(t, h.client, h.id("p1")); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
}

const webhookSecret = "whsec_dGVzdCBzZWNyZXQgb2YgdGhlIHBheW91dHM="
