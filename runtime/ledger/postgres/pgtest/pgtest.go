// Package pgtest gives a test a PostgreSQL schema of its own, so that tests sharing one server
// (the throwaway cluster of the repository's .ci/pg, named by WRITEGEN_PG_DSN) never see each
// other's tables.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

var (
	mu      sync.Mutex
	pools   = map[string]*pgxpool.Pool{} // by server DSN, for the life of the test binary
	schemas atomic.Int64
)

// Schema creates a schema for t on the server dsn names, dropped when t ends, and returns dsn
// with that schema as its search_path. prefix starts the schema's name ("soak", "demo").
func Schema(t testing.TB, dsn, prefix string) string {
	t.Helper()
	admin, err := pool(dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("%s_%d_%d", prefix, os.Getpid(), schemas.Add(1))
	if _, err := admin.Exec(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	return withSearchPath(t, dsn, schema)
}

// pool returns the connection pool of the server dsn names.
func pool(dsn string) (*pgxpool.Pool, error) {
	mu.Lock()
	defer mu.Unlock()
	if p := pools[dsn]; p != nil {
		return p, nil
	}
	p, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		return nil, err
	}
	pools[dsn] = p
	return p, nil
}

// withSearchPath returns dsn, a URL or a list of key=value settings, with search_path set.
func withSearchPath(t testing.TB, dsn, schema string) string {
	if !strings.Contains(dsn, "://") {
		return dsn + " search_path=" + schema
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("the PostgreSQL DSN: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
