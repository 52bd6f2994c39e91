package writegenimpl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// deadlines is a RoundTripper that records the deadline of every request's
// context before passing it on.
type deadlines struct {
	next http.RoundTripper
	seen chan time.Duration // the time left, -1 when there is no deadline
}

func (d *deadlines) RoundTrip(r *http.Request) (*http.Response, error) {
	left := time.Duration(-1)
	if dl, ok := r.Context().Deadline(); ok {
		left = time.Until(dl)
	}
	d.seen <- left
	return d.next.RoundTrip(r)
}

// TestPromise27_AttemptDeadline: every attempt has a deadline by default;
// an attempt that outlives it is ambiguous and follows the rules.
func TestPromise27_AttemptDeadline(t *testing.T) {
	t.Run("by default", func(t *testing.T) {
		p := newProvider(t)
		d := &deadlines{next: http.DefaultTransport, seen: make(chan time.Duration, 4)}
		op := thingOp(withKey)
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithHTTPClient(&http.Client{Transport: d}))
		if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil {
			t.Fatal(err)
		}
		// Without a deadline of the caller's, the attempt has the default.
		if left := <-d.seen; left <= 0 || left > defaultAttemptTimeout {
			t.Errorf("the attempt's context has %v left, want a deadline of at most %v", left, defaultAttemptTimeout)
		}
	})
	// Over HTTP/1.1 and HTTP/2 (h2c): both transports see the attempt's
	// context end and say why.
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("an attempt that hangs, HTTP/2 %v", h2), func(t *testing.T) {
			for _, s := range []strategy{unprotected, withKey} {
				p := newProviderWith(t, func(p *provider) {
					if h2 {
						var protos http.Protocols
						protos.SetUnencryptedHTTP2(true)
						p.Config.Protocols = &protos
					}
				}, step{loss: hang})
				hc := http.DefaultClient
				if h2 {
					hc = h2cClient(t)
				}
				op := thingOp(s)
				c := newTestClient(t, p.URL, newTestClock(), runtime.WithAttemptTimeout(50*time.Millisecond), runtime.WithHTTPClient(hc))
				r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
				switch s {
				case unprotected:
					if reason := uncertainReason(t, err); reason != "ambiguous without key or lookup" || !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("reason %q, err %v; want ambiguous after the attempt's deadline", reason, err)
					}
				case withKey:
					if err != nil || r.ID != "th_1" || len(p.seenWrites()) != 2 {
						t.Errorf("receipt %+v, err %v after %d writes; want the key sent again after the deadline", r, err, len(p.seenWrites()))
					}
				}
			}
		})
	}
}

// TestAttemptDeadlines: the client's one timer cuts every attempt at its own
// deadline, never before it, nor one that ended or whose caller canceled it
// first, and stops once no attempt runs. A stalled machine can only make an
// attempt outlive its deadline before the test stops it; the checks hold
// then too.
func TestAttemptDeadlines(t *testing.T) {
	const timeout = 100 * time.Millisecond
	d := &attemptDeadlines{timeout: timeout}
	type run struct {
		a       *attemptCtx
		ctx     context.Context
		started time.Time
		end     bool               // ended by the caller, one step after its start
		cancel  context.CancelFunc // of the caller's context, canceled one step after its start
		early   bool               // stopped before its deadline cut it
	}
	stop := func(i int, r *run) {
		if r.early = !r.a.expired(); !r.early {
			return // the machine stalled past the deadline: it was cut, rightly
		}
		if r.end {
			d.end(r.a)
		} else {
			r.cancel()
		}
		<-r.ctx.Done()
		if err := r.ctx.Err(); !errors.Is(err, context.Canceled) || r.a.expired() {
			t.Errorf("attempt %d stopped before its deadline: Err %v, expired %v; want Canceled", i, err, r.a.expired())
		}
	}
	var runs []*run
	for i := range 12 {
		r := &run{a: new(attemptCtx), started: time.Now(), end: i%3 == 1}
		parent := context.Background()
		if i%3 == 2 {
			parent, r.cancel = context.WithCancel(parent)
		}
		r.ctx = d.start(parent, r.a)
		if dl, ok := r.ctx.Deadline(); !ok || dl.Before(r.started.Add(timeout)) || dl.After(time.Now().Add(timeout)) {
			t.Fatalf("attempt %d: deadline %v, %v; want %v after its start", i, dl, ok, timeout)
		}
		runs = append(runs, r)
		time.Sleep(timeout / 10) // attempts overlap, each with its own deadline
		if r.end || r.cancel != nil {
			stop(i, r)
		}
	}
	for i, r := range runs {
		<-r.ctx.Done()
		if r.early {
			continue
		}
		if late := time.Since(r.started); late < timeout {
			t.Errorf("attempt %d cut after %v, before its deadline (%v)", i, late, timeout)
		}
		if err := r.ctx.Err(); err != context.DeadlineExceeded || !r.a.expired() {
			t.Errorf("attempt %d: Err %v, expired %v; want DeadlineExceeded", i, err, r.a.expired())
		}
	}
	for i, r := range runs {
		d.end(r.a) // what send does, cut or not; harmless twice
		if r.early && r.a.expired() {
			t.Errorf("attempt %d was stopped before its deadline and cut after", i)
		}
	}
	// With no attempt left the timer fires once more, at most, and stops.
	for wait := time.Now(); ; time.Sleep(timeout / 10) {
		d.mu.Lock()
		head, tail, armed := d.head, d.tail, d.armed
		d.mu.Unlock()
		if head != nil || tail != nil {
			t.Fatalf("head %p, tail %p after every attempt ended; want an empty list", head, tail)
		}
		if !armed {
			break
		}
		if time.Since(wait) > 100*timeout {
			t.Fatalf("the timer is still set %v after every attempt ended", time.Since(wait))
		}
	}
}

// TestPromise27_LongRetryAfter: a Retry-After longer than the client's
// longest wait ends the call by the rules instead of sleeping (holding a
// claim): not applied when nothing may have committed, uncertain otherwise.
func TestPromise27_LongRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   error
		state  runtime.State
	}{
		{429, runtime.ErrNotApplied, runtime.StateNotApplied},
		{503, runtime.ErrUncertain, runtime.StateUncertain},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			p := newProvider(t, step{status: tc.status, header: map[string]string{"Retry-After": "7200"}})
			op := thingOp(withKey)
			op.Dedupe = true
			clk := newTestClock()
			l := newMemLedger()
			c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithMaxRetryAfter(time.Minute))
			_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			only(t, err, tc.want)
			if err == nil || !strings.Contains(err.Error(), "Retry-After 2h0m0s is longer than the longest wait (1m0s)") {
				t.Errorf("err = %v, want it to say why it did not wait", err)
			}
			if s := clk.slept(); len(s) != 0 || len(p.seenWrites()) != 1 {
				t.Errorf("slept %v, %d writes; want no wait and one write", s, len(p.seenWrites()))
			}
			if row := l.row(1); row.State != tc.state {
				t.Errorf("row %s, want %s", row.State, tc.state)
			}
		})
	}
	t.Run("within the longest wait", func(t *testing.T) {
		p := newProvider(t, step{status: 429, header: map[string]string{"Retry-After": "30"}})
		op := thingOp(withKey)
		clk := newTestClock()
		c := newTestClient(t, p.URL, clk, runtime.WithMaxRetryAfter(time.Minute), runtime.WithBackoff(time.Millisecond, time.Millisecond))
		if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil {
			t.Fatal(err)
		}
		if s := clk.slept(); len(s) != 1 || s[0] != 30*time.Second {
			t.Errorf("slept %v, want one wait of 30s", s)
		}
	})
}
