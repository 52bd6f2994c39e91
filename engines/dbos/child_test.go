package wgdbos_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite"
	wgdbos "github.com/writegen/writegen/engines/dbos"
	"github.com/writegen/writegen/engines/internal/enginetest"
	"github.com/writegen/writegen/engines/internal/payments"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/postgres"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// lease is the ledger lease of the children's clients: a claim left by a
// killed child is taken over this long after its last renewal. A holder
// renews every third of it, so a renewal that a loaded machine delays has
// the rest of the lease to land; a shorter lease makes writes end not
// applied when renewals come late, which the tests would count.
const lease = 1500 * time.Millisecond

// childEnv names the environment variable that makes the test binary a
// child: a DBOS application that pays orders, one workflow each.
const childEnv = "WGDBOS_CHILD"

// childConfig is what a child is told, as JSON in childEnv.
type childConfig struct {
	Provider string   // the provider's URL
	SystemDB string   // DBOS's system database: sqlite:PATH or a postgres:// URL
	Ledger   string   // writegen's ledger: sqlite:PATH or a postgres:// URL
	Orders   []string // the orders to pay, in turn
	Writegen bool     // pay with writegen; else with one POST, as a DBOS step by default
	Settle   bool     // then wait until the scheduled Resume settled every row of the ledger and its runs ended
	Payouts  bool     // request a payout for each order instead, and wait for its webhook
}

// childResult is a line a child prints for each order it paid.
type childResult struct {
	Order     string
	ID        string
	Err       string
	Uncertain bool
	Row       int64
	Event     string // the webhook event that settled a payout
}

func TestMain(m *testing.M) {
	if cfg := os.Getenv(childEnv); cfg != "" {
		if err := child(cfg); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func openLedger(ctx context.Context, dsn string) (*ledger.Ledger, func(), error) {
	if p, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		l, err := sqlite.Open(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return l.Ledger, func() { l.Close() }, nil
	}
	l, err := postgres.Open(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	return l.Ledger, func() { l.Close() }, nil
}

// child runs the DBOS application: it launches DBOS, which recovers the
// workflows a killed predecessor left pending, then pays each order with
// a workflow whose ID is "order-<order>" (a workflow that exists already
// is not started again: its result is awaited) and prints the results.
func child(cfgJSON string) error {
	var cfg childConfig
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		return err
	}
	ctx := context.Background()
	l, closeLedger, err := openLedger(ctx, cfg.Ledger)
	if err != nil {
		return err
	}
	defer closeLedger()
	c, err := payments.NewClient(cfg.Provider, l, runtime.WithLease(lease), runtime.WithAttemptTimeout(lease*2/5),
		runtime.WithBackoff(5*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		return err
	}
	dctx, err := dbos.NewContext(ctx, dbos.Config{
		AppName: "wgdbos-test", DatabaseURL: cfg.SystemDB, ExecutorID: "local", ApplicationVersion: "1",
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return err
	}
	pay := func(ctx dbos.Context, order string) (string, error) {
		r, err := wgdbos.Write(ctx, func(ctx context.Context, key string) (*runtime.Receipt[payments.Payment], error) {
			return c.CreatePayment(ctx, payments.CreatePaymentKey{Ref: key}, payments.NewPayment{Order: order, Cents: 100})
		})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
	acks, err := wgdbos.NewAcks(ctx, l)
	if err != nil {
		return err
	}
	payout := func(ctx dbos.Context, order string) (wgdbos.Settled, error) {
		ack, err := wgdbos.Write(ctx, func(ctx context.Context, key string) (*runtime.Ack[payments.RequestPayoutResponse], error) {
			return c.RequestPayout(ctx, payments.RequestPayoutKey{Ref: key}, payments.NewPayment{Order: order, Cents: 500})
		})
		if err != nil {
			return wgdbos.Settled{}, err
		}
		return acks.Await(ctx, ack.ProviderKey, time.Minute)
	}
	plain := func(ctx dbos.Context, order string) (string, error) {
		return dbos.RunAsStep(ctx, func(ctx context.Context) (string, error) { return postPayment(ctx, cfg.Provider, order) })
	}
	dbos.RegisterWorkflow(dctx, pay, dbos.WithWorkflowName("pay"))
	dbos.RegisterWorkflow(dctx, plain, dbos.WithWorkflowName("pay-plain"))
	dbos.RegisterWorkflow(dctx, payout, dbos.WithWorkflowName("payout"))
	// DBOS runs Resume every second: a recovered step that waits on the
	// claim of the killed process gets its outcome once the claim's lease
	// ended and Resume drove it on.
	wgdbos.RegisterResume(dctx, c)
	if err := wgdbos.ScheduleResume(dctx, "* * * * * *"); err != nil {
		return err
	}
	if err := dbos.Launch(dctx); err != nil {
		return err
	}
	defer dbos.Shutdown(dctx, 5*time.Second)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for _, order := range cfg.Orders {
		if cfg.Payouts {
			h, err := dbos.RunWorkflow(dctx, payout, order, dbos.WithWorkflowID("payout-"+order))
			if err != nil {
				return err
			}
			s, err := h.GetResult()
			r := childResult{Order: order, ID: s.ProviderKey, Event: string(s.Event)}
			if err != nil {
				r.Err = err.Error()
			}
			b, _ := json.Marshal(r)
			fmt.Fprintf(out, "%s\n", b)
			continue
		}
		var h dbos.WorkflowHandle[string]
		if cfg.Writegen {
			h, err = dbos.RunWorkflow(dctx, pay, order, dbos.WithWorkflowID("order-"+order))
		} else {
			h, err = dbos.RunWorkflow(dctx, plain, order, dbos.WithWorkflowID("order-"+order))
		}
		if err != nil {
			return err
		}
		id, err := h.GetResult()
		r := childResult{Order: order, ID: id}
		if err != nil {
			r.Err = err.Error()
			var we *wgdbos.Error
			if errors.As(err, &we) && errors.Is(err, runtime.ErrUncertain) {
				r.Uncertain, r.Row = true, we.Row
			}
		}
		b, _ := json.Marshal(r)
		fmt.Fprintf(out, "%s\n", b)
	}
	if cfg.Settle {
		if err := settled(ctx, l); err != nil {
			return err
		}
		// The Resume runs that settled the rows record their reports
		// before the process ends.
		runs, err := dbos.ListWorkflows(dctx, dbos.WithFilterName(wgdbos.ResumeWorkflow),
			dbos.WithFilterStatus(dbos.WorkflowStatusPending), dbos.WithFilterLoadOutput(false))
		if err != nil {
			return err
		}
		for _, r := range runs {
			h, err := dbos.RetrieveWorkflow[runtime.ResumeReport](dctx, r.ID)
			if err != nil {
				return err
			}
			if _, err := h.GetResult(); err != nil {
				return err
			}
		}
	}
	return nil
}

// settled returns once no row of l is claimed or uncertain.
func settled(ctx context.Context, l *ledger.Ledger) error {
	for {
		open := 0
		for _, st := range []runtime.State{runtime.StateClaimed, runtime.StateUncertain} {
			rows, err := l.List(ctx, ledger.Filter{State: st, AnyScope: true, AnyTenant: true})
			if err != nil {
				return err
			}
			open += len(rows)
		}
		if open == 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// postPayment is a payment made as a team does without writegen: one POST.
func postPayment(ctx context.Context, url, order string) (string, error) {
	body, _ := json.Marshal(payments.NewPayment{Order: order, Cents: 100})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/payments", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	var p payments.Payment
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return "", err
	}
	return p.ID, nil
}

// fleet runs children one after the other against one provider until one
// of them pays every order: a child that is killed is started again, as a
// supervisor restarts a process.
type fleet struct {
	t        testing.TB
	provider *enginetest.Provider
	cfg      childConfig

	mu    sync.Mutex
	cur   *exec.Cmd // guarded by mu
	kills int       // guarded by mu
}

// kill kills the running child with SIGKILL.
func (f *fleet) kill() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur != nil && f.cur.Process != nil {
		f.cur.Process.Kill() //nolint:errcheck // it may have ended
		f.kills++
	}
}

// killed returns how many children were killed.
func (f *fleet) killed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.kills
}

// run starts children until one ends well, and returns its results.
func (f *fleet) run() map[string]childResult {
	f.t.Helper()
	for start := 0; start < 10*len(f.cfg.Orders)+10; start++ {
		if res, killed := f.once(); !killed {
			return res
		}
	}
	f.t.Fatal("no child lived to pay every order")
	return nil
}

// once runs one child and returns its results, or killed if it was
// killed.
func (f *fleet) once() (res map[string]childResult, killed bool) {
	f.t.Helper()
	cfg, err := json.Marshal(f.cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(cfg))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	f.mu.Lock()
	err = cmd.Start()
	f.cur = cmd
	f.mu.Unlock()
	if err != nil {
		f.t.Fatal(err)
	}
	err = cmd.Wait()
	f.mu.Lock()
	f.cur = nil
	f.mu.Unlock()
	if err == nil {
		return parseResults(f.t, &stdout), false
	}
	if !wasKilled(err) {
		f.t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	return nil, true
}

func wasKilled(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ProcessState.String() == "signal: killed"
}

func parseResults(t testing.TB, r io.Reader) map[string]childResult {
	t.Helper()
	m := map[string]childResult{}
	s := bufio.NewScanner(r)
	for s.Scan() {
		var cr childResult
		if err := json.Unmarshal(s.Bytes(), &cr); err != nil {
			t.Fatalf("child printed %q: %v", s.Text(), err)
		}
		m[cr.Order] = cr
	}
	return m
}

// databases returns the DBOS system database and the ledger of a test:
// SQLite files, or, with pg, schemas of their own in the test PostgreSQL
// (WRITEGEN_PG_DSN), both in one database.
func databases(t *testing.T, pg bool) (systemDB, ledgerDSN string) {
	t.Helper()
	if !pg {
		dir := t.TempDir()
		return "sqlite:" + filepath.Join(dir, "dbos.db"), "sqlite:" + filepath.Join(dir, "ledger.db")
	}
	dsn := os.Getenv("WRITEGEN_PG_DSN")
	if dsn == "" {
		t.Skip("WRITEGEN_PG_DSN is not set: run ./test.sh, or eval \"$(.ci/pg start)\"")
	}
	db := newDatabase(t, dsn)
	return db, db
}
