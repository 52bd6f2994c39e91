package servertest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/engines/internal/enginetest"
	wgtemporal "github.com/writegen/writegen/engines/temporal"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

var (
	seed      = flag.Uint64("seed", 23, "the seed of TestSeededRun's losses and kills")
	workflows = flag.Int("workflows", 200, "the workflows of TestSeededRun")
	inFlight  = flag.Int("inflight", 8, "the workflows TestSeededRun runs at once")
)

// id is the workflow ID of order: the task queue's name and the order.
func (f *fleet) id(order string) string { return f.cfg.TaskQueue + "-" + order }

// run starts the workflow typ for order on the fleet's task queue under
// the workflow ID f.id(order).
func (f *fleet) run(typ, order string) client.WorkflowRun {
	f.t.Helper()
	r, err := srv().GetDefaultClient().ExecuteWorkflow(context.Background(),
		client.StartWorkflowOptions{ID: f.id(order), TaskQueue: f.cfg.TaskQueue}, typ, order)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

// restartKilled makes the fleet start a new worker for each one killed.
func (f *fleet) restartKilled() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.restart = true
}

// ledger opens the fleet's ledger in the test's process.
func (f *fleet) ledger() *ledger.Ledger {
	f.t.Helper()
	l, closeLedger, err := openLedger(context.Background(), f.cfg.App.Ledger)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(closeLedger)
	return l
}

// keepResume makes the first worker keep the fleet's Resume schedule, and
// deletes the schedule when the test ends.
func (f *fleet) keepResume() string {
	id := "resume-" + f.cfg.TaskQueue
	f.t.Cleanup(func() {
		srv().GetDefaultClient().ScheduleClient().GetHandle(context.Background(), id).Delete(context.Background()) //nolint:errcheck // the server goes with the tests
	})
	return f.start(time.Second)
}

// A worker process is killed (SIGKILL) after the provider committed its
// payment and before the answer reached it. The server, no longer hearing
// its heartbeat, times the activity out and runs it again on a second
// worker process, whose write finds the claim of the dead one, waits until
// its lease has ended, takes it over and sends the payment again with its
// provider key (or Temporal's scheduled Resume does so first). One
// payment; the workflow gets the first one's id.
func TestWorkerKilledMidWrite(t *testing.T) {
	for name, dsn := range ledgers(t) {
		t.Run(name, func(t *testing.T) {
			p := enginetest.NewProvider(21)
			t.Cleanup(p.Close)
			f := newFleet(t, "killed-"+name, p.URL, dsn)
			f.restartKilled()
			var once atomic.Bool
			p.OnCommitBy(func(_, _, worker string) bool {
				return once.CompareAndSwap(false, true) && f.kill(worker)
			})
			f.keepResume()
			var id string
			if err := f.run("pay", "k").Get(context.Background(), &id); err != nil {
				t.Fatal(err)
			}
			c := srv().GetDefaultClient()
			if n := attempts(t, c, f.id("k")); n < 2 {
				t.Errorf("%d attempts, want 2 or more (the killed one and its retry)", n)
			}
			if n := f.killed(); n != 1 {
				t.Errorf("%d workers killed, want 1", n)
			}
			if n := p.Effects("/payments", "k"); n != 1 {
				t.Errorf("%d payments, want 1", n)
			}
			rows, err := f.ledger().List(context.Background(), ledger.Filter{Scope: "payments", State: runtime.StateActive})
			if err != nil || len(rows) != 1 || rows[0].ProviderID != id || !strings.HasPrefix(rows[0].BusinessKey, f.id("k")+"/") {
				t.Errorf("active rows %+v (%v), want the row of %s with %q", rows, err, f.id("k"), id)
			}
		})
	}
}

// resumed returns the sum of the reports of the Resume workflows that ran
// on the task queue queue, and how many ran.
func resumed(t *testing.T, queue string) (runtime.ResumeReport, int) {
	t.Helper()
	ctx := context.Background()
	c := srv().GetDefaultClient()
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf("WorkflowType = '%s' AND TaskQueue = '%s' AND ExecutionStatus = 'Completed'", wgtemporal.ResumeWorkflow, queue),
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum runtime.ResumeReport
	for _, e := range resp.GetExecutions() {
		var rep runtime.ResumeReport
		if err := c.GetWorkflow(ctx, e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId()).Get(ctx, &rep); err != nil {
			t.Fatal(err)
		}
		sum = sum.Add(rep)
	}
	return sum, len(resp.GetExecutions())
}

// settled waits until no row of l is claimed, and no uncertain row is
// one that Resume drives on (Redrive): what is left is for a person.
func settled(t *testing.T, l *ledger.Ledger) {
	t.Helper()
	for {
		open := 0
		for _, st := range []runtime.State{runtime.StateClaimed, runtime.StateUncertain} {
			rows, err := l.List(context.Background(), ledger.Filter{Scope: "payments", State: st})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.State == runtime.StateClaimed || r.Redrive {
					open++
				}
			}
		}
		if open == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Resume runs in Temporal, started by its schedule, on whichever worker is
// up. An uncertain payment (every answer lost) is asked again once the
// provider answers; a worker is killed after the provider committed a
// payment whose activity Temporal runs once only (MaximumAttempts 1), so
// no attempt of the workflow comes back for the claim. The schedule was
// kept by the first worker, which is dead; a second worker, started
// afterwards and knowing nothing of the schedule, runs the Resume it
// starts, which settles both rows with the first payments.
func TestResumeScheduledByEngine(t *testing.T) {
	p := enginetest.NewProvider(22)
	t.Cleanup(p.Close)
	f := newFleet(t, "resume", p.URL, ledgers(t)["sqlite"])
	first := f.keepResume()
	ctx := context.Background()

	p.Lose(1)
	var id string
	err := f.run("pay", "u").Get(ctx, &id)
	if ae := appErr(err); ae == nil || ae.Type() != wgtemporal.TypeUncertain {
		t.Fatalf("order u: %v, want %s", err, wgtemporal.TypeUncertain)
	}
	p.Lose(0)

	// The worker that replaces the killed one runs the workflow task that
	// fails the workflow once the activity timed out.
	f.restartKilled()
	p.OnCommitBy(func(_, order, worker string) bool { return order == "k" && f.kill(worker) })
	err = f.run("pay-once", "k").Get(ctx, &id)
	var te *temporal.TimeoutError
	if !errors.As(err, &te) || f.killed() != 1 {
		t.Fatalf("order k: %v after %d kills, want the activity timed out after its worker %s was killed", err, f.killed(), first)
	}

	l := f.ledger()
	settled(t, l)
	for _, order := range []string{"u", "k"} {
		if n := p.Effects("/payments", order); n != 1 {
			t.Errorf("order %s: %d payments, want 1", order, n)
		}
	}
	rows, err := l.List(ctx, ledger.Filter{Scope: "payments", State: runtime.StateActive})
	if err != nil || len(rows) != 2 {
		t.Fatalf("active rows %+v (%v), want those of orders u and k", rows, err)
	}
	// The Resume runs that settled the rows are listed once they completed.
	for {
		rep, runs := resumed(t, f.cfg.TaskQueue)
		if rep.Reasked >= 1 && rep.Active >= 2 {
			break
		}
		t.Logf("%d Resume runs reported %+v; waiting for those that asked the uncertain row again and settled both", runs, rep)
		time.Sleep(time.Second)
	}
}

// The seeded run: workflows that each pay one order, against a provider
// that loses answers, on two worker processes of which the one that sent a
// request is killed (SIGKILL) after the provider committed it and replaced
// by a new process; once with writegen (and Temporal's schedule running
// its Resume) and once as the anchor, the same activity written as one
// POST under Temporal's default retry policy. go test -v prints both.
func TestSeededRun(t *testing.T) {
	const lose, kill = 0.2, 0.1
	var figures [2]enginetest.Figures
	var left int
	for i, writegen := range []bool{true, false} {
		p := enginetest.NewProvider(*seed)
		t.Cleanup(p.Close)
		mode := map[bool]string{true: "writegen", false: "anchor"}[writegen]
		f := newFleet(t, "seeded-"+mode, p.URL, ledgers(t)["sqlite"])
		p.Lose(lose)
		p.OnCommitBy(func(_, _, worker string) bool {
			return p.Draw() < kill && f.kill(worker)
		})
		if writegen {
			f.keepResume()
		} else {
			f.start(0)
		}
		f.start(0)
		f.restartKilled()
		typ := map[bool]string{true: "pay", false: "pay-plain"}[writegen]
		errs := make([]error, *workflows)
		var wg sync.WaitGroup
		sem := make(chan struct{}, *inFlight)
		for n := range *workflows {
			sem <- struct{}{}
			r := f.run(typ, fmt.Sprint(n))
			wg.Go(func() {
				defer func() { <-sem }()
				var id string
				errs[n] = r.Get(context.Background(), &id)
			})
		}
		wg.Wait()
		fig := &figures[i]
		for n, err := range errs {
			ae := appErr(err)
			fig.Count(p.Effects("/payments", fmt.Sprint(n)), err == nil, ae != nil && ae.Type() == wgtemporal.TypeUncertain)
		}
		fig.Kills, fig.Lost = f.killed(), p.Lost()
		if writegen {
			// What the schedule's Resume leaves uncertain for a person: the
			// uncertain payments are sent again with their provider keys.
			p.Lose(0)
			l := f.ledger()
			settled(t, l)
			rows, err := l.List(context.Background(), ledger.Filter{Scope: "payments", State: runtime.StateUncertain})
			if err != nil {
				t.Fatal(err)
			}
			left = len(rows)
		}
	}
	t.Logf("temporal server, writegen:          %v; uncertain rows left after the scheduled Resume: %d", figures[0], left)
	t.Logf("temporal server, anchor (no writegen, default retry): %v", figures[1])
	t.Logf("\n| seed %d, real server | effects | duplicates | uncertain | failed | kills | lost answers |\n|---|---|---|---|---|---|---|\n"+
		"| activity with writegen | %d | %d | %d | %d | %d | %d |\n"+
		"| the same payment as one POST, Temporal's default retry (the anchor) | %d | %d | n/a | %d | %d | %d |",
		*seed, figures[0].Effects, figures[0].Duplicates, figures[0].Uncertain, figures[0].Failed, figures[0].Kills, figures[0].Lost,
		figures[1].Effects, figures[1].Duplicates, figures[1].Failed, figures[1].Kills, figures[1].Lost)
	if w := figures[0]; w.Duplicates != 0 || w.Missing != 0 || w.Failed != 0 {
		t.Errorf("writegen: %v: want no duplicate, no missing payment and no plain failure", w)
	}
	if figures[0].Kills == 0 || figures[0].Lost == 0 {
		t.Error("no worker was killed or no answer lost: the run tested nothing")
	}
}
