package writegenimpl

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/writegen/writegen/runtime"
)

// countAttempts returns hooks that count a client's attempts, and the
// connections they used.
func countAttempts() (runtime.Hooks, *atomic.Int64, *atomic.Int64) {
	var n, conns atomic.Int64
	return runtime.Hooks{AttemptDone: func(_ context.Context, c *runtime.CallInfo, a runtime.Attempt) {
		if c.Write {
			n.Add(1)
			conns.Add(int64(a.Conns))
		}
	}}, &n, &conns
}

// plainPost is what an HTTP client without writegen sends: a POST whose
// body net/http can rewind (http.NewRequest sets GetBody for a
// *bytes.Reader), with an idempotency header.
func plainPost(t *testing.T, hc *http.Client, url string) error {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/things", bytes.NewReader([]byte(`{"title":"x"}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Idempotency-Key", "k1")
	res, err := hc.Do(req)
	if err == nil {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	return err
}

// TestPromise26_TransportNeverResends: nothing below the runtime sends a
// write again. Over real HTTP/1.1, h2c and TLS HTTP/2 servers that commit a
// request and then break the connection, refuse the stream or go away, the
// provider sees exactly one request per runtime attempt, where net/http on
// its own sends the same request again.
func TestPromise26_TransportNeverResends(t *testing.T) {
	t.Run("HTTP/1.1 reused connection", func(t *testing.T) {
		for _, s := range []strategy{withKey, unprotected} {
			p := newProvider(t, step{loss: closeResponse})
			hooks, attempts, conns := countAttempts()
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithHooks(hooks))
			// Warm a keep-alive connection, so that the write reuses it.
			if err := Read(context.Background(), c, listOp, NewRequest("GET", "/things"), new(thingList)); err != nil {
				t.Fatal(err)
			}
			op := thingOp(s)
			_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if w := int64(len(p.seenWrites())); w != attempts.Load() || conns.Load() != attempts.Load() {
				t.Errorf("%s: the provider read %d writes in %d attempts on %d connections; want one each", s, w, attempts.Load(), conns.Load())
			}
			if s == unprotected {
				uncertainReason(t, err)
			} else if err != nil || p.effectCount() != 1 {
				t.Errorf("%s: err %v, %d effects; want the key sent again by the runtime, one effect", s, err, p.effectCount())
			}
		}
		// The control: net/http alone re-sends the write on a new connection.
		p := newProvider(t, step{loss: closeResponse})
		hc := p.Client()
		res, err := hc.Get(p.URL + "/things")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body) // the connection goes back to the pool
		res.Body.Close()
		if err := plainPost(t, hc, p.URL); err != nil || len(p.seenWrites()) != 2 {
			t.Errorf("control: err %v, %d writes read; want net/http to send it twice", err, len(p.seenWrites()))
		}
	})
	for _, proto := range []string{"h2c", "TLS"} {
		for _, how := range []string{"rst", "goaway"} {
			t.Run(proto+" "+how, func(t *testing.T) {
				var srv *h2server
				var hc *http.Client
				if proto == "h2c" {
					srv, hc = newH2Server(t, how, 1, nil), h2cClient(t)
				} else {
					cfg, tlsClient := tlsH2(t)
					srv, hc = newH2Server(t, how, 1, cfg), tlsClient
				}
				for _, s := range []strategy{unprotected, withKey} {
					srv.mu.Lock()
					srv.effects = 0
					srv.mu.Unlock()
					hooks, attempts, _ := countAttempts()
					c := newTestClient(t, srv.URL, newTestClock(), runtime.WithHooks(hooks), runtime.WithHTTPClient(hc))
					op := thingOp(s)
					r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
					if e := int64(srv.effectCount()); e != attempts.Load() {
						t.Errorf("%s: %d effects in %d attempts; want one per attempt", s, e, attempts.Load())
					}
					switch s {
					case unprotected:
						if reason := uncertainReason(t, err); reason != "ambiguous without key or lookup" || attempts.Load() != 1 {
							t.Errorf("%s: reason %q after %d attempts", s, reason, attempts.Load())
						}
					case withKey:
						// This provider ignores the key: the runtime's own retry is
						// the second effect, and the only re-send.
						if err != nil || r.ID != "th_2" || attempts.Load() != 2 {
							t.Errorf("%s: receipt %+v, err %v after %d attempts", s, r, err, attempts.Load())
						}
					}
				}
				// The control: net/http alone sends the request again after the
				// refusal, and the provider commits it twice.
				srv.mu.Lock()
				srv.effects = 0
				srv.mu.Unlock()
				if err := plainPost(t, hc, srv.URL); err != nil || srv.effectCount() != 2 {
					t.Errorf("control: err %v, %d effects; want net/http to send it twice", err, srv.effectCount())
				}
			})
		}
	}
	t.Run("h2c net/http server", func(t *testing.T) {
		// A real net/http server speaking h2c: a write goes through as
		// HTTP/2, and one whose handler commits and then resets the stream
		// is ambiguous, sent once.
		var proto atomic.Value
		p := newProviderWith(t, func(p *provider) {
			var protos http.Protocols
			protos.SetHTTP1(true)
			protos.SetUnencryptedHTTP2(true)
			p.Config.Protocols = &protos
			inner := p.Config.Handler
			p.Config.Handler = abortSecond(p, inner, &proto)
		})
		hooks, attempts, _ := countAttempts()
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithHooks(hooks), runtime.WithHTTPClient(h2cClient(t)))
		op := thingOp(unprotected)
		if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil {
			t.Fatal(err)
		}
		if proto.Load() != "HTTP/2.0" {
			t.Fatalf("the server spoke %v, want HTTP/2.0", proto.Load())
		}
		_, err := Write(context.Background(), c, op, thingKey{"2"}, thingCall(c, op, "x"))
		uncertainReason(t, err)
		if w, e := len(p.seenWrites()), p.effectCount(); w != 2 || e != 2 || attempts.Load() != 2 {
			t.Errorf("%d writes, %d effects, %d attempts; want one write per attempt", w, e, attempts.Load())
		}
	})
}

// resender is a RoundTripper that sends a request a second time, on a new
// connection, when the first try fails: the kind of replay net/http makes
// below its caller.
type resender struct{ next http.RoundTripper }

func (rs resender) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	try := r.Clone(r.Context())
	try.Body = io.NopCloser(bytes.NewReader(body))
	res, err := rs.next.RoundTrip(try)
	if err == nil {
		return res, nil
	}
	again := r.Clone(r.Context())
	again.Body = io.NopCloser(bytes.NewReader(body))
	return rs.next.RoundTrip(again)
}

// TestPromise26_SentTwiceIsAmbiguous: an attempt whose request was written
// more than once below the runtime is ambiguous whatever status the last
// copy got: a 429 to the second copy says nothing of the first, which
// committed.
func TestPromise26_SentTwiceIsAmbiguous(t *testing.T) {
	p := newProvider(t, step{loss: closeResponse}, step{status: 429})
	op := thingOp(withKey)
	op.Dedupe, op.Attempts = true, 1
	op.KeyHeader = "" // the key travels in the body; the provider reads every copy
	l := newMemLedger()
	var a attempts
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l), runtime.WithHooks(a.hooks()),
		runtime.WithHTTPClient(&http.Client{Transport: resender{tr}}))
	_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
	only(t, err, runtime.ErrUncertain)
	if errors.Is(err, runtime.ErrNotApplied) || l.row(1).State != runtime.StateUncertain {
		t.Errorf("err %v, row %s; want uncertain: the first copy committed", err, l.row(1).State)
	}
	if got := a.classes(); got != "ambiguous 429" || a.list[0].Conns != 2 {
		t.Errorf("attempts %s on %d connections, want one ambiguous attempt on 2", got, a.list[0].Conns)
	}
	if p.effectCount() != 1 || len(p.seenWrites()) != 2 {
		t.Errorf("%d effects, %d writes", p.effectCount(), len(p.seenWrites()))
	}
}

// rewindable records whether each write request could be rewound.
type rewindable struct {
	next http.RoundTripper
	seen []string
}

func (rw *rewindable) RoundTrip(r *http.Request) (*http.Response, error) {
	switch {
	case r.GetBody != nil:
		rw.seen = append(rw.seen, "GetBody")
	case r.Body == nil:
		rw.seen = append(rw.seen, "nil body")
	case r.Body == http.NoBody:
		rw.seen = append(rw.seen, "NoBody")
	default:
		rw.seen = append(rw.seen, "ok")
	}
	return rw.next.RoundTrip(r)
}

// TestPromise26_WriteBodiesCannotBeRewound: every write request, an empty
// one too, has a body net/http cannot rewind, so that it cannot send it
// again; reads keep theirs.
func TestPromise26_WriteBodiesCannotBeRewound(t *testing.T) {
	p := newProvider(t)
	var got atomic.Value
	p.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b))
		w.Write([]byte(`{"id":"th_1"}`))
	})
	rw := &rewindable{next: http.DefaultTransport}
	c := newTestClient(t, p.URL, newTestClock(), runtime.WithHTTPClient(&http.Client{Transport: rw}))
	op := thingOp(withKey)
	if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil {
		t.Fatal(err)
	}
	empty := Call[*thing]{Build: func(string, string) (*Request, error) { return NewRequest("POST", "/things"), nil }, ID: thingID}
	if _, err := Write(context.Background(), c, op, thingKey{"2"}, empty); err != nil || got.Load() != "" {
		t.Fatalf("empty write: err %v, server read %q", err, got.Load())
	}
	del := &Operation{ID: "deleteThing", Method: "DELETE", Effect: runtime.EffectIdempotent, Attempts: 1}
	if err := Do(context.Background(), c, del, NewRequest("DELETE", "/things/1"), new(struct{})); err != nil {
		t.Fatal(err)
	}
	if want := "[ok ok ok]"; strings.Join(rw.seen, " ") != "ok ok ok" {
		t.Errorf("write requests: %v, want %s", rw.seen, want)
	}
}

// connOnly is a RoundTripper that obtains a connection and fails before
// writing anything, as a transport does when the connection it took from
// the pool turns out dead.
type connOnly struct{}

func (co connOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	if tr := httptrace.ContextClientTrace(r.Context()); tr != nil && tr.GotConn != nil {
		tr.GotConn(httptrace.GotConnInfo{Reused: true})
	}
	return nil, errors.New("connection reset before the request was written")
}

// TestPromise26_ConnectionWithoutWriteIsNotSent: an attempt that obtained
// a connection but never wrote the request's headers sent nothing.
func TestPromise26_ConnectionWithoutWriteIsNotSent(t *testing.T) {
	op := thingOp(unprotected)
	var a attempts
	c := newTestClient(t, "http://127.0.0.1:1", newTestClock(), runtime.WithHooks(a.hooks()),
		runtime.WithHTTPClient(&http.Client{Transport: connOnly{}}))
	_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
	only(t, err, runtime.ErrNotApplied)
	if got := a.classes(); got != "not_sent, not_sent, not_sent, not_sent" || a.list[0].Conns != 1 {
		t.Errorf("attempts %s (%d connections), want not_sent on a connection", got, a.list[0].Conns)
	}
}

// abortSecond wraps the handler of p: it records the protocol of each
// request in proto, and the second write commits and then aborts its
// stream (RST_STREAM on HTTP/2, where a handler cannot hijack).
func abortSecond(p *provider, inner http.Handler, proto *atomic.Value) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(r.Proto)
		if r.Method == "POST" && len(p.seenWrites()) == 1 {
			io.ReadAll(r.Body)
			p.commit("", []byte(`{"title":"y","reference":"r"}`))
			p.mu.Lock()
			p.writes = append(p.writes, seen{method: r.Method})
			p.mu.Unlock()
			panic(http.ErrAbortHandler)
		}
		inner.ServeHTTP(w, r)
	})
}
