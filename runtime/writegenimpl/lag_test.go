package writegenimpl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// lagOp is createThing with an eventual lookup whose lag is lag.
func lagOp(lag time.Duration) *Operation {
	op := thingOp(withLookup)
	op.Lookup, op.LookupLag = runtime.Eventual, lag
	return op
}

// TestStrongLookupSettles: the provider commits a write after the
// connection of its attempt was cut (its commit is still in flight when the
// first lookup asks). Trusting that first "not found" sends the write again
// and makes a duplicate; a strong lookup's "not found" counts only once the
// settle time has passed since the attempt ended, and by then the lookup
// finds the write: one effect, adopted.
func TestStrongLookupSettles(t *testing.T) {
	t.Run("settled", func(t *testing.T) {
		p := newProvider(t, step{loss: slowCommit})
		op := thingOp(withLookup)
		op.LookupLag = 2 * time.Second // consistency: {strong: 2s, source: provider docs}
		clk := newTestClock()
		// The commit lands while the runtime waits out the settle time.
		clk.onSleep = func(int) { p.finishSlowCommit(); <-p.committed }
		c := newTestClient(t, p.URL, clk)
		r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if err != nil {
			t.Fatal(err)
		}
		if n, w := p.effectCount(), len(p.seenWrites()); n != 1 || w != 1 || r.Source != runtime.AdoptedLookup || r.ID != "th_1" {
			t.Errorf("%d effects from %d writes, receipt %+v; want th_1 adopted, one write", n, w, r)
		}
		if got := clk.slept(); len(got) != 1 || got[0] != 2*time.Second {
			t.Errorf("slept %v, want the settle time once", got)
		}
		if p.lookupCount() != 2 {
			t.Errorf("%d lookups, want 2: at once, and after the settle time", p.lookupCount())
		}
	})
	t.Run("declared_by_the_operation", func(t *testing.T) {
		// consistency: {strong: 3s, source: provider docs}: the operation's own settle time wins over the client's.
		p := newProvider(t, step{loss: slowCommit})
		op := thingOp(withLookup)
		op.LookupLag = 3 * time.Second
		clk := newTestClock()
		clk.onSleep = func(int) { p.finishSlowCommit(); <-p.committed }
		c := newTestClient(t, p.URL, clk, runtime.WithLookupSettle(0))
		r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if err != nil {
			t.Fatal(err)
		}
		if n := p.effectCount(); n != 1 || r.Source != runtime.AdoptedLookup {
			t.Errorf("%d effects, receipt %+v; want the commit in flight adopted", n, r)
		}
		if got := clk.slept(); len(got) != 1 || got[0] != 3*time.Second {
			t.Errorf("slept %v, want the operation's settle time once", got)
		}
	})
	t.Run("the_client_lengthens_it", func(t *testing.T) {
		// WithLookupSettle is a floor: an operator who trusts the provider's word less waits longer.
		p := newProvider(t, step{loss: slowCommit})
		op := thingOp(withLookup)
		op.LookupLag = time.Second
		clk := newTestClock()
		clk.onSleep = func(int) { p.finishSlowCommit(); <-p.committed }
		c := newTestClient(t, p.URL, clk, runtime.WithLookupSettle(4*time.Second))
		if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil {
			t.Fatal(err)
		}
		if got := clk.slept(); len(got) != 1 || got[0] != 4*time.Second {
			t.Errorf("slept %v, want the client's longer settle time once", got)
		}
	})
	t.Run("undeclared", func(t *testing.T) {
		// An Operation that declares no settle time (generated code always declares one)
		// waits DefaultSettle: the first "not found" is never trusted.
		p := newProvider(t, step{loss: slowCommit})
		op := thingOp(withLookup)
		clk := newTestClock()
		clk.onSleep = func(int) { p.finishSlowCommit(); <-p.committed }
		c := newTestClient(t, p.URL, clk)
		if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil {
			t.Fatal(err)
		}
		if n, got := p.effectCount(), clk.slept(); n != 1 || len(got) != 1 || got[0] != DefaultSettle {
			t.Errorf("%d effects, slept %v; want one effect after DefaultSettle", n, got)
		}
	})
}

// TestEventualLag: "not found" from an eventual lookup with a lag
// authorises another attempt only once the lag has passed since the last
// attempt ended; the runtime waits for it and asks again, or, when it cannot
// wait that long, ends uncertain.
func TestEventualLag(t *testing.T) {
	t.Run("found_after_lag", func(t *testing.T) {
		p := newProvider(t, step{loss: slowCommit})
		op := lagOp(30 * time.Second)
		clk := newTestClock()
		clk.onSleep = func(int) { p.finishSlowCommit(); <-p.committed } // indexed within the lag
		c := newTestClient(t, p.URL, clk)
		call := thingCall(c, op, "x")
		call.Lookup = lookupThings(c, false)
		r, err := Write(context.Background(), c, op, thingKey{"1"}, call)
		if err != nil {
			t.Fatal(err)
		}
		if n, w := p.effectCount(), len(p.seenWrites()); n != 1 || w != 1 || r.Source != runtime.AdoptedLookup {
			t.Errorf("%d effects from %d writes, receipt %+v; want adopted, one write", n, w, r)
		}
		if got := clk.slept(); len(got) != 1 || got[0] != 30*time.Second {
			t.Errorf("slept %v, want the lag once", got)
		}
	})
	t.Run("not_found_after_lag_resends", func(t *testing.T) {
		p := newProvider(t, step{loss: lostRequest})
		op := lagOp(30 * time.Second)
		clk := newTestClock()
		c := newTestClient(t, p.URL, clk)
		call := thingCall(c, op, "x")
		call.Lookup = lookupThings(c, false)
		r, err := Write(context.Background(), c, op, thingKey{"1"}, call)
		if err != nil {
			t.Fatal(err)
		}
		if n, w := p.effectCount(), len(p.seenWrites()); n != 1 || w != 2 || r.Source != runtime.Created {
			t.Errorf("%d effects from %d writes, source %d; want 1 created by the second write", n, w, r.Source)
		}
		if got := clk.slept(); len(got) < 1 || got[0] != 30*time.Second {
			t.Errorf("slept %v, want the lag before the second attempt", got)
		}
	})
	t.Run("deadline_before_lag", func(t *testing.T) {
		p := newProvider(t, step{loss: lostRequest})
		op := lagOp(time.Hour)
		c := newTestClient(t, p.URL, newTestClock())
		call := thingCall(c, op, "x")
		call.Lookup = lookupThings(c, false)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := Write(ctx, c, op, thingKey{"1"}, call)
		if why := uncertainReason(t, err); !strings.Contains(why, "the context ends before the lookup's lag (1h0m0s)") {
			t.Errorf("reason %q", why)
		}
		if w := len(p.seenWrites()); w != 1 {
			t.Errorf("%d writes, want 1: not re-sent before the lag", w)
		}
	})
	t.Run("lag_past_budget", func(t *testing.T) {
		p := newProvider(t, step{loss: lostRequest})
		op := lagOp(time.Hour) // 4 attempts of 30s: a budget of 2m
		c := newTestClient(t, p.URL, newTestClock())
		call := thingCall(c, op, "x")
		call.Lookup = lookupThings(c, false)
		_, err := Write(context.Background(), c, op, thingKey{"1"}, call)
		if why := uncertainReason(t, err); !strings.Contains(why, "would pass the attempt budget's time") {
			t.Errorf("reason %q", why)
		}
		if w := len(p.seenWrites()); w != 1 {
			t.Errorf("%d writes, want 1", w)
		}
	})
	t.Run("plain_eventual_never_resends", func(t *testing.T) {
		p := newProvider(t, step{loss: lostRequest})
		op := lagOp(0)
		clk := newTestClock()
		c := newTestClient(t, p.URL, clk)
		call := thingCall(c, op, "x")
		call.Lookup = lookupThings(c, false)
		_, err := Write(context.Background(), c, op, thingKey{"1"}, call)
		if why := uncertainReason(t, err); why != "not found by an eventually consistent lookup" {
			t.Errorf("reason %q", why)
		}
		if w, s := len(p.seenWrites()), clk.slept(); w != 1 || len(s) != 0 {
			t.Errorf("%d writes, slept %v: want 1 write and no wait", w, s)
		}
	})
}

// TestLagCountsFromTheRead: "not found" counts only from a read the
// provider made once the lag had passed since the last attempt could run
// (promise 49), not from an answer that came back after it. The first
// lookup reads the provider's list before the write's slow commit lands,
// and its answer arrives a minute later, past the lag: trusting it would
// send the write again, a second effect. The runtime asks again, finds the
// write and adopts it.
func TestLagCountsFromTheRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   *Operation
	}{
		{"eventual", lagOp(30 * time.Second)},
		{"strong", func() *Operation { op := thingOp(withLookup); op.LookupLag = 30 * time.Second; return op }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, step{loss: slowCommit})
			clk := newTestClock()
			c := newTestClient(t, p.URL, clk)
			call := thingCall(c, tc.op, "x")
			look, asks := lookupThings(c, false), 0
			call.Lookup = func(ctx context.Context, ref string) ([]runtime.Found[*thing], error) {
				asks++
				fs, err := look(ctx, ref)
				if asks == 1 {
					// The list was read before the commit; the answer comes back late.
					p.finishSlowCommit()
					<-p.committed
					clk.advance(time.Minute)
				}
				return fs, err
			}
			r, err := Write(context.Background(), c, tc.op, thingKey{"1"}, call)
			if err != nil {
				t.Fatal(err)
			}
			if n, w := p.effectCount(), len(p.seenWrites()); n != 1 || w != 1 || r.Source != runtime.AdoptedLookup {
				t.Errorf("%d effects from %d writes, receipt %+v; want the slow commit adopted, one write", n, w, r)
			}
			if asks != 2 || len(clk.slept()) != 0 {
				t.Errorf("%d lookups, slept %v; want a second lookup at once (the lag had passed), no wait", asks, clk.slept())
			}
		})
	}
}

// TestPromise50_CutShortAskedAgain: a write with a lookup whose call ends
// after its request was sent, before the lookup could settle it (its
// context ends: here while the provider holds the request), is left
// uncertain for Resume to ask again once the settle time or lag has passed,
// as a strong lookup's rows were before Resume asked on a schedule; then
// Resume's lookup proves the request never committed and sends it again:
// one effect, no person asked. Without a lookup the row is left to a person.
func TestPromise50_CutShortAskedAgain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lookup runtime.Consistency
		lag    time.Duration
	}{
		{"strong", runtime.Strong, 2 * time.Second},
		{"eventual", runtime.Eventual, 30 * time.Second},
		{"none", runtime.NoLookup, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, step{loss: hang}, step{})
			s := withLookup
			if tc.lookup == runtime.NoLookup {
				s = ledgerOnly
			}
			op := thingOp(s)
			op.Dedupe, op.Lookup, op.LookupLag = true, tc.lookup, tc.lag
			clk := newTestClock()
			l := newMemLedgerOn(clk)
			c := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
			call := thingCall(c, op, "x")
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-p.read; cancel() }()
			_, err := Write(ctx, c, op, thingKey{"1"}, call)
			if why := uncertainReason(t, err); why != "context ended after send" {
				t.Fatalf("reason %q", why)
			}
			row := l.row(1)
			if row.State != runtime.StateUncertain || row.redrive != (tc.lookup != runtime.NoLookup) {
				t.Fatalf("row %s, redrive %v; want uncertain, asked again by Resume only with a lookup", row.State, row.redrive)
			}
			if !row.redrive {
				return
			}
			if wait := row.redriveAt.Sub(clk.Now()); wait <= 0 || wait > tc.lag {
				t.Errorf("asked again %v from now, want once the lag or settle time (%v) has passed", wait, tc.lag)
			}
			clk.advance(tc.lag)
			rep, err := Resume(context.Background(), c, op, call)
			if err != nil || rep.Taken != 1 || rep.Reasked != 1 || rep.Active != 1 {
				t.Fatalf("report %+v, err %v; want the row asked again and settled active", rep, err)
			}
			if n, w := p.effectCount(), len(p.seenWrites()); n != 1 || w != 2 {
				t.Errorf("%d effects from %d writes; want one, from the second", n, w)
			}
		})
	}
}
