// Command demo runs the escalation relay end to end, on an embedded SQLite ledger, against a
// simulated chat platform and support desk that inject faults: lost requests and responses, slow
// commits, outages, token rotations during writes, duplicated and out-of-order webhooks, agents
// replying at the same moment. It prints what happened and checks that no conversation got two
// threads, no reply was delivered twice, every escalation ended with a thread or an uncertain
// record, and every event was handled.
//
//	go run ./generated_example/cmd/demo [-n 200] [-seed 1] [-rate 100] [-faults 0.2] [-db FILE] [-replicas N]
//
// The ledger goes to a new temporary directory unless -db names a file (or a postgres:// URL);
// it is kept, so that "writegen ledger list" can show the uncertain outcomes afterwards.
//
// With -replicas 2 (and a postgres:// -db) the relay runs in two processes of its own, this
// program run again, on the one ledger, with claims under a 300ms lease; slow commits run
// longer than the lease, and one of the processes is killed and started again, or stopped for a
// while, during the run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/writegen/writegen/generated_example/scenario"
)

func main() {
	if code, ok := scenario.ReplicaMain(); ok {
		os.Exit(code)
	}
	n := flag.Int("n", 200, "escalations to drive")
	seed := flag.Uint64("seed", 1, "seed of every random choice")
	rate := flag.Float64("rate", 100, "escalation requests per second (0: all at once)")
	faults := flag.Float64("faults", 0.2, "chance that a write request meets a fault")
	db := flag.String("db", "", "ledger: an SQLite file or a postgres:// URL (default: a new temporary directory)")
	replicas := flag.Int("replicas", 0, "relay processes sharing the ledger (2 or more; needs a postgres:// -db); 0: the relay in this process")
	flag.Parse()
	pg := strings.HasPrefix(*db, "postgres://") || strings.HasPrefix(*db, "postgresql://")
	if flag.NArg() > 0 || *n < 1 || *faults < 0 || *faults > 1 || *rate < 0 || *replicas < 0 || *replicas == 1 || *replicas > 1 && !pg {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ok, err := run(ctx, os.Stdout, config{n: *n, seed: *seed, rate: *rate, faults: *faults, db: *db, replicas: *replicas})
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// config is what the flags ask for.
type config struct {
	n        int
	seed     uint64
	rate     float64
	faults   float64
	db       string
	replicas int
	instant  bool // backoff costs no real time (for tests)
}

// run runs the demo and reports whether every check held.
func run(ctx context.Context, out *os.File, c config) (bool, error) {
	n, faults, db := c.n, c.faults, c.db
	if db == "" {
		dir, err := os.MkdirTemp("", "writegen-demo-")
		if err != nil {
			return false, err
		}
		db = filepath.Join(dir, "ledger.db")
	}
	dsn := db
	if !strings.HasPrefix(db, "postgres://") && !strings.HasPrefix(db, "postgresql://") {
		dsn = "sqlite:" + db
	}
	s := scenario.Schedule{
		Seed:        c.seed,
		Escalations: n,
		Repeat:      0.15,
		MaxReplies:  3,
		WriteFaults: faults,
		Faults:      scenario.AllFaults,
		Stubborn:    faults / 8,
		// A stubborn write's outage outlasts a call's attempts and then heals: one that never
		// heals would, once a lookup proves a note was not applied, be tried again for ever.
		StubbornFor: scenario.StubbornRequests,
		Pause:       faults / 20,
		Deliveries:  faults,
		Rate:        c.rate,
	}
	o := scenario.Options{Ledger: dsn, Instant: c.instant}
	where := "one relay process"
	if c.replicas > 1 {
		const lease = 300 * time.Millisecond
		o = scenario.Options{Ledger: dsn, Replicas: c.replicas, Lease: lease, AttemptTimeout: 200 * time.Millisecond, ResumeEvery: lease / 3}
		s.Pause, s.SlowCommit = 0, lease
		// One replica is killed or stopped while the requests arrive.
		s.Crash, s.Stall, s.Down, s.Stopped = 0.5, 1, lease, lease
		s.Within = 200 * time.Millisecond
		if c.rate > 0 {
			s.Within = time.Duration(float64(n) / c.rate * float64(time.Second))
		}
		where = fmt.Sprintf("%d relay processes", c.replicas)
	}
	fmt.Fprintf(out, "Escalation relay: %d escalations, seed %d, faults %.0f%% of writes, %s, ledger %s\n\n", n, c.seed, 100*faults, where, redact(dsn))

	start := time.Now()
	env, err := scenario.NewEnv(ctx, o)
	if err != nil {
		return false, err
	}
	defer env.Close()
	done := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		progress(out, env, n, start, done)
	}()
	violations, err := env.Run(ctx, s)
	close(done)
	<-progressDone
	if err != nil {
		return false, err
	}
	// The relays' Resume asks again, once their lag has passed, the lookups of the notes whose
	// call ended before they could answer; the summary ends with what stays uncertain then.
	more, err := env.Settle(ctx, 30*time.Second)
	if err != nil {
		return false, err
	}
	violations = append(violations, more...)

	f := env.Figures()
	f.Write(out)
	fmt.Fprintln(out)
	if len(f.Notices) > 0 {
		fmt.Fprintf(out, "List them:  go run ./cmd/writegen ledger list -db %s\n", redact(dsn))
	}
	fmt.Fprintf(out, "Took %s.\n\n", time.Since(start).Round(10*time.Millisecond))
	if len(violations) > 0 {
		fmt.Fprintf(out, "FAILED: %d checks did not hold:\n", len(violations))
		for _, v := range violations {
			fmt.Fprintln(out, "  "+v)
		}
		return false, nil
	}
	fmt.Fprintln(out, "Checked: no conversation has two threads, no reply was delivered twice, every")
	fmt.Fprintln(out, "escalation has its thread or an uncertain record, every webhook event was handled.")
	return true, nil
}

// progress shows the run's progress until done is closed: one line rewritten in place on a
// terminal, a plain line every second otherwise.
func progress(out *os.File, env *scenario.Env, n int, start time.Time, done <-chan struct{}) {
	fi, err := out.Stat()
	tty := err == nil && fi.Mode()&os.ModeCharDevice != 0
	every := time.Second
	if tty {
		every = 100 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	printed := false
	for {
		select {
		case <-done:
			switch {
			case tty:
				fmt.Fprint(out, "\r\x1b[K")
			case printed:
				fmt.Fprintln(out)
			}
			return
		case <-t.C:
		}
		printed = true
		line := status(env.Figures(), n, time.Since(start))
		if tty {
			fmt.Fprint(out, "\r\x1b[K"+line)
		} else {
			io.WriteString(out, line+"\n")
		}
	}
}

func status(f scenario.Figures, n int, took time.Duration) string {
	return fmt.Sprintf("%5.1fs  escalations %d/%d settled · threads %d · uncertain %d · faults %d · webhook events %d",
		took.Seconds(), f.Settled(), n, f.Threads, len(f.Notices), f.FaultsInjected(), f.Events)
}

// redact hides the password of a URL.
func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return u.String()
		}
	}
	return dsn
}
