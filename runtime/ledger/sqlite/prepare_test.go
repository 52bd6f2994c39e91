package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// prepares counts what the driver prepares, by connection and text.
type prepares struct {
	mu    sync.Mutex
	conns atomic.Int64
	n     map[string]int // "conn N: text" → how many times; guarded by mu
}

func (p *prepares) snapshot() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := make(map[string]int, len(p.n))
	for k, v := range p.n {
		m[k] = v
	}
	return m
}

type countingConnector struct {
	driver.Connector
	p *prepares
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: conn, p: c.p, id: c.p.conns.Add(1)}, nil
}

// countingConn forwards what database/sql needs of a connection, except
// ExecerContext and QueryerContext, so that every statement goes through
// PrepareContext, where it is counted.
type countingConn struct {
	driver.Conn
	p  *prepares
	id int64
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.p.mu.Lock()
	c.p.n[fmt.Sprintf("conn %d: %s", c.id, query)]++
	c.p.mu.Unlock()
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *countingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *countingConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

func (c *countingConn) Unwrap() driver.Conn { return c.Conn }

// TestPreparedOnce: the ledger's statements are prepared once, on its own
// connection, however many writes it makes; none is prepared twice on any
// connection.
func TestPreparedOnce(t *testing.T) {
	p := &prepares{n: map[string]int{}}
	defer func(c func(string) (driver.Connector, error)) { newConnector = c }(newConnector)
	inner := newConnector
	newConnector = func(dsn string) (driver.Connector, error) {
		c, err := inner(dsn)
		return countingConnector{c, p}, err
	}
	ctx := context.Background()
	l, err := Open(ctx, filepath.Join(t.TempDir(), "ledger.db"))
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
	// Open's migration records each version it applies with one
	// statement, in its transaction; what follows is counted apart.
	opened := p.snapshot()
	for i := range 3 {
		write(fmt.Sprint("warm-", i))
	}
	warm := p.snapshot()
	for i := range 200 {
		write(fmt.Sprint("k", i))
	}
	after := p.snapshot()
	for k, n := range after {
		if n != opened[k] && n-opened[k] != 1 {
			t.Errorf("prepared %d times: %s", n-opened[k], k)
		}
	}
	if len(after) != len(warm) || len(warm) == len(opened) {
		t.Errorf("%d statements prepared by Open, %d more by 3 writes, %d more by 200 after them; want some, then none",
			len(opened), len(warm)-len(opened), len(after)-len(warm))
	}
}
