package scenario

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	soakSeed      = flag.Uint64("seed", 0, "first seed of the soak (default: $WRITEGEN_SOAK_SEED, else the time)")
	soakSchedules = flag.Int("schedules", 1000, "schedules the soak runs (100 with -short)")
)

// TestSoakSQLite runs the soak on an SQLite ledger.
func TestSoakSQLite(t *testing.T) {
	soak(t, "sqlite:"+filepath.Join(memDir(t), "ledger.db"))
}

// memDir returns a temporary directory in memory (/dev/shm) when there is one, else on disk.
// The soak checks what the relay does under faults and concurrency, not how fast the disk
// syncs: on disk, SQLite's commits (tens per escalation, each synced) make it several times
// slower.
func memDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/dev/shm", "writegen-soak-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestSoakPostgres runs the soak on a PostgreSQL ledger, in a schema of its own. It needs
// WRITEGEN_PG_DSN (eval "$(.ci/pg start)" sets it); in CI its absence is a failure.
func TestSoakPostgres(t *testing.T) {
	dsn := os.Getenv("WRITEGEN_PG_DSN")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("WRITEGEN_PG_DSN is not set: in CI the PostgreSQL soak must run (test.sh starts a cluster)")
		}
		t.Skip(`WRITEGEN_PG_DSN is not set: run eval "$(.ci/pg start)" to soak on PostgreSQL too`)
	}
	soak(t, freshSchema(t, dsn))
}

// soak runs many small random schedules, one after another, on one relay and ledger, and fails
// on the first schedule after which something that must hold did not.
func soak(t *testing.T, ledgerDSN string) {
	seed := *soakSeed
	if seed == 0 {
		if s := os.Getenv("WRITEGEN_SOAK_SEED"); s != "" {
			var err error
			if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
				t.Fatalf("WRITEGEN_SOAK_SEED=%q: %v", s, err)
			}
		} else {
			seed = uint64(time.Now().UnixNano())
		}
	}
	n := *soakSchedules
	if testing.Short() {
		n = min(n, 100)
	}
	t.Logf("soak: %d schedules from seed %d (replay: go test ./generated_example/scenario -run %s -seed %d)", n, seed, t.Name(), seed)

	ctx := t.Context()
	env, err := NewEnv(ctx, Options{Ledger: ledgerDSN, Instant: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	start := time.Now()
	for i := range n {
		s := RandomSchedule(seed+uint64(i), 4)
		runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		violations, err := env.Run(runCtx, s)
		cancel()
		if err != nil {
			t.Fatalf("schedule %d (%v): %v\nreplay: -seed %d", i, s, err, seed)
		}
		if len(violations) > 0 {
			t.Fatalf("schedule %d (%v): %d checks did not hold:\n  %s\nreplay: -seed %d (or -seed %d -schedules 1 for this schedule alone)",
				i, s, len(violations), strings.Join(violations, "\n  "), seed, s.Seed)
		}
	}
	lost, err := env.Unhandled(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) > 0 {
		t.Errorf("%d webhook events sent but not handled (seed %d): %v", len(lost), seed, lost)
	}
	f := env.Figures()
	var b strings.Builder
	f.Write(&b)
	t.Logf("soak on %s: %d schedules, %d escalations, %d faults injected, %d duplicates avoided, %d uncertain, in %s\n%s",
		env.Ledger().Dialect(), f.Runs, f.Conversations, f.FaultsInjected(), f.Duplicates(), len(f.Notices),
		time.Since(start).Round(time.Millisecond), b.String())
	if f.Conversations == 0 || f.FaultsInjected() == 0 {
		t.Errorf("the soak exercised nothing: %d escalations, %d faults", f.Conversations, f.FaultsInjected())
	}
}

// freshSchema creates a schema of its own for the test, dropped at its end, and returns dsn
// with that schema as search_path.
func freshSchema(t *testing.T, dsn string) string {
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("soak_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("WRITEGEN_PG_DSN: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
