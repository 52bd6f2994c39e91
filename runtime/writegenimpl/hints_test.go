package writegenimpl

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestPromise13_RetryHints: Retry-After (seconds or a date) sets the least
// wait; Stripe-Should-Retry: false stops a retry the set allows; no hint
// retries what the set does not allow.
func TestPromise13_RetryHints(t *testing.T) {
	clk := newTestClock()
	date := clk.Now().Add(50 * time.Second).Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"date", map[string]string{"Retry-After": date}, 50 * time.Second},
	} {
		t.Run("Retry-After "+tc.name, func(t *testing.T) {
			p := newProvider(t, step{status: 503, header: tc.header})
			op := thingOp(withKey)
			clk := newTestClock()
			c := newTestClient(t, p.URL, clk, runtime.WithBackoff(time.Millisecond, time.Second))
			if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil {
				t.Fatal(err)
			}
			if s := clk.slept(); len(s) != 1 || s[0] < tc.want {
				t.Errorf("slept %v, want one wait of at least %v", s, tc.want)
			}
		})
	}
	stops := []struct {
		name   string
		status int
		header map[string]string
		retry  runtime.Retry
	}{
		{"Should-Retry false", 503, map[string]string{"Stripe-Should-Retry": "false"}, runtime.Retry503},
		{"Should-Retry true outside the set", 500, map[string]string{"Stripe-Should-Retry": "true", "Retry-After": "1"}, runtime.Retry503},
		{"Retry-After on a 400", 400, map[string]string{"Retry-After": "1"}, runtime.RetryReads},
		{"429 outside the set", 429, map[string]string{"Retry-After": "1"}, runtime.Retry503},
	}
	for _, tc := range stops {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, step{status: tc.status, header: tc.header})
			op := thingOp(withKey)
			op.Retry = tc.retry
			c := newTestClient(t, p.URL, newTestClock())
			_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if n := len(p.seenWrites()); n != 1 || err == nil {
				t.Errorf("%d writes, err %v; want 1 write and an error", n, err)
			}
			var se *runtime.StatusError
			if !errors.As(err, &se) || se.Status != tc.status {
				t.Errorf("err = %v, want it to carry the %d", err, tc.status)
			}
		})
	}
	t.Run("Should-Retry false on a read", func(t *testing.T) {
		p := newProvider(t)
		var hits atomic.Int64
		p.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hits.Add(1)
			w.Header().Set("Stripe-Should-Retry", "false")
			w.WriteHeader(503)
		})
		c := newTestClient(t, p.URL, newTestClock())
		if err := Read(context.Background(), c, listOp, NewRequest("GET", "/things"), new(thingList)); err == nil || hits.Load() != 1 {
			t.Errorf("%d requests, err %v; want 1 and an error", hits.Load(), err)
		}
	})
}

// TestPromise14_ContextEnds: once the context ends no attempt follows; a
// write already sent ends uncertain, one never sent does not.
func TestPromise14_ContextEnds(t *testing.T) {
	t.Run("during the attempt", func(t *testing.T) {
		p := newProvider(t, step{loss: hang})
		op := thingOp(withKey) // would be retried with its key
		var a attempts
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithHooks(a.hooks()))
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-p.read; cancel() }()
		_, err := Write(ctx, c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if r := uncertainReason(t, err); r != "context ended after send" || !errors.Is(err, context.Canceled) {
			t.Errorf("reason %q, err %v", r, err)
		}
		if got := a.classes(); got != "ambiguous" {
			t.Errorf("attempts: %s, want one ambiguous", got)
		}
	})
	t.Run("during the backoff", func(t *testing.T) {
		for _, first := range []step{{loss: lostResponse}, {status: 503}} {
			p := newProvider(t, first)
			op := thingOp(withKey)
			clk := newTestClock()
			ctx, cancel := context.WithCancel(context.Background())
			clk.onSleep = func(int) { cancel() }
			c := newTestClient(t, p.URL, clk)
			_, err := Write(ctx, c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if r := uncertainReason(t, err); r != "context ended after send" {
				t.Errorf("reason %q", r)
			}
			if n := len(p.seenWrites()); n != 1 {
				t.Errorf("%d writes, want 1", n)
			}
		}
	})
	t.Run("before any send", func(t *testing.T) {
		op := thingOp(withKey)
		clk := newTestClock()
		ctx, cancel := context.WithCancel(context.Background())
		clk.onSleep = func(int) { cancel() }
		var a attempts
		c := newTestClient(t, "http://"+refusedAddr(t), clk, runtime.WithHooks(a.hooks()))
		_, err := Write(ctx, c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if !errors.Is(err, runtime.ErrNotApplied) || errors.Is(err, runtime.ErrUncertain) || !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want ErrNotApplied and context.Canceled", err)
		}
		if got := a.classes(); got != "not_sent" {
			t.Errorf("attempts: %s, want one not_sent", got)
		}
	})
	t.Run("deadline passed", func(t *testing.T) {
		p := newProvider(t)
		op := thingOp(withKey)
		c := newTestClient(t, p.URL, newTestClock())
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
		defer cancel()
		_, err := Write(ctx, c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, runtime.ErrNotApplied) || p.conns.Load() != 0 {
			t.Errorf("err = %v after %d connections, want DeadlineExceeded and none", err, p.conns.Load())
		}
	})
}
