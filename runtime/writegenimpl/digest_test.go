package writegenimpl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestPromise25_SameKeyOtherRequest: the same business key with another
// request is refused with an error of its own before anything is sent; it
// is never answered with the first call's receipt.
func TestPromise25_SameKeyOtherRequest(t *testing.T) {
	t.Run("after the first settled", func(t *testing.T) {
		p := newProvider(t)
		op := thingOp(ledgerOnly)
		l := newMemLedger()
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
		if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "refund 10")); err != nil {
			t.Fatal(err)
		}
		r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "refund 10000"))
		var ke *runtime.KeyConflictError
		if r != nil || !errors.As(err, &ke) || ke.RowID != 1 || ke.BusinessKey != "thing:1" || ke.OperationID != "createThing" {
			t.Fatalf("receipt %+v, err %v; want a *KeyConflictError about row 1", r, err)
		}
		only(t, err, runtime.ErrKeyConflict)
		if w := len(p.seenWrites()); w != 1 {
			t.Errorf("%d writes, want only the first", w)
		}
		// The same request again is still answered from the ledger.
		r, err = Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "refund 10"))
		if err != nil || r.Source != runtime.AdoptedLedger || r.Body.Title != "refund 10" {
			t.Errorf("receipt %+v, err %v; want the first receipt from the ledger", r, err)
		}
	})
	t.Run("while the first is running", func(t *testing.T) {
		p := newProvider(t, step{loss: held})
		op := thingOp(ledgerOnly)
		l := newMemLedger()
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
		first := writeAsync(context.Background(), c, op)
		<-p.read
		// It does not wait for the first: the answer does not depend on it.
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "other"))
		only(t, err, runtime.ErrKeyConflict)
		p.finishSlowCommit()
		if w := <-first; w.err != nil || len(p.seenWrites()) != 1 {
			t.Errorf("first: %v after %d writes", w.err, len(p.seenWrites()))
		}
	})
	t.Run("a row without a digest", func(t *testing.T) {
		// A row written before digests were stored (a ledger's first schema)
		// is not compared: its request carries the provider key of its time,
		// so no request would match it. Its outcome is adopted, unsent.
		p := newProvider(t)
		op := thingOp(ledgerOnly)
		l := newMemLedger()
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
		row := claimFor(t, l, c, op, "1", "refund 10", time.Now().Add(time.Hour))
		l.mu.Lock()
		l.rows[row.ID-1].Digest = nil
		l.mu.Unlock()
		if err := l.Settle(context.Background(), row.ID, row.Fence, runtime.StateActive,
			runtime.Settlement{ProviderID: "th_1", Status: 201, Body: []byte(`{"id":"th_1","title":"refund 10"}`)}); err != nil {
			t.Fatal(err)
		}
		r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "refund 10"))
		if err != nil || r.ID != "th_1" || r.Source != runtime.AdoptedLedger || len(p.seenWrites()) != 0 {
			t.Errorf("receipt %+v, err %v after %d writes; want th_1 from the ledger", r, err, len(p.seenWrites()))
		}
	})
}
