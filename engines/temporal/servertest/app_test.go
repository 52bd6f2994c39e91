package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/writegen/writegen/engines/internal/enginetest"
	"github.com/writegen/writegen/engines/internal/payments"
	wgtemporal "github.com/writegen/writegen/engines/temporal"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/postgres"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// lease is the ledger lease of the workers' clients: a claim left by a
// killed worker is taken over this long after its last renewal. A holder
// renews every third of it, so a renewal that a loaded machine delays has
// the rest of the lease to land; a shorter lease makes writes end not
// applied when renewals come late, which the tests would count.
const lease = 1500 * time.Millisecond

// payOptions are the options of the payment activities: Temporal's
// default retry policy (unlimited attempts) with a short first interval,
// and a heartbeat timeout after which the server takes a worker that stopped
// heartbeating (killed) for dead and runs the activity again.
var payOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Minute,
	HeartbeatTimeout:    3 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumInterval: time.Second},
}

// onceOptions run the activity once: a worker killed during it fails the
// workflow, and only Resume settles what it left.
var onceOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Minute,
	HeartbeatTimeout:    3 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
}

// appConfig is what a worker of the tests needs besides Temporal.
type appConfig struct {
	Provider string // the provider's URL
	Ledger   string // sqlite:PATH or a postgres:// URL
	Name     string // the worker's name, sent to the provider in enginetest.WorkerHeader
}

// app is the application the tests' workers run: workflows that pay an
// order with writegen (the business key from the workflow and activity
// IDs), that pay it as one POST (the anchor, without writegen), that
// request an acknowledged payout, and writegen's Resume workflow.
type app struct {
	cfg     appConfig
	ledger  *ledger.Ledger
	close   func()
	client  *payments.Client
	acks    *wgtemporal.Acks
	refused error // what Register said of the notice activity with Temporal's default policy
}

func openLedger(ctx context.Context, dsn string) (*ledger.Ledger, func(), error) {
	if p, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		l, err := sqlite.Open(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return l.Ledger, func() { l.Close() }, nil
	}
	l, err := postgres.Open(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	return l.Ledger, func() { l.Close() }, nil
}

func newApp(ctx context.Context, cfg appConfig) (*app, error) {
	l, closeLedger, err := openLedger(ctx, cfg.Ledger)
	if err != nil {
		return nil, err
	}
	c, err := payments.NewClient(cfg.Provider, l, runtime.WithLease(lease), runtime.WithAttemptTimeout(lease*2/5),
		runtime.WithBackoff(5*time.Millisecond, 50*time.Millisecond), runtime.WithHeader(enginetest.WorkerHeader, cfg.Name))
	if err != nil {
		closeLedger()
		return nil, err
	}
	acks, err := wgtemporal.NewAcks(ctx, l)
	if err != nil {
		closeLedger()
		return nil, err
	}
	return &app{cfg: cfg, ledger: l, close: closeLedger, client: c, acks: acks}, nil
}

// register registers the app's workflows and activities on w.
func (a *app) register(w worker.Registry) error {
	ws := wgtemporal.NewWrites(payments.Writes())
	for _, act := range []wgtemporal.Activity{
		{Name: "pay-order", Func: a.pay, Write: "createPayment", Options: payOptions},
		{Name: "pay-order-once", Func: a.pay, Write: "createPayment", Options: onceOptions},
		{Name: "payout", Func: a.payout, Write: "requestPayout", Options: payOptions},
		{Name: "notice-once", Func: a.notice, Write: "sendNotice", Options: onceOptions},
	} {
		if err := ws.Register(w, act); err != nil {
			return err
		}
	}
	a.refused = ws.Register(w, wgtemporal.Activity{Name: "notice", Func: a.notice, Write: "sendNotice", Options: payOptions})
	for name, act := range map[string]string{"pay": "pay-order", "pay-once": "pay-order-once", "notice": "notice", "notice-once": "notice-once"} {
		w.RegisterWorkflowWithOptions(func(ctx workflow.Context, order string) (string, error) {
			var id string
			err := ws.Execute(ctx, act, order).Get(ctx, &id)
			return id, err
		}, workflow.RegisterOptions{Name: name})
	}
	// pay-id gives the payment an explicit activity ID, which Execute keeps.
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context, order string) (string, error) {
		var id string
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{ActivityID: "payment"})
		err := ws.Execute(ctx, "pay-order", order).Get(ctx, &id)
		return id, err
	}, workflow.RegisterOptions{Name: "pay-id"})
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context, order string) (wgtemporal.Settled, error) {
		var s wgtemporal.Settled
		err := ws.Execute(ctx, "payout", order).Get(ctx, &s)
		return s, err
	}, workflow.RegisterOptions{Name: "payout"})
	// The anchor: the same payment as one POST, registered as Temporal's
	// users do, with the same options.
	w.RegisterActivityWithOptions(a.payPlain, activity.RegisterOptions{Name: "pay-plain-order"})
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context, order string) (string, error) {
		var id string
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, payOptions), "pay-plain-order", order).Get(ctx, &id)
		return id, err
	}, workflow.RegisterOptions{Name: "pay-plain"})
	wgtemporal.RegisterResume(w, a.client)
	return nil
}

// pay makes an order's payment with writegen.
func (a *app) pay(ctx context.Context, order string) (string, error) {
	r, err := wgtemporal.Run(ctx, func(ctx context.Context, key string) (*runtime.Receipt[payments.Payment], error) {
		return a.client.CreatePayment(ctx, payments.CreatePaymentKey{Ref: key}, payments.NewPayment{Order: order, Cents: 100})
	})
	if err != nil {
		return "", err
	}
	return r.ID, nil
}

// notice sends an order's notice, a write with neither ledger claim nor
// provider key.
func (a *app) notice(ctx context.Context, order string) (string, error) {
	r, err := wgtemporal.Run(ctx, func(ctx context.Context, key string) (*runtime.Receipt[payments.Payment], error) {
		return a.client.SendNotice(ctx, payments.SendNoticeKey{Ref: key}, payments.NewPayment{Order: order, Cents: 1})
	})
	if err != nil {
		return "", err
	}
	return r.ID, nil
}

// payout requests an order's payout, which the provider acknowledges; the
// activity completes when its webhook arrives (Acks.Complete).
func (a *app) payout(ctx context.Context, order string) (wgtemporal.Settled, error) {
	ack, err := wgtemporal.Run(ctx, func(ctx context.Context, key string) (*runtime.Ack[payments.RequestPayoutResponse], error) {
		return a.client.RequestPayout(ctx, payments.RequestPayoutKey{Ref: key}, payments.NewPayment{Order: order, Cents: 500})
	})
	if err != nil {
		return wgtemporal.Settled{}, err
	}
	return a.acks.Pending(ctx, ack.ProviderKey)
}

// payPlain is the activity a team writes without writegen: one POST, any
// failure returned for Temporal to retry.
func (a *app) payPlain(ctx context.Context, order string) (string, error) {
	body, _ := json.Marshal(payments.NewPayment{Order: order, Cents: 100})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.cfg.Provider+"/payments", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(enginetest.WorkerHeader, a.cfg.Name)
	resp, err := http.DefaultClient.Do(req)
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
