package wgtemporal_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/writegen/writegen/engines/internal/enginetest"
	"github.com/writegen/writegen/engines/internal/payments"
	wgtemporal "github.com/writegen/writegen/engines/temporal"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Temporal runs writegen's Resume as the workflow that RegisterResume
// registers on every worker; ScheduleResume keeps the Temporal schedule
// that starts it, in the server:
//
//	wgtemporal.RegisterResume(w, c)
//	wgtemporal.ScheduleResume(ctx, tc, wgtemporal.ResumeSchedule{TaskQueue: "payments", Every: time.Minute})
//
// Here the SDK's test environment, which has no schedules, runs one start
// of it: a payment whose every answer was lost ended uncertain; once the
// provider answers again, Resume sends it again with the same provider key
// and settles it with the first payment. (engines/temporal/servertest runs
// the schedule on a real Temporal server.)
func ExampleRegisterResume() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "wgtemporal")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	provider := enginetest.NewProvider(1) // a payments provider; it loses every answer for now
	defer provider.Close()
	provider.Lose(1)

	l, err := sqlite.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	c, err := payments.NewClient(provider.URL, l, runtime.WithBackoff(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	pay := func(ctx context.Context, order string) (string, error) {
		r, err := wgtemporal.Run(ctx, func(ctx context.Context, key string) (*runtime.Receipt[payments.Payment], error) {
			return c.CreatePayment(ctx, payments.CreatePaymentKey{Ref: key}, payments.NewPayment{Order: order, Cents: 1999})
		})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))

	env := suite.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute}) // a loaded machine may hold a task past the default second
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "order-42", TaskQueue: "payments"})
	ws := wgtemporal.NewWrites(payments.Writes())
	if err := ws.Register(env, wgtemporal.Activity{Name: "pay-order", Func: pay, Write: "createPayment",
		Options: workflow.ActivityOptions{StartToCloseTimeout: time.Minute}}); err != nil {
		log.Fatal(err)
	}
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context, order string) (string, error) {
		var id string
		err := ws.Execute(ctx, "pay-order", order).Get(ctx, &id)
		return id, err
	}, workflow.RegisterOptions{Name: "pay"})
	env.ExecuteWorkflow("pay", "42")
	var ae *temporal.ApplicationError
	err = env.GetWorkflowError()
	fmt.Println("payment uncertain:", errors.As(err, &ae) && ae.Type() == wgtemporal.TypeUncertain)

	provider.Lose(0) // the provider answers again
	env = suite.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	wgtemporal.RegisterResume(env, c)
	env.ExecuteWorkflow(wgtemporal.ResumeWorkflow)
	var rep runtime.ResumeReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("resume: asked again %d, settled active %d\n", rep.Reasked, rep.Active)
	fmt.Println("payments made:", provider.Effects("/payments", "42"))
	// Output:
	// payment uncertain: true
	// resume: asked again 1, settled active 1
	// payments made: 1
}
