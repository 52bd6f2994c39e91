package writegenimpl

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestPromise31_ResumeDrivesUncertainRows: an uncertain row whose provider
// key is still inside its window, or whose lookup can answer later (strong,
// or eventual: what it finds is adopted), is driven to an outcome by Resume
// before a person is asked; other uncertain rows are left to the person.
func TestPromise31_ResumeDrivesUncertainRows(t *testing.T) {
	cases := []struct {
		name    string
		s       strategy
		lookup  runtime.Consistency
		later   time.Duration // how long after the uncertain outcome Resume runs
		redrive bool
		until   bool // the row is re-drivable until the key's window ends
	}{
		{"key in its window", withKey, runtime.NoLookup, time.Hour, true, true},
		{"key window over", withKey, runtime.NoLookup, 25 * time.Hour, false, true},
		{"strong lookup", withLookup, runtime.Strong, 25 * time.Hour, true, false},
		{"eventual lookup", unprotected, runtime.Eventual, time.Hour, true, false},
		{"neither", ledgerOnly, runtime.NoLookup, time.Hour, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The provider answers no attempt (with a key it commits none,
			// else the first), then is well again.
			lost := step{loss: lostResponse}
			if tc.s == withKey {
				lost = step{loss: lostRequest}
			}
			p := newProvider(t, lost, lost, lost, lost)
			op := thingOp(tc.s)
			op.Dedupe, op.Lookup = true, tc.lookup
			clk := newTestClock()
			l := newMemLedgerOn(clk)
			var n notes
			c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithNotifier(&n))
			call := thingCall(c, op, "x")
			if tc.lookup != runtime.NoLookup {
				// The lookup fails while the provider is unwell.
				ok := false
				look := call.Lookup
				if tc.lookup == runtime.Eventual {
					look = lookupThings(c, false) // the index has caught up once it answers again
				}
				call.Lookup = func(ctx context.Context, ref string) ([]runtime.Found[*thing], error) {
					if !ok {
						return nil, errors.New("search is down")
					}
					return look(ctx, ref)
				}
				defer func() { ok = true }()
				_, err := Write(context.Background(), c, op, thingKey{"1"}, call)
				uncertainReason(t, err)
				ok = true
			} else {
				_, err := Write(context.Background(), c, op, thingKey{"1"}, call)
				uncertainReason(t, err)
			}
			row := l.row(1)
			if row.State != runtime.StateUncertain || row.redrive != (tc.redrive || tc.name == "key window over") {
				t.Fatalf("row %s, redrive %v; want uncertain, redrive %v", row.State, row.redrive, tc.redrive || tc.name == "key window over")
			}
			if row.redriveUntil.IsZero() == tc.until && row.redrive {
				t.Errorf("redrive until %v, want a limit %v", row.redriveUntil, tc.until)
			}
			clk.advance(tc.later)
			rep, err := Resume(context.Background(), c, op, call)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.redrive {
				if rep.Taken != 0 || l.row(1).State != runtime.StateUncertain || len(n.list) != 1 {
					t.Errorf("report %+v, row %s, %d notes; want the row left to a person", rep, l.row(1).State, len(n.list))
				}
				return
			}
			got := l.row(1)
			if rep.Taken != 1 || rep.Active != 1 || got.State != runtime.StateActive || got.ProviderID != "th_1" {
				t.Errorf("report %+v, row %+v; want it driven to active th_1", rep, got.Record)
			}
			if p.effectCount() != 1 {
				t.Errorf("%d effects after resume, want 1", p.effectCount())
			}
			r, err := Write(context.Background(), c, op, thingKey{"1"}, call)
			if err != nil || r.ID != "th_1" || r.Source != runtime.AdoptedLedger {
				t.Errorf("after resume: receipt %+v, err %v; want th_1 from the ledger", r, err)
			}
		})
	}
	t.Run("driven once per resume", func(t *testing.T) {
		// Rows that stay uncertain and re-drivable are driven once by each
		// Resume, not in a loop, and more of them than one batch are all
		// reached.
		op := thingOp(withKey)
		op.Dedupe = true
		l := newMemLedger()
		clk := newTestClock()
		// Nothing reaches the provider, yet the rows were claimed by a
		// process that may have sent them.
		c := newTestClient(t, "http://"+refusedAddr(t), clk, runtime.WithLedger(l))
		const n = resumeBatch + 6
		for i := range n {
			claimFor(t, l, c, op, fmt.Sprint(i), "x", clk.Now().Add(-time.Second))
		}
		for i := range 2 {
			rep, err := Resume(context.Background(), c, op, thingCall(c, op, "x"))
			if err != nil || rep.Taken != n || rep.Uncertain != n {
				t.Fatalf("resume %d: report %+v, err %v; want each of the %d rows driven once, uncertain", i, rep, err, n)
			}
		}
		for _, row := range l.all() {
			if row.State != runtime.StateUncertain || !row.redrive {
				t.Fatalf("row %d %s, redrive %v; want uncertain, re-drivable", row.ID, row.State, row.redrive)
			}
		}
	})
}

// TestResumeTellsOnce: the owner of an uncertain row that Resume drives on
// and leaves uncertain is told once by a client, not on every pass; another
// client (another process) tells once more, and a not_applied row claimed
// again is a new call, whose uncertain outcome is told anew.
func TestResumeTellsOnce(t *testing.T) {
	lost := step{loss: lostRequest}
	script := make([]step, 40)
	for i := range script {
		script[i] = lost
	}
	p := newProvider(t, script...)
	op := thingOp(withKey)
	op.Dedupe = true
	l := newMemLedger()
	clk := newTestClock()
	var n, other notes
	c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithNotifier(&n))
	call := thingCall(c, op, "x")
	_, err := Write(context.Background(), c, op, thingKey{"1"}, call)
	uncertainReason(t, err)
	for i := range 3 {
		clk.advance(time.Minute)
		rep, err := Resume(context.Background(), c, op, call)
		if err != nil || rep.Taken != 1 || rep.Uncertain != 1 {
			t.Fatalf("resume %d: report %+v, err %v; want the row driven and left uncertain", i, rep, err)
		}
	}
	if len(n.list) != 1 {
		t.Errorf("the owner was told %d times by one client, want once", len(n.list))
	}
	c2 := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithNotifier(&other))
	for range 2 {
		clk.advance(time.Minute)
		if _, err := Resume(context.Background(), c2, op, thingCall(c2, op, "x")); err != nil {
			t.Fatal(err)
		}
	}
	if len(other.list) != 1 {
		t.Errorf("another client told the owner %d times, want once", len(other.list))
	}
	// A person finds nothing happened; the same key is written again, and
	// is uncertain again: that is a new outcome, told.
	l.mu.Lock()
	l.rows[0].State = runtime.StateNotApplied
	l.mu.Unlock()
	_, err = Write(context.Background(), c, op, thingKey{"1"}, call)
	uncertainReason(t, err)
	if len(n.list) != 2 {
		t.Errorf("the new call's uncertain outcome was told %d times in all, want the first and this one", len(n.list))
	}
}
