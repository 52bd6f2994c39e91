package writegenimpl

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestRetryOn: the statuses each retry kind allows.
func TestRetryOn(t *testing.T) {
	if !retryOn(runtime.RetryReads, 502) || !retryOn(runtime.Retry5xx, 599) || retryOn(runtime.Retry503, 502) ||
		retryOn(runtime.RetryReads, 409) || !retryOn(runtime.Retry429, 429) || retryOn(runtime.Retry429, 503) {
		t.Error("status sets")
	}
}

// TestReadRetries: reads are retried on ambiguous, 408, 425, 429 and 5xx,
// not on other statuses.
func TestReadRetries(t *testing.T) {
	var n atomic.Int64
	statuses := []int{503, 429, 0, 408, 200}
	p := newProvider(t)
	p.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := statuses[n.Add(1)-1]
		w.Header().Set("Connection", "close") // else net/http itself retries a GET on a reused connection
		if s == 0 {
			drop(w, true)
			return
		}
		w.WriteHeader(s)
		w.Write([]byte(`{"data":[{"id":"th_9"}]}`))
	})
	var a attempts
	op := *listOp
	op.Attempts = 5
	c := newTestClient(t, p.URL, newTestClock(), runtime.WithHooks(a.hooks()))
	var l thingList
	if err := Read(context.Background(), c, &op, NewRequest("GET", "/things"), &l); err != nil || len(l.Data) != 1 || l.Data[0].ID != "th_9" {
		t.Fatalf("list %+v, err %v", l, err)
	}
	if got, want := a.classes(), "status 503, status 429, ambiguous, status 408, ok 200"; got != want {
		t.Errorf("attempts: %s, want %s", got, want)
	}
	statuses, n = []int{404}, atomic.Int64{}
	if err := Read(context.Background(), c, &op, NewRequest("GET", "/things"), new(thingList)); !errors.Is(err, runtime.ErrRejected) || n.Load() != 1 {
		t.Errorf("404: err %v after %d requests", err, n.Load())
	}
}

// TestReadBytes: a response that is not JSON is returned as it came.
func TestReadBytes(t *testing.T) {
	const pdf = "%PDF-1.7 not json"
	p := newProvider(t)
	p.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte(pdf))
	})
	c := newTestClient(t, p.URL, newTestClock())
	var b []byte
	if err := Read(context.Background(), c, listOp, NewRequest("GET", "/things"), &b); err != nil || string(b) != pdf {
		t.Fatalf("body %q, err %v", b, err)
	}
}

// TestNarrowing: client options narrow retries, never widen them.
func TestNarrowing(t *testing.T) {
	for name, opt := range map[string]runtime.Option{
		"mask":         runtime.WithRetryMask(runtime.Retry429),
		"max attempts": runtime.WithMaxAttempts(1),
		"budget":       runtime.WithRetryBudget(0, 0),
	} {
		t.Run(name, func(t *testing.T) {
			p := newProvider(t, step{status: 503})
			op := thingOp(withKey)
			c, err := NewClient(testScope, p.URL, []runtime.Option{runtime.WithClock(newTestClock()), opt})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err == nil || len(p.seenWrites()) != 1 {
				t.Errorf("err %v after %d writes, want one write", err, len(p.seenWrites()))
			}
		})
	}
	t.Run("budget refills with calls", func(t *testing.T) {
		p := newProvider(t, step{status: 503}, step{}, step{status: 503})
		op := thingOp(withKey)
		c, _ := NewClient(testScope, p.URL, []runtime.Option{runtime.WithClock(newTestClock()), runtime.WithRetryBudget(1, 0)})
		for i, key := range []string{"1", "2"} {
			if _, err := Write(context.Background(), c, op, thingKey{key}, thingCall(c, op, "x")); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		}
	})
}

// TestDo: an idempotent write without a key is re-sent after an ambiguous
// attempt; any other write without a key is not.
func TestDo(t *testing.T) {
	for _, e := range []runtime.Effect{runtime.EffectIdempotent, runtime.EffectAmbiguous} {
		p := newProvider(t, step{loss: lostResponse})
		op := &Operation{ID: "putThing", Method: "POST", Effect: e, Retry: runtime.RetryNotSent | runtime.RetryAmbiguous, Attempts: 3}
		c := newTestClient(t, p.URL, newTestClock())
		r := NewRequest("POST", "/things")
		r.JSON(thing{Title: "x"})
		var got thing
		err := Do(context.Background(), c, op, r, &got)
		switch {
		case e == runtime.EffectIdempotent && (err != nil || got.ID != "th_2" || len(p.seenWrites()) != 2):
			t.Errorf("idempotent: %+v, %v after %d writes", got, err, len(p.seenWrites()))
		case e == runtime.EffectAmbiguous && (!errors.Is(err, runtime.ErrUncertain) || len(p.seenWrites()) != 1):
			t.Errorf("ambiguous: %v after %d writes", err, len(p.seenWrites()))
		}
	}
}

// TestParameters: the encoders the generated code passes its parameters' texts to, in each
// OpenAPI style, and a union's JSON read as a parameter.
func TestParameters(t *testing.T) {
	if got := PathSegment("a/b c"); got != "a%2Fb%20c" {
		t.Errorf("PathSegment = %q", got)
	}
	if got := PathList(Texts([]int64{1, 2}, func(v int64) string { return strconv.FormatInt(v, 10) })); got != "1,2" {
		t.Errorf("PathList = %q", got)
	}
	r := NewRequest("GET", "/x")
	r.AddQueryList("tag", []string{"a", "b"}, "")
	r.AddQueryList("ids", []string{"1", "2"}, ",")
	r.AddQueryList("sp", []string{"a", "b"}, " ")
	r.AddQueryList("pp", []string{"a", "b"}, "|")
	r.AddQueryObject("filter", []string{"status", "open"}, "deepObject", true)
	r.AddQueryObject("m", Pairs(map[string]int{"z": 1, "a": 2}, strconv.Itoa), "form", true)
	r.AddQueryObject("o", []string{"k", "v", "l", "w"}, "form", false)
	r.AddQuery("since", TimeText(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)))
	r.AddQuery("ratio", FloatText(0.25, 64))
	r.AddQueryJSON("created", json.RawMessage(`{"lt":5,"gt":1}`), "deepObject", true)
	r.AddQueryJSON("expand", json.RawMessage(`["x","y"]`), "form", true)
	r.AddQueryJSON("amount", json.RawMessage(`12.50`), "form", true)
	r.AddQueryJSON("none", json.RawMessage(`null`), "form", true)
	want := url.Values{"tag": {"a", "b"}, "ids": {"1,2"}, "sp": {"a b"}, "pp": {"a|b"}, "filter[status]": {"open"},
		"a": {"2"}, "z": {"1"}, "o": {"k,v,l,w"}, "since": {"2030-01-02T03:04:05Z"}, "ratio": {"0.25"},
		"created[gt]": {"1"}, "created[lt]": {"5"}, "expand": {"x", "y"}, "amount": {"12.50"}}
	if r.Query.Encode() != want.Encode() {
		t.Errorf("query %s, want %s", r.Query.Encode(), want.Encode())
	}
	r.SetHeader("X-Count", "3")
	r.AddCookie("a", "1")
	r.AddCookie("b", "true")
	if r.Header.Get("X-Count") != "3" || r.Header.Get("Cookie") != "a=1; b=true" {
		t.Errorf("header %v", r.Header)
	}
	if l, object, ok := JSONParam(json.RawMessage(`{"b":{"c":1},"a":true}`)); !ok || !object || !slices.Equal(l, []string{"a", "true", "b", `{"c":1}`}) {
		t.Errorf("JSONParam object = %q, %v, %v", l, object, ok)
	}
	if _, _, ok := JSONParam(json.RawMessage(`{`)); ok {
		t.Error("JSONParam of broken JSON: ok")
	}
}

// TestRequestURL: paths are joined to the base path, escapes kept.
func TestRequestURL(t *testing.T) {
	var got atomic.Value
	p := newProvider(t)
	p.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Method + " " + r.URL.RequestURI())
		w.Write([]byte("{}"))
	})
	c := newTestClient(t, p.URL+"/v1/", newTestClock())
	r := NewRequest("GET", "/things/"+PathSegment("a/b c")+"/x")
	r.AddQuery("q", "ä&")
	if err := Read(context.Background(), c, listOp, r, new(struct{})); err != nil {
		t.Fatal(err)
	}
	if want := "GET /v1/things/a%2Fb%20c/x?q=%C3%A4%26"; got.Load() != want {
		t.Errorf("server saw %q, want %q", got.Load(), want)
	}
}

// TestDirectInto: a read or an unkeyed write given nil ignores its 2xx
// body, whatever it is; one given anything but a non-nil pointer is refused
// before a request is sent.
func TestDirectInto(t *testing.T) {
	var n atomic.Int64
	p := newProvider(t)
	p.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write([]byte("not JSON"))
	})
	c := newTestClient(t, p.URL, newTestClock())
	del := &Operation{ID: "deleteThing", Method: "DELETE", Path: "/things/{id}", Effect: runtime.EffectIdempotent}
	if err := Read(context.Background(), c, listOp, NewRequest("GET", "/things"), nil); err != nil {
		t.Fatalf("read into nil: %v", err)
	}
	if err := Do(context.Background(), c, del, NewRequest("DELETE", "/things/1"), nil); err != nil {
		t.Fatalf("do into nil: %v", err)
	}
	if n.Load() != 2 {
		t.Fatalf("%d requests, want 2", n.Load())
	}
	for _, into := range []any{thingList{}, (*thingList)(nil), "x"} {
		err := Read(context.Background(), c, listOp, NewRequest("GET", "/things"), into)
		if err == nil || !strings.Contains(err.Error(), "want a non-nil pointer") {
			t.Errorf("read into %#v: %v", into, err)
		}
		if err := Do(context.Background(), c, del, NewRequest("DELETE", "/things/1"), into); err == nil {
			t.Errorf("do into %#v: no error", into)
		}
	}
	if n.Load() != 2 {
		t.Errorf("%d requests after the refused calls, want 2", n.Load())
	}
}

func TestNewClient(t *testing.T) {
	for _, u := range []string{"ftp://x", "http://", "http://x/?q=1", "::"} {
		if _, err := NewClient(testScope, u, nil); err == nil {
			t.Errorf("NewClient(%q) accepted", u)
		}
	}
	if _, err := NewClient(testScope, "http://127.0.0.1/v1/", []runtime.Option{runtime.WithBackoff(time.Millisecond, time.Second)}); err != nil {
		t.Error(err)
	}
	// A lease must outlast an attempt and its renewal.
	for _, tc := range []struct {
		lease, attempt time.Duration
		ok             bool
	}{
		{time.Minute, 30 * time.Second, true},
		{time.Minute, 50 * time.Second, true},
		{time.Minute, 51 * time.Second, false},
		{time.Minute, 0, false},
		{0, time.Second, false},
	} {
		_, err := NewClient(testScope, "http://127.0.0.1", []runtime.Option{runtime.WithLedger(newMemLedger()),
			runtime.WithLease(tc.lease), runtime.WithAttemptTimeout(tc.attempt)})
		if (err == nil) != tc.ok {
			t.Errorf("lease %v, attempt timeout %v: err %v", tc.lease, tc.attempt, err)
		}
	}
	// An instance name is for a ledger that numbers its runs.
	for _, tc := range []struct {
		name string
		opts []runtime.Option
		want string
	}{
		{"no ledger", []runtime.Option{runtime.WithInstance("pod-7")}, "has no ledger"},
		{"a ledger without incarnations", []runtime.Option{runtime.WithInstance("pod-7"), runtime.WithLedger(newMemLedger())}, "runtime.Incarnations"},
		{"spaces", []runtime.Option{runtime.WithInstance(" pod-7"), runtime.WithLedger(newMemLedger())}, "spaces"},
	} {
		if _, err := NewClient(testScope, "http://127.0.0.1", tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one that says %q", tc.name, err, tc.want)
		}
	}
}
