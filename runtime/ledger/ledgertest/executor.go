package ledgertest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// callers is how many callers write one business key at once.
const callers = 100

// testConcurrentCallers: 100 concurrent callers of one business key cause
// exactly one provider call, and all get the same receipt, or all the same
// uncertain outcome (promise 15), from goroutines or from several OS
// processes (promise 20).
func testConcurrentCallers(t *testing.T, b Backend) {
	for _, tc := range []struct {
		name     string
		s        strategy
		failure  providerFailure
		wantSame func(outcome) bool
	}{
		{"Receipt", withKey, 0, func(o outcome) bool { return o.ID == "thing_1" }},
		{"Uncertain", withNothing, hangUpAfter, func(o outcome) bool { return o.Uncertain }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := b.NewDSN(t)
			p := NewProvider(t)
			if tc.failure != 0 {
				p.failNext(tc.failure)
			}
			outcomes := writeConcurrently(t, b, dsn, p.URL, tc.s, "order:42")
			if len(outcomes) != callers {
				t.Fatalf("%d outcomes, want %d", len(outcomes), callers)
			}
			for i, o := range outcomes {
				if !tc.wantSame(o) {
					t.Fatalf("caller %d got %+v", i, o)
				}
			}
			if n := p.Requests(); n != 1 {
				t.Fatalf("the provider was called %d times, want once", n)
			}
			if e := p.Effects(); len(e) != 1 {
				t.Fatalf("the provider holds %d effects, want 1", len(e))
			}
		})
	}
}

// writeConcurrently runs callers writes of one key at once, spread over
// b.Processes processes, and returns their outcomes.
func writeConcurrently(t *testing.T, b Backend, dsn, providerURL string, s strategy, k key) []outcome {
	ctx := context.Background()
	if b.Processes <= 1 {
		c, err := writegenimpl.NewClient(scope, providerURL, []runtime.Option{runtime.WithLedger(open(t, dsn))})
		if err != nil {
			t.Fatal(err)
		}
		outcomes := make([]outcome, callers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range outcomes {
			wg.Go(func() {
				<-start
				outcomes[i] = outcomeOf(writeThing(ctx, c, providerURL, s, k))
			})
		}
		close(start)
		wg.Wait()
		return outcomes
	}
	open(t, dsn) // migrate once, before the processes start
	var children []*child
	for i := range b.Processes {
		n := callers / b.Processes
		if i < callers%b.Processes {
			n++
		}
		c := startChild(t, childArgs{Role: "write", DSN: dsn, URL: providerURL, Key: k, Strategy: s, Callers: n})
		if got := c.line(); got != "ready" {
			t.Fatalf("child said %q, want ready\n%s", got, c.stderr.String())
		}
		children = append(children, c)
	}
	for _, c := range children {
		if _, err := c.stdin.Write([]byte("go\n")); err != nil {
			t.Fatal(err)
		}
	}
	var outcomes []outcome
	for _, c := range children {
		for line := c.line(); line != ""; line = c.line() {
			var o outcome
			if err := json.Unmarshal([]byte(line), &o); err != nil {
				t.Fatalf("child said %q: %v", line, err)
			}
			outcomes = append(outcomes, o)
		}
		c.finish()
	}
	return outcomes
}

// boundaries are the points of a write at which a crash test kills the
// process that makes it.
var boundaries = []string{"before-claim", "after-claim", "after-call", "after-receipt", "after-done"}

// testCrash kills a real process (SIGKILL) at each boundary of a write,
// for each way of settling an ambiguous attempt; after a restart resumes
// the rows left claimed and the application writes again, the provider
// holds exactly one effect and the write returns it, or the row is
// uncertain and listed by "writegen ledger list" (promise 16). The
// restart is the same instance (WithInstance), run again: it takes the
// dead run's claims at once, long before their leases end (promise 38).
func testCrash(t *testing.T, b Backend) {
	ctx := context.Background()
	for _, s := range strategies {
		for _, boundary := range boundaries {
			t.Run(string(s)+"/"+boundary, func(t *testing.T) {
				dsn := b.NewDSN(t)
				p := NewProvider(t)
				open(t, dsn) // migrate once, before the child starts
				c := startChild(t, childArgs{Role: "crash", DSN: dsn, URL: p.URL, Key: "order:7", Strategy: s, Boundary: boundary,
					Instance: "worker-7"})
				if got := c.line(); got != "at "+boundary {
					t.Fatalf("child said %q, want %q\n%s", got, "at "+boundary, c.stderr.String())
				}
				c.kill()

				// The restart of the instance, well inside the dead run's
				// lease by the database's clock: resume, then the
				// application's retry. Its own clock is two minutes on.
				l := open(t, dsn)
				later := NewClock()
				later.Advance(2 * time.Minute)
				client, err := writegenimpl.NewClient(scope, p.URL, []runtime.Option{runtime.WithLedger(l), runtime.WithClock(later),
					runtime.WithInstance("worker-7")})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := resumeThings(ctx, client, p.URL, s); err != nil {
					t.Fatalf("resume: %v", err)
				}
				r, err := writeThing(ctx, client, p.URL, s, "order:7")
				effects := p.Effects()
				uncertain := s == withNothing && (boundary == "after-claim" || boundary == "after-call")
				if !uncertain {
					if err != nil || len(effects) != 1 || r.ID != effects[0] {
						t.Fatalf("after the restart: receipt %+v, %v; provider effects %v; want exactly one effect, returned", r, err, effects)
					}
					return
				}
				if !errors.Is(err, runtime.ErrUncertain) || len(effects) > 1 {
					t.Fatalf("after the restart: receipt %+v, %v; provider effects %v; want uncertain", r, err, effects)
				}
				rows := listCommand(t, dsn)
				if len(rows) != 1 || rows[0].BusinessKey != "order:7" || rows[0].Owner != "things-oncall" {
					t.Fatalf("writegen ledger list shows %+v, want the uncertain row", rows)
				}
			})
		}
	}
}
