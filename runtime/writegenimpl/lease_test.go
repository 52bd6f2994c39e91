package writegenimpl

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// written is what a write returned.
type written struct {
	r   *runtime.Receipt[thing]
	err error
}

// writeAsync runs a write of thing:1 titled x on its own goroutine.
func writeAsync(ctx context.Context, c *Client, op *Operation) <-chan written {
	ch := make(chan written, 1)
	go func() {
		r, err := Write(ctx, c, op, thingKey{"1"}, thingCall(c, op, "x"))
		ch <- written{r, err}
	}()
	return ch
}

// ledgerFailures records what Hooks.LedgerFailed is told.
type ledgerFailures struct {
	mu   sync.Mutex
	errs []error
}

func (f *ledgerFailures) hooks() runtime.Hooks {
	return runtime.Hooks{LedgerFailed: func(_ context.Context, _ *runtime.CallInfo, err error) {
		f.mu.Lock()
		f.errs = append(f.errs, err)
		f.mu.Unlock()
	}}
}

func (f *ledgerFailures) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.errs)
}

// TestPromise24_LiveCallKeepsItsClaim: a caller whose provider call is slow
// renews its lease, so another replica's Resume never takes its row over,
// however long the call lasts: an unkeyed write with a strong lookup (the
// other replica's lookup would find nothing yet and send it again) ends
// with one effect.
func TestPromise24_LiveCallKeepsItsClaim(t *testing.T) {
	for _, s := range []strategy{withLookup, withKey} {
		t.Run(s.String(), func(t *testing.T) {
			p := newProvider(t, step{loss: held})
			op := thingOp(s)
			op.Dedupe = true
			clk := newTestClock()
			l := newMemLedgerOn(clk)
			a := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
			beats := manualBeats(a)
			replica := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
			done := writeAsync(context.Background(), a, op)
			<-p.read      // the write is at the provider, not committed yet
			for range 4 { // two minutes: twice the lease
				clk.advance(30 * time.Second)
				beats.beat()
				rep, err := Resume(context.Background(), replica, op, thingCall(replica, op, "x"))
				if err != nil || rep.Taken != 0 {
					t.Fatalf("the replica's resume took %d rows of a live call (err %v)", rep.Taken, err)
				}
			}
			p.finishSlowCommit()
			w := <-done
			if w.err != nil || w.r.Source != runtime.Created || p.effectCount() != 1 || len(p.seenWrites()) != 1 || p.lookupCount() != 0 {
				t.Errorf("receipt %+v, err %v, %d effects, %d writes, %d lookups; want one write created",
					w.r, w.err, p.effectCount(), len(p.seenWrites()), p.lookupCount())
			}
			if n := beats.running.Load(); n != 0 {
				t.Errorf("%d heartbeats still running after the call", n)
			}
		})
	}
}

// TestPromise24_PausedCallIsSuperseded: a caller paused past its lease is
// taken over by Resume with a new fence; its late settle fails and it
// returns the other caller's outcome, or ErrUncertain, never a plain error.
func TestPromise24_PausedCallIsSuperseded(t *testing.T) {
	cases := []struct {
		name   string
		s      strategy
		first  loss // what the paused caller's attempt meets when it resumes
		source runtime.Source
		reason string // the paused caller's uncertain reason, "" for a receipt
		failed bool   // Hooks.LedgerFailed is told
	}{
		// The replica re-sends with the key and records th_1; the paused
		// caller's answer is the provider's replay of th_1, or lost.
		{"key, answered", withKey, held, runtime.AdoptedLedger, "", false},
		{"key, answer lost", withKey, heldLost, runtime.AdoptedLedger, "", false},
		// Without key or lookup the replica can only record it uncertain.
		{"none, answer lost", ledgerOnly, heldLost, 0, "ambiguous without key or lookup", false},
		// The paused caller holds a receipt the row does not: it keeps it.
		{"none, answered", ledgerOnly, held, runtime.Created, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, step{loss: tc.first})
			op := thingOp(tc.s)
			op.Dedupe = true
			clk := newTestClock()
			l := newMemLedgerOn(clk)
			var fails ledgerFailures
			var n notes
			a := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithHooks(fails.hooks()), runtime.WithNotifier(&n))
			beats := manualBeats(a) // never beats: the caller is paused
			replica := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithNotifier(&n))
			done := writeAsync(context.Background(), a, op)
			<-p.read
			clk.advance(61 * time.Second)
			rep, err := Resume(context.Background(), replica, op, thingCall(replica, op, "x"))
			if err != nil || rep.Taken != 1 {
				t.Fatalf("resume took %d rows (err %v), want the expired claim", rep.Taken, err)
			}
			p.finishSlowCommit()
			w := <-done
			if tc.reason != "" {
				if r := uncertainReason(t, w.err); r != tc.reason {
					t.Errorf("reason %q, want %q", r, tc.reason)
				}
				only(t, w.err, runtime.ErrUncertain)
			} else if w.err != nil || w.r.ID != "th_1" || w.r.Source != tc.source {
				t.Errorf("receipt %+v, err %v; want th_1 from %v", w.r, w.err, tc.source)
			}
			if p.effectCount() != 1 {
				t.Errorf("%d effects, want 1", p.effectCount())
			}
			if (fails.count() > 0) != tc.failed {
				t.Errorf("LedgerFailed told %d times, want %v", fails.count(), tc.failed)
			}
			if len(n.list) > 1 {
				t.Errorf("%d notes, want at most one (by whoever produced the outcome)", len(n.list))
			}
			if row := l.row(1); row.Fence != 2 || row.State == runtime.StateClaimed {
				t.Errorf("row %+v, want it settled under the replica's fence 2", row.Record)
			}
			if n := beats.running.Load(); n != 0 {
				t.Errorf("%d heartbeats still running after the call", n)
			}
		})
	}
	t.Run("the other caller is still running", func(t *testing.T) {
		mine, theirs := make(chan struct{}), make(chan struct{})
		p := newProvider(t, step{loss: heldLost, release: mine}, step{loss: held, release: theirs})
		op := thingOp(withKey)
		op.Dedupe = true
		clk := newTestClock()
		l := newMemLedgerOn(clk)
		a := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
		manualBeats(a)
		replica := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
		ctx, cancel := context.WithCancel(context.Background())
		done := writeAsync(ctx, a, op)
		<-p.read
		clk.advance(61 * time.Second)
		resumed := make(chan runtime.ResumeReport, 1)
		go func() {
			rep, _ := Resume(context.Background(), replica, op, thingCall(replica, op, "x"))
			resumed <- rep
		}()
		<-p.read // the replica's write is at the provider too
		close(mine)
		cancel() // the paused caller stops waiting for the replica
		w := <-done
		if r := uncertainReason(t, w.err); r != reasonSuperseded && r != "context ended after send" {
			t.Errorf("reason %q, want %q", r, reasonSuperseded)
		}
		only(t, w.err, runtime.ErrUncertain)
		close(theirs)
		if rep := <-resumed; rep.Active != 1 || p.effectCount() != 1 {
			t.Errorf("report %+v, %d effects; want the replica's write active, one effect", rep, p.effectCount())
		}
	})
}

// TestPromise24_LeaseNotRenewed: a caller that cannot renew its lease
// before an attempt the lease would not cover stops, uncertain once
// something may have committed.
func TestPromise24_LeaseNotRenewed(t *testing.T) {
	p := newProvider(t, step{loss: lostResponse})
	op := thingOp(withKey)
	op.Dedupe = true
	l := newMemLedger()
	l.renew = func(int64) error { return errors.New("database down") }
	clk := newTestClock()
	clk.onSleep = func(int) { clk.advance(30 * time.Second) } // the backoff, as it were, takes half the lease
	c := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
	beats := manualBeats(c)
	_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
	if r := uncertainReason(t, err); r != reasonLease {
		t.Errorf("reason %q, want %q", r, reasonLease)
	}
	if w := len(p.seenWrites()); w != 1 {
		t.Errorf("%d writes, want 1: no attempt outside the lease", w)
	}
	if row := l.row(1); row.State != runtime.StateUncertain || !row.redrive {
		t.Errorf("row %s (redrive %v), want uncertain and re-drivable: the key is in its window", row.State, row.redrive)
	}
	if n := beats.running.Load(); n != 0 {
		t.Errorf("%d heartbeats still running after the call", n)
	}
}

// TestPromise24_HeartbeatStops: the heartbeat of a claim ends on every
// path out of a write.
func TestPromise24_HeartbeatStops(t *testing.T) {
	for name, steps := range map[string][]step{
		"receipt":   nil,
		"rejected":  {{status: 400}},
		"uncertain": {{loss: lostResponse}},
		"not sent":  {{status: 429}},
	} {
		t.Run(name, func(t *testing.T) {
			p := newProvider(t, steps...)
			op := thingOp(ledgerOnly)
			op.Attempts = 1
			l := newMemLedger()
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
			beats := manualBeats(c)
			Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if n := beats.running.Load(); n != 0 {
				t.Errorf("%d heartbeats still running after the call", n)
			}
			if row := l.row(1); row.State == runtime.StateClaimed {
				t.Errorf("row left claimed")
			}
		})
	}
}
