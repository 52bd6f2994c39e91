package servertest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	wgtemporal "github.com/writegen/writegen/engines/temporal"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"
)

// quiet discards the logs of the SDK and of writegen (which logs every
// uncertain outcome at ERROR): a seeded run makes many.
var quiet = slog.New(slog.DiscardHandler)

// workerEnv names the environment variable that makes the test binary a
// worker process: its value is a workerConfig as JSON.
const workerEnv = "WGTEMPORAL_WORKER"

// workerConfig is what a worker process is told.
type workerConfig struct {
	HostPort, Namespace, TaskQueue string
	App                            appConfig
	Schedule                       time.Duration // keep the Resume schedule with this period when it starts; 0 leaves it alone
}

var (
	serverOnce sync.Once
	server     *temporaltest.TestServer
)

// srv returns the Temporal server of the tests, started by the first
// test that asks: a real server (frontend, history, matching and worker
// services, persistence on SQLite in memory), in this process.
func srv() *temporaltest.TestServer {
	serverOnce.Do(func() {
		server = temporaltest.NewServer(temporaltest.WithBaseClientOptions(client.Options{Logger: log.NewStructuredLogger(quiet)}))
	})
	return server
}

func TestMain(m *testing.M) {
	slog.SetDefault(quiet)
	if cfg := os.Getenv(workerEnv); cfg != "" {
		if err := workerMain(cfg); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if server != nil {
		server.Stop()
	}
	os.Exit(code)
}

// workerMain is a worker process: it runs the app on its task queue,
// keeps the Resume schedule if told to, prints "ready" and works until its
// standard input closes (or it is killed).
func workerMain(cfgJSON string) error {
	var cfg workerConfig
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		return err
	}
	ctx := context.Background()
	a, err := newApp(ctx, cfg.App)
	if err != nil {
		return err
	}
	defer a.close()
	tc, err := client.Dial(client.Options{HostPort: cfg.HostPort, Namespace: cfg.Namespace, Logger: log.NewStructuredLogger(quiet)})
	if err != nil {
		return err
	}
	defer tc.Close()
	w := worker.New(tc, cfg.TaskQueue, worker.Options{})
	if err := a.register(w); err != nil {
		return err
	}
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()
	if cfg.Schedule > 0 {
		if _, err := wgtemporal.ScheduleResume(ctx, tc, wgtemporal.ResumeSchedule{ID: "resume-" + cfg.TaskQueue, TaskQueue: cfg.TaskQueue, Every: cfg.Schedule}); err != nil {
			return err
		}
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // any end of the input ends the worker
	return nil
}

// fleet runs worker processes, each with its own ledger handle, against the
// test's server: a worker killed (SIGKILL) is replaced by a new process
// when the fleet restarts, as a supervisor does.
type fleet struct {
	t   testing.TB
	cfg workerConfig

	mu      sync.Mutex
	workers map[string]*proc // guarded by mu
	next    int              // guarded by mu
	kills   int              // guarded by mu
	restart bool             // start a new worker for each one killed; guarded by mu
}

// proc is a worker process.
type proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func newFleet(t testing.TB, taskQueue, provider, ledgerDSN string) *fleet {
	s := srv()
	f := &fleet{t: t, workers: map[string]*proc{}, cfg: workerConfig{
		HostPort: s.GetFrontendHostPort(), Namespace: s.GetDefaultNamespace(), TaskQueue: taskQueue,
		App: appConfig{Provider: provider, Ledger: ledgerDSN},
	}}
	t.Cleanup(f.stop)
	return f
}

// start starts a worker process and returns its name once it is ready.
func (f *fleet) start(schedule time.Duration) string {
	f.t.Helper()
	name, err := f.launch(schedule)
	if err != nil {
		f.t.Fatal(err)
	}
	return name
}

func (f *fleet) launch(schedule time.Duration) (string, error) {
	f.mu.Lock()
	f.next++
	cfg := f.cfg
	cfg.App.Name = fmt.Sprintf("w%d", f.next)
	f.mu.Unlock()
	cfg.Schedule = schedule
	b, err := json.Marshal(cfg)
	if err != nil {
		return "", err
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+string(b))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		cmd.Process.Kill() //nolint:errcheck // it failed already
		cmd.Wait()         //nolint:errcheck // its error is the one below
		return "", fmt.Errorf("worker %s did not start: %q, %v", cfg.App.Name, line, err)
	}
	f.mu.Lock()
	f.workers[cfg.App.Name] = &proc{cmd: cmd, stdin: stdin}
	f.mu.Unlock()
	return cfg.App.Name, nil
}

// kill kills the worker name with SIGKILL, if it lives, and starts another
// when the fleet restarts killed workers. It reports whether it killed.
func (f *fleet) kill(name string) bool {
	f.mu.Lock()
	p, ok := f.workers[name]
	delete(f.workers, name)
	restart := f.restart
	if ok {
		f.kills++
	}
	f.mu.Unlock()
	if !ok {
		return false
	}
	p.cmd.Process.Kill() //nolint:errcheck // it may have ended
	p.cmd.Wait()         //nolint:errcheck // killed
	if restart {
		go func() {
			if _, err := f.launch(0); err != nil && f.restarting() {
				f.t.Error(err)
			}
		}()
	}
	return true
}

// restarting reports whether the fleet starts a new worker for each one
// killed: it stops when the test ends.
func (f *fleet) restarting() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.restart
}

// killed returns how many workers were killed.
func (f *fleet) killed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.kills
}

// stop ends every worker: its standard input closes.
func (f *fleet) stop() {
	f.mu.Lock()
	f.restart = false
	ws := f.workers
	f.workers = map[string]*proc{}
	f.mu.Unlock()
	for _, p := range ws {
		p.stdin.Close()
		p.cmd.Wait() //nolint:errcheck // stopped
	}
}

// ledgers returns the ledgers the tests run on: a SQLite file, and with
// WRITEGEN_PG_DSN a PostgreSQL database of the test's own.
func ledgers(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "ledger.db")}
	if dsn := os.Getenv("WRITEGEN_PG_DSN"); dsn != "" {
		m["postgres"] = newDatabase(t, dsn)
	}
	return m
}

// newDatabase creates a database of its own for a test in the PostgreSQL
// of dsn and returns its DSN; it is dropped when the test ends.
func newDatabase(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("wgtemporal_%d", rand.Uint32())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)") //nolint:errcheck // the cluster is thrown away
		conn.Close(ctx)
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// events returns the history of the workflow id's run, its last run when
// no run ID is given.
func events(t testing.TB, c client.Client, id string, run ...string) []*history.HistoryEvent {
	t.Helper()
	var evs []*history.HistoryEvent
	it := c.GetWorkflowHistory(context.Background(), id, strings.Join(run, ""), false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
	}
	return evs
}

// attempts returns the attempt of the first activity of the workflow id
// that the server recorded as started: the attempts it made.
func attempts(t testing.TB, c client.Client, id string) int32 {
	t.Helper()
	for _, e := range events(t, c, id) {
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			return a.GetAttempt()
		}
	}
	return 0
}

// appErr returns the application error that a workflow's error holds, if
// any.
func appErr(err error) *temporal.ApplicationError {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}
