package writegenimpl

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestPromise30_NotAppliedLeavesTheKeyFree: a 429, 408, 425 or an auth
// failure outside a rotation, with nothing possibly committed before,
// settles the row not applied: the key may be claimed again, and the next
// call creates the effect. A definite 4xx is rejected for good.
func TestPromise30_NotAppliedLeavesTheKeyFree(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   error
		state  runtime.State
	}{
		{429, runtime.ErrNotApplied, runtime.StateNotApplied},
		{408, runtime.ErrNotApplied, runtime.StateNotApplied},
		{425, runtime.ErrNotApplied, runtime.StateNotApplied},
		{401, runtime.ErrNotApplied, runtime.StateNotApplied},
		{403, runtime.ErrNotApplied, runtime.StateNotApplied},
		{400, runtime.ErrRejected, runtime.StateRejected},
		{404, runtime.ErrRejected, runtime.StateRejected},
		{422, runtime.ErrRejected, runtime.StateRejected},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			p := newProvider(t, step{status: tc.status})
			op := thingOp(withKey)
			op.Dedupe, op.Attempts = true, 1
			l := newMemLedger()
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
			_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			only(t, err, tc.want)
			var se *runtime.StatusError
			if !errors.As(err, &se) || se.Status != tc.status {
				t.Errorf("err = %v, want it to carry the %d", err, tc.status)
			}
			if row := l.row(1); row.State != tc.state {
				t.Errorf("row %s, want %s", row.State, tc.state)
			}
			r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if tc.state == runtime.StateNotApplied {
				if err != nil || r.Source != runtime.Created || p.effectCount() != 1 || l.row(1).State != runtime.StateActive {
					t.Errorf("second call: receipt %+v, err %v, %d effects; want the key claimed again and one effect", r, err, p.effectCount())
				}
				return
			}
			only(t, err, runtime.ErrRejected)
			if w := len(p.seenWrites()); w != 1 {
				t.Errorf("%d writes: a rejected key was sent again", w)
			}
		})
	}
	t.Run("429 after an ambiguous attempt", func(t *testing.T) {
		// The first attempt may have committed: the 429 to the second says
		// nothing about it.
		p := newProvider(t, step{loss: lostRequest}, step{status: 429})
		op := thingOp(withKey)
		op.Dedupe, op.Attempts = true, 2
		l := newMemLedger()
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		only(t, err, runtime.ErrUncertain)
		if row := l.row(1); row.State != runtime.StateUncertain {
			t.Errorf("row %s, want uncertain", row.State)
		}
	})
	t.Run("not sent", func(t *testing.T) {
		op := thingOp(ledgerOnly)
		l := newMemLedger()
		c := newTestClient(t, "http://"+refusedAddr(t), newTestClock(), runtime.WithLedger(l))
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		only(t, err, runtime.ErrNotApplied)
		var na *runtime.NotAppliedError
		if !errors.As(err, &na) || na.Reason != "not sent" || l.row(1).State != runtime.StateNotApplied {
			t.Errorf("err %v, row %s; want not sent, not applied", err, l.row(1).State)
		}
	})
	t.Run("a person's not applied", func(t *testing.T) {
		// A row a person resolved "not applied" is claimed again.
		p := newProvider(t)
		op := thingOp(ledgerOnly)
		l := newMemLedger()
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
		row := claimFor(t, l, c, op, "1", "x", time.Now().Add(time.Hour))
		l.Settle(context.Background(), row.ID, row.Fence, runtime.StateNotApplied, runtime.Settlement{LastError: "resolved not applied by support-ops"})
		r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if err != nil || r.Source != runtime.Created || p.effectCount() != 1 {
			t.Errorf("receipt %+v, err %v; want the write made", r, err)
		}
	})
}

// TestPromise30_ReplayedOutcomes: every outcome a caller finds in the
// ledger matches exactly one sentinel error, or is the receipt.
func TestPromise30_ReplayedOutcomes(t *testing.T) {
	for _, tc := range []struct {
		state runtime.State
		s     runtime.Settlement
		want  error // nil: a receipt
	}{
		{runtime.StateActive, runtime.Settlement{ProviderID: "th_1", Status: 201, Body: []byte(`{"id":"th_1"}`)}, nil},
		{runtime.StateRejected, runtime.Settlement{Status: 400, Body: []byte(`{"error":"bad"}`)}, runtime.ErrRejected},
		{runtime.StateRejected, runtime.Settlement{Status: 307}, runtime.ErrRejected},
		{runtime.StateNotApplied, runtime.Settlement{Status: 429, LastError: "status 429"}, runtime.ErrNotApplied},
		{runtime.StateUncertain, runtime.Settlement{Status: 503, LastError: "attempts exhausted: status 503"}, runtime.ErrUncertain},
		{runtime.StateUncertain, runtime.Settlement{Status: 401, LastError: "ambiguous: credential rotated"}, runtime.ErrUncertain},
		{runtime.StateCompensated, runtime.Settlement{ProviderID: "th_2", LastError: "duplicate"}, runtime.ErrCompensated},
		{runtime.StateClaimed, runtime.Settlement{}, runtime.ErrInProgress},
		// A stored receipt that cannot be read is never a plain error: with its id, the
		// write took effect, and the answer did not decode (promise 56).
		{runtime.StateActive, runtime.Settlement{ProviderID: "th_1", Status: 201, Body: []byte(`{"id":`)}, runtime.ErrDecode},
		{runtime.StateActive, runtime.Settlement{Status: 201, Body: []byte(`{}`)}, runtime.ErrUncertain},
	} {
		t.Run(fmt.Sprint(tc.state, " ", tc.s.Status), func(t *testing.T) {
			op := thingOp(ledgerOnly)
			l := newMemLedger()
			c := newTestClient(t, "http://"+refusedAddr(t), newTestClock(), runtime.WithLedger(l))
			row := claimFor(t, l, c, op, "1", "x", time.Now().Add(time.Hour))
			if tc.state != runtime.StateClaimed {
				if err := l.Settle(context.Background(), row.ID, row.Fence, tc.state, tc.s); err != nil {
					t.Fatal(err)
				}
			}
			if tc.state == runtime.StateNotApplied {
				// A caller finds a not_applied row only while it waits for the
				// claim: settle it under a waiting caller.
				l2 := newMemLedger()
				c = newTestClient(t, "http://"+refusedAddr(t), newTestClock(), runtime.WithLedger(l2))
				row = claimFor(t, l2, c, op, "1", "x", time.Now().Add(time.Hour))
				var once sync.Once
				l2.waiting = func(id int64) {
					once.Do(func() { go l2.Settle(context.Background(), id, row.Fence, tc.state, tc.s) })
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.state == runtime.StateClaimed {
				cancel()
			}
			defer cancel()
			r, err := Write(ctx, c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if tc.want == nil {
				if err != nil || r.ID != "th_1" || r.Source != runtime.AdoptedLedger {
					t.Errorf("receipt %+v, err %v; want th_1 from the ledger", r, err)
				}
				return
			}
			only(t, err, tc.want)
			var ue *runtime.UncertainError
			if errors.As(err, &ue) && ue.Recorded != "ledger row 1" {
				t.Errorf("replayed uncertain outcome recorded in %q, want ledger row 1", ue.Recorded)
			}
		})
	}
}
