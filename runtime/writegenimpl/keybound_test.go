package writegenimpl

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/writegen/writegen/runtime"
)

// TestPromise40_KeyRefusedIsRejected: a provider that refuses keys longer
// than 64 characters with a 400 about the Idempotency-Key. A key made to fit
// the bound is accepted; a key sent longer (a bound declared wrong) is
// rejected with the provider's answer when the call created the key's
// ledger row, so no caller can have sent the key before; without a ledger
// claim the same 400 stays uncertain "key reused": another caller may hold
// an effect under that key.
func TestPromise40_KeyRefusedIsRejected(t *testing.T) {
	const refusal = `{"error":{"type":"idempotency_error","message":"Idempotency-Key is longer than 64 characters"}}`
	var refused atomic.Int32
	bounded := func(p *provider) {
		h := p.Config.Handler
		p.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if len(r.Header.Get("Idempotency-Key")) > 64 {
				refused.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(refusal))
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	long := thingKey{strings.Repeat("order-4711-", 7)[:69]}
	for _, tl := range testLedgers() {
		t.Run(tl.name, func(t *testing.T) {
			t.Run("made to fit", func(t *testing.T) {
				p := newProviderWith(t, bounded)
				op := thingOp(withKey)
				op.Dedupe, op.KeyMaxLength = true, 64
				clk := newTestClock()
				c := newTestClient(t, p.URL, clk, runtime.WithLedger(tl.open(t, clk)))
				r, err := Write(context.Background(), c, op, long, thingCall(c, op, "x"))
				if err != nil || r.Source != runtime.Created {
					t.Fatalf("receipt %+v, err %v; want the write created with a key that fits", r, err)
				}
				if k := p.seenWrites()[0].key; len(k) > 64 {
					t.Errorf("sent a key of %d characters", len(k))
				}
			})
			t.Run("sent too long, new ledger row", func(t *testing.T) {
				p := newProviderWith(t, bounded)
				op := thingOp(withKey)
				op.Dedupe, op.KeyMaxLength = true, 255 // wider than the provider takes
				clk := newTestClock()
				l := tl.open(t, clk)
				refused.Store(0)
				c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithNotifier(&notes{}))
				_, err := Write(context.Background(), c, op, long, thingCall(c, op, "x"))
				var se *runtime.StatusError
				if !errors.As(err, &se) || !errors.Is(err, runtime.ErrRejected) || se.Status != 400 || !strings.Contains(string(se.Body), "longer than 64") {
					t.Fatalf("err %v; want rejected with the provider's 400", err)
				}
				if errors.Is(err, runtime.ErrUncertain) || refused.Load() != 1 {
					t.Errorf("err %v after %d sends; want one send, not uncertain", err, refused.Load())
				}
				_, err = Write(context.Background(), c, op, long, thingCall(c, op, "x"))
				if !errors.Is(err, runtime.ErrRejected) || errors.Is(err, runtime.ErrUncertain) {
					t.Errorf("second call: %v; want the rejection replayed from the ledger", err)
				}
			})
		})
	}
	t.Run("sent too long, no ledger claim", func(t *testing.T) {
		p := newProviderWith(t, bounded)
		op := thingOp(withKey)
		op.KeyMaxLength = 255
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithNotifier(&notes{}))
		_, err := Write(context.Background(), c, op, long, thingCall(c, op, "x"))
		if reason := uncertainReason(t, err); reason != reasonKeyReused {
			t.Errorf("reason %q, want %q", reason, reasonKeyReused)
		}
	})
}
