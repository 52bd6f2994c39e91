package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/postgres"
)

// prepares counts what pgx prepares, by connection and text.
type prepares struct {
	mu sync.Mutex
	n  map[string]int // "conn 0x...: text" → how many times; guarded by mu
}

func (p *prepares) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (p *prepares) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (p *prepares) TracePrepareStart(ctx context.Context, c *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n[fmt.Sprintf("conn %p: %s", c, d.SQL)]++
	return ctx
}

func (p *prepares) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

func (p *prepares) snapshot() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := make(map[string]int, len(p.n))
	for k, v := range p.n {
		m[k] = v
	}
	return m
}

// TestPreparedOnce: pgx prepares each of the ledger's statements once per
// connection and keeps it, however many writes the ledger makes.
func TestPreparedOnce(t *testing.T) {
	p := &prepares{n: map[string]int{}}
	defer postgres.SetConfigure(func(c *pgxpool.Config) { c.ConnConfig.Tracer = p })()
	ctx := context.Background()
	l, err := postgres.Open(ctx, newDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	write := func(k string) {
		t.Helper()
		id := runtime.Identity{Scope: "things", Operation: "thing", BusinessKey: k}
		now := time.Now()
		row, won, err := l.Claim(ctx, runtime.Record{Identity: id, Request: []byte("req")}, runtime.Holder{Owner: "me"}, time.Minute)
		if err != nil || !won {
			t.Fatal(won, err)
		}
		if _, won, err := l.Claim(ctx, runtime.Record{Identity: id}, runtime.Holder{Owner: "other"}, time.Minute); err != nil || won {
			t.Fatal(won, err)
		}
		if err := l.Renew(ctx, row.ID, row.Fence, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := l.Settle(ctx, row.ID, row.Fence, runtime.StateNotApplied, runtime.Settlement{Status: 429}); err != nil {
			t.Fatal(err)
		}
		if row, won, err = l.Claim(ctx, runtime.Record{Identity: id}, runtime.Holder{Owner: "again"}, -time.Second); err != nil || !won {
			t.Fatal(won, err)
		}
		if taken, err := l.TakeOver(ctx, "things", "", "thing", now.Add(time.Second), runtime.Holder{Owner: "taker"}, time.Minute, 0); err != nil || len(taken) != 1 {
			t.Fatal(taken, err)
		}
		if err := l.Settle(ctx, row.ID, row.Fence+1, runtime.StateActive, runtime.Settlement{ProviderID: "p"}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Await(ctx, row.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := l.List(ctx, ledger.Filter{State: runtime.StateActive, Scope: "things"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		write(fmt.Sprint("warm-", i))
	}
	warm := p.snapshot()
	for i := range 200 {
		write(fmt.Sprint("k", i))
	}
	after := p.snapshot()
	for k, n := range after {
		if n != 1 {
			t.Errorf("prepared %d times: %s", n, k)
		}
	}
	if len(warm) == 0 || len(after) != len(warm) {
		t.Errorf("3 writes prepared %d statements, 200 more writes %d more; want some, then none", len(warm), len(after)-len(warm))
	}
}
