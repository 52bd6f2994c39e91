package writegenimpl

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestPromise08_RequestLost: in world 1 the write is retried and the
// provider ends with exactly one effect, whatever protects it.
func TestPromise08_RequestLost(t *testing.T) {
	for _, s := range []strategy{withKey, withLookup, ledgerOnly, unprotected} {
		t.Run("not_sent/"+s.String(), func(t *testing.T) {
			p := newProvider(t)
			op := thingOp(s)
			var a attempts
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithHTTPClient(refuseFirst(t, 2)), runtime.WithLedger(newMemLedger()), runtime.WithHooks(a.hooks()))
			r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := a.classes(), "not_sent, not_sent, ok 201"; got != want {
				t.Errorf("attempts: %s, want %s", got, want)
			}
			if n := p.effectCount(); n != 1 || r.ID != "th_1" || r.Source != runtime.Created || r.Attempts != 3 {
				t.Errorf("%d effects, receipt %+v; want 1 effect, th_1 created in 3 attempts", n, r)
			}
		})
	}
	// A request lost after the connection is ambiguous to the client: it is
	// sent again with its key, or after the lookup finds nothing twice: at
	// once, and once the settle time has passed since the attempt ended.
	for _, s := range []strategy{withKey, withLookup} {
		t.Run("lost_after_connect/"+s.String(), func(t *testing.T) {
			p := newProvider(t, step{loss: lostRequest})
			op := thingOp(s)
			c := newTestClient(t, p.URL, newTestClock())
			r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if err != nil {
				t.Fatal(err)
			}
			if n, w := p.effectCount(), len(p.seenWrites()); n != 1 || w != 2 || r.Source != runtime.Created {
				t.Errorf("%d effects from %d writes, source %d; want 1 from 2, created", n, w, r.Source)
			}
			if want := map[strategy]int{withKey: 0, withLookup: 2}[s]; p.lookupCount() != want {
				t.Errorf("%d lookups, want %d", p.lookupCount(), want)
			}
		})
	}
}

// TestPromise09_ResponseLost: in world 2 a key converges on the original
// effect, a strong lookup adopts it, and without either the call ends
// uncertain; never a second effect.
func TestPromise09_ResponseLost(t *testing.T) {
	cases := []struct {
		s       strategy
		writes  int
		source  runtime.Source
		uncertn bool
	}{
		{withKey, 2, runtime.Created, false},
		{withLookup, 1, runtime.AdoptedLookup, false},
		{ledgerOnly, 1, 0, true},
		{unprotected, 1, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.s.String(), func(t *testing.T) {
			p := newProvider(t, step{loss: lostResponse})
			op := thingOp(tc.s)
			var n notes
			l := newMemLedger()
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l), runtime.WithNotifier(&n))
			r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if e, w := p.effectCount(), len(p.seenWrites()); e != 1 || w != tc.writes {
				t.Errorf("%d effects from %d writes, want 1 from %d", e, w, tc.writes)
			}
			if tc.uncertn {
				uncertainReason(t, err)
				if len(n.list) != 1 || n.list[0].Owner != "support-ops" || n.list[0].BusinessKey != "thing:1" {
					t.Errorf("notified %+v, want one note for support-ops about thing:1", n.list)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.ID != "th_1" || r.Source != tc.source || r.Body.Title != "x" || r.Source.Adopted() != (tc.source != runtime.Created) {
				t.Errorf("receipt %+v, want th_1 from source %d", r, tc.source)
			}
		})
	}
}

// TestPromise10_SlowCommit: in world 3 a retry with the same key meets the
// first attempt still running, is answered 409, backs off and converges on
// one effect; an eventually consistent lookup's "not found" never causes a
// second send.
func TestPromise10_SlowCommit(t *testing.T) {
	t.Run("409", func(t *testing.T) {
		p := newProvider(t, step{loss: slowCommit})
		op := thingOp(withKey)
		clk := newTestClock()
		clk.onSleep = func(n int) {
			if n == 2 { // after the 409: let the first attempt finish
				p.finishSlowCommit()
				<-p.committed
			}
		}
		var a attempts
		c := newTestClient(t, p.URL, clk, runtime.WithHooks(a.hooks()))
		r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := a.classes(), "ambiguous, status 409, ok 201"; got != want {
			t.Errorf("attempts: %s, want %s", got, want)
		}
		// After the 409 the whole backoff (base·2), no jitter: the first
		// attempt is still running, and no one else competes for the key.
		if s := clk.slept(); len(s) != 2 || s[1] != 2*defaultBackoffBase {
			t.Errorf("slept %v, want the second wait of %v", s, 2*defaultBackoffBase)
		}
		if n := p.effectCount(); n != 1 || r.ID != "th_1" {
			t.Errorf("%d effects, receipt %q; want 1 and th_1", n, r.ID)
		}
	})
	t.Run("409 without retry", func(t *testing.T) {
		p := newProvider(t, step{loss: slowCommit})
		op := thingOp(withKey)
		op.Retry &^= runtime.Retry409
		c := newTestClient(t, p.URL, newTestClock())
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if r := uncertainReason(t, err); r != "still in progress (409) is not in the retry set" {
			t.Errorf("reason %q", r)
		}
		if n := len(p.seenWrites()); n != 2 {
			t.Errorf("%d writes, want 2", n)
		}
	})
	t.Run("eventual lookup", func(t *testing.T) {
		p := newProvider(t, step{loss: lostResponse})
		op := thingOp(unprotected)
		op.Lookup = runtime.Eventual
		c := newTestClient(t, p.URL, newTestClock())
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if r := uncertainReason(t, err); r != "not found by an eventually consistent lookup" {
			t.Errorf("reason %q", r)
		}
		if w, l := len(p.seenWrites()), p.lookupCount(); w != 1 || l != 1 {
			t.Errorf("%d writes, %d lookups; want 1 and 1", w, l)
		}
	})
}

// TestPromise11_KeyWindowExpired: a provider key older than its window is
// not relied on: the lookup decides, or the call ends uncertain.
func TestPromise11_KeyWindowExpired(t *testing.T) {
	for _, lookup := range []runtime.Consistency{runtime.NoLookup, runtime.Strong} {
		t.Run(fmt.Sprint("lookup ", lookup), func(t *testing.T) {
			p := newProvider(t, step{loss: lostResponse})
			op := thingOp(withKey)
			op.KeyWindow, op.Lookup = time.Hour, lookup
			clk := newTestClock()
			c := newTestClient(t, p.URL, clk, runtime.WithHooks(runtime.Hooks{AttemptStart: func(context.Context, *runtime.CallInfo, int) context.Context {
				clk.advance(2 * time.Hour) // the attempt outlives the window
				return nil
			}}))
			r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if n := len(p.seenWrites()); n != 1 {
				t.Errorf("%d writes, want 1: an expired key was sent again", n)
			}
			if lookup == runtime.NoLookup {
				if reason := uncertainReason(t, err); reason != "key window expired" {
					t.Errorf("reason %q", reason)
				}
				return
			}
			if err != nil || r.Source != runtime.AdoptedLookup || r.ID != "th_1" {
				t.Errorf("receipt %+v, err %v; want th_1 adopted from the lookup", r, err)
			}
		})
	}
	t.Run("Retry-After beyond the window", func(t *testing.T) {
		p := newProvider(t, step{status: 503, header: map[string]string{"Retry-After": "7200"}})
		op := thingOp(withKey)
		op.KeyWindow = time.Hour
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithMaxRetryAfter(3*time.Hour))
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if r := uncertainReason(t, err); r != "key window ends before the next attempt" || len(p.seenWrites()) != 1 {
			t.Errorf("reason %q after %d writes", r, len(p.seenWrites()))
		}
	})
	t.Run("inside the window", func(t *testing.T) {
		p := newProvider(t, step{loss: lostResponse})
		op := thingOp(withKey)
		op.KeyWindow = time.Hour
		c := newTestClient(t, p.URL, newTestClock())
		if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil || len(p.seenWrites()) != 2 {
			t.Errorf("err %v after %d writes, want the key re-sent once", err, len(p.seenWrites()))
		}
	})
}

// TestPromise12_KeyReuseFailsClosed: a provider's "key used with another
// payload" is never retried; it ends uncertain, or rejected with the
// provider's answer when it is a plain 422 to the first send.
func TestPromise12_KeyReuseFailsClosed(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		uncertain bool
	}{
		{"stripe idempotency_error", 400, `{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters they were first used with."}}`, true},
		{"422 naming the key", 422, `{"title":"Idempotency-Key is already used with another payload"}`, true},
		{"plain 422", 422, `{"title":"Unprocessable"}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t)
			p.reuseStatus, p.reuseBody = tc.status, tc.body
			op := thingOp(withKey)
			op.Retry = runtime.RetryReads | runtime.Retry409 // everything that could be retried
			c := newTestClient(t, p.URL, newTestClock())
			if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "first")); err != nil {
				t.Fatal(err)
			}
			// The same business key with another payload: a caller's bug.
			_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "second"))
			if tc.uncertain {
				if r := uncertainReason(t, err); r != "key reused with another payload" {
					t.Errorf("reason %q", r)
				}
			} else if se := (*runtime.StatusError)(nil); !errors.As(err, &se) || !errors.Is(err, runtime.ErrRejected) || string(se.Body) != tc.body {
				t.Errorf("err = %v, want the provider's rejection", err)
			}
			if w, e := len(p.seenWrites()), p.effectCount(); w != 2 || e != 1 {
				t.Errorf("%d writes, %d effects; want 2 and 1 (no retry)", w, e)
			}
		})
	}
	t.Run("422 after an ambiguous attempt", func(t *testing.T) {
		p := newProvider(t, step{loss: lostResponse})
		p.reuseStatus, p.reuseBody = 422, `{}`
		op := thingOp(withKey)
		c := newTestClient(t, p.URL, newTestClock())
		// The first attempt commits under the key with another body: the
		// provider refuses the retry, which must not be read as "nothing
		// happened".
		first := true
		call := thingCall(c, op, "x")
		c.s.Hooks.AttemptStart = func(_ context.Context, _ *runtime.CallInfo, n int) context.Context {
			if n == 2 && first {
				p.mu.Lock()
				for _, ks := range p.keys {
					ks.body = []byte("changed")
				}
				p.mu.Unlock()
			}
			return nil
		}
		_, err := Write(context.Background(), c, op, thingKey{"1"}, call)
		if r := uncertainReason(t, err); r != "key reused with another payload" {
			t.Errorf("reason %q", r)
		}
	})
}
