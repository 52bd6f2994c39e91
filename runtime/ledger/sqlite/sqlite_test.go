package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgertest"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

func TestMain(m *testing.M) { os.Exit(ledgertest.Main(m, nil)) }

// backend runs the suite on SQLite files, with concurrent callers as
// goroutines of one process.
var backend = ledgertest.Backend{
	NewDSN:    func(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "ledger.db") },
	Raw:       openRaw,
	Processes: 1,
}

func TestLedger(t *testing.T) { ledgertest.Run(t, backend) }

func BenchmarkLedger(b *testing.B) { ledgertest.Bench(b, backend) }

func TestOpenRefusesBadPaths(t *testing.T) {
	for _, path := range []string{"", "ledger.db?mode=ro", "a#b"} {
		if l, err := sqlite.Open(context.Background(), path); err == nil {
			l.Close()
			t.Errorf("opened %q", path)
		}
	}
}

type raw struct{ l *sqlite.Ledger }

func openRaw(ctx context.Context, dsn string) (ledgertest.Raw, error) {
	l, err := sqlite.Open(ctx, strings.TrimPrefix(dsn, "sqlite:"))
	return raw{l}, err
}

func (r raw) Exec(ctx context.Context, query string, args ...any) error {
	_, err := r.l.DB().ExecContext(ctx, query, args...)
	return err
}

func (r raw) EnqueueTx(ctx context.Context, order string, ob ledger.Obligation, commit bool) error {
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

func (r raw) Close() error { return r.l.Close() }
