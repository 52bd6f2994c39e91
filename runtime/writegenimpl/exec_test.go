package writegenimpl

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestWriteIntoFills: the entry points of generated code fill the receipt
// or the acknowledgement they are given, and return it.
func TestWriteIntoFills(t *testing.T) {
	p := newProvider(t)
	c := newTestClient(t, p.URL, newTestClock())
	op := thingOp(withKey)
	into := new(runtime.Receipt[thing])
	r, err := WriteInto(context.Background(), c, op, thingKey{"1"}, into, thingCall(c, op, "x"))
	if err != nil || r != into || r.ID != "th_1" || r.Body == nil || r.Body.ID != "th_1" || r.Source != runtime.Created ||
		r.Attempts != 1 || r.ProviderKey != pkOf(op, "thing:1") || r.Status != 201 || len(r.Raw) == 0 {
		t.Fatalf("WriteInto: %+v, %v; want into filled with th_1", r, err)
	}
	ack := new(runtime.Ack[thing])
	a, err := SubmitInto(context.Background(), c, op, thingKey{"2"}, ack, thingCall(c, op, "y"))
	if err != nil || a != ack || a.Body == nil || a.Body.ID != "th_2" || a.Status != 201 || a.ProviderKey != pkOf(op, "thing:2") {
		t.Fatalf("SubmitInto: %+v, %v; want ack filled with th_2", a, err)
	}
}

// TestCallRequest: a Call may hold its request when the request does not
// carry the provider key: it is sent as it is, with the key derived for the
// idempotency header, and again as it is on a retry.
func TestCallRequest(t *testing.T) {
	p := newProvider(t, step{status: 503})
	c := newTestClient(t, p.URL, newTestClock(), runtime.WithBackoff(time.Millisecond, time.Millisecond))
	op := thingOp(withKey)
	req := NewRequest("POST", "/things")
	if err := req.JSON(thing{Title: "prepared"}); err != nil {
		t.Fatal(err)
	}
	sent := string(req.Body)
	r, err := Write(context.Background(), c, op, thingKey{"7"}, Call[*thing]{Request: req, ID: thingID})
	if err != nil || r.ID != "th_1" || r.ProviderKey != pkOf(op, "thing:7") {
		t.Fatalf("receipt %+v, err %v; want th_1 under the derived key", r, err)
	}
	w := p.seenWrites()
	if len(w) != 2 {
		t.Fatalf("%d writes, want the 503 and its retry", len(w))
	}
	for i, s := range w {
		if s.key != pkOf(op, "thing:7") || string(s.body) != sent {
			t.Errorf("write %d: key %q, body %s; want the derived key and the request as given", i, s.key, s.body)
		}
	}
}

// TestWriteIntoRefusesMismatch: a receipt of another type than the call's,
// a call whose type parameter is not a pointer, a call without a request or
// with two, or a Resumable of a value or without an operation, is refused
// before anything is sent. A Resumable whose lookup or compensation does not
// fit the client or the response type does not compile
// (TestMismatchDoesNotCompile).
func TestWriteIntoRefusesMismatch(t *testing.T) {
	p := newProvider(t)
	c := newTestClient(t, p.URL, newTestClock())
	op := thingOp(withKey)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"receipt of another type", func() error {
			_, err := WriteInto(ctx, c, op, thingKey{"1"}, new(runtime.Receipt[thingList]), thingCall(c, op, "x"))
			return err
		}, "into is a *runtime.Receipt["},
		{"an ack for a receipt", func() error {
			_, err := WriteInto(ctx, c, op, thingKey{"1"}, new(runtime.Ack[thing]), thingCall(c, op, "x"))
			return err
		}, "into is a *runtime.Ack["},
		{"no receipt", func() error {
			_, err := WriteInto(ctx, c, op, thingKey{"1"}, (*runtime.Receipt[thing])(nil), thingCall(c, op, "x"))
			return err
		}, "into is a *runtime.Receipt["},
		{"a call of a value", func() error {
			_, err := WriteInto(ctx, c, op, thingKey{"1"}, new(runtime.Receipt[thing]), Call[thing]{Build: thingCall(c, op, "x").Build})
			return err
		}, "want a pointer to the response type"},
		{"a call without a request", func() error {
			_, err := WriteInto(ctx, c, op, thingKey{"1"}, new(runtime.Receipt[thing]), Call[*thing]{ID: thingID})
			return err
		}, "want a request or a function that builds it"},
		{"a call with a request and a builder", func() error {
			call := thingCall(c, op, "x")
			call.Request = NewRequest("POST", "/things")
			_, err := WriteInto(ctx, c, op, thingKey{"1"}, new(runtime.Receipt[thing]), call)
			return err
		}, "want a request or a function that builds it"},
		{"a resumable of a value", func() error {
			_, err := ResumeAll(ctx, c, &thingClient{c}, []Resumable[*thingClient]{&ResumableWrite[*thingClient, thing]{Op: op}})
			return err
		}, "want a pointer to the response type"},
		{"a resumable without an operation", func() error {
			_, err := ResumeAll(ctx, c, &thingClient{c}, []Resumable[*thingClient]{&ResumableWrite[*thingClient, *thing]{}})
			return err
		}, "without an Operation"},
		{"a nil resumable", func() error {
			_, err := ResumeAll(ctx, c, &thingClient{c}, []Resumable[*thingClient]{nil})
			return err
		}, "without an Operation"},
		{"a nil ResumableWrite", func() error {
			_, err := ResumeAll(ctx, c, &thingClient{c}, []Resumable[*thingClient]{(*ResumableWrite[*thingClient, *thing])(nil)})
			return err
		}, "without an Operation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v; want one that says %q", err, tc.want)
			}
			if n := len(p.seenWrites()); n != 0 {
				t.Fatalf("%d writes sent; want none", n)
			}
		})
	}
}

// TestResumeAllStopsAtContextEnd: once ctx ends no further write is
// resumed, and its error is returned once; Resume returns it too.
func TestResumeAllStopsAtContextEnd(t *testing.T) {
	p := newProvider(t)
	l := newMemLedger()
	c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
	op := thingOp(withKey)
	op.Dedupe = true
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := &ResumableWrite[*thingClient, *thing]{Op: op, ID: thingID}
	rep, err := ResumeAll(ctx, c, &thingClient{c}, []Resumable[*thingClient]{w, w, w})
	if rep != (runtime.ResumeReport{}) || !errors.Is(err, context.Canceled) || strings.Count(err.Error(), "canceled") != 1 {
		t.Fatalf("report %+v, err %v; want nothing done and one context.Canceled", rep, err)
	}
	// Resume says so too, even for a client without a ledger, which has nothing to resume.
	for _, c := range []*Client{c, newTestClient(t, p.URL, newTestClock())} {
		if rep, err := Resume(ctx, c, op, Call[*thing]{ID: thingID}); rep != (runtime.ResumeReport{}) || !errors.Is(err, context.Canceled) {
			t.Fatalf("Resume: report %+v, err %v; want nothing done and context.Canceled", rep, err)
		}
	}
}

// TestMismatchDoesNotCompile: a Resumable whose lookup or compensation does not fit the client or
// the response type, or that is another client's, is a compile error, each on its line of
// testdata/mismatch.
func TestMismatchDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	out, err := exec.Command("go", "build", "-o", os.DevNull, "./testdata/mismatch").CombinedOutput()
	if err == nil {
		t.Fatal("testdata/mismatch compiles; want it refused")
	}
	for _, want := range []string{
		"mismatch.go:32:69: cannot use (*Client).otherLookup",
		"mismatch.go:34:73: cannot use (*OtherClient).compensate",
		"mismatch.go:36:2: cannot use &writegenimpl.ResumableWrite[*OtherClient, *Thing]{…}",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go build ./testdata/mismatch says:\n%s\nwant it to say %q", out, want)
		}
	}
}
