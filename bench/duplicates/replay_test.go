package main

import (
	"context"
	"errors"
	"testing"

	"github.com/writegen/writegen/bench/duplicates/transfers"
	"github.com/writegen/writegen/runtime"
)

// TestCommittedWriteIsNotRejected is the smallest case behind the lost outcomes the benchmark
// once showed at a high fault rate (-n 1000 -seed 11 -faults 0.4 -crash-every 100): the first
// send of a keyed write commits, and its reused connection then closes or resets without an
// answer. Had net/http sent the request again inside the same attempt, as it does for a request
// it can rewind that carries Idempotency-Key, a 429 to that send would have been reported as a
// rejection of a write that committed. By promise 26 nothing below the runtime re-sends, and the
// call ends with the receipt or uncertain.
func TestCommittedWriteIsNotRejected(t *testing.T) {
	for _, first := range []fault{slowCommit, resetAfterCommit} {
		t.Run(first.String(), func(t *testing.T) {
			faults := func(orderID string, n int) fault {
				switch {
				case orderID != "x":
					return noFault
				case n == 1:
					return first
				case n <= 3:
					return rateLimited
				}
				return noFault
			}
			p, err := startProvider(stripeConfig, faults, process{gen: func() int { return 1 }, kill: func(int) {}})
			if err != nil {
				t.Fatal(err)
			}
			c, err := transfers.NewClient(p.urls[0], runtime.WithMaxAttempts(2))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			// A first write, so that the next one goes out on a reused connection.
			if _, err := c.CreateTransfer(ctx, transfers.CreateTransferKey{OrderID: "warm"},
				transfers.NewTransfer{OrderID: "warm", Amount: 1, Currency: currency}); err != nil {
				t.Fatal(err)
			}
			r, err := c.CreateTransfer(ctx, transfers.CreateTransferKey{OrderID: "x"},
				transfers.NewTransfer{OrderID: "x", Amount: 1, Currency: currency})
			p.close()
			res := p.result()
			if res.effects["x"] != 1 {
				t.Fatalf("%d transfers for the order, want 1; requests %v", res.effects["x"], res.history["x"])
			}
			if err != nil && !errors.Is(err, runtime.ErrUncertain) {
				t.Errorf("the write committed, and the call ended with %v (requests %v), want its receipt or ErrUncertain",
					err, res.history["x"])
			}
			if err == nil && res.owner[r.ID] != "x" {
				t.Errorf("receipt %q is not the order's transfer", r.ID)
			}
		})
	}
}
