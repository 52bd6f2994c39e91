package scenario

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/generated_example/simulator"
	"github.com/writegen/writegen/runtime/ledger/postgres/pgtest"
)

var (
	soakSeed      = flag.Uint64("seed", 0, "first seed of the soak (default: $WRITEGEN_SOAK_SEED, else the time)")
	soakSchedules = flag.Int("schedules", 1000, "schedules the single-process soaks run (100 with -short)")
	soakReplicas  = flag.Int("replica-schedules", 0, "schedules the replica soak runs (default: $WRITEGEN_SOAK_REPLICAS, else 100; 20 with -short)")
	soakNotes     = flag.Int("notes", 0, "TestNoteFigure: notes each of its soaks adds (default: $WRITEGEN_SOAK_NOTES; skipped without)")
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
// schedule after which something that must hold did not; then it lets Resume ask again what it
// is to ask again (for settleLimit at most, see Env.Settle) and checks every run's escalations
// once more.
func soak(t *testing.T, o Options, n int, schedule func(seed uint64, escalations int) Schedule) {
	seed := soakSeedOf(t)
	count := "-schedules"
	if o.Replicas > 1 {
		count = "-replica-schedules"
	}
	t.Logf("soak: %d schedules from seed %d (replay: go test ./generated_example/scenario -run '^%s$' -seed %d %s %d)",
		n, seed, t.Name(), seed, count, n)
	start := time.Now()
	f, env, _ := runSoak(t, o, seed, soakPlan{schedules: n, count: count, replay: fmt.Sprintf("%s %d", count, n), settle: settleLimit(o)}, schedule)
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

// settleLimit is how long a soak's Settle waits for Resume's asks at the end: with an instant
// clock it jumps to each ask, so they cost little; with real clocks a few seconds, to keep the
// test's time (Figures.End says how many notes were still to be asked again then).
func settleLimit(o Options) time.Duration {
	if o.Instant {
		return time.Minute
	}
	return 5 * time.Second
}

// soakSeedOf returns the first seed of the soak: -seed, else $WRITEGEN_SOAK_SEED, else the time.
func soakSeedOf(t *testing.T) uint64 {
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
	return seed
}

// soakPlan says how many schedules a soak runs and how it ends.
type soakPlan struct {
	schedules int           // schedules to run (at most, with notes)
	notes     int           // if not 0: stop once the checks have counted this many notes
	replay    string        // the flags that replay the soak, after -seed
	count     string        // the flag that sets schedules, to replay one alone ("" if none)
	settle    time.Duration // how long Settle may wait at the end
	// keepGoing, for a measurement, reports a schedule's checks that did not hold and goes on
	// with the next schedule (the test fails at its end), instead of stopping at the first.
	keepGoing bool
}

// runSoak runs the schedules of p from seed, one after another, on one Env, and fails on the
// first schedule after which something that must hold did not; then it settles the Env (see
// Env.Settle) and checks every run's escalations again. It returns the figures and the Env,
// closed when the test ends.
func runSoak(t *testing.T, o Options, seed uint64, p soakPlan, schedule func(seed uint64, escalations int) Schedule) (f Figures, env *Env, failed int) {
	// WRITEGEN_SOAK_VERBOSE logs every schedule with its wall time, and has the relay processes
	// log their errors (shown when one exits unexpectedly).
	verbose := os.Getenv("WRITEGEN_SOAK_VERBOSE") != ""
	ctx := t.Context()
	env, err := NewEnv(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	report := t.Fatalf
	if p.keepGoing {
		report = t.Errorf
	}
	t.Cleanup(func() {
		if err := env.Close(); err != nil {
			t.Error(err)
		}
	})
	for i := range p.schedules {
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
			alone := ""
			if p.count != "" {
				alone = fmt.Sprintf(" (or -seed %d %s 1 for this schedule alone)", s.Seed, p.count)
			}
			failed += len(violations)
			report("schedule %d (%v): %d checks did not hold:\n  %s\nreplay: -seed %d %s%s",
				i, s, len(violations), strings.Join(violations, "\n  "), seed, p.replay, alone)
		}
		if p.notes > 0 && env.Figures().Checked.Notes >= p.notes {
			break
		}
	}
	settleCtx, cancel := context.WithTimeout(ctx, p.settle+2*time.Minute)
	violations, err := env.Settle(settleCtx, p.settle)
	cancel()
	if err != nil {
		t.Fatalf("settling after the schedules: %v\nreplay: -seed %d", err, seed)
	}
	if len(violations) > 0 {
		failed += len(violations)
		t.Errorf("after Resume asked again, %d checks of the runs' escalations did not hold:\n  %s\nreplay: -seed %d %s",
			len(violations), strings.Join(violations, "\n  "), seed, p.replay)
	}
	lost, err := env.Unhandled(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) > 0 {
		t.Errorf("%d webhook events sent but not handled (seed %d): %v", len(lost), seed, lost)
	}
	return env.Figures(), env, failed
}

// TestNoteFigure measures how many of the notes the relay adds end uncertain, and so are left to
// a person: AddNote takes no key at the desk and is found by a walk of the thread's notes,
// which the desk lists some time after they commit (the lookup is eventual, its lag declared).
// Each soak (SQLite and PostgreSQL with the relay in this process, PostgreSQL with two relay
// processes) runs schedules from one seed until its checks have counted the notes asked for,
// twice: with Resume asking no lookup again (runtime.WithReask(0, 0), as before Resume asked
// again), then with the runtime's default schedule; the relays call Resume now and again, as
// the README has a connector do, and once the schedules are run, Resume is given the time to
// ask what it was to ask (Env.Settle, up to 10 minutes) before every run's escalations are
// checked again. The table is printed with -v:
//
//	WRITEGEN_SOAK_NOTES=10000 go test ./generated_example/scenario -run '^TestNoteFigure$' -v -timeout 10h
//
// (-notes N does the same; -run 'TestNoteFigure/sqlite' runs one soak, -seed N fixes the seed).
// Without WRITEGEN_PG_DSN the PostgreSQL soaks are skipped.
func TestNoteFigure(t *testing.T) {
	notes := *soakNotes
	if s := os.Getenv("WRITEGEN_SOAK_NOTES"); notes == 0 && s != "" {
		var err error
		if notes, err = strconv.Atoi(s); err != nil || notes < 1 {
			t.Fatalf("WRITEGEN_SOAK_NOTES=%q: want a number of notes", s)
		}
	}
	if notes == 0 {
		t.Skip("the notes' figure runs only when asked: WRITEGEN_SOAK_NOTES=10000 (or -notes 10000)")
	}
	seed := soakSeedOf(t)
	var rows []NoteFigure
	defer func() {
		var b strings.Builder
		WriteNoteFigures(&b, rows)
		t.Logf("notes' figure: AddNote (no key; its lookup %s; the desk lists a note up to %v after it commits), "+
			"at least %d notes per soak, schedules from seed %d:\n%s", declaredLag(t, "addNote"), simulator.DefaultNoteLag, notes, seed, b.String())
	}()
	soaks := []struct {
		name, soak string
		opts       func(t *testing.T) Options
		schedule   func(seed uint64, escalations int) Schedule
	}{
		{"sqlite", "SQLite, one relay process", func(t *testing.T) Options {
			return Options{Ledger: "sqlite:" + filepath.Join(memDir(t), "ledger.db"), Instant: true}
		}, RandomSchedule},
		{"postgres", "PostgreSQL, one relay process", func(t *testing.T) Options {
			return Options{Ledger: pgtest.Schema(t, pgDSN(t), "notes"), Instant: true}
		}, RandomSchedule},
		{"replicas", "PostgreSQL, two relay processes", func(t *testing.T) Options {
			return Options{Ledger: pgtest.Schema(t, pgDSN(t), "notes"), Replicas: 2, Lease: replicaLease,
				AttemptTimeout: replicaAttempt, ResumeEvery: replicaLease / 3}
		}, func(seed uint64, escalations int) Schedule {
			return RandomReplicaSchedule(seed, escalations, replicaLease)
		}},
	}
	for _, sk := range soaks {
		t.Run(sk.name, func(t *testing.T) {
			for _, resume := range []struct {
				name  string
				times int
			}{{"none", -1}, {"default", 0}} {
				t.Run(resume.name, func(t *testing.T) {
					o := sk.opts(t)
					o.ReaskTimes = resume.times
					start := time.Now()
					f, _, failed := runSoak(t, o, seed, soakPlan{schedules: 1 << 30, notes: notes, settle: 10 * time.Minute,
						replay: fmt.Sprintf("-run '^%s$' -notes %d", t.Name(), notes), keepGoing: true}, sk.schedule)
					row := NoteFigureOf(sk.soak, resume.name, seed, f, time.Since(start))
					row.Failed = failed
					rows = append(rows, row)
					var b strings.Builder
					WriteNoteFigures(&b, []NoteFigure{row})
					t.Logf("%s\n%s", strings.Repeat("-", 20), b.String())
				})
			}
		})
	}
}

// declaredLag returns the lag or settle time of op's lookup, as the support client's
// WRITE_SAFETY.json records it.
func declaredLag(t *testing.T, op string) string {
	b, err := os.ReadFile(filepath.Join("..", "support", "WRITE_SAFETY.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ws struct {
		Writes []struct {
			Operation, Lookup, Lag string
		}
	}
	if err := json.Unmarshal(b, &ws); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws.Writes {
		if w.Operation == op {
			return w.Lookup + " " + w.Lag
		}
	}
	t.Fatalf("WRITE_SAFETY.json has no write %s", op)
	return ""
}
