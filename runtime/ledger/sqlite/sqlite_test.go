package sqlite_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgertest"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// envLocker holds, in a process TestLockedByAnotherProcess started, the
// file that process locks.
const envLocker = "WRITEGEN_SQLITE_LOCKER"

func TestMain(m *testing.M) {
	if path := os.Getenv(envLocker); path != "" {
		if err := holdLock(path); err != nil {
			fmt.Fprintln(os.Stderr, "locker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(ledgertest.Main(m, nil))
}

// backend runs the suite on SQLite files, with concurrent callers in two
// processes.
var backend = ledgertest.Backend{
	NewDSN:     func(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "ledger.db") },
	Raw:        openRaw,
	Plain:      openPlain,
	V1Schema:   v1Schema(),
	Migrations: os.DirFS("."),
	Processes:  2,
}

func v1Schema() string {
	b, err := os.ReadFile(filepath.Join("migrations", "001_tables.sql"))
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestLedger(t *testing.T) { ledgertest.Run(t, backend) }

// BenchmarkLedger measures a claim and its settlement against the floor of
// two plain commits, with the default synchronous=FULL.
func BenchmarkLedger(b *testing.B) { ledgertest.Bench(b, backend) }

// BenchmarkLedgerSynchronousNormal is BenchmarkLedger with
// WithSynchronousNormal, for the ledger and the floor alike.
func BenchmarkLedgerSynchronousNormal(b *testing.B) {
	ledgertest.Bench(b, backend, sqlite.WithSynchronousNormal())
}

func TestOpenRefusesBadPaths(t *testing.T) {
	for _, path := range []string{"", "ledger.db?mode=ro", "a#b"} {
		if l, err := sqlite.Open(context.Background(), path); err == nil {
			l.Close()
			t.Errorf("opened %q", path)
		}
	}
}

// TestOpenTogether: replicas that start together open one new file at the
// same moment, and each gets the ledger. Putting a new file in WAL mode
// takes its exclusive lock without SQLite's busy handler, so one of them
// used to fail at once with SQLITE_BUSY. The openers are connections of
// this process, which SQLite locks against each other as it locks other
// processes.
func TestOpenTogether(t *testing.T) {
	ctx := context.Background()
	for round := range 100 {
		path := filepath.Join(t.TempDir(), "ledger.db")
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				l, err := sqlite.Open(ctx, path)
				if err == nil {
					err = l.Close()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// TestSynchronous: the file is fully durable by default (FULL), and NORMAL
// only when asked for.
func TestSynchronous(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts []ledger.Option
		want int
	}{{nil, 2}, {[]ledger.Option{sqlite.WithSynchronousNormal()}, 1}} {
		l, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"), tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		var got int
		if err := l.DB().QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got); err != nil || got != tc.want {
			t.Errorf("synchronous = %d, %v; want %d", got, err, tc.want)
		}
		l.Close()
	}
}

// holdLock takes the write lock of the file at path (BEGIN EXCLUSIVE),
// says "locked", and holds it until its input ends; then it says
// "released".
func holdLock(path string) error {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		return err
	}
	if _, err := c.ExecContext(ctx, "CREATE TABLE held (n INTEGER)"); err != nil {
		return err
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // any end of input releases the lock
	if _, err := c.ExecContext(ctx, "ROLLBACK"); err != nil {
		return err
	}
	fmt.Println("released")
	return nil
}

// TestLockedByAnotherProcess: while another process holds the file's write
// lock, claims, renewals, settlements and takeovers fail with an error
// that says so, after the busy timeout, and change nothing; once the lock
// is released, the work resumes where it stopped, and the file is sound.
func TestLockedByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := sqlite.Open(ctx, path, sqlite.WithBusyTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	id := runtime.Identity{Scope: "things", Operation: "thing", BusinessKey: "held"}
	row, won, err := l.Claim(ctx, runtime.Record{Identity: id, Request: []byte("req")}, runtime.Holder{Owner: "me"}, time.Hour)
	if err != nil || !won {
		t.Fatal(won, err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envLocker+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() { once.Do(func() { stdin.Close() }) }
	t.Cleanup(func() { release(); cmd.Wait() }) //nolint:errcheck // reported below when it matters
	out := bufio.NewScanner(stdout)
	if !out.Scan() || out.Text() != "locked" {
		t.Fatalf("locker said %q\n%s", out.Text(), stderr.String())
	}

	locked := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "locked by another writer") || !strings.Contains(err.Error(), "busy timeout (200ms)") ||
			errors.Is(err, runtime.ErrLeaseLost) || errors.Is(err, ledger.ErrTransition) {
			t.Fatalf("%s while the file is locked: %v; want an error that says so", what, err)
		}
	}
	_, _, err = l.Claim(ctx, runtime.Record{Identity: runtime.Identity{Scope: "things", Operation: "thing", BusinessKey: "new"}}, runtime.Holder{Owner: "me"}, time.Hour)
	locked("claim", err)
	locked("renew", l.Renew(ctx, row.ID, row.Fence, 2*time.Hour))
	locked("settle", l.Settle(ctx, row.ID, row.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p_1"}))
	_, err = l.TakeOver(ctx, "things", "", "", time.Now().Add(3*time.Hour), runtime.Holder{Owner: "taker"}, 4*time.Hour, 0)
	locked("takeover", err)
	// Readers are not blocked: nothing changed.
	if got, err := l.Get(ctx, row.ID); err != nil || got.State != runtime.StateClaimed || got.Fence != row.Fence || string(got.Request) != "req" {
		t.Fatalf("row while the file is locked: %+v, %v", got, err)
	}

	release()
	if !out.Scan() || out.Text() != "released" {
		t.Fatalf("locker said %q\n%s", out.Text(), stderr.String())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("locker: %v\n%s", err, stderr.String())
	}
	if err := l.Settle(ctx, row.ID, row.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p_1"}); err != nil {
		t.Fatalf("settle after the lock was released: %v", err)
	}
	if _, won, err := l.Claim(ctx, runtime.Record{Identity: runtime.Identity{Scope: "things", Operation: "thing", BusinessKey: "new"}}, runtime.Holder{Owner: "me"}, time.Hour); err != nil || !won {
		t.Fatalf("claim after the lock was released: won=%v, %v", won, err)
	}
	var check string
	if err := l.DB().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	var held int
	if err := l.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'held'").Scan(&held); err != nil || held != 0 {
		t.Fatalf("the locker's rolled back table: %d, %v", held, err)
	}
}

// raw is a ledger with the statements of the caller's prepared once.
type raw struct {
	l     *sqlite.Ledger
	mu    sync.Mutex
	stmts map[string]*sql.Stmt // guarded by mu
}

func openRaw(ctx context.Context, dsn string, opts ...ledger.Option) (ledgertest.Raw, error) {
	l, err := sqlite.Open(ctx, strings.TrimPrefix(dsn, "sqlite:"), opts...)
	if err != nil {
		return nil, err
	}
	return &raw{l: l, stmts: map[string]*sql.Stmt{}}, nil
}

func (r *raw) Exec(ctx context.Context, query string, args ...any) error {
	r.mu.Lock()
	s, ok := r.stmts[query]
	if !ok {
		var err error
		if s, err = r.l.DB().PrepareContext(ctx, query); err != nil {
			r.mu.Unlock()
			return err
		}
		r.stmts[query] = s
	}
	r.mu.Unlock()
	_, err := s.ExecContext(ctx, args...)
	return err
}

func (r *raw) EnqueueTx(ctx context.Context, order string, ob ledger.Obligation, commit bool) error {
	tx, err := r.l.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO orders (id) VALUES ($1) ON CONFLICT DO NOTHING`, order); err != nil {
		return err
	}
	if err := r.l.Enqueue(ctx, tx, ob); err != nil {
		return err
	}
	if commit {
		return tx.Commit()
	}
	return nil
}

func (r *raw) Close() error { return r.l.Close() }

// plain is the file without the ledger.
type plain struct{ db *sql.DB }

func openPlain(ctx context.Context, dsn string) (ledgertest.Plain, error) {
	db, err := sql.Open("sqlite", strings.TrimPrefix(dsn, "sqlite:")+"?_pragma=busy_timeout(10000)")
	return plain{db}, err
}

func (p plain) Exec(ctx context.Context, query string, args ...any) error {
	_, err := p.db.ExecContext(ctx, query, args...)
	return err
}

func (p plain) Close() error { return p.db.Close() }
