package writegenimpl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// The loopback benchmarks compare a call through the executor with the
// same call made with plain net/http, against one loopback server. Each
// iteration makes both, in turns (executor first, then plain first), and
// times each apart: a machine whose load changes during the run (two cores
// shared with other work) slows both alike, where two sub-benchmarks run
// one after the other would each see another load. They report the median
// time of each (executor-ns/call, plain-ns/call), which a burst of load
// moves less than a mean, and their ratio; ns/op is the two together.

// paired runs executor and plain once per iteration, in turns, and reports
// their median times and ratio.
func paired(b *testing.B, executor, plain func() error) {
	for range 100 { // warm the connection pool and the caches
		if err := executor(); err != nil {
			b.Fatal(err)
		}
		if err := plain(); err != nil {
			b.Fatal(err)
		}
	}
	var te, tp []time.Duration
	first, second := &te, &tp
	f, s := executor, plain
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := s(); err != nil {
			b.Fatal(err)
		}
		*first = append(*first, t1.Sub(t0))
		*second = append(*second, time.Since(t1))
		first, second, f, s = second, first, s, f
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	e, p := median(te), median(tp)
	b.ReportMetric(e, "executor-ns/call")
	b.ReportMetric(p, "plain-ns/call")
	b.ReportMetric(e/p, "ratio")
}

// callerContexts runs bench under the two contexts a caller gives: one no
// one can cancel (context.Background) and a cancelable one, as a server's
// request context is. The executor's per-attempt deadline (promise 27)
// gives each attempt a cancelable context, for which net/http's transport
// does more (it registers its own context under it and waits on its Done):
// under Background only the executor pays that, under a cancelable caller
// plain net/http pays it too.
func callerContexts(b *testing.B, bench func(b *testing.B, ctx context.Context)) {
	b.Run("ctx=background", func(b *testing.B) { bench(b, context.Background()) })
	b.Run("ctx=cancelable", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		bench(b, ctx)
	})
}

// BenchmarkWriteLoopback compares one keyed write through the executor
// with the same write made with plain net/http, without a timeout
// (vs=plain) and with the executor's attempt timeout (vs=plain-timeout).
func BenchmarkWriteLoopback(b *testing.B) { callerContexts(b, writeLoopback) }

func writeLoopback(b *testing.B, ctx context.Context) {
	resp := []byte(`{"id":"th_1","title":"printer jammed","reference":"things/create-thing:thing:42"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write(resp)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	op := thingOp(withKey)
	c, err := NewClient(testScope, srv.URL, []runtime.Option{runtime.WithHTTPClient(hc)})
	if err != nil {
		b.Fatal(err)
	}
	call := thingCall(c, op, "printer jammed")
	executor := func() error {
		r, err := Write(ctx, c, op, thingKey{"42"}, call)
		if err == nil && r.ID != "th_1" {
			b.Fatal(r)
		}
		return err
	}
	// plain is the same write with net/http; with a timeout, it gives the
	// request the deadline the executor gives each attempt (promise 27),
	// as careful hand-written code does.
	plain := func(timeout time.Duration) error {
		ctx := ctx
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		body, err := json.Marshal(thing{Title: "printer jammed", Reference: "things/create-thing:thing:42"})
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, "POST", srv.URL+"/things", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "things/create-thing:thing:42")
		res, err := hc.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusCreated {
			b.Fatal(res.StatusCode, err)
		}
		var out thing
		if err := json.Unmarshal(data, &out); err != nil || out.ID != "th_1" {
			b.Fatal(out, err)
		}
		return nil
	}
	b.Run("vs=plain", func(b *testing.B) { paired(b, executor, func() error { return plain(0) }) })
	b.Run("vs=plain-timeout", func(b *testing.B) {
		paired(b, executor, func() error { return plain(c.s.AttemptTimeout) })
	})
}

// BenchmarkReadLoopback compares one read through the executor with the
// same read made with plain net/http.
func BenchmarkReadLoopback(b *testing.B) { callerContexts(b, readLoopback) }

func readLoopback(b *testing.B, ctx context.Context) {
	resp := []byte(`{"data":[{"id":"th_1","title":"printer jammed","reference":"things/create-thing:thing:42"}]}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	c, err := NewClient(testScope, srv.URL, []runtime.Option{runtime.WithHTTPClient(hc)})
	if err != nil {
		b.Fatal(err)
	}
	executor := func() error {
		r := NewRequest("GET", "/things")
		r.AddQuery("reference", "things/create-thing:thing:42")
		var l thingList
		err := Read(ctx, c, listOp, r, &l)
		if err == nil && len(l.Data) != 1 {
			b.Fatal(l)
		}
		return err
	}
	plain := func() error {
		q := url.Values{"reference": {"things/create-thing:thing:42"}}
		req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/things?"+q.Encode(), nil)
		if err != nil {
			return err
		}
		res, err := hc.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatal(res.StatusCode, err)
		}
		var out thingList
		if err := json.Unmarshal(data, &out); err != nil || len(out.Data) != 1 {
			b.Fatal(out, err)
		}
		return nil
	}
	paired(b, executor, plain)
}
