package writegenimpl

import (
	"context"
	"errors"
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
	t.Run("an attempt that hangs", func(t *testing.T) {
		for _, s := range []strategy{unprotected, withKey} {
			p := newProvider(t, step{loss: hang})
			op := thingOp(s)
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithAttemptTimeout(50*time.Millisecond))
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
