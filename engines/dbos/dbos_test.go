package wgdbos_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/writegen/writegen/engines/internal/enginetest"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

var (
	seed      = flag.Uint64("seed", 23, "the seed of TestSeededRun's losses and kills")
	workflows = flag.Int("workflows", 200, "the workflows of TestSeededRun")
)

// newDatabase creates a database of its own for a test in the PostgreSQL
// of dsn and returns its DSN; it is dropped when the test ends.
func newDatabase(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("wgdbos_%d", rand.Uint32())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)") //nolint:errcheck // the cluster is thrown away
		conn.Close(ctx)
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func newFleet(t *testing.T, pg, writegen bool, orders int, s uint64) *fleet {
	p := enginetest.NewProvider(s)
	t.Cleanup(p.Close)
	sys, l := databases(t, pg)
	f := &fleet{t: t, provider: p, cfg: childConfig{Provider: p.URL, SystemDB: sys, Ledger: l, Writegen: writegen}}
	for i := range orders {
		f.cfg.Orders = append(f.cfg.Orders, fmt.Sprint(i))
	}
	return f
}

// The process is killed with SIGKILL after the provider committed the
// payment and before it answered; the next process's DBOS recovers the
// workflow and runs the step again, whose write takes the dead process's
// claim over once its lease ends and settles it with the same provider
// key: one payment, the first one's id.
func TestKilledMidStep(t *testing.T) {
	for _, pg := range []bool{false, true} {
		name := map[bool]string{false: "sqlite", true: "postgres"}[pg]
		t.Run(name, func(t *testing.T) {
			f := newFleet(t, pg, true, 3, 1)
			f.provider.OnCommit(func(_, order string) bool {
				if order != "1" || f.provider.Effects("/payments", "1") > 1 {
					return false
				}
				f.kill()
				return true
			})
			res := f.run()
			if n := f.killed(); n != 1 {
				t.Fatalf("%d kills, want 1", n)
			}
			for _, order := range f.cfg.Orders {
				if r := res[order]; r.ID == "" || r.Err != "" {
					t.Errorf("order %s: %+v, want paid", order, r)
				}
				if n := f.provider.Effects("/payments", order); n != 1 {
					t.Errorf("order %s: %d payments, want 1", order, n)
				}
			}
			l, closeLedger, err := openLedger(context.Background(), f.cfg.Ledger)
			if err != nil {
				t.Fatal(err)
			}
			defer closeLedger()
			row, err := l.Find(context.Background(), runtime.Identity{Scope: "payments", Operation: "createpayment", BusinessKey: "order-1/0"})
			if err != nil || row.State != runtime.StateActive {
				t.Errorf("the claim of order-1/0: %+v, %v: want it active", row, err)
			}
		})
	}
}

// An uncertain write is recorded as the step's outcome: the workflow ends
// with an error that matches runtime.ErrUncertain and names its ledger
// row, and DBOS does not run the step again.
func TestUncertainStep(t *testing.T) {
	f := newFleet(t, false, true, 1, 2)
	f.provider.Lose(1)
	r := f.run()["0"]
	if !r.Uncertain || r.Row == 0 {
		t.Fatalf("%+v, want uncertain with its ledger row", r)
	}
	if n := f.provider.Effects("/payments", "0"); n != 1 {
		t.Errorf("%d payments, want 1", n)
	}
	l, closeLedger, err := openLedger(context.Background(), f.cfg.Ledger)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLedger()
	row, err := l.Get(context.Background(), r.Row)
	if err != nil || row.State != runtime.StateUncertain || row.BusinessKey != "order-0/0" {
		t.Errorf("row %d: %+v, %v: want the uncertain row of order-0/0", r.Row, row, err)
	}
	rows, err := l.List(context.Background(), ledger.Filter{Scope: "payments", State: runtime.StateUncertain})
	if err != nil || len(rows) != 1 {
		t.Errorf("uncertain rows %v, %v: want 1", rows, err)
	}
	// Another process reads the workflow's result from the database: the
	// same typed error.
	if again := f.run()["0"]; !again.Uncertain || again.Row != r.Row {
		t.Errorf("read again: %+v, want uncertain with row %d", again, r.Row)
	}
}

// The seeded run: workflows that each pay one order, against a provider
// that loses answers, with the process killed (SIGKILL) after the
// provider committed, on SQLite and on PostgreSQL; once with writegen and
// once as the anchor, the step written as one POST with DBOS's default
// step options. go test -v prints both.
func TestSeededRun(t *testing.T) {
	for _, pg := range []bool{false, true} {
		name := map[bool]string{false: "sqlite", true: "postgres"}[pg]
		t.Run(name, func(t *testing.T) { seededRun(t, pg) })
	}
}

func seededRun(t *testing.T, pg bool) {
	const lose, kill = 0.2, 0.1
	var figures [2]enginetest.Figures
	for i, writegen := range []bool{true, false} {
		f := newFleet(t, pg, writegen, *workflows, *seed)
		f.provider.Lose(lose)
		f.provider.OnCommit(func(string, string) bool {
			if f.provider.Draw() >= kill {
				return false
			}
			f.kill()
			return true
		})
		res := f.run()
		fig := &figures[i]
		for _, order := range f.cfg.Orders {
			r := res[order]
			if r.Err != "" && !r.Uncertain && writegen {
				t.Logf("order %s: %s", order, r.Err)
			}
			fig.Count(f.provider.Effects("/payments", order), r.Err == "" && r.ID != "", r.Uncertain)
		}
		fig.Kills, fig.Lost = f.killed(), f.provider.Lost()
	}
	t.Logf("dbos, writegen:          %v", figures[0])
	t.Logf("dbos, anchor (no writegen, default step options): %v", figures[1])
	if w := figures[0]; w.Duplicates != 0 || w.Missing != 0 || w.Failed != 0 {
		t.Errorf("writegen: %v: want no duplicate, no missing payment and no plain failure", w)
	}
	if figures[0].Kills == 0 || figures[0].Lost == 0 {
		t.Error("no process was killed or no answer lost: the run tested nothing")
	}
}
