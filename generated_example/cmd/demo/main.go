// Command demo runs the escalation relay end to end, on an embedded SQLite ledger, against a
// simulated chat platform and support desk that inject faults: lost requests and responses, slow
// commits, outages, token rotations during writes, duplicated and out-of-order webhooks, agents
// replying at the same moment. It prints what happened and checks that no conversation got two
// threads, no reply was delivered twice, every escalation ended with a thread or an uncertain
// record, and every event was handled.
//
//	go run ./generated_example/cmd/demo [-n 200] [-seed 1] [-rate 100] [-faults 0.2] [-db FILE]
//
// The ledger goes to a new temporary directory unless -db names a file (or a postgres:// URL);
// it is kept, so that "writegen ledger list" can show the uncertain outcomes afterwards.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/writegen/writegen/generated_example/scenario"
)

func main() {
	n := flag.Int("n", 200, "escalations to drive")
	seed := flag.Uint64("seed", 1, "seed of every random choice")
	rate := flag.Float64("rate", 100, "escalation requests per second (0: all at once)")
	faults := flag.Float64("faults", 0.2, "chance that a write request meets a fault")
	db := flag.String("db", "", "ledger: an SQLite file or a postgres:// URL (default: a new temporary directory)")
	flag.Parse()
	if flag.NArg() > 0 || *n < 1 || *faults < 0 || *faults > 1 || *rate < 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ok, err := run(ctx, os.Stdout, config{n: *n, seed: *seed, rate: *rate, faults: *faults, db: *db})
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
	n       int
	seed    uint64
	rate    float64
	faults  float64
	db      string
	instant bool // backoff costs no real time (for tests)
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
		Pause:       faults / 20,
		Deliveries:  faults,
		Rate:        c.rate,
	}
	fmt.Fprintf(out, "Escalation relay: %d escalations, seed %d, faults %.0f%% of writes, ledger %s\n\n", n, c.seed, 100*faults, dsn)

	start := time.Now()
	env, err := scenario.NewEnv(ctx, scenario.Options{Ledger: dsn, Instant: c.instant})
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

	f := env.Figures()
	f.Write(out)
	fmt.Fprintln(out)
	if len(f.Notices) > 0 {
		fmt.Fprintf(out, "List them:  go run ./cmd/writegen ledger list -db %s\n", dsn)
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
