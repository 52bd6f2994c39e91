package writegenimpl

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/writegen/writegen/runtime"
)

// TestPromise56_UndecodedReceipt: a 2xx whose body does not decode into the response type took
// effect. Where the receipt's id can be read from the raw body (op.IDPointer, through the
// receipt's object when it sits in an envelope), the call returns the receipt, with that id and
// the raw body, and a *runtime.DecodeError; its ledger row is settled done with the id, a later
// call with the same key gets the same, and nothing is sent again. Without an id it is
// uncertain, and still not sent again.
func TestPromise56_UndecodedReceipt(t *testing.T) {
	for _, tc := range []struct {
		name, pointer, body string
		id                  string // "" : uncertain
	}{
		{"a field of another type", "/id", `{"id": "th_1", "title": 42}`, "th_1"},
		{"an integer id", "/id", `{"id": 7, "title": 42}`, "7"},
		{"through an envelope", "/thing/id", `{"thing": {"id": "th_2"}, "title": 42}`, "th_2"},
		{"an escaped pointer", "/a~1b/id", `{"a/b": {"id": "th_3"}, "title": 42}`, "th_3"},
		{"no id", "/id", `{"title": 42}`, ""},
		{"no pointer", "", `{"id": "th_1", "title": 42}`, ""},
		{"not JSON", "/id", `{"id": "th_1", `, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, writes := answering(t, 201, tc.body)
			op := thingOp(withKey)
			op.Dedupe, op.IDPointer = true, tc.pointer
			l := newMemLedger()
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
			for call := range 2 {
				r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
				if writes.Load() != 1 {
					t.Fatalf("call %d: %d writes sent, want 1", call, writes.Load())
				}
				row := l.row(1)
				if tc.id == "" {
					only(t, err, runtime.ErrUncertain)
					if row.State != runtime.StateUncertain || row.redrive {
						t.Errorf("call %d: row %+v, want it uncertain and not re-drivable", call, row.Record)
					}
					continue
				}
				only(t, err, runtime.ErrDecode)
				var de *runtime.DecodeError
				if !errors.As(err, &de) || de.Status != 201 || string(de.Body) != tc.body || de.Cause == nil {
					t.Errorf("call %d: err %#v, want a *runtime.DecodeError with the status, the body and the cause", call, err)
				}
				if r == nil || r.ID != tc.id || string(r.Raw) != tc.body || r.Body != nil || r.Status != 201 {
					t.Fatalf("call %d: receipt %+v, want id %q with the raw body and no decoded body", call, r, tc.id)
				}
				want := map[int]runtime.Source{0: runtime.Created, 1: runtime.AdoptedLedger}[call]
				if r.Source != want {
					t.Errorf("call %d: source %v, want %v", call, r.Source, want)
				}
				if row.State != runtime.StateActive || row.ProviderID != tc.id || string(row.Body) != tc.body {
					t.Errorf("call %d: row %+v, want it done with id %q and the body", call, row.Record, tc.id)
				}
			}
		})
	}
}

// TestPromise56_UndecodedRead: a read whose 2xx does not decode fails with a
// *runtime.DecodeError that keeps the body.
func TestPromise56_UndecodedRead(t *testing.T) {
	p, _ := answering(t, 200, `{"id": 5}`)
	c := newTestClient(t, p.URL, newTestClock())
	op := &Operation{ID: "getThing", Method: "GET", Path: "/things/1", Effect: runtime.EffectReadOnly, Attempts: 1}
	err := Read(context.Background(), c, op, NewRequest("GET", "/things/1"), new(thing))
	var de *runtime.DecodeError
	if !errors.As(err, &de) || string(de.Body) != `{"id": 5}` || de.Status != 200 {
		t.Errorf("err %v, want a *runtime.DecodeError with the body", err)
	}
}

// TestRawID reads ids from bodies by JSON pointer.
func TestRawID(t *testing.T) {
	for _, tc := range []struct{ body, ptr, want string }{
		{`{"id":"a"}`, "/id", "a"},
		{`{"items":[{"id":"b"}]}`, "/items/0/id", "b"},
		{`{"items":[]}`, "/items/0/id", ""},
		{`{"id":12345678901234567890}`, "/id", "12345678901234567890"},
		{`{"id":{"x":1}}`, "/id", ""},
		{`{"m~n":{"id":"c"}}`, "/m~0n/id", "c"},
		{`[1]`, "/id", ""},
		{`{"id":"a"}`, "", ""},
	} {
		if got := RawID([]byte(tc.body), tc.ptr); got != tc.want {
			t.Errorf("RawID(%s, %q) = %q, want %q", tc.body, tc.ptr, got, tc.want)
		}
	}
}

// TestPromise57_NoBodyNoFraming: a write without a body is sent without one: neither a
// Content-Length nor a chunked body of length zero, which a server may read as an empty body
// given (Prism does, and refuses it where the spec's optional body is an object).
func TestPromise57_NoBodyNoFraming(t *testing.T) {
	type seen struct {
		te     []string
		length string
		body   int
	}
	got := make(chan seen, 1)
	p := newProviderWith(t, func(p *provider) {
		p.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got <- seen{r.TransferEncoding, r.Header.Get("Content-Length"), len(b)}
			io.WriteString(w, `{"id": "th_1"}`)
		})
	})
	c := newTestClient(t, p.URL, newTestClock())
	op := thingOp(withKey)
	call := Call[*thing]{Request: NewRequest("POST", "/things"), ID: thingID}
	if _, err := Write(context.Background(), c, op, thingKey{"1"}, call); err != nil {
		t.Fatal(err)
	}
	if s := <-got; len(s.te) != 0 || s.length != "" || s.body != 0 {
		t.Errorf("the server saw Transfer-Encoding %v, Content-Length %q and %d bytes; want no body and no framing", s.te, s.length, s.body)
	}
}
