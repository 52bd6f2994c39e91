package writegenimpl

import (
	"context"
	"errors"
	"strings"
	"testing"

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

// TestWriteIntoRefusesMismatch: a receipt of another type than the call's,
// or a call whose type parameter is not a pointer, is refused before anything is sent.
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
			_, err := WriteInto(ctx, c, op, thingKey{"1"}, new(runtime.Receipt[thing]), Call[thing]{Request: thingCall(c, op, "x").Request})
			return err
		}, "want a pointer to the response type"},
		{"a resumable of a value", func() error {
			_, err := ResumeAll(ctx, c, ResumableWrite(op, Call[thing]{}))
			return err
		}, "want a pointer to the response type"},
		{"a zero resumable", func() error {
			_, err := ResumeAll(ctx, c, Resumable{})
			return err
		}, "a zero Resumable"},
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
// resumed, and its error is returned once.
func TestResumeAllStopsAtContextEnd(t *testing.T) {
	p := newProvider(t)
	l := newMemLedger()
	c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
	op := thingOp(withKey)
	op.Dedupe = true
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := ResumableWrite(op, thingCall(c, op, "x"))
	rep, err := ResumeAll(ctx, c, w, w, w)
	if rep != (runtime.ResumeReport{}) || !errors.Is(err, context.Canceled) || strings.Count(err.Error(), "canceled") != 1 {
		t.Fatalf("report %+v, err %v; want nothing done and one context.Canceled", rep, err)
	}
}
