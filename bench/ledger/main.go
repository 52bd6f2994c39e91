// Command ledger measures what the ledger costs a keyed write under concurrency: keyed writes
// per second made by 1, 8 and 64 concurrent callers against a slow provider on 127.0.0.1, with
// no ledger, with the embedded SQLite ledger and, when a PostgreSQL DSN is given, with the
// PostgreSQL ledger.
//
// Run it in bench/, a module of its own:
//
//	go run ./ledger [-latency 20ms] [-cell 2s] [-rounds 3] [-callers 1,8,64] [-pg DSN]
//
// The client is the duplicate benchmark's generated transfers client: with no ledger the package
// transfers (the provider key alone), with one transfersledger (the business key claimed before
// the call and settled after it). Every write pays out a fresh order. The provider answers each
// create after -latency, as a real provider's round trip takes time.
//
// Each cell (a number of callers and a ledger) runs for -cell; the cells are interleaved, round
// after round, so that the machine's noise falls on all alike, and each figure is the median of
// -rounds. It prints writes per second, their ratio to the same callers with no ledger, and the
// ledger's commits per write: a write alone needs two (its claim, before the call, and its
// settlement, after), and writes made together share them (group commit).
//
// The PostgreSQL DSN defaults to $WRITEGEN_PG_DSN; without one, PostgreSQL is left out, with a
// message. SQLite syncs as it does by default (synchronous=FULL); -sqlite-normal measures
// synchronous=NORMAL.
//
// With -growth it measures instead how the ledger's costs grow with the rows it keeps (see
// growth.go):
//
//	go run ./ledger -growth 1e5,1e6,1e7 -dir DIR [-pg DSN] [-claims 400] [-rounds 5] [-keep 72h]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/writegen/writegen/bench/duplicates/transfers"
	"github.com/writegen/writegen/bench/duplicates/transfersledger"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/postgres"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ledger:", err)
		os.Exit(1)
	}
}

// A backend is one way the callers write: its name and a writer per cell.
type backend struct {
	name string
	// open returns the write of one order, and the ledger (nil for none).
	open func(ctx context.Context, url string, hc *http.Client) (write func(ctx context.Context, order string) error, l *ledger.Ledger, err error)
}

// cell is what one run of callers against one backend measured.
type cell struct {
	writes  int64
	elapsed time.Duration
	commits int64 // the ledger's commits, 0 without one
}

func (c cell) perSecond() float64 { return float64(c.writes) / c.elapsed.Seconds() }

func run(ctx context.Context, args []string, out io.Writer) error {
	if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(strings.TrimLeft(a, "-"), "growth") }) {
		return runGrowth(ctx, args, out)
	}
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	latency := fs.Duration("latency", 20*time.Millisecond, "how long the provider takes to answer a create")
	length := fs.Duration("cell", 2*time.Second, "how long each cell runs, each round")
	rounds := fs.Int("rounds", 3, "rounds of all cells; figures are medians")
	callersFlag := fs.String("callers", "1,8,64", "numbers of concurrent callers, comma-separated")
	pgDSN := fs.String("pg", os.Getenv("WRITEGEN_PG_DSN"), "a PostgreSQL DSN for the PostgreSQL ledger; empty leaves it out")
	normal := fs.Bool("sqlite-normal", false, "SQLite with synchronous=NORMAL instead of FULL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var callers []int
	for f := range strings.SplitSeq(*callersFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-callers: %q is not a positive number", f)
		}
		callers = append(callers, n)
	}
	if *rounds < 1 {
		return errors.New("-rounds: at least 1")
	}

	dir, err := os.MkdirTemp("", "writegen-bench-ledger-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := startProvider(*latency)
	if err != nil {
		return err
	}
	defer p.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}

	var sqliteOpts []ledger.Option
	mode := "FULL"
	if *normal {
		sqliteOpts, mode = append(sqliteOpts, sqlite.WithSynchronousNormal()), "NORMAL"
	}
	backends := []backend{
		{"no ledger", func(ctx context.Context, url string, hc *http.Client) (func(context.Context, string) error, *ledger.Ledger, error) {
			c, err := transfers.NewClient(url, runtime.WithHTTPClient(hc))
			if err != nil {
				return nil, nil, err
			}
			return func(ctx context.Context, order string) error {
				_, err := c.CreateTransfer(ctx, transfers.CreateTransferKey{OrderID: order}, transfers.NewTransfer{OrderID: order, Amount: 100, Currency: "eur"})
				return err
			}, nil, nil
		}},
		{"SQLite ledger (" + mode + ")", func(ctx context.Context, url string, hc *http.Client) (func(context.Context, string) error, *ledger.Ledger, error) {
			l, err := sqlite.Open(ctx, filepath.Join(dir, "ledger.db"), sqliteOpts...)
			if err != nil {
				return nil, nil, err
			}
			return ledgerWrite(url, hc, l.Ledger)
		}},
	}
	if *pgDSN != "" {
		backends = append(backends, backend{"PostgreSQL ledger", func(ctx context.Context, url string, hc *http.Client) (func(context.Context, string) error, *ledger.Ledger, error) {
			l, err := postgres.Open(ctx, *pgDSN)
			if err != nil {
				return nil, nil, err
			}
			return ledgerWrite(url, hc, l.Ledger)
		}})
	} else {
		fmt.Fprintln(out, "PostgreSQL left out: no -pg and no WRITEGEN_PG_DSN")
	}

	// Orders are fresh across runs of this program, which may share a PostgreSQL database.
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var next atomic.Int64
	results := make(map[string][]cell) // "backend/callers" → one cell per round
	for r := range *rounds {
		for _, n := range callers {
			for _, b := range backends {
				c, err := measure(ctx, b, p.url, hc, n, *length, func() string { return fmt.Sprintf("%s-%d", run, next.Add(1)) })
				if err != nil {
					return fmt.Errorf("round %d, %s, %d callers: %w", r+1, b.name, n, err)
				}
				k := b.name + "/" + strconv.Itoa(n)
				results[k] = append(results[k], c)
			}
		}
	}

	fmt.Fprintf(out, "keyed writes against a provider answering in %s, %d rounds of %s per cell, medians\n\n", *latency, *rounds, *length)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "callers\tledger\twrites/s\tvs no ledger\tcommits per write\t")
	for _, n := range callers {
		base := median(results[backends[0].name+"/"+strconv.Itoa(n)], cell.perSecond)
		for _, b := range backends {
			cs := results[b.name+"/"+strconv.Itoa(n)]
			ws := median(cs, cell.perSecond)
			commits := "-"
			if b.name != backends[0].name {
				commits = fmt.Sprintf("%.2f", median(cs, func(c cell) float64 { return float64(c.commits) / float64(c.writes) }))
			}
			fmt.Fprintf(tw, "%d\t%s\t%.0f\t%.3f\t%s\t\n", n, b.name, ws, ws/base, commits)
		}
	}
	return tw.Flush()
}

// ledgerWrite returns the write of one order through the transfersledger client on l.
func ledgerWrite(url string, hc *http.Client, l *ledger.Ledger) (func(context.Context, string) error, *ledger.Ledger, error) {
	c, err := transfersledger.NewClient(url, l, runtime.WithHTTPClient(hc))
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return func(ctx context.Context, order string) error {
		_, err := c.CreateTransfer(ctx, transfersledger.CreateTransferKey{OrderID: order}, transfersledger.NewTransfer{OrderID: order, Amount: 100, Currency: "eur"})
		return err
	}, l, nil
}

// measure runs n callers writing fresh orders through b for d, and counts the writes that
// returned a receipt; any other outcome ends the benchmark.
func measure(ctx context.Context, b backend, url string, hc *http.Client, n int, d time.Duration, order func() string) (cell, error) {
	write, l, err := b.open(ctx, url, hc)
	if err != nil {
		return cell{}, err
	}
	if l != nil {
		defer l.Close()
	}
	var before ledger.Stats
	if l != nil {
		before = l.Stats()
	}
	var writes atomic.Int64
	var failed error
	var once sync.Once
	stop := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := write(ctx, order()); err != nil {
					once.Do(func() { failed = err; close(stop) })
					return
				}
				writes.Add(1)
			}
		})
	}
	timer := time.AfterFunc(d, func() { once.Do(func() { close(stop) }) })
	wg.Wait()
	timer.Stop()
	elapsed := time.Since(start)
	if failed != nil {
		return cell{}, failed
	}
	c := cell{writes: writes.Load(), elapsed: elapsed}
	if l != nil {
		c.commits = l.Stats().Commits - before.Commits
	}
	return c, nil
}

func median(cs []cell, f func(cell) float64) float64 {
	v := make([]float64, len(cs))
	for i, c := range cs {
		v[i] = f(c)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// provider answers POST /transfers after its latency, with a transfer of the order asked for.
type provider struct {
	*http.Server
	url string
	ids atomic.Int64
}

func startProvider(latency time.Duration) (*provider, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &provider{url: "http://" + ln.Addr().String()}
	p.Server = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/transfers" {
			http.NotFound(w, r)
			return
		}
		var in struct {
			OrderID   string `json:"order_id"`
			Amount    int64  `json:"amount"`
			Currency  string `json:"currency"`
			Reference string `json:"reference"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		time.Sleep(latency)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{
			"id": "tr_" + strconv.FormatInt(p.ids.Add(1), 10), "order_id": in.OrderID, "amount": in.Amount,
			"currency": in.Currency, "reference": in.Reference, "created_at": time.Now().UTC().Format(time.RFC3339),
		})
	})}
	go p.Serve(ln)
	return p, nil
}
