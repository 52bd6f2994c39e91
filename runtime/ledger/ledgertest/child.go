package ledgertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// envChild holds, in a process the suite started, what that process does.
const envChild = "WRITEGEN_LEDGERTEST_CHILD"

// Main runs the tests of m (setup, if not nil, runs first and returns a
// function to run after them), or, in a process the suite started from the
// test binary, that process's part. It returns the exit code:
//
//	func TestMain(m *testing.M) { os.Exit(ledgertest.Main(m, nil)) }
func Main(m *testing.M, setup func() (teardown func())) int {
	if spec := os.Getenv(envChild); spec != "" {
		if err := runChild(spec); err != nil {
			fmt.Fprintln(os.Stderr, "ledgertest child:", err)
			return 1
		}
		return 0
	}
	if setup != nil {
		defer setup()()
	}
	return m.Run()
}

// childArgs tell a child process what to do.
type childArgs struct {
	Role     string   // "ledger", "write", "crash", "outbox", "inbox"
	DSN      string   // the ledger
	URL      string   // the provider
	Key      key      // the business key (write, crash)
	Strategy strategy // (write, crash)
	Boundary string   // where to stop and wait to be killed (crash, outbox)
	Callers  int      // concurrent callers (write)
	Source   string   // the inbox's source (inbox)
	Secret   string   // the inbox's webhook secret (inbox)
	Instance string   // the client's instance name, "" for none (crash)
	// Attempt and Lease are the client's attempt timeout and lease, 0 for
	// the defaults (crash).
	Attempt, Lease time.Duration
}

// child is a running child process.
type child struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Scanner
	stderr bytes.Buffer
}

// startChild re-executes the test binary as a child process doing a.
func startChild(t testing.TB, a childArgs) *child {
	t.Helper()
	spec, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	c := &child{t: t, cmd: exec.Command(os.Args[0], "-test.run=^$")}
	c.cmd.Env = append(os.Environ(), envChild+"="+string(spec))
	c.cmd.Stderr = &c.stderr
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.out = bufio.NewScanner(stdout)
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() }) //nolint:errcheck // gone already, usually
	return c
}

// line returns the child's next line of output, "" at its end.
func (c *child) line() string {
	if c.out.Scan() {
		return c.out.Text()
	}
	return ""
}

// kill sends SIGKILL and waits for the child to die.
func (c *child) kill() {
	c.cmd.Process.Kill() //nolint:errcheck // reported by Wait
	c.cmd.Wait()         //nolint:errcheck // killed
}

// finish closes the child's input and waits for it to exit, failing the
// test if it did not exit cleanly.
func (c *child) finish() {
	c.t.Helper()
	c.stdin.Close()
	for c.out.Scan() {
		c.t.Logf("child said after the end: %s", c.out.Text())
	}
	if err := c.cmd.Wait(); err != nil {
		c.t.Fatalf("child %v: %v\n%s", c.cmd.Args, err, c.stderr.String())
	}
}

func runChild(spec string) error {
	var a childArgs
	if err := json.Unmarshal([]byte(spec), &a); err != nil {
		return err
	}
	ctx := context.Background()
	l, err := ledgercli.Open(ctx, a.DSN)
	if err != nil {
		return err
	}
	defer l.Close()
	switch a.Role {
	case "ledger":
		return childLedger(ctx, l)
	case "write":
		return childWrite(ctx, l, a)
	case "crash":
		return childCrash(ctx, l, a)
	case "outbox":
		return childOutbox(ctx, l, a)
	case "inbox":
		return childInbox(ctx, l, a)
	}
	return fmt.Errorf("unknown role %q", a.Role)
}

// childWrite waits for a line on stdin, then runs a.Callers concurrent
// writes of a.Key and prints each caller's outcome as a JSON line.
func childWrite(ctx context.Context, l *ledger.Ledger, a childArgs) error {
	c, err := writegenimpl.NewClient(scope, a.URL, []runtime.Option{runtime.WithLedger(l)})
	if err != nil {
		return err
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return err
	}
	outcomes := make([]outcome, a.Callers)
	var wg sync.WaitGroup
	for i := range outcomes {
		wg.Go(func() { outcomes[i] = outcomeOf(writeThing(ctx, c, a.URL, a.Strategy, a.Key)) })
	}
	wg.Wait()
	enc := json.NewEncoder(os.Stdout)
	for _, o := range outcomes {
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return nil
}

// halt tells the parent the child reached boundary b and waits to be
// killed.
func halt(b string) {
	fmt.Println("at " + b)
	select {}
}

// childCrash runs one write of a.Key and halts at a.Boundary.
func childCrash(ctx context.Context, l *ledger.Ledger, a childArgs) error {
	at := func(b string) {
		if b == a.Boundary {
			halt(b)
		}
	}
	hc := &http.Client{Transport: afterResponse{http.DefaultTransport, func() { at("after-call") }}}
	opts := []runtime.Option{runtime.WithLedger(boundaryLedger{l, at}), runtime.WithHTTPClient(hc)}
	if a.Instance != "" {
		opts = append(opts, runtime.WithInstance(a.Instance))
	}
	if a.Attempt > 0 {
		opts = append(opts, runtime.WithAttemptTimeout(a.Attempt))
	}
	if a.Lease > 0 {
		opts = append(opts, runtime.WithLease(a.Lease))
	}
	c, err := writegenimpl.NewClient(scope, a.URL, opts)
	if err != nil {
		return err
	}
	at("before-claim")
	if _, err := writeThing(ctx, c, a.URL, a.Strategy, a.Key); err != nil {
		return err
	}
	at("after-done")
	return fmt.Errorf("boundary %q never reached", a.Boundary)
}

// boundaryLedger calls at after a won claim and after a settlement.
type boundaryLedger struct {
	*ledger.Ledger
	at func(boundary string)
}

func (l boundaryLedger) Claim(ctx context.Context, rec runtime.Record, h runtime.Holder, lease time.Duration) (runtime.Record, bool, error) {
	rec, won, err := l.Ledger.Claim(ctx, rec, h, lease)
	if won && err == nil {
		l.at("after-claim")
	}
	return rec, won, err
}

func (l boundaryLedger) Settle(ctx context.Context, id, fence int64, to runtime.State, s runtime.Settlement) error {
	err := l.Ledger.Settle(ctx, id, fence, to, s)
	if err == nil {
		l.at("after-receipt")
	}
	return err
}

// afterResponse calls after once a response's header has arrived.
type afterResponse struct {
	base  http.RoundTripper
	after func()
}

func (t afterResponse) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil {
		t.after()
	}
	return resp, err
}

// childOutbox sends due outbox items with thingSender. With a boundary it
// halts there ("after-lease": the item is leased, nothing sent;
// "after-call": the provider answered, nothing recorded); without one it
// waits for a line on stdin, sends every due item and prints how many.
func childOutbox(ctx context.Context, l *ledger.Ledger, a childArgs) error {
	c, err := writegenimpl.NewClient(scope, a.URL, nil)
	if err != nil {
		return err
	}
	send := thingSender(c, a.URL)
	if a.Boundary != "" {
		inner := send
		send = func(ctx context.Context, it ledger.OutboxItem) (ledger.Delivery, error) {
			if a.Boundary == "after-call" {
				_, _ = inner(ctx, it) // the process dies before it records the outcome
			}
			halt(a.Boundary)
			panic("unreachable")
		}
	} else {
		fmt.Println("ready")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return err
		}
	}
	n, err := l.Outbox(send, ledger.WorkerOptions{Lease: outboxLease}).SendDue(ctx)
	fmt.Println(n)
	return err
}

// childInbox serves an inbox on 127.0.0.1, prints its URL, and handles
// events with thingHandler until its input closes.
func childInbox(ctx context.Context, l *ledger.Ledger, a childArgs) error {
	in, err := newThingInbox(l, a.Source, a.Secret, a.URL)
	if err != nil {
		return err
	}
	url, stop, err := serve(in)
	if err != nil {
		return err
	}
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	fmt.Println(url)
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // any end of input stops the child
	cancel()
	if err := <-done; err != nil && !strings.Contains(err.Error(), "context canceled") {
		return err
	}
	return nil
}
