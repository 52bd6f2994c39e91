package wgdbos_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	wgdbos "github.com/writegen/writegen/engines/dbos"
	"github.com/writegen/writegen/runtime"
)

// resumed returns the sum of the reports of the Resume workflows that
// DBOS's schedule started in the system database of f.
func resumed(t *testing.T, f *fleet) (runtime.ResumeReport, int) {
	t.Helper()
	ctx := context.Background()
	c, err := dbos.NewClient(ctx, dbos.ClientConfig{DatabaseURL: f.cfg.SystemDB, AppName: "wgdbos-test",
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown(c, 5*time.Second)
	runs, err := dbos.ListWorkflows(c, dbos.WithFilterName(wgdbos.ResumeWorkflow), dbos.WithFilterStatus(dbos.WorkflowStatusSuccess),
		dbos.WithFilterLoadOutput(false))
	if err != nil {
		t.Fatal(err)
	}
	var sum runtime.ResumeReport
	for _, r := range runs {
		h, err := dbos.RetrieveWorkflow[runtime.ResumeReport](c, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := h.GetResult()
		if err != nil {
			t.Fatal(err)
		}
		sum = sum.Add(rep)
	}
	return sum, len(runs)
}

// Resume runs as DBOS's scheduled workflow, in a process started after the
// one that made the write ended: it takes over the claim of a process
// killed after the provider committed, whose workflow was cancelled (no
// recovered step takes it over), and asks an uncertain payment again once
// it is due; in both, the first payment.
func TestResumeScheduled(t *testing.T) {
	t.Run("claim of a killed process", func(t *testing.T) {
		f := newFleet(t, false, true, 1, 4)
		f.provider.OnCommit(func(string, string) bool {
			if f.killed() > 0 {
				return false
			}
			f.kill()
			return true
		})
		if _, killed := f.once(); !killed {
			t.Fatal("the child paid, want it killed")
		}
		ctx := context.Background()
		c, err := dbos.NewClient(ctx, dbos.ClientConfig{DatabaseURL: f.cfg.SystemDB, AppName: "wgdbos-test",
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		err = dbos.CancelWorkflow(c, "order-0")
		c.Shutdown(c, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		f.cfg.Orders, f.cfg.Settle = nil, true // a new process: it only runs the schedule
		f.run()
		rep, runs := resumed(t, f)
		if rep.Taken < 1 || rep.Active < 1 {
			t.Errorf("%d Resume workflows reported %+v, want the killed process's claim taken over and settled", runs, rep)
		}
		if n := f.provider.Effects("/payments", "0"); n != 1 {
			t.Errorf("%d payments, want 1", n)
		}
	})
	t.Run("uncertain and due", func(t *testing.T) {
		f := newFleet(t, false, true, 1, 5)
		f.provider.Lose(1)
		if r := f.run()["0"]; !r.Uncertain {
			t.Fatalf("%+v, want uncertain", r)
		}
		f.provider.Lose(0)
		f.cfg.Orders, f.cfg.Settle = nil, true // a new process: it only runs the schedule
		f.run()
		rep, runs := resumed(t, f)
		if rep.Reasked < 1 || rep.Active < 1 {
			t.Errorf("%d Resume workflows reported %+v, want the uncertain payment asked again and settled", runs, rep)
		}
		l, closeLedger, err := openLedger(context.Background(), f.cfg.Ledger)
		if err != nil {
			t.Fatal(err)
		}
		defer closeLedger()
		row, err := l.Find(context.Background(), runtime.Identity{Scope: "payments", Operation: "createpayment", BusinessKey: "order-0/0"})
		if err != nil || row.State != runtime.StateActive || row.ProviderID == "" {
			t.Errorf("the row of order-0/0: %+v, %v: want it active", row.Record, err)
		}
		if n := f.provider.Effects("/payments", "0"); n != 1 {
			t.Errorf("%d payments, want 1", n)
		}
	})
}
