package ledgertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// plainInsert is the baseline: the claim's conditional insert, on the same
// table, without the ledger.
const plainInsert = `INSERT INTO writegen_claims
	(operation, business_key, provider_key, owner, state, request, created_at, updated_at)
VALUES ($1, $2, '', '', 'claimed', '', $3, $3)
ON CONFLICT (operation, business_key) DO NOTHING`

// plainActivate is the settlement's update, without the ledger.
const plainActivate = `UPDATE writegen_claims SET state = 'active', provider_id = $3, updated_at = $4
WHERE operation = $1 AND business_key = $2 AND state = 'claimed'`

// Bench measures claim+activate (Claim then Settle to active, one write
// of a fresh business key) next to a plain INSERT ... ON CONFLICT loop and
// a plain insert+update loop on the same database and table, and logs the
// throughput ratios.
func Bench(b *testing.B, bk Backend) {
	ctx := context.Background()
	dsn := bk.NewDSN(b)
	l := open(b, dsn)
	r := raw(b, bk, dsn)
	nsPerOp := map[string]float64{}
	measure := func(name string, op func(i int) error) {
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if err := op(i); err != nil {
					b.Fatal(err)
				}
				i++
			}
			nsPerOp[name] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
	}
	run := 0 // keys differ across the runs the benchmark framework makes
	measure("claim+activate", func(i int) error {
		if i == 0 {
			run++
		}
		rec, _, err := l.Claim(ctx, runtime.Record{Operation: "bench", BusinessKey: fmt.Sprint(run, ":", i)})
		if err != nil {
			return err
		}
		return l.Settle(ctx, rec.ID, runtime.StateActive, runtime.Settlement{ProviderID: "p", Status: 201})
	})
	measure("insert-on-conflict", func(i int) error {
		if i == 0 {
			run++
		}
		return r.Exec(ctx, plainInsert, "plain", fmt.Sprint(run, ":", i), time.Now().UnixMicro())
	})
	measure("insert+update", func(i int) error {
		if i == 0 {
			run++
		}
		k, now := fmt.Sprint(run, ":", i), time.Now().UnixMicro()
		if err := r.Exec(ctx, plainInsert, "plain2", k, now); err != nil {
			return err
		}
		return r.Exec(ctx, plainActivate, "plain2", k, "p", now)
	})
	claim, insert, insertUpdate := nsPerOp["claim+activate"], nsPerOp["insert-on-conflict"], nsPerOp["insert+update"]
	if claim > 0 && insert > 0 && insertUpdate > 0 {
		b.Logf("throughput of claim+activate / insert-on-conflict = %.2f; / insert+update = %.2f",
			insert/claim, insertUpdate/claim)
	}
}
