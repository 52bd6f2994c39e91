package writegenimpl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/writegen/writegen/runtime"
)

// BenchmarkWrite compares one keyed write through the executor with the
// same write made with plain net/http, on loopback in the same run.
func BenchmarkWrite(b *testing.B) {
	resp := []byte(`{"id":"th_1","title":"printer jammed","reference":"things/create-thing:thing:42"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write(resp)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	ctx := context.Background()
	op := thingOp(withKey)

	b.Run("executor", func(b *testing.B) {
		c, err := NewClient(testScope, srv.URL, []runtime.Option{runtime.WithHTTPClient(hc)})
		if err != nil {
			b.Fatal(err)
		}
		call := thingCall(c, op, "printer jammed")
		b.ReportAllocs()
		for b.Loop() {
			r, err := Write(ctx, c, op, thingKey{"42"}, call)
			if err != nil || r.ID != "th_1" {
				b.Fatal(r, err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, err := json.Marshal(thing{Title: "printer jammed", Reference: "things/create-thing:thing:42"})
			if err != nil {
				b.Fatal(err)
			}
			req, err := http.NewRequestWithContext(ctx, "POST", srv.URL+"/things", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "things/create-thing:thing:42")
			res, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
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
		}
	})
}

// BenchmarkRead compares one read through the executor with the same read
// made with plain net/http, on loopback in the same run.
func BenchmarkRead(b *testing.B) {
	resp := []byte(`{"data":[{"id":"th_1","title":"printer jammed","reference":"things/create-thing:thing:42"}]}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	ctx := context.Background()

	b.Run("executor", func(b *testing.B) {
		c, err := NewClient(testScope, srv.URL, []runtime.Option{runtime.WithHTTPClient(hc)})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			r := NewRequest("GET", "/things")
			r.AddQuery("reference", "things/create-thing:thing:42", "form", true)
			l, err := Read(ctx, c, listOp, r, new(thingList))
			if err != nil || len(l.Data) != 1 {
				b.Fatal(l, err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			q := url.Values{"reference": {"things/create-thing:thing:42"}}
			req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/things?"+q.Encode(), nil)
			if err != nil {
				b.Fatal(err)
			}
			res, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
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
		}
	})
}
