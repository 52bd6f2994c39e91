package writegenimpl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

func TestJoinReferenceRoundTrip(t *testing.T) {
	if got := JoinReference("evt_1"); got != "evt_1" {
		t.Fatalf("without values the reference is kept as it is: got %q", got)
	}
	joined := JoinReference("a&b=c ?", "ticket_id", "42")
	if joined != "ref=a%26b%3Dc+%3F&ticket_id=42" {
		t.Fatalf("joined = %q", joined)
	}
	ref, values, err := SplitReference(joined, "ticket_id")
	if err != nil || ref != "a&b=c ?" || len(values) != 1 || values[0] != "42" {
		t.Fatalf("split = %q %q %v", ref, values, err)
	}
	if _, _, err := SplitReference("evt_1", "ticket_id"); err == nil {
		t.Fatal("a plain reference split for a value: want an error")
	}
	if _, _, err := SplitReference(joined, "ticket_id", "owner"); err == nil {
		t.Fatal("a reference without a value the lookup needs: want an error")
	}
}

// A write without a key whose every attempt the provider answered (503), and whose strong
// lookup then finds no effect, did not happen: it ends not applied, so that the caller may send
// it again later with the same key, not uncertain for a person. When an attempt went
// unanswered, first or last, the same lookup proves that only once the settle time has passed
// since the last attempt ended (a request cut on this side may still be running at the
// provider until then). Without the key's claim, another caller may be sending the write, and
// the call ends uncertain.
func TestStrongLookupAfterAnsweredAttempt(t *testing.T) {
	unavailable := step{status: 503}
	all := []step{unavailable, unavailable, unavailable, unavailable}
	firstLost := []step{{loss: lostRequest}, unavailable, unavailable, unavailable}
	lastLost := []step{unavailable, unavailable, unavailable, {loss: lostRequest}}
	for _, tc := range []struct {
		name    string
		script  []step
		noClaim bool // no ledger claim: an earlier caller's attempt may still be running
		settle  time.Duration
		want    runtime.State
	}{
		{"answered every time", all, false, 0, runtime.StateNotApplied},
		{"unanswered, then answered, settled", firstLost, false, 5 * time.Second, runtime.StateNotApplied},
		{"answered, last unanswered, settled", lastLost, false, 5 * time.Second, runtime.StateNotApplied},
		{"answered every time, no claim", all, true, 5 * time.Second, runtime.StateUncertain},
		{"last unanswered, settled, no claim", lastLost, true, 5 * time.Second, runtime.StateUncertain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, tc.script...)
			op := thingOp(withLookup)
			op.Dedupe = !tc.noClaim
			l := newMemLedger()
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l), runtime.WithLookupSettle(tc.settle))
			_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			got := stateOf(err)
			if !tc.noClaim {
				got = l.row(1).State
			}
			if got != tc.want || stateOf(err) != tc.want || p.effectCount() != 0 || p.lookupCount() == 0 {
				t.Fatalf("row %s, err %v, %d effects, %d lookups; want %s after a lookup, no effect",
					got, err, p.effectCount(), p.lookupCount(), tc.want)
			}
			if tc.want != runtime.StateNotApplied {
				return
			}
			if !errors.Is(err, runtime.ErrNotApplied) || errors.Is(err, runtime.ErrRejected) {
				t.Errorf("err %v: want ErrNotApplied and not ErrRejected, for callers that switch on them", err)
			}
			// The key is free: the same write sent again makes one effect.
			if r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil || p.effectCount() != 1 {
				t.Errorf("second call: %+v, %v, %d effects; want one receipt", r, err, p.effectCount())
			}
		})
	}
}
