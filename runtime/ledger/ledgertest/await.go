package ledgertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// deadLease is the lease of the process that dies holding a claim.
const deadLease = 2 * time.Second

// testWaiterTakesDeadClaim: a process holding a claim with a 2 s lease is
// killed (SIGKILL) after its claim, or after the provider committed its
// write; a replacement process's call repeats the write at once, with
// another instance name or none. It waits while the row stays claimed,
// and once the dead holder's lease has ended by the database's clock it
// takes the row over, fenced, and drives it on as Resume would: it gets
// the write's receipt, or, where nothing can settle the dead attempt, the
// uncertain outcome, never ErrInProgress for a call nobody is making; the
// provider holds one effect at most (promise 54).
func testWaiterTakesDeadClaim(t *testing.T, b Backend) {
	ctx := context.Background()
	for _, tc := range []struct {
		s        strategy
		boundary string
		instance string // the replacement's
	}{
		{withKey, "after-claim", ""},
		{withKey, "after-call", "pod-b"},
		{withLookup, "after-call", ""},
		{withNothing, "after-claim", "pod-b"},
		{withNothing, "after-call", ""},
	} {
		t.Run(string(tc.s)+"/"+tc.boundary, func(t *testing.T) {
			dsn := b.NewDSN(t)
			p := NewProvider(t)
			open(t, dsn) // migrate once, before the child starts
			c := startChild(t, childArgs{Role: "crash", DSN: dsn, URL: p.URL, Key: "order:9", Strategy: tc.s, Boundary: tc.boundary,
				Instance: "pod-a", Attempt: deadLease * 5 / 6, Lease: deadLease})
			if got := c.line(); got != "at "+tc.boundary {
				t.Fatalf("child said %q, want %q\n%s", got, "at "+tc.boundary, c.stderr.String())
			}
			c.kill()

			opts := []runtime.Option{runtime.WithLedger(open(t, dsn))}
			if tc.instance != "" {
				opts = append(opts, runtime.WithInstance(tc.instance))
			}
			client, err := writegenimpl.NewClient(scope, p.URL, opts)
			if err != nil {
				t.Fatal(err)
			}
			// Far longer than the dead lease: a call that waits it out
			// instead of taking the row over fails the test.
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			r, err := writeThing(wctx, client, p.URL, tc.s, "order:9")
			effects := p.Effects()
			if errors.Is(err, runtime.ErrInProgress) {
				t.Fatalf("the replacement's call: %v; want it to take the dead claim over", err)
			}
			if len(effects) > 1 {
				t.Fatalf("the provider holds %d effects: %v", len(effects), effects)
			}
			// Without a key or a lookup, nothing can tell whether the dead
			// holder sent its request.
			uncertain := tc.s == withNothing
			switch {
			case uncertain && !errors.Is(err, runtime.ErrUncertain):
				t.Fatalf("the replacement's call: %+v, %v; want uncertain: nothing can tell whether the dead holder sent its request", r, err)
			case !uncertain && (err != nil || len(effects) != 1 || r.ID != effects[0]):
				t.Fatalf("the replacement's call: %+v, %v; effects %v; want the one effect's receipt", r, err, effects)
			}
			row, err := open(t, dsn).Find(ctx, runtime.Identity{Scope: scope, Operation: "create-thing", BusinessKey: "order:9"})
			if err != nil || row.Fence != 2 || row.State == runtime.StateClaimed {
				t.Fatalf("row after the takeover: %+v, %v; want it settled under the taker's fence", row.Record, err)
			}
		})
	}
}
