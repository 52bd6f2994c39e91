package writegenimpl

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/writegen/writegen/runtime"
)

// TestPromise05_NoConnectionIsNotSent: a refused connection, a failed name
// lookup and a context that ends before a connection are not_sent, retried
// as such, and reported with ErrNotApplied, never as uncertain.
func TestPromise05_NoConnectionIsNotSent(t *testing.T) {
	op := thingOp(unprotected) // not_sent is the only safe retry without key or lookup
	t.Run("refused", func(t *testing.T) {
		var a attempts
		c := newTestClient(t, "http://"+refusedAddr(t), newTestClock(), runtime.WithHooks(a.hooks()))
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if !errors.Is(err, runtime.ErrNotApplied) || errors.Is(err, runtime.ErrUncertain) {
			t.Errorf("err = %v, want ErrNotApplied", err)
		}
		if got, want := a.classes(), "not_sent, not_sent, not_sent, not_sent"; got != want {
			t.Errorf("attempts: %s, want %s", got, want)
		}
	})
	t.Run("dns", func(t *testing.T) {
		// Tests reach only loopback, so the resolver's answer is given by the dialer.
		tr := &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "provider.invalid", IsNotFound: true}}
		}}
		var a attempts
		c := newTestClient(t, "http://provider.invalid", newTestClock(), runtime.WithHTTPClient(&http.Client{Transport: tr}), runtime.WithHooks(a.hooks()))
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		var dns *net.DNSError
		if !errors.Is(err, runtime.ErrNotApplied) || !errors.As(err, &dns) {
			t.Errorf("err = %v, want ErrNotApplied wrapping the DNS error", err)
		}
		if got := a.classes(); !strings.HasPrefix(got, "not_sent") || strings.Contains(got, "ambiguous") {
			t.Errorf("attempts: %s, want not_sent only", got)
		}
	})
	t.Run("context ended before connecting", func(t *testing.T) {
		p := newProvider(t)
		c := newTestClient(t, p.URL, newTestClock())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Write(ctx, c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if !errors.Is(err, runtime.ErrNotApplied) || !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want ErrNotApplied and context.Canceled", err)
		}
		if n := p.conns.Load(); n != 0 {
			t.Errorf("%d connections, want 0", n)
		}
	})
}

// TestPromise06_SentThenSilenceIsAmbiguous: a server that reads the request
// and then hangs, resets or closes gives an ambiguous attempt; without key
// or lookup the write ends uncertain and is not sent again.
func TestPromise06_SentThenSilenceIsAmbiguous(t *testing.T) {
	for name, l := range map[string]loss{"hang": hang, "reset": lostRequest, "reset after commit": lostResponse, "close after commit": closeResponse} {
		t.Run(name, func(t *testing.T) {
			p := newProvider(t, step{loss: l})
			op := thingOp(unprotected)
			var a attempts
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithHooks(a.hooks()))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if l == hang {
				go func() { <-p.read; cancel() }()
			}
			_, err := Write(ctx, c, op, thingKey{"1"}, thingCall(c, op, "x"))
			reason := uncertainReason(t, err)
			if got := a.classes(); got != "ambiguous" {
				t.Errorf("attempts: %s, want ambiguous", got)
			}
			want := "ambiguous without key or lookup"
			if l == hang {
				want = "context ended after send"
			}
			if reason != want {
				t.Errorf("reason %q, want %q", reason, want)
			}
			if n := len(p.seenWrites()); n != 1 {
				t.Errorf("provider read %d writes, want 1", n)
			}
		})
	}
}

// TestPromise07_NoHiddenReplayNoRedirect: an unkeyed write reaches the
// provider once even when the provider commits and then drops a reused
// connection (net/http replays requests that carry Idempotency-Key there);
// a write never follows a 307, a read does.
func TestPromise07_NoHiddenReplayNoRedirect(t *testing.T) {
	// reused warms a connection with a read, then writes on it.
	reused := func(t *testing.T, op *Operation) (*provider, error) {
		p := newProvider(t, step{loss: closeResponse})
		c := newTestClient(t, p.URL, newTestClock())
		if err := Read(context.Background(), c, listOp, NewRequest("GET", "/things"), new(thingList)); err != nil {
			t.Fatal(err)
		}
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		return p, err
	}
	t.Run("unkeyed", func(t *testing.T) {
		p, err := reused(t, thingOp(unprotected))
		uncertainReason(t, err)
		if w, e := len(p.seenWrites()), p.effectCount(); w != 1 || e != 1 {
			t.Errorf("provider read %d writes and made %d effects, want 1 and 1", w, e)
		}
	})
	t.Run("keyed, the transport does not replay", func(t *testing.T) {
		// The same provider behaviour with a key header and no retries in the
		// runtime: net/http would send the write again by itself if the
		// request could be rewound (see TestPromise26_TransportNeverResends).
		op := thingOp(withKey)
		op.Retry, op.Attempts = 0, 1
		p, err := reused(t, op)
		uncertainReason(t, err)
		if w, e := len(p.seenWrites()), p.effectCount(); w != 1 || e != 1 {
			t.Errorf("provider read %d writes and made %d effects, want 1 and 1", w, e)
		}
	})
	t.Run("redirect", func(t *testing.T) {
		p := newProvider(t)
		c := newTestClient(t, p.URL, newTestClock())
		op := thingOp(withKey)
		op.Path = "/redirect"
		call := thingCall(c, op, "x")
		call.Build = func(pk, ref string) (*Request, error) {
			r := NewRequest("POST", "/redirect")
			return r, r.JSON(thing{Title: "x", Reference: ref})
		}
		_, err := Write(context.Background(), c, op, thingKey{"1"}, call)
		var se *runtime.StatusError
		if !errors.As(err, &se) || se.Status != http.StatusTemporaryRedirect {
			t.Errorf("err = %v, want a 307 *runtime.StatusError", err)
		}
		if n := len(p.seenWrites()); n != 0 {
			t.Errorf("the redirect was followed: %d writes reached /things", n)
		}
		r := NewRequest("GET", "/redirect")
		r.AddQuery("reference", "none")
		if err := Read(context.Background(), c, listOp, r, new(thingList)); err != nil || p.lookupCount() != 1 {
			t.Errorf("read through a redirect: err %v, %d lookups; want it followed", err, p.lookupCount())
		}
	})
}
