// Command duplicates counts the duplicate effects API clients make under faults: writegen's
// clients against what careful teams write by hand, per provider pattern (profile), on one
// seeded fault schedule. In bench/, a module of its own:
//
//	go run ./duplicates [-profile NAME] [-n 300] [-seed S] [-detail]
//
// Each profile (profiles.go) is a provider pattern taken from a provider's documentation: a
// simulated provider (api.yaml, provider.go) runs on 127.0.0.1 with that pattern and counts the
// transfers it makes per order. The same workload goes through each client of the profile in
// turn, in a child process that is killed at seeded moments and started again, as a connector
// is by a crash or a deploy; after a restart it does again whatever its journal does not record
// as done. The same faults strike every client: the fault of a create request depends only on
// the seed, the order and how many requests for that order came before it.
//
// It prints one table per profile and a total, and exits with status 1 when a writegen row
// shows a duplicate effect or a lost outcome. README.md says what each column counts.
package main

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml api.yaml
//go:generate go tool writegen generate -spec api.yaml -annotations writesafety.yaml -out transfers
//go:generate go tool writegen generate -spec api.yaml -annotations writesafety-ledger.yaml -out transfersledger
//go:generate go tool writegen generate -spec api.yaml -annotations writesafety-window.yaml -out transferswindow
//go:generate go tool writegen generate -spec api.yaml -annotations writesafety-long.yaml -out transferslong
//go:generate go tool writegen generate -spec api.yaml -annotations writesafety-lookup.yaml -out transferslookup
//go:generate go tool writegen generate -spec api.yaml -annotations writesafety-nolookup.yaml -out transfersnolookup
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen-comments.yaml api-comments.yaml
//go:generate go tool writegen generate -spec api-comments.yaml -annotations writesafety-comments.yaml -out comments

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// clients are the rows a profile may show, by the arg -clients and the profiles name them.
var clients = []struct {
	name     string // as the table shows it
	arg      string // how the child process is told which it runs
	open     opener
	writegen bool // its row must show no duplicate effect and no lost outcome
	// ledger: it claims the business key in a ledger, and its row must also show no wrong
	// effect (without one, a provider that answers another payload with the first one's
	// receipt leaves it nothing to compare).
	ledger bool
	yaml   string // its annotation file, counted in its hand-written lines
}{
	{"oapi-codegen + go-retryablehttp, no key", "retryablehttp", openRetryable, false, false, ""},
	{"oapi-codegen + random key per call", "sdk", openSDK, false, false, ""},
	{"careful: key from the order, 409 retried", "careful", openCareful, false, false, ""},
	{"careful, key cut to the bound", "careful-cut", openCarefulCut, false, false, ""},
	{"careful: send once, no retry", "once", openOnce, false, false, ""},
	{"send once with a key header", "once-key", openOnceKeyed, false, false, ""},
	{"writegen, no ledger", "writegen", openWritegen, true, false, "writesafety.yaml"},
	{"writegen + SQLite ledger", "writegen-ledger", openWritegenLedger, true, true, "writesafety-ledger.yaml"},
	{"writegen, 1.5 s window", "writegen-window", openWritegenWindow, true, false, "writesafety-window.yaml"},
	{"writegen, 45-character keys", "writegen-long", openWritegenLong, true, false, "writesafety-long.yaml"},
	{"writegen + ledger + lookup", "writegen-lookup", openWritegenLookup, true, true, "writesafety-lookup.yaml"},
	{"writegen + ledger, no lookup", "writegen-nolookup", openWritegenNoLookup, true, true, "writesafety-nolookup.yaml"},
	{"writegen + ledger + bounded-list lookup", "writegen-comments", openWritegenComments, true, true, "writesafety-comments.yaml"},
}

// childMode is the first argument that makes this program the calling process of one client:
// childMode CLIENT URL DIR SEED N PROFILE REPLICA LEDGER.
const childMode = "-child"

// childArgs is the length of os.Args in a calling process.
const childArgs = 10

func main() {
	if len(os.Args) == childArgs && os.Args[1] == childMode {
		if err := child(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "duplicates:", err)
			os.Exit(1)
		}
		return
	}
	n := flag.Int("n", 300, "business operations (orders to pay out) per profile")
	prof := flag.String("profile", "", "run only this profile: "+profileNames())
	detail := flag.Bool("detail", false, "print the faults each client met and the causes of its duplicates")
	seed := flag.Uint64("seed", 0, "seed of the workload and of the fault schedule (0 picks one)")
	rate := flag.Float64("faults", faultRate, "share of the create requests that meet a random fault")
	every := flag.Int("crash-every", crashEvery, "one crash of the caller per this many orders")
	keep := flag.Bool("keep", false, "keep the callers' journals and ledgers, and say where")
	only := flag.String("clients", "", "measure only these clients, comma-separated: "+clientArgs())
	flag.Parse()
	if flag.NArg() > 0 || *n < 1 || *rate < 0 || *rate > 1 || *every < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano()%999_999) + 1
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
		for _, name := range names {
			if !strings.Contains(" "+clientArgs()+" ", " "+name+" ") {
				fmt.Fprintf(os.Stderr, "duplicates: no client %q (%s)\n", name, clientArgs())
				os.Exit(2)
			}
		}
	}
	selected := profiles
	if *prof != "" {
		pr := profileNamed(*prof)
		if pr == nil {
			fmt.Fprintf(os.Stderr, "duplicates: no profile %q (%s)\n", *prof, profileNames())
			os.Exit(2)
		}
		selected = []*profile{pr}
	}
	fmt.Printf("seed %d, %d orders per profile; faults: %g%% of create requests (request lost, response lost, reset after commit, slow commit, 503, 429), one crash of the caller per %d orders\n",
		*seed, *n, *rate*100, *every)
	ok := true
	var all []row
	for _, pr := range selected {
		fmt.Printf("\n== %s: %s\n   source: %s\n", pr.name, pr.title, pr.source)
		sc := newSchedule(*seed, *n, *rate, *every)
		sc.waitAfterLoss = pr.waitAfterLoss
		rows, pok, err := run(context.Background(), pr, sc, *n, names, *keep, *detail, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "duplicates:", err)
			os.Exit(1)
		}
		ok = ok && pok
		all = append(all, rows...)
	}
	if len(selected) > 1 {
		fmt.Println("\n== in total, per client over the profiles it ran in")
		printTotals(os.Stdout, all)
	}
	if !ok {
		os.Exit(1)
	}
}

// clientArgs lists the clients by the names -clients takes.
func clientArgs() string {
	var names []string
	for _, c := range clients {
		names = append(names, c.arg)
	}
	return strings.Join(names, " ")
}

// child runs the calling process of one client.
func child(args []string) error {
	pr := profileNamed(args[5])
	if pr == nil {
		return fmt.Errorf("no profile %q", args[5])
	}
	seed, err := strconv.ParseUint(args[3], 10, 64)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(args[4])
	if err != nil {
		return err
	}
	r, err := strconv.Atoi(args[6])
	if err != nil || r < 0 || r >= max(1, pr.replicas) {
		return fmt.Errorf("no replica %q of profile %s", args[6], pr.name)
	}
	for _, c := range clients {
		if c.arg == args[0] {
			// The parent holds standard input open: if it dies, so does this process.
			go func() {
				io.Copy(io.Discard, os.Stdin)
				os.Exit(3)
			}()
			return runChild(context.Background(), c.open, pr, args[1], args[2], args[7], r, seed, n)
		}
	}
	return fmt.Errorf("no client %q", args[0])
}

// row is what one client did.
type row struct {
	name      string
	arg       string
	profile   string
	writegen  bool
	ledger    bool
	lines     int // hand-written lines
	writes    int // logical writes asked of the client
	calls     int // requests the provider received
	dups      int // effects beyond the first, summed over orders
	lost      int // see measure
	uncertain int // logical writes reported uncertain
	failed    int // logical writes reported failed that are not lost outcomes
	lies      int // logical writes reported failed while their order has a transfer of their amount
	wrong     int // logical writes reported done with their order's transfer of another amount
	restarts  int
	wall      time.Duration
	stats     providerStats
	causes    [numCauses]int
	bad       []string // what happened to the first orders with a duplicate or a lost outcome
}

// run measures every client (or those named in only) and prints the tables; ok is false when a
// writegen row shows a duplicate effect or a lost outcome, or a writegen row with a ledger a
// wrong effect (the callers' state is then kept, as with keep).
func run(ctx context.Context, pr *profile, sc *schedule, n int, only []string, keep, detail bool, out io.Writer) (rows []row, ok bool, err error) {
	seed := sc.seed
	exe, err := os.Executable()
	if err != nil {
		return nil, false, err
	}
	root, err := os.MkdirTemp("", "writegen-duplicates-"+pr.name+"-")
	if err != nil {
		return nil, false, err
	}
	pl := newPlan(seed, n, pr)
	pairs := 0
	for _, t := range pl.tasks {
		if len(t.slots) == 2 {
			pairs++
		}
	}
	twice := len(pl.tasks) - n
	switch {
	case pr.replicas > 1:
		fmt.Fprintf(out, "   %d orders, %d logical writes over %d replicas (%d orders picked again later by another replica, %d by two at about the same moment), %d crashes of a caller; a writegen client's replicas share one %s\n\n",
			n, len(pl.slots), pr.replicas, twice, pairs, len(sc.crashes), ledgerKind)
	case pr.otherPayload:
		fmt.Fprintf(out, "   %d orders, %d logical writes (%d orders asked again later, %d asked twice at once, each ask of an order after its first with %d more in its amount), %d crashes of the caller\n\n",
			n, len(pl.slots), twice, pairs, otherAmount, len(sc.crashes))
	default:
		fmt.Fprintf(out, "   %d orders, %d logical writes (%d orders asked again later, %d asked twice at once), %d crashes of the caller\n\n",
			n, len(pl.slots), twice, pairs, len(sc.crashes))
	}

	ok = true
	for _, c := range clients {
		if !slices.Contains(pr.clients, c.arg) || only != nil && !slices.Contains(only, c.arg) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		r, err := measure(cctx, exe, root, c.arg, pr, pl, sc, seed, n)
		cancel()
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w (its state is kept in %s)", c.name, err, root)
		}
		r.name, r.arg, r.profile, r.writegen, r.ledger = c.name, c.arg, pr.name, c.writegen, c.ledger
		r.lines = handLines(c.arg, c.yaml)
		rows = append(rows, r)
		if c.writegen && (r.dups > 0 || r.lost > 0 || c.ledger && r.wrong > 0) {
			ok = false
		}
	}
	printTables(out, rows, detail)
	for _, r := range rows {
		if r.writegen && (r.dups > 0 || r.lost > 0 || r.ledger && r.wrong > 0) {
			fmt.Fprintf(out, "\n%s, orders with a duplicate, a lost outcome or a wrong effect:\n", r.name)
			for _, b := range r.bad {
				fmt.Fprintf(out, "  %s\n", b)
			}
		}
	}
	if !ok {
		fmt.Fprintf(out, "\nFAIL: a writegen row shows duplicate effects, lost outcomes or wrong effects; the callers' journals and ledgers are kept in %s\n", root)
		return rows, false, nil
	}
	if keep {
		fmt.Fprintf(out, "\nthe callers' journals and ledgers are in %s\n", root)
		return rows, true, nil
	}
	return rows, true, os.RemoveAll(root)
}

// ledgerKind is the ledger the writegen rows with one use, shared by the replicas of a client.
const ledgerKind = "SQLite ledger file"

// measure runs the workload through one client against a new provider and counts. A logical
// write is a lost outcome when the caller recorded it with a transfer that is not its order's,
// or recorded it failed or not at all while its order has a transfer that no logical write of
// the order recorded (as a receipt, or as uncertain); a write not recorded at all is lost too.
// A write recorded with its order's transfer of another amount than it asked for is a wrong
// effect; a write recorded failed while its order has a transfer of its amount is a lie.
func measure(ctx context.Context, exe, root, client string, pr *profile, pl *plan, sc *schedule, seed uint64, n int) (row, error) {
	dir := filepath.Join(root, client)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return row{}, err
	}
	sups := make([]*supervisor, max(1, pr.replicas))
	procs := make([]process, len(sups))
	for i := range sups {
		sups[i] = &supervisor{}
		procs[i] = process{gen: sups[i].generation, kill: sups[i].kill}
	}
	p, err := startProvider(pr.provider, func(id string, k int) fault { return sc.fault(pl.index[id], k) }, procs...)
	if err != nil {
		return row{}, err
	}
	ledger := "sqlite:" + filepath.Join(dir, "ledger.db")
	start := time.Now()
	restarts := make([]int, len(sups))
	errs := make([]error, len(sups))
	var wg sync.WaitGroup
	for i, sup := range sups {
		wg.Go(func() {
			restarts[i], errs[i] = sup.run(ctx, exe, childMode, client, p.urls[i], dir, strconv.FormatUint(seed, 10), strconv.Itoa(n),
				pr.name, strconv.Itoa(i), ledger)
		})
	}
	wg.Wait()
	wall := time.Since(start)
	p.close() // a slow commit may still be running: it counts
	if err := errors.Join(errs...); err != nil {
		return row{}, err
	}
	var entries []entry
	for i := range sups {
		es, err := loadJournal(journalPath(dir, i))
		if err != nil {
			return row{}, err
		}
		entries = append(entries, es...)
	}
	res := p.result()
	r := row{writes: len(pl.slots), calls: res.stats.Calls, wall: wall, stats: res.stats, causes: res.causes}
	for _, k := range restarts {
		r.restarts += k
	}
	for _, e := range res.effects {
		r.dups += max(0, e-1)
	}
	last := make(map[int]entry, len(entries))
	for _, e := range entries {
		last[e.slot] = e
	}
	// An order's transfer is known to the caller when one of the order's logical writes recorded
	// it, or recorded that it cannot tell (uncertain).
	known := make(map[int]bool)
	for slot, o := range pl.slots {
		e := last[slot]
		known[o] = known[o] || e.outcome == outcomeUncertain || e.outcome == outcomeOK && res.owner[e.id] == pl.orders[o].id
	}
	bad := make(map[int]bool)
	for slot, o := range pl.slots {
		id := pl.orders[o].id
		e, recorded := last[slot]
		if e.outcome == outcomeFailed && slices.Contains(res.paid[id], pl.amounts[slot]) {
			r.lies++ // a failure reported while the order has a transfer of the write's amount
		}
		switch {
		case e.outcome == outcomeUncertain:
			r.uncertain++
		case e.outcome == outcomeOK && res.owner[e.id] == id && res.amount[e.id] != pl.amounts[slot]:
			r.wrong++ // done, says the caller: the order's transfer, made with another amount
			bad[o] = true
		case e.outcome == outcomeOK && res.owner[e.id] == id:
		case e.outcome == outcomeOK:
			r.lost++ // a receipt of another order's transfer, or of none
			bad[o] = true
		case res.effects[id] > 0 && !known[o]:
			r.lost++ // failed or not recorded, and no other write of the order knows the transfer
			bad[o] = true
		case !recorded:
			r.lost++ // not recorded, and nothing was made: not even a failure is known
			bad[o] = true
		default:
			r.failed++
		}
		if res.effects[id] > 1 {
			bad[o] = true
		}
	}
	for o := range pl.orders {
		if bad[o] && len(r.bad) < 5 {
			id := pl.orders[o].id
			var b strings.Builder
			fmt.Fprintf(&b, "%s: %d transfers of %v; requests %v; the caller recorded", id, res.effects[id], res.paid[id], res.history[id])
			for slot, so := range pl.slots {
				if so == o {
					fmt.Fprintf(&b, " [%d: %s %s %s]", pl.amounts[slot], last[slot].outcome, last[slot].id, last[slot].err)
				}
			}
			r.bad = append(r.bad, b.String())
		}
	}
	return r, nil
}

// supervisor runs the calling process and starts it again each time a crash fault kills it.
type supervisor struct {
	mu     sync.Mutex
	gen    int // the generation of the process running now, 1 for the first
	proc   *os.Process
	exited chan struct{} // closed once proc has exited
	killed bool          // proc was killed by a crash fault
}

func (s *supervisor) generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// kill kills the calling process if it is still of generation gen, and returns once it has
// exited.
func (s *supervisor) kill(gen int) {
	s.mu.Lock()
	if gen != s.gen || s.proc == nil {
		s.mu.Unlock()
		return
	}
	s.killed = true
	proc, exited := s.proc, s.exited
	s.mu.Unlock()
	proc.Kill()
	<-exited
}

// run runs the process until it exits on its own, and returns how often it was restarted.
func (s *supervisor) run(ctx context.Context, exe string, args ...string) (restarts int, err error) {
	for {
		cmd := exec.CommandContext(ctx, exe, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if _, err := cmd.StdinPipe(); err != nil {
			return restarts, err
		}
		s.mu.Lock()
		if err := cmd.Start(); err != nil {
			s.mu.Unlock()
			return restarts, err
		}
		s.gen++
		s.proc, s.exited, s.killed = cmd.Process, make(chan struct{}), false
		exited := s.exited
		s.mu.Unlock()

		err := cmd.Wait()
		s.mu.Lock()
		killed := s.killed
		s.proc = nil
		s.mu.Unlock()
		close(exited)
		switch {
		case err == nil:
			return restarts, nil
		case ctx.Err() != nil:
			return restarts, ctx.Err()
		case !killed:
			return restarts, fmt.Errorf("calling process: %w: %s", err, strings.TrimSpace(stderr.String()))
		}
		restarts++
	}
}

// printTables prints the results of one profile, and with detail the faults each client met
// and the causes of its duplicates.
func printTables(out io.Writer, rows []row, detail bool) {
	tw := tabwriter.NewWriter(out, 0, 0, 1, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "client \t writes \t duplicates \t lost \t uncertain \t failed \t lies \t wrong effect \t net/http replays \t calls per write \t hand-written lines \t wall time \t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s \t %d \t %d \t %d \t %d \t %d \t %d \t %d \t %d \t %.2f \t %d \t %.1fs \t\n",
			r.name, r.writes, r.dups, r.lost, r.uncertain, r.failed, r.lies, r.wrong, r.stats.Replays,
			float64(r.calls)/float64(r.writes), r.lines, r.wall.Seconds())
	}
	tw.Flush()
	if !detail {
		return
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "faults met (they strike a client's n-th request for an order; clients that send more requests meet more):")
	tw = tabwriter.NewWriter(out, 0, 0, 1, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprint(tw, "client \t creates \t lookups \t")
	for f := requestLost; f < numFaults; f++ {
		fmt.Fprintf(tw, " %s \t", f)
	}
	fmt.Fprintln(tw, " restarts \t 409 \t key reused \t key too long \t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s \t %d \t %d \t", r.name, r.stats.Creates, r.stats.Lookups)
		for f := requestLost; f < numFaults; f++ {
			fmt.Fprintf(tw, " %d \t", r.stats.Faults[f])
		}
		fmt.Fprintf(tw, " %d \t %d \t %d \t %d \t\n", r.restarts, r.stats.Conflicts, r.stats.KeyReused, r.stats.KeyTooLong)
	}
	tw.Flush()
	fmt.Fprintln(out)
	fmt.Fprintln(out, "duplicate effects by cause:")
	tw = tabwriter.NewWriter(out, 0, 0, 1, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprint(tw, "client \t")
	for _, c := range causeNames {
		fmt.Fprintf(tw, " %s \t", c)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s \t", r.name)
		for _, k := range r.causes {
			fmt.Fprintf(tw, " %d \t", k)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// printTotals sums the rows of each client over the profiles it ran in.
func printTotals(out io.Writer, rows []row) {
	tw := tabwriter.NewWriter(out, 0, 0, 1, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "client \t profiles \t writes \t duplicates \t lost \t uncertain \t failed \t lies \t wrong effect \t net/http replays \t calls per write \t")
	for _, c := range clients {
		var t row
		var in []string
		for _, r := range rows {
			if r.arg != c.arg {
				continue
			}
			in = append(in, r.profile)
			t.writes += r.writes
			t.calls += r.calls
			t.dups += r.dups
			t.lost += r.lost
			t.uncertain += r.uncertain
			t.failed += r.failed
			t.lies += r.lies
			t.wrong += r.wrong
			t.stats.Replays += r.stats.Replays
		}
		if len(in) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s \t %s \t %d \t %d \t %d \t %d \t %d \t %d \t %d \t %d \t %.2f \t\n", c.name, strings.Join(in, ","),
			t.writes, t.dups, t.lost, t.uncertain, t.failed, t.lies, t.wrong, t.stats.Replays, float64(t.calls)/float64(t.writes))
	}
	tw.Flush()
}
