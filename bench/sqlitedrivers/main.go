// Command sqlitedrivers measures the embedded ledger's SQLite driver against the alternatives,
// side by side: modernc.org/sqlite (pure Go, the current one), github.com/ncruces/go-sqlite3
// (pure Go: SQLite compiled to WebAssembly, run by wazero) and github.com/mattn/go-sqlite3
// (cgo), each under the same ledger code (runtime/ledger over database/sql). In bench/, a module
// of its own:
//
//	go run ./sqlitedrivers [-claims 300] [-keep]
//
// For each driver it makes a small program that opens the ledger in an SQLite file, in a module
// of its own beside a program with no SQLite driver at all, and measures:
//
//   - its cold build, as a new user's first build: an empty build cache (the module cache is
//     filled first and not counted), wall time, CPU time and peak memory of the go command and
//     its compilers, and whether it builds with CGO_ENABLED=0 and then opens a ledger;
//   - the program's size;
//   - a claim's latency (a claim of a fresh key and its settlement, synchronous=FULL), p50 and
//     p99, one caller;
//   - one file opened by two processes at once, each claiming the same 200 keys: every key must
//     be won exactly once, and no claim may fail.
//
// It prints each figure and its ratio to the current driver's, measured in the same run.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/writegen/writegen/bench/internal/child"
)

// driver is one SQLite driver as the generated program uses it.
type driver struct {
	name    string // as printed
	module  string // go get argument, "" for none
	imports string // the import line
	dsn     string // fmt format of the DSN, from the file's path
	cgo     bool   // needs cgo
}

var drivers = []driver{
	{name: "modernc.org/sqlite", imports: `_ "modernc.org/sqlite"`, module: "modernc.org/sqlite",
		dsn: "%s?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"},
	{name: "ncruces/go-sqlite3", imports: "_ \"github.com/ncruces/go-sqlite3/driver\"\n\t_ \"github.com/ncruces/go-sqlite3/embed\"",
		module: "github.com/ncruces/go-sqlite3",
		dsn:    "file:%s?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"},
	{name: "mattn/go-sqlite3 (cgo)", imports: `_ "github.com/mattn/go-sqlite3"`, module: "github.com/mattn/go-sqlite3", cgo: true,
		dsn: "file:%s?_busy_timeout=10000&_journal_mode=WAL&_synchronous=FULL&_txlock=immediate"},
	{name: "no SQLite driver", dsn: "%s"},
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sqlitedrivers:", err)
		os.Exit(1)
	}
}

// result is what was measured of one driver.
type result struct {
	build       child.Sample
	nocgo       string // what CGO_ENABLED=0 gave
	size        int64
	p50, p99    time.Duration
	twoProcs    string
	twoProcTime time.Duration
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("sqlitedrivers", flag.ContinueOnError)
	claims := fs.Int("claims", 300, "claims measured per driver")
	keep := fs.Bool("keep", false, "keep the work directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	root, err := child.WritegenRoot(ctx)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "writegen-sqlitedrivers-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	results := make([]result, len(drivers))
	for i, d := range drivers {
		dir := filepath.Join(work, fmt.Sprint("d", i))
		if err := makeModule(ctx, dir, root, d); err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
		r, err := measure(ctx, dir, root, d, *claims)
		if err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
		results[i] = r
		fmt.Fprintf(os.Stderr, "%s: built in %s wall, %s CPU\n", d.name, r.build.Wall.Round(time.Second), r.build.CPU.Round(time.Second))
	}
	base := results[0]
	ratio := func(a, b float64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "driver\tcold build wall\tCPU\t(×)\tpeak RSS\t(×)\tprogram size\t(×)\tclaim p50\tp99\t(p50 ×)\tCGO_ENABLED=0\ttwo processes, one file\t")
	for i, d := range drivers {
		r := results[i]
		claim, p99, pr := "-", "-", "-"
		if r.p50 > 0 {
			claim, p99, pr = r.p50.Round(time.Microsecond).String(), r.p99.Round(time.Microsecond).String(), ratio(float64(r.p50), float64(base.p50))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d MB\t%s\t%.1f MB\t%s\t%s\t%s\t%s\t%s\t%s\t\n", d.name, r.build.Wall.Round(time.Second),
			r.build.CPU.Round(time.Second), ratio(r.build.CPU.Seconds(), base.build.CPU.Seconds()), r.build.MaxRSS>>20,
			ratio(float64(r.build.MaxRSS), float64(base.build.MaxRSS)), float64(r.size)/(1<<20), ratio(float64(r.size), float64(base.size)),
			claim, p99, pr, r.nocgo, r.twoProcs)
	}
	return tw.Flush()
}

// makeModule writes the program of d in dir, in a module that requires writegen from root,
// and downloads what it needs.
func makeModule(ctx context.Context, dir, root string, d driver) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mod := "module driverbench\n\ngo 1.26\n\nrequire github.com/writegen/writegen v0.0.0\n\nreplace github.com/writegen/writegen => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	src := strings.NewReplacer("DRIVER_IMPORTS", d.imports, "DSN_FORMAT", d.dsn).Replace(program)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		return err
	}
	if d.module != "" && d.module != "modernc.org/sqlite" {
		if _, out, err := child.Run(ctx, dir, nil, "go", "get", d.module+"@latest"); err != nil {
			return fmt.Errorf("go get %s: %w: %s", d.module, err, out)
		}
	}
	if _, out, err := child.Run(ctx, dir, nil, "go", "mod", "tidy"); err != nil {
		return fmt.Errorf("go mod tidy: %w: %s", err, out)
	}
	_, out, err := child.Run(ctx, dir, nil, "go", "mod", "download", "all")
	if err != nil {
		return fmt.Errorf("go mod download: %w: %s", err, out)
	}
	return nil
}

// measure builds d's program cold, and runs it.
func measure(ctx context.Context, dir, root string, d driver, claims int) (result, error) {
	var r result
	bin := filepath.Join(dir, "prog")
	cache := filepath.Join(dir, "gocache")
	build := func(cache string, env ...string) (child.Sample, error) {
		os.RemoveAll(cache)
		s, _, err := child.Run(ctx, dir, append([]string{"GOCACHE=" + cache, "GOFLAGS=-mod=mod"}, env...), "go", "build", "-o", bin, ".")
		return s, err
	}
	var err error
	if r.build, err = build(cache); err != nil {
		return r, err
	}
	st, err := os.Stat(bin)
	if err != nil {
		return r, err
	}
	r.size = st.Size()
	migrations := filepath.Join(root, "runtime", "ledger", "sqlite")
	db := filepath.Join(dir, "ledger.db")
	if d.module == "" {
		r.nocgo, r.twoProcs = "-", "-"
		return r, nil
	}
	var lat struct{ P50, P99 time.Duration }
	_, out, err := child.Run(ctx, dir, nil, bin, "claims", migrations, db, fmt.Sprint(claims))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(out, &lat); err != nil {
		return r, fmt.Errorf("the program printed %q: %w", out, err)
	}
	r.p50, r.p99 = lat.P50, lat.P99
	r.twoProcs, r.twoProcTime = twoProcesses(ctx, bin, migrations, filepath.Join(dir, "two.db"))

	// Without cgo: built (warm cache of its own), then opened.
	nocache := filepath.Join(dir, "gocache-nocgo")
	if _, err := build(nocache, "CGO_ENABLED=0"); err != nil {
		r.nocgo = "does not build"
	} else if _, _, err := child.Run(ctx, dir, nil, bin, "claims", migrations, filepath.Join(dir, "nocgo.db"), "4"); err != nil {
		r.nocgo = "builds, cannot open"
	} else {
		r.nocgo = "builds and runs"
	}
	os.RemoveAll(nocache)
	os.RemoveAll(cache)
	return r, nil
}

// twoProcesses runs two processes of the program on one new file at once, each claiming the
// same 200 keys, and says whether each key was won exactly once without a failed claim.
func twoProcesses(ctx context.Context, bin, migrations, db string) (string, time.Duration) {
	const keys = 200
	var wg sync.WaitGroup
	won := make([]int, 2)
	errs := make([]error, 2)
	start := time.Now()
	for i := range 2 {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, bin, "two", migrations, db, fmt.Sprint(keys), fmt.Sprint("p", i))
			out, err := cmd.Output()
			if err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					err = fmt.Errorf("%w: %s", err, child.Tail(ee.Stderr, 300))
				}
				errs[i] = err
				return
			}
			_, errs[i] = fmt.Sscan(string(out), &won[i])
		})
	}
	wg.Wait()
	took := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return "failed: " + strings.ReplaceAll(err.Error(), "\n", " "), took
	}
	if won[0]+won[1] != keys {
		return fmt.Sprintf("%d + %d keys won of %d", won[0], won[1], keys), took
	}
	return fmt.Sprintf("ok: %d + %d of %d keys, %s", won[0], won[1], keys, took.Round(time.Millisecond)), took
}

// program is the small program that opens the ledger with a driver:
//
//	prog claims MIGRATIONS FILE N       # N claims and settlements; prints {"P50":..,"P99":..}
//	prog two MIGRATIONS FILE N OWNER    # claims keys k0..kN-1; prints how many it won
const program = `package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	DRIVER_IMPORTS
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	mode, migrations, file := os.Args[1], os.Args[2], os.Args[3]
	n, _ := strconv.Atoi(os.Args[4])
	dsn := fmt.Sprintf("DSN_FORMAT", file)
	name := "sqlite"
	if len(sql.Drivers()) > 0 {
		name = sql.Drivers()[0]
	}
	shared, err := sql.Open(name, dsn)
	if err != nil {
		return err
	}
	own, err := sql.Open(name, dsn)
	if err != nil {
		return err
	}
	own.SetMaxOpenConns(1)
	d := ledger.Dialect{Name: "sqlite", Migrations: os.DirFS(migrations),
		Now: "CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)"}
	var l *ledger.Ledger
	for try := 0; ; try++ { // two processes creating one file: WAL mode is entered by one
		l, err = ledger.New(ctx, conn{db: shared, own: own}, d)
		if err == nil || try == 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	defer l.Close()
	claim := func(k, owner string) (bool, time.Duration, error) {
		req := []byte("{\"order\":\"" + k + "\"}")
		sum := sha256.Sum256(req)
		rec := runtime.Record{Identity: runtime.Identity{Scope: "bench", Operation: "create", BusinessKey: k},
			ProviderKey: "bench/create:" + k, Request: req, Digest: sum[:]}
		start := time.Now()
		row, won, err := l.Claim(ctx, rec, runtime.Holder{Owner: owner}, time.Minute)
		took := time.Since(start)
		if err != nil || !won {
			return false, took, err
		}
		return true, took, l.Settle(ctx, row.ID, row.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p_" + k, Status: 201})
	}
	switch mode {
	case "claims":
		run := strconv.FormatInt(time.Now().UnixNano(), 36)
		var lat []time.Duration
		for i := range n {
			_, took, err := claim(run+"-"+strconv.Itoa(i), "bench")
			if err != nil {
				return err
			}
			lat = append(lat, took)
		}
		slices.Sort(lat)
		return json.NewEncoder(os.Stdout).Encode(map[string]time.Duration{"P50": lat[len(lat)/2], "P99": lat[len(lat)*99/100]})
	case "two":
		won := 0
		for i := range n {
			w, _, err := claim("k"+strconv.Itoa(i), os.Args[5])
			if err != nil {
				return err
			}
			if w {
				won++
			}
		}
		fmt.Println(won)
		return nil
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// conn is a ledger.Conn over database/sql: the ledger's statements on one connection of their
// own, the rest on a pool.
type conn struct{ db, own *sql.DB }

type querier struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
}

// numbered writes the ledger's $N parameters as SQLite's ?N, as the sqlite ledger does: some
// drivers bind $N by order of appearance (the ledger's statements hold no quoted $).
var numbered = regexp.MustCompile(` + "`" + `\$([0-9]+)` + "`" + `)

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.q.ExecContext(ctx, numbered.ReplaceAllString(query, "?$1"), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q querier) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	return q.q.QueryContext(ctx, numbered.ReplaceAllString(query, "?$1"), args...)
}

func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return querier{c.own}.Exec(ctx, query, args...)
}

func (c conn) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	return querier{c.own}.Query(ctx, query, args...)
}

func (c conn) Shared() ledger.Querier { return querier{c.db} }

type tx struct {
	querier
	t *sql.Tx
}

func (t tx) Commit(context.Context) error   { return t.t.Commit() }
func (t tx) Rollback(context.Context) error { return t.t.Rollback() }

func (c conn) Begin(ctx context.Context) (ledger.Tx, error) {
	t, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return tx{querier{t}, t}, nil
}

func (c conn) BeginGroup(ctx context.Context) (ledger.Tx, error) {
	t, err := c.own.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return tx{querier{t}, t}, nil
}

func (c conn) Close() error { return errors.Join(c.own.Close(), c.db.Close()) }
`
