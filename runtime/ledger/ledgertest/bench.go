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
// of a fresh business key) next to a plain INSERT ... ON CONFLICT and a
// plain insert+update on the same database and table. The three are
// interleaved in one loop, so that the machine's noise falls on all of
// them alike; each one's time per operation is reported, and the
// throughput of claim+activate relative to each baseline ("x-insert",
// "x-insert+update"). A warm-up first brings the database to its steady
// state (SQLite's WAL file grows, then is reused).
func Bench(b *testing.B, bk Backend) {
	ctx := context.Background()
	dsn := bk.NewDSN(b)
	l := open(b, dsn)
	r := raw(b, bk, dsn)
	for i := range warmUp {
		if err := r.Exec(ctx, plainInsert, "warm-up", fmt.Sprint(i), time.Now().UnixMicro()); err != nil {
			b.Fatal(err)
		}
	}
	run := 0 // keys differ across the runs the benchmark framework makes
	b.Run("claim+activate", func(b *testing.B) {
		run++
		var insert, insertUpdate, claim time.Duration
		i := 0
		for b.Loop() {
			k := fmt.Sprint(run, ":", i)
			i++
			t0 := time.Now()
			if err := r.Exec(ctx, plainInsert, "plain", k, t0.UnixMicro()); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if err := r.Exec(ctx, plainInsert, "plain2", k, t1.UnixMicro()); err != nil {
				b.Fatal(err)
			}
			if err := r.Exec(ctx, plainActivate, "plain2", k, "p", t1.UnixMicro()); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			rec, _, err := l.Claim(ctx, runtime.Record{Operation: "bench", BusinessKey: k})
			if err != nil {
				b.Fatal(err)
			}
			if err := l.Settle(ctx, rec.ID, runtime.StateActive, runtime.Settlement{ProviderID: "p", Status: 201}); err != nil {
				b.Fatal(err)
			}
			t3 := time.Now()
			insert, insertUpdate, claim = insert+t1.Sub(t0), insertUpdate+t2.Sub(t1), claim+t3.Sub(t2)
		}
		n := float64(b.N)
		b.ReportMetric(float64(claim.Nanoseconds())/n, "claim+activate-ns/op")
		b.ReportMetric(float64(insert.Nanoseconds())/n, "insert-ns/op")
		b.ReportMetric(float64(insertUpdate.Nanoseconds())/n, "insert+update-ns/op")
		b.ReportMetric(float64(insert)/float64(claim), "x-insert")
		b.ReportMetric(float64(insertUpdate)/float64(claim), "x-insert+update")
	})
}

// warmUp is how many rows the benchmark inserts before it measures.
const warmUp = 3000
