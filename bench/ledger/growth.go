package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
	"github.com/writegen/writegen/runtime/ledger/postgres"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// The growth benchmark: how the ledger's costs grow with the rows it keeps.
//
//	go run ./ledger -growth 1e5,1e6,1e7 -dir DIR [-pg DSN] [-claims 400] [-keep 72h]
//
// For each size N it makes (once, kept in DIR and in PostgreSQL schemas bench_growth_N, so that
// a later run, of a later version of the ledger, measures the same rows) a ledger of N rows of
// one operation, written as a million writes a day: all settled active except 100 uncertain
// (10 of them re-drivable, which each Resume takes over and settles again) and 20 claims held
// under live leases. Then it measures, on SQLite (synchronous=FULL) and PostgreSQL:
//
//   - a claim's latency (Claim of a fresh key, then its settlement, as a write makes them), p50
//     and p99, with 1 caller and with 64, beside the commit floor: a one-row insert into a table
//     of its own, committed alone, on the same database;
//   - a Resume's ledger work: TakeOver of the operation's rows in batches of 64 until none is
//     left, the re-drivable rows settled again;
//   - "writegen ledger list" (the uncertain claims) and "list -state claimed", as a person runs
//     them, output discarded;
//   - the bytes per row: the database's size over N;
//   - with a ledger that prunes (-keep), the time to prune 10,000 rows older than -keep.
//
// Times are medians of -rounds runs (5 by default).

// growthRow is one shape of the rows the benchmark writes.
const (
	growthScope     = "bench"
	growthOperation = "create-transfer"
	growthUncertain = 100 // uncertain rows, whatever N
	growthRedrive   = 10  // of which re-drivable
	growthClaimed   = 20  // claims under live leases
)

// growthLedger is one ledger of N rows.
type growthLedger struct {
	dialect string
	n       int64
	l       *ledger.Ledger
	dsn     string                                              // as ledgercli opens it
	exec    func(ctx context.Context, q string, a ...any) error // the caller's statements
	size    func(ctx context.Context) (int64, error)            // the database's size in bytes
	close   func()
}

func runGrowth(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("ledger -growth", flag.ContinueOnError)
	sizesFlag := fs.String("growth", "1e5,1e6,1e7", "numbers of rows, comma-separated")
	dir := fs.String("dir", "", "where the SQLite ledgers are made and kept (required)")
	pgDSN := fs.String("pg", os.Getenv("WRITEGEN_PG_DSN"), "a PostgreSQL DSN; empty leaves PostgreSQL out")
	claims := fs.Int("claims", 400, "claims measured per caller count (each caller makes claims/callers, at least 4)")
	rounds := fs.Int("rounds", 5, "runs of each timed step; figures are medians")
	keep := fs.Duration("keep", 72*time.Hour, "the retention pruned with, when the ledger prunes")
	only := fs.String("only", "", "sqlite or postgres: measure one database alone")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("-growth needs -dir, where the ledgers are kept")
	}
	var sizes []int64
	for f := range strings.SplitSeq(*sizesFlag, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 1000 {
			return fmt.Errorf("-growth: %q is not a number of rows (at least 1000)", f)
		}
		sizes = append(sizes, int64(v))
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	type result struct {
		dialect string
		n       int64
		m       growthMeasures
	}
	var results []result
	for _, n := range sizes {
		for _, d := range []string{"sqlite", "postgres"} {
			if *only != "" && *only != d || d == "postgres" && *pgDSN == "" {
				continue
			}
			gl, built, err := openGrowth(ctx, d, n, *dir, *pgDSN)
			if err != nil {
				return fmt.Errorf("%s, %d rows: %w", d, n, err)
			}
			fmt.Fprintf(os.Stderr, "%s %d rows: %s\n", d, n, built)
			m, err := measureGrowth(ctx, gl, *claims, *rounds, *keep)
			gl.close()
			if err != nil {
				return fmt.Errorf("%s, %d rows: %w", d, n, err)
			}
			results = append(results, result{d, n, m})
		}
	}
	fmt.Fprintf(out, "ledger growth: one operation, all rows settled active but %d uncertain (%d re-drivable) and %d live claims; medians of %d runs\n\n",
		growthUncertain, growthRedrive, growthClaimed, *rounds)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "database\trows\tclaim p50 1\tp99 1\tfloor p50\tclaim p50 64\tp99 64\tclaims/commit 64\tresume\tlist\tlist claimed\tbytes/row\tprune 10k\t")
	for _, r := range results {
		m := r.m
		prune := "-"
		if m.prune > 0 {
			prune = ms(m.prune)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\t%.0f\t%s\t\n", r.dialect, r.n, ms(m.claim1.p50), ms(m.claim1.p99),
			ms(m.floor), ms(m.claim64.p50), ms(m.claim64.p99), m.perCommit64, ms(m.resume), ms(m.list), ms(m.listClaimed),
			float64(m.bytes)/float64(r.n), prune)
	}
	fmt.Fprintln(tw, "\t\t(ms)\t(ms)\t(ms)\t(ms)\t(ms)\t\t(ms)\t(ms)\t(ms)\t\t(ms)\t")
	return tw.Flush()
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64)
}

// openGrowth opens the ledger of n rows of dialect, making its rows if they are not there yet,
// and says what it did.
func openGrowth(ctx context.Context, dialect string, n int64, dir, pgDSN string) (*growthLedger, string, error) {
	var gl *growthLedger
	switch dialect {
	case "sqlite":
		path := filepath.Join(dir, fmt.Sprintf("ledger-%d.db", n))
		start := time.Now()
		l, err := sqlite.Open(ctx, path)
		if err != nil {
			return nil, "", err
		}
		opened := time.Since(start)
		db := l.DB()
		gl = &growthLedger{dialect: dialect, n: n, l: l.Ledger, dsn: "sqlite:" + path,
			exec: func(ctx context.Context, q string, a ...any) error {
				_, err := db.ExecContext(ctx, q, a...)
				return err
			},
			size: func(ctx context.Context) (int64, error) {
				if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
					return 0, err
				}
				var pages, size int64
				if err := db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
					return 0, err
				}
				if err := db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
					return 0, err
				}
				return pages * size, nil
			},
			close: func() { l.Close() }}
		built, err := fill(ctx, gl)
		return gl, fmt.Sprintf("opened (and migrated) in %s; %s", opened.Round(time.Millisecond), built), err
	case "postgres":
		schema := fmt.Sprintf("bench_growth_%d", n)
		admin, err := postgres.Open(ctx, pgDSN)
		if err != nil {
			return nil, "", err
		}
		_, err = admin.Pool().Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema)
		admin.Close()
		if err != nil {
			return nil, "", err
		}
		u, err := url.Parse(pgDSN)
		if err != nil {
			return nil, "", err
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		start := time.Now()
		l, err := postgres.Open(ctx, u.String())
		if err != nil {
			return nil, "", err
		}
		opened := time.Since(start)
		pool := l.Pool()
		gl = &growthLedger{dialect: dialect, n: n, l: l.Ledger, dsn: u.String(),
			exec: func(ctx context.Context, q string, a ...any) error { _, err := pool.Exec(ctx, q, a...); return err },
			size: func(ctx context.Context) (int64, error) {
				if _, err := pool.Exec(ctx, "VACUUM ANALYZE writegen_claims"); err != nil {
					return 0, err
				}
				var size int64
				err := pool.QueryRow(ctx, "SELECT pg_total_relation_size('writegen_claims')").Scan(&size)
				return size, err
			},
			close: func() { l.Close() }}
		built, err := fill(ctx, gl)
		return gl, fmt.Sprintf("opened (and migrated) in %s; %s", opened.Round(time.Millisecond), built), err
	}
	return nil, "", fmt.Errorf("no dialect %q", dialect)
}

// fill writes the rows of gl that are not there yet, in transactions of 100,000, as a million
// writes a day up to now.
func fill(ctx context.Context, gl *growthLedger) (string, error) {
	rows, err := gl.l.List(ctx, ledger.Filter{State: runtime.StateClaimed, Scope: growthScope, AnyTenant: true})
	if err != nil {
		return "", err
	}
	var have int64
	if err := queryInt(ctx, gl, &have); err != nil {
		return "", err
	}
	if have >= gl.n {
		return fmt.Sprintf("%d rows there (%d claimed)", have, len(rows)), nil
	}
	start := time.Now()
	const chunk = 100_000
	now := time.Now().UnixMicro()
	first := now - gl.n*86_400_000_000/1_000_000 // a million a day
	for from := have + 1; from <= gl.n; from += chunk {
		to := min(from+chunk-1, gl.n)
		if err := gl.exec(ctx, fillStatement(gl.dialect), from, to, first, now, gl.n/growthUncertain, gl.n/growthRedrive, gl.n/growthClaimed, gl.n); err != nil {
			return "", fmt.Errorf("rows %d to %d: %w", from, to, err)
		}
	}
	if gl.dialect == "postgres" {
		if err := gl.exec(ctx, "VACUUM ANALYZE writegen_claims"); err != nil {
			return "", err
		}
	} else if err := gl.exec(ctx, "ANALYZE"); err != nil {
		return "", err
	}
	return fmt.Sprintf("made %d rows in %s", gl.n-have, time.Since(start).Round(time.Second)), nil
}

// queryInt reads the number of the benchmark's rows.
func queryInt(ctx context.Context, gl *growthLedger, n *int64) error {
	rows, err := gl.l.Querier().Query(ctx, "SELECT COUNT(*) FROM writegen_claims WHERE scope = $1", growthScope)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(n); err != nil {
			return err
		}
	}
	return rows.Err()
}

// fillStatement inserts rows $1 to $2 of a ledger of $8 rows whose first write was at $3 and
// whose last is at $4 (microseconds); row i is uncertain when i % $5 = 1 (re-drivable when i % $6 = 1), and
// claimed under a live lease when i % $7 = 2. The request and the receipt are those of a
// transfer, about 200 and 150 bytes.
func fillStatement(dialect string) string {
	series, str, blob, digest := "", "", "", ""
	switch dialect {
	case "sqlite":
		series = "WITH RECURSIVE s(i) AS (SELECT CAST($1 AS INTEGER) UNION ALL SELECT i + 1 FROM s WHERE i < CAST($2 AS INTEGER))"
		str = "CAST(i AS TEXT)"
		blob = "CAST(%s AS BLOB)"
		digest = "randomblob(32)"
	case "postgres":
		series = "WITH s(i) AS (SELECT generate_series(CAST($1 AS BIGINT), CAST($2 AS BIGINT)))"
		str = "CAST(i AS TEXT)"
		blob = "convert_to(%s, 'UTF8')"
		digest = "sha256(convert_to(CAST(i AS TEXT), 'UTF8'))"
	}
	at := "(CAST($3 AS BIGINT) + (CAST($4 AS BIGINT) - CAST($3 AS BIGINT)) * i / CAST($8 AS BIGINT))"
	request := fmt.Sprintf(blob, `'POST /transfers HTTP/1.1'||char(10)||'Content-Type: application/json'||char(10)||'Idempotency-Key: bench/create-transfer:order-'||`+str+`||char(10)||char(10)||'{"order_id":"order-'||`+str+`||'","amount":100,"currency":"eur","reference":"bench/create-transfer:order-'||`+str+`||'"}'`)
	body := fmt.Sprintf(blob, `'{"id":"tr_'||`+str+`||'","order_id":"order-'||`+str+`||'","amount":100,"currency":"eur","created_at":"2026-12-05T06:00:00Z"}'`)
	if dialect == "postgres" {
		request = strings.ReplaceAll(request, "char(10)", "chr(10)")
	}
	state := `CASE WHEN i % $5 = 1 THEN 'uncertain' WHEN i % $7 = 2 THEN 'claimed' ELSE 'active' END`
	return series + `
INSERT INTO writegen_claims
	(scope, tenant, operation, business_key, operation_id, provider_key, reference, owner, state, provider_id,
	status, body, request, digest, attempts, last_error, fence, lease_owner, lease_until, redrive, claim,
	created_at, updated_at)
SELECT 'bench', '', 'create-transfer', 'order-'||` + str + `, 'createTransfer', 'bench/create-transfer:order-'||` + str + `,
	'', 'payments-oncall', ` + state + `,
	CASE WHEN i % $5 = 1 OR i % $7 = 2 THEN '' ELSE 'tr_'||` + str + ` END,
	CASE WHEN i % $5 = 1 OR i % $7 = 2 THEN 0 ELSE 201 END, ` + body + `, ` + request + `, ` + digest + `, 1,
	CASE WHEN i % $5 = 1 THEN 'ambiguous: read tcp: connection reset by peer' ELSE '' END, 1, 'bench-holder',
	CASE WHEN i % $5 <> 1 AND i % $7 = 2 THEN CAST($4 AS BIGINT) + 315360000000000 ELSE ` + at + ` + 200000 END,
	i % $5 = 1 AND i % $6 = 1, TRUE, ` + at + `, ` + at + ` + 200000
FROM s`
}

// latencies are the p50 and p99 of some durations.
type latencies struct{ p50, p99 time.Duration }

func percentiles(d []time.Duration) latencies {
	slices.Sort(d)
	at := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	return latencies{at(0.50), at(0.99)}
}

// growthMeasures is what measureGrowth measured of one ledger.
type growthMeasures struct {
	claim1, claim64   latencies
	perCommit64       float64
	floor             time.Duration
	resume            time.Duration
	list, listClaimed time.Duration
	bytes             int64
	prune             time.Duration
}

func measureGrowth(ctx context.Context, gl *growthLedger, claims, rounds int, keep time.Duration) (growthMeasures, error) {
	var m growthMeasures
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var err error
	if m.claim1, _, err = claimLatencies(ctx, gl, run+"-1", 1, claims); err != nil {
		return m, err
	}
	if m.claim64, m.perCommit64, err = claimLatencies(ctx, gl, run+"-64", 64, claims); err != nil {
		return m, err
	}
	if m.floor, err = commitFloor(ctx, gl, claims); err != nil {
		return m, err
	}
	if m.resume, err = medianOf(rounds, func() error { return resumePass(ctx, gl) }); err != nil {
		return m, fmt.Errorf("resume: %w", err)
	}
	list := func(args ...string) func() error {
		return func() error {
			var stderr strings.Builder
			if code := ledgercli.Run(ctx, append([]string{"list", "-db", gl.dsn}, args...), io.Discard, &stderr); code != 0 {
				return fmt.Errorf("writegen ledger list %v: exit %d: %s", args, code, stderr.String())
			}
			return nil
		}
	}
	if m.list, err = medianOf(rounds, list()); err != nil {
		return m, err
	}
	if m.listClaimed, err = medianOf(rounds, list("-state", "claimed")); err != nil {
		return m, err
	}
	if m.prune, err = pruneOnce(ctx, gl, keep); err != nil {
		return m, fmt.Errorf("prune: %w", err)
	}
	if m.bytes, err = gl.size(ctx); err != nil {
		return m, err
	}
	return m, nil
}

// claimLatencies makes claims of fresh keys from callers at once, each settled active as a
// write settles it, and returns the claims' latencies and how many claims and settlements
// shared a commit.
func claimLatencies(ctx context.Context, gl *growthLedger, run string, callers, claims int) (latencies, float64, error) {
	per := max(claims/callers, 4)
	lat := make([][]time.Duration, callers)
	errs := make([]error, callers)
	before := gl.l.Stats()
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range per {
				k := fmt.Sprintf("bench-%s-%d-%d", run, c, i)
				req := []byte(`{"order_id":"` + k + `","amount":100,"currency":"eur"}`)
				d := sha256.Sum256(req)
				rec := runtime.Record{Identity: runtime.Identity{Scope: growthScope, Operation: growthOperation, BusinessKey: k},
					OperationID: "createTransfer", ProviderKey: "bench/create-transfer:" + k, Owner: "payments-oncall", Request: req, Digest: d[:]}
				start := time.Now()
				row, won, err := gl.l.Claim(ctx, rec, runtime.Holder{Owner: "bench"}, time.Minute)
				lat[c] = append(lat[c], time.Since(start))
				if err == nil && !won {
					err = fmt.Errorf("a fresh key %s was claimed already", k)
				}
				if err == nil {
					err = gl.l.Settle(ctx, row.ID, row.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "tr_" + k, Status: 201,
						Body: []byte(`{"id":"tr_` + k + `"}`), Attempts: 1})
				}
				if err != nil {
					errs[c] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return latencies{}, 0, err
	}
	s := gl.l.Stats()
	return percentiles(slices.Concat(lat...)), float64(s.Writes-before.Writes) / float64(s.Commits-before.Commits), nil
}

// commitFloor is the median time of a one-row insert committed alone into a table of its own.
func commitFloor(ctx context.Context, gl *growthLedger, n int) (time.Duration, error) {
	if err := gl.exec(ctx, "CREATE TABLE IF NOT EXISTS bench_floor (id BIGINT PRIMARY KEY, at BIGINT NOT NULL)"); err != nil {
		return 0, err
	}
	if err := gl.exec(ctx, "DELETE FROM bench_floor"); err != nil {
		return 0, err
	}
	d := make([]time.Duration, 0, n)
	for i := range n {
		start := time.Now()
		if err := gl.exec(ctx, "INSERT INTO bench_floor (id, at) VALUES ($1, $2)", int64(i), time.Now().UnixMicro()); err != nil {
			return 0, err
		}
		d = append(d, time.Since(start))
	}
	return percentiles(d).p50, nil
}

// resumePass is a Resume's ledger work: it takes over the operation's rows in batches of 64
// until fewer come back (the re-drivable uncertain rows: the claims' leases are live), and
// settles each again uncertain and re-drivable, as a Resume that could not settle it does.
func resumePass(ctx context.Context, gl *growthLedger) error {
	h := runtime.Holder{Owner: "bench-resume"}
	for {
		rows, err := gl.l.TakeOver(ctx, growthScope, "", growthOperation, time.Now(), h, time.Minute, 64)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.Redrives == 0 && r.State != runtime.StateClaimed {
				return fmt.Errorf("row %d handed over as %s", r.ID, r.State)
			}
			if err := gl.l.Settle(ctx, r.ID, r.Fence, runtime.StateUncertain, runtime.Settlement{Attempts: 1,
				LastError: "ambiguous: read tcp: connection reset by peer", Redrive: true}); err != nil {
				return err
			}
		}
		if len(rows) < 64 {
			return nil
		}
	}
}

// pruneOnce prunes up to 10,000 rows older than keep, when the ledger prunes (runtime.Pruner),
// and returns the time it took (0 when it does not prune).
func pruneOnce(ctx context.Context, gl *growthLedger, keep time.Duration) (time.Duration, error) {
	p, ok := any(gl.l).(runtime.Pruner)
	if !ok {
		return 0, nil
	}
	start := time.Now()
	_, err := p.Prune(ctx, growthScope, "", growthOperation, keep, 10_000)
	return time.Since(start), err
}

// medianOf runs f rounds times and returns the median time it took.
func medianOf(rounds int, f func() error) (time.Duration, error) {
	d := make([]time.Duration, 0, rounds)
	for range rounds {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	return d[len(d)/2], nil
}
