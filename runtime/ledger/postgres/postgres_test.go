package postgres_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgertest"
	"github.com/writegen/writegen/runtime/ledger/postgres"
	"github.com/writegen/writegen/runtime/ledger/postgres/pgtest"
)

// envDSN names the PostgreSQL server the tests use. When it is unset, the
// tests fail in CI (CI set) and, elsewhere, run on a throwaway cluster
// started with the repository's .ci/pg, or skip when that cannot start.
const envDSN = "WRITEGEN_PG_DSN"

func TestMain(m *testing.M) { os.Exit(ledgertest.Main(m, startCluster)) }

// noCluster says why there is no server, when there is none.
var noCluster string

// startCluster starts a throwaway cluster when there is no server to use
// outside CI, and returns the function that stops it.
func startCluster() func() {
	if os.Getenv(envDSN) != "" {
		return func() {}
	}
	if os.Getenv("CI") != "" {
		noCluster = envDSN + " is unset in CI: the PostgreSQL ledger tests must run there (start a server with .ci/pg)"
		return func() {}
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "..", ".ci", "pg"))
	if err == nil {
		var out []byte
		if out, err = exec.Command(script, "start").Output(); err == nil {
			err = setExports(out)
		}
	}
	if err != nil {
		noCluster = fmt.Sprintf("%s is unset and .ci/pg start failed (%v): skipping the PostgreSQL ledger tests", envDSN, err)
		return func() {}
	}
	return func() { exec.Command(script, "stop").Run() } //nolint:errcheck // best effort
}

// setExports sets the variables of lines "export NAME='value'".
func setExports(out []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, value, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if !ok {
			continue
		}
		if err := os.Setenv(name, strings.Trim(value, "'")); err != nil {
			return err
		}
	}
	if os.Getenv(envDSN) == "" {
		return fmt.Errorf("no %s in %q", envDSN, out)
	}
	return sc.Err()
}

// server returns the DSN of the server, failing or skipping t without one.
func server(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(envDSN)
	switch {
	case dsn != "":
		return dsn
	case os.Getenv("CI") != "":
		t.Fatal(noCluster)
	default:
		t.Skip(noCluster)
	}
	return ""
}

// newDSN makes a schema for one test and returns a DSN whose search_path
// is that schema, and names its connections after it (application_name);
// the schema is dropped when the test ends.
func newDSN(t testing.TB) string {
	t.Helper()
	dsn := pgtest.Schema(t, server(t), "ledgertest")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", q.Get("search_path"))
	u.RawQuery = q.Encode()
	return u.String()
}

// terminate terminates the connections of the test whose DSN is dsn that
// wait for a lock, as the database does to a connection it kills.
func terminate(ctx context.Context, dsn string) (int, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return 0, err
	}
	c, err := pgx.Connect(ctx, os.Getenv(envDSN))
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	var n int
	err = c.QueryRow(ctx, `SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE application_name = $1 AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`, u.Query().Get("application_name")).Scan(&n)
	return n, err
}

// backend runs the suite on PostgreSQL, with concurrent callers in four
// processes.
var backend = ledgertest.Backend{NewDSN: newDSN, Raw: openRaw, Plain: openPlain, V1Schema: v1Schema(), Migrations: os.DirFS("."),
	Processes: 4, Terminate: terminate, Reroute: reroute}

// reroute returns the server's address in dsn, and dsn with another.
func reroute(dsn string) (string, func(addr string) string) {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(err)
	}
	return u.Host, func(addr string) string {
		v := *u
		v.Host = addr
		return v.String()
	}
}

func v1Schema() string {
	b, err := os.ReadFile(filepath.Join("migrations", "001_tables.sql"))
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestLedger(t *testing.T) { ledgertest.Run(t, backend) }

func BenchmarkLedger(b *testing.B) { ledgertest.Bench(b, backend) }

type raw struct{ l *postgres.Ledger }

func openRaw(ctx context.Context, dsn string, opts ...ledger.Option) (ledgertest.Raw, error) {
	l, err := postgres.Open(ctx, dsn, opts...)
	return raw{l}, err
}

func (r raw) Exec(ctx context.Context, query string, args ...any) error {
	_, err := r.l.Pool().Exec(ctx, query, args...)
	return err
}

func (r raw) EnqueueTx(ctx context.Context, order string, ob ledger.Obligation, commit bool) error {
	tx, err := r.l.Pool().Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY)`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO orders (id) VALUES ($1) ON CONFLICT DO NOTHING`, order); err != nil {
		return err
	}
	if err := r.l.Enqueue(ctx, tx, ob); err != nil {
		return err
	}
	if commit {
		return tx.Commit(ctx)
	}
	return nil
}

func (r raw) Close() error { return r.l.Close() }

// plain is the database without the ledger.
type plain struct{ c *pgx.Conn }

func openPlain(ctx context.Context, dsn string) (ledgertest.Plain, error) {
	c, err := pgx.Connect(ctx, dsn)
	return plain{c}, err
}

func (p plain) Exec(ctx context.Context, query string, args ...any) error {
	_, err := p.c.Exec(ctx, query, args...)
	return err
}

func (p plain) Close() error { return p.c.Close(context.Background()) }
