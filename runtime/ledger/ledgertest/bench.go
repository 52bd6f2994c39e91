package ledgertest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// floorInsert and floorSettle are the floor of a claim and its
// settlement: the same row inserted and then updated on the same table by
// two plain statements, two commits of the database's own.
const (
	floorInsert = `INSERT INTO writegen_claims
	(scope, tenant, operation, business_key, operation_id, provider_key, reference, owner, state,
	request, digest, fence, lease_owner, lease_until, claim, created_at, updated_at)
VALUES ($1, '', $2, $3, $4, $5, '', $6, 'claimed', $7, $8, 1, $9, $10, TRUE, $11, $11)`

	floorSettle = `UPDATE writegen_claims
SET state = 'active', provider_id = $4, status = 201, body = $5, attempts = 1, updated_at = $6
WHERE scope = $1 AND tenant = '' AND operation = $2 AND business_key = $3 AND claim AND fence = 1`
)

// Bench measures a claim and its settlement (Claim, then Settle to active:
// one write of a fresh business key, as the runtime makes it) next to the
// floor: the same row inserted and updated by two plain statements, each
// prepared once, on the same database and table. The two are interleaved
// in one loop, so that the machine's noise falls on both alike. It reports
// each one's time per write and the ledger's over the floor's
// ("x-floor": 1.10 is the ledger's time over its database's commits at
// 10%). A warm-up first brings the database to its steady state (SQLite's
// WAL file grows, then is reused). opts open both the ledger and the floor.
func Bench(b *testing.B, bk Backend, opts ...ledger.Option) {
	ctx := context.Background()
	dsn := bk.NewDSN(b)
	l := open(b, dsn, opts...)
	r := raw(b, bk, dsn, opts...)
	req := []byte(`{"method":"POST","path":"/things","header":{"Content-Type":["application/json"]},"body":"eyJuYW1lIjoiYSB0aGluZyIsInJlZiI6InRoaW5ncy9iZW5jaDoxIn0="}`)
	sum := sha256.Sum256(req)
	body := []byte(`{"id":"thing_1","ref":"things/bench:1","name":"a thing"}`)
	floor := func(op, k string, now time.Time) error {
		us := now.UnixMicro()
		if err := r.Exec(ctx, floorInsert, scope, op, k, "createThing", scope+"/"+op+":"+k, "things-oncall",
			req, sum[:], "bench", us+int64(time.Minute/time.Microsecond), us); err != nil {
			return err
		}
		return r.Exec(ctx, floorSettle, scope, op, k, "thing_1", body, us)
	}
	for i := range warmUp {
		if err := floor("warm-up", fmt.Sprint(i), time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	run := 0 // keys differ across the runs the benchmark framework makes
	b.Run("claim+settle", func(b *testing.B) {
		run++
		var floorTime, claimTime time.Duration
		i := 0
		for b.Loop() {
			k := fmt.Sprint(run, ":", i)
			i++
			t0 := time.Now()
			if err := floor("floor", k, t0); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			rec := runtime.Record{Identity: ident("bench", k), OperationID: "createThing",
				ProviderKey: scope + "/bench:" + k, Owner: "things-oncall", Request: req, Digest: sum[:]}
			row, won, err := l.Claim(ctx, rec, runtime.Holder{Owner: "bench"}, time.Minute)
			if err != nil || !won {
				b.Fatal(won, err)
			}
			if err := l.Settle(ctx, row.ID, row.Fence, runtime.StateActive,
				runtime.Settlement{ProviderID: "thing_1", Status: 201, Body: body, Attempts: 1}); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			floorTime, claimTime = floorTime+t1.Sub(t0), claimTime+t2.Sub(t1)
		}
		n := float64(b.N)
		b.ReportMetric(float64(claimTime.Nanoseconds())/n, "claim+settle-ns/op")
		b.ReportMetric(float64(floorTime.Nanoseconds())/n, "floor-ns/op")
		b.ReportMetric(float64(claimTime)/float64(floorTime), "x-floor")
	})
}

// warmUp is how many rows the benchmark writes before it measures.
const warmUp = 3000
