package scenario

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime/ledger/postgres/pgtest"
)

var (
	soakSeed      = flag.Uint64("seed", 0, "first seed of the soak (default: $WRITEGEN_SOAK_SEED, else the time)")
	soakSchedules = flag.Int("schedules", 1000, "schedules the single-process soaks run (100 with -short)")
	soakReplicas  = flag.Int("replica-schedules", 0, "schedules the replica soak runs (default: $WRITEGEN_SOAK_REPLICAS, else 100; 20 with -short)")
)

// The lease of the replica soak's claims and the deadline of each attempt: slow commits run one
// to two leases, and a stalled replica stays stopped as long.
const (
	replicaLease   = 300 * time.Millisecond
	replicaAttempt = 200 * time.Millisecond
)

// TestSoakSQLite runs the soak on an SQLite ledger, with the relay in this process.
func TestSoakSQLite(t *testing.T) {
	soak(t, Options{Ledger: "sqlite:" + filepath.Join(memDir(t), "ledger.db"), Instant: true}, singleSchedules(), RandomSchedule)
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

// TestSoakPostgres runs the soak on a PostgreSQL ledger, in a schema of its own, with the relay
// in this process.
func TestSoakPostgres(t *testing.T) {
	soak(t, Options{Ledger: pgtest.Schema(t, pgDSN(t), "soak"), Instant: true}, singleSchedules(), RandomSchedule)
}

// TestSoakReplicas runs the soak on a PostgreSQL ledger with the relay in two processes of its
// own (this test binary, run again), each with its webhook server, its inbox and outbox workers
// and its periodic Resume, under a short lease: slow commits run longer than the lease, and in
// about half the schedules a replica is killed and started again, or stopped for longer than
// the lease and then continued, so that its claims are taken over by the other one.
//
// It runs 100 schedules (20 with -short) to keep the package's tests within a few minutes;
// WRITEGEN_SOAK_REPLICAS=1000 (or -replica-schedules 1000) runs the full soak.
func TestSoakReplicas(t *testing.T) {
	n := 100
	if s := os.Getenv("WRITEGEN_SOAK_REPLICAS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("WRITEGEN_SOAK_REPLICAS=%q: want a number of schedules", s)
		}
	}
	if *soakReplicas > 0 {
		n = *soakReplicas
	}
	if testing.Short() {
		n = min(n, 20)
	}
	o := Options{Ledger: pgtest.Schema(t, pgDSN(t), "soak"), Replicas: 2, Lease: replicaLease, AttemptTimeout: replicaAttempt,
		ResumeEvery: replicaLease / 3}
	soak(t, o, n, func(seed uint64, escalations int) Schedule {
		return RandomReplicaSchedule(seed, escalations, replicaLease)
	})
}

func singleSchedules() int {
	if testing.Short() {
		return min(*soakSchedules, 100)
	}
	return *soakSchedules
}

// pgDSN returns WRITEGEN_PG_DSN, or skips the test without it (eval "$(.ci/pg start)" sets
// it); in CI its absence is a failure.
func pgDSN(t *testing.T) string {
	dsn := os.Getenv("WRITEGEN_PG_DSN")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("WRITEGEN_PG_DSN is not set: in CI the PostgreSQL soaks must run (test.sh starts a cluster)")
		}
		t.Skip(`WRITEGEN_PG_DSN is not set: run eval "$(.ci/pg start)" to soak on PostgreSQL too`)
	}
	return dsn
}

// soak runs n small random schedules, one after another, on one Env, and fails on the first
// schedule after which something that must hold did not.
func soak(t *testing.T, o Options, n int, schedule func(seed uint64, escalations int) Schedule) {
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
	count := "-schedules"
	if o.Replicas > 1 {
		count = "-replica-schedules"
	}
	t.Logf("soak: %d schedules from seed %d (replay: go test ./generated_example/scenario -run '^%s$' -seed %d %s %d)",
		n, seed, t.Name(), seed, count, n)

	// WRITEGEN_SOAK_VERBOSE logs every schedule with its wall time, and has the relay processes
	// log their errors (shown when one exits unexpectedly).
	verbose := os.Getenv("WRITEGEN_SOAK_VERBOSE") != ""
	ctx := t.Context()
	env, err := NewEnv(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := env.Close(); err != nil {
			t.Error(err)
		}
	}()
	start := time.Now()
	for i := range n {
		s := schedule(seed+uint64(i), 4)
		runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		t0 := time.Now()
		violations, err := env.Run(runCtx, s)
		cancel()
		if verbose {
			t.Logf("%v %v", time.Since(t0).Round(time.Millisecond), s)
		}
		if err != nil {
			t.Fatalf("schedule %d (%v): %v\nreplay: -seed %d", i, s, err, seed)
		}
		if len(violations) > 0 {
			t.Fatalf("schedule %d (%v): %d checks did not hold:\n  %s\nreplay: -seed %d %s %d (or -seed %d %s 1 for this schedule alone)",
				i, s, len(violations), strings.Join(violations, "\n  "), seed, count, n, s.Seed, count)
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
	mode := env.Ledger().Dialect() + ", one relay process"
	if o.Replicas > 1 {
		mode = fmt.Sprintf("%s, %d relay processes", env.Ledger().Dialect(), o.Replicas)
	}
	t.Logf("soak on %s: %d schedules, %d escalations, %d faults injected, %d duplicates avoided, %d duplicates, %d lost, "+
		"%d uncertain outcomes (%d writes uncertain when checked), %d rows taken over by Resume, in %s\n%s",
		mode, f.Runs, f.Conversations, f.FaultsInjected(), f.Duplicates(), f.Checked.Duplicates, f.Checked.Lost,
		len(f.Notices), f.Checked.Listed, f.Resumed.Taken, time.Since(start).Round(time.Millisecond), b.String())
	if f.Conversations == 0 || f.FaultsInjected() == 0 {
		t.Errorf("the soak exercised nothing: %d escalations, %d faults", f.Conversations, f.FaultsInjected())
	}
}
