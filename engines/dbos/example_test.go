package wgdbos_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	wgdbos "github.com/writegen/writegen/engines/dbos"
	"github.com/writegen/writegen/engines/internal/enginetest"
	"github.com/writegen/writegen/engines/internal/payments"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// DBOS runs writegen's Resume on a schedule kept in its system database. A
// payment whose every answer was lost ends uncertain; once the provider
// answers again, the next tick of the schedule (triggered here at once)
// sends it again with the same provider key and settles it with the first
// payment.
func ExampleScheduleResume() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "wgdbos")
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
	dctx, err := dbos.NewContext(ctx, dbos.Config{AppName: "payments", DatabaseURL: "sqlite:" + filepath.Join(dir, "dbos.db"),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	pay := func(ctx dbos.Context, order string) (string, error) {
		r, err := wgdbos.Write(ctx, func(ctx context.Context, key string) (*runtime.Receipt[payments.Payment], error) {
			return c.CreatePayment(ctx, payments.CreatePaymentKey{Ref: key}, payments.NewPayment{Order: order, Cents: 1999})
		})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	dbos.RegisterWorkflow(dctx, pay, dbos.WithWorkflowName("pay"))
	wgdbos.RegisterResume(dctx, c)
	if err := wgdbos.ScheduleResume(dctx, "0 0 * * * *"); err != nil { // every hour
		log.Fatal(err)
	}
	if err := dbos.Launch(dctx); err != nil {
		log.Fatal(err)
	}
	defer dbos.Shutdown(dctx, 5*time.Second)

	h, err := dbos.RunWorkflow(dctx, pay, "42", dbos.WithWorkflowID("order-42"))
	if err != nil {
		log.Fatal(err)
	}
	_, err = h.GetResult()
	fmt.Println("payment uncertain:", errors.Is(err, runtime.ErrUncertain))

	provider.Lose(0) // the provider answers again
	r, err := dbos.TriggerSchedule[runtime.ResumeReport](dctx, wgdbos.ResumeWorkflow)
	if err != nil {
		log.Fatal(err)
	}
	rep, err := r.GetResult()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("resume: asked again %d, settled active %d\n", rep.Reasked, rep.Active)
	fmt.Println("payments made:", provider.Effects("/payments", "42"))
	// Output:
	// payment uncertain: true
	// resume: asked again 1, settled active 1
	// payments made: 1
}
