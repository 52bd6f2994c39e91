package writegenimpl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/writegen/writegen/runtime"
)

// fixedRT answers every request with body, without a network: it isolates
// the executor's own cost from loopback's.
type fixedRT struct{ body []byte }

func (f fixedRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: 201, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(f.body)), Request: r}, nil
}

// BenchmarkWriteOverhead measures what the executor adds to a plain
// net/http write, without the network (see BenchmarkWriteLoopback).
func BenchmarkWriteOverhead(b *testing.B) {
	resp := []byte(`{"id":"th_1","title":"printer jammed","reference":"things/create-thing:thing:42"}`)
	hc := &http.Client{Transport: fixedRT{resp}}
	ctx := context.Background()
	op := thingOp(withKey)
	b.Run("executor", func(b *testing.B) {
		c, _ := NewClient(testScope, "http://127.0.0.1:1", []runtime.Option{runtime.WithHTTPClient(hc)})
		call := thingCall(c, op, "printer jammed")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Write(ctx, c, op, thingKey{"42"}, call); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, _ := json.Marshal(thing{Title: "printer jammed", Reference: "things/create-thing:thing:42"})
			req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1:1/things", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "things/create-thing:thing:42")
			res, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var out thing
			json.Unmarshal(data, &out)
		}
	})
}

// BenchmarkReadOverhead measures what the executor adds to a plain
// net/http read, without the network (see BenchmarkReadLoopback).
func BenchmarkReadOverhead(b *testing.B) {
	resp := []byte(`{"data":[{"id":"th_1","title":"printer jammed","reference":"things/create-thing:thing:42"}]}`)
	hc := &http.Client{Transport: fixedRT{resp}}
	ctx := context.Background()
	b.Run("executor", func(b *testing.B) {
		c, _ := NewClient(testScope, "http://127.0.0.1:1", []runtime.Option{runtime.WithHTTPClient(hc)})
		b.ReportAllocs()
		for b.Loop() {
			r := NewRequest("GET", "/things")
			r.AddQuery("reference", "things/create-thing:thing:42")
			if err := Read(ctx, c, listOp, r, new(thingList)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			q := url.Values{"reference": {"things/create-thing:thing:42"}}
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:1/things?"+q.Encode(), nil)
			res, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var out thingList
			json.Unmarshal(data, &out)
		}
	})
}
