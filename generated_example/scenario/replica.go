package scenario

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writegen/writegen/generated_example/relay"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

// envReplica holds, in a relay process an Env started, what that process is to do.
const envReplica = "WRITEGEN_SCENARIO_REPLICA"

// ReplicaMain runs the relay process this program was started as by an Env with Replicas, and
// returns its exit code and true; in any other process it returns false at once. A program (or
// a test binary's TestMain) that builds such an Env calls it first:
//
//	func TestMain(m *testing.M) {
//		if code, ok := scenario.ReplicaMain(); ok {
//			os.Exit(code)
//		}
//		os.Exit(m.Run())
//	}
func ReplicaMain() (code int, ok bool) {
	spec := os.Getenv(envReplica)
	if spec == "" {
		return 0, false
	}
	if err := runReplica(spec); err != nil {
		fmt.Fprintln(os.Stderr, "scenario replica:", err)
		return 1, true
	}
	return 0, true
}

// replicaSpec tells a relay process what to run.
type replicaSpec struct {
	Index          int
	Ledger         string
	DeskURL        string
	ChatURL        string
	TokensURL      string // the token service of the parent (see tokenService)
	Workers        int
	ResumeEvery    time.Duration
	Lease          time.Duration
	AttemptTimeout time.Duration
	LookupSettle   time.Duration
	ReaskEvery     time.Duration
	ReaskTimes     int
	Verbose        bool // log the relay's errors on stderr
}

// replicaMsg is one line of a relay process's output: first its webhooks' URL, then notices
// as they happen, and the answers to the parent's commands (one line each: "stats", "hold",
// "release", "reconcile").
type replicaMsg struct {
	URL        string       `json:"url,omitempty"`
	Notice     *notice      `json:"notice,omitempty"`
	Stats      *relay.Stats `json:"stats,omitempty"`
	Held       bool         `json:"held,omitempty"`
	Released   bool         `json:"released,omitempty"`
	Fenced     bool         `json:"fenced,omitempty"` // a call lost its claim (see watcher)
	Reconciled *int         `json:"reconciled,omitempty"`
	Failed     string       `json:"failed,omitempty"` // why a reconcile failed, in part
	Err        string       `json:"err,omitempty"`
}

// notice is an uncertain outcome as a relay process tells it.
type notice struct {
	runtime.Identity
	OperationID string `json:"operation_id"`
	ProviderKey string `json:"provider_key"`
	Owner       string `json:"owner"`
	Attempts    int    `json:"attempts"`
	Reason      string `json:"reason"`
	Status      int    `json:"status"`
	Recorded    string `json:"recorded"`
	Cause       string `json:"cause,omitempty"`
}

func noticeOf(ue *runtime.UncertainError) *notice {
	n := &notice{Identity: ue.Identity, OperationID: ue.OperationID, ProviderKey: ue.ProviderKey, Owner: ue.Owner,
		Attempts: ue.Attempts, Reason: ue.Reason, Status: ue.Status, Recorded: ue.Recorded}
	if ue.Cause != nil {
		n.Cause = ue.Cause.Error()
	}
	return n
}

func (n *notice) uncertain() *runtime.UncertainError {
	ue := &runtime.UncertainError{Identity: n.Identity, OperationID: n.OperationID, ProviderKey: n.ProviderKey,
		Owner: n.Owner, Attempts: n.Attempts, Reason: n.Reason, Status: n.Status, Recorded: n.Recorded}
	if n.Cause != "" {
		ue.Cause = errors.New(n.Cause)
	}
	return ue
}

// output writes a relay process's lines.
type output struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (o *output) send(m replicaMsg) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.enc.Encode(m) //nolint:errcheck // the parent has gone: nothing to tell
}

// Uncertain implements runtime.Notifier: the parent is told at once.
func (o *output) Uncertain(_ context.Context, ue *runtime.UncertainError) {
	o.send(replicaMsg{Notice: noticeOf(ue)})
}

func (o *output) fenced(int64, int64) { o.send(replicaMsg{Fenced: true}) }

// runReplica is a relay process: the relay on the ledger, its webhook server, its workers and
// its periodic Resume, until its input ends.
func runReplica(spec string) error {
	var s replicaSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := ledgercli.Open(ctx, s.Ledger)
	if err != nil {
		return err
	}
	defer l.Close()
	out := &output{enc: json.NewEncoder(os.Stdout)}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if s.Verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	o := Options{Workers: s.Workers, ResumeEvery: s.ResumeEvery, Lease: s.Lease, AttemptTimeout: s.AttemptTimeout,
		LookupSettle: s.LookupSettle, ReaskEvery: s.ReaskEvery, ReaskTimes: s.ReaskTimes, Replicas: 2, Logger: logger}
	tokens := &remoteTokens{url: s.TokensURL, client: &http.Client{Timeout: 5 * time.Second}}
	r, err := newRelay(ctx, o, l, s.DeskURL, s.ChatURL, NewClock(false), tokens, out)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	server := &http.Server{Handler: r.Handler(), ReadHeaderTimeout: 10 * time.Second}
	var running sync.WaitGroup
	running.Go(func() { server.Serve(ln) })
	running.Go(func() { r.Run(ctx) })
	defer func() {
		cancel()
		server.Close()
		running.Wait()
	}()
	out.send(replicaMsg{URL: "http://" + ln.Addr().String() + "/webhooks/"})

	var release func()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch cmd := in.Text(); cmd {
		case "stats":
			st := r.Stats()
			out.send(replicaMsg{Stats: &st})
		case "hold":
			if release == nil {
				var err error
				if release, err = r.HoldResume(ctx); err != nil {
					out.send(replicaMsg{Err: err.Error()})
					continue
				}
			}
			out.send(replicaMsg{Held: true})
		case "reconcile":
			n, err := r.Reconcile(ctx)
			m := replicaMsg{Reconciled: &n}
			if err != nil {
				m.Failed = err.Error()
			}
			out.send(m)
		case "release":
			if release != nil {
				release()
				release = nil
			}
			out.send(replicaMsg{Released: true})
		default:
			out.send(replicaMsg{Err: "unknown command " + strconv.Quote(cmd)})
		}
	}
	return in.Err()
}

// replicas are the relay processes of an Env.
type replicas struct {
	e      *Env
	spec   replicaSpec
	tokens *http.Server

	mu    sync.Mutex
	procs []*replicaProc // the running process of each replica
	past  relay.Stats    // what the processes killed so far had done, as they last told
}

// replicaProc is one relay process.
type replicaProc struct {
	index   int
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	url     string
	replies chan replicaMsg
	done    chan struct{} // closed when its output has ended
	stderr  *tail

	cmdMu sync.Mutex // one command at a time
}

func startReplicas(ctx context.Context, e *Env) (*replicas, error) {
	if err := relay.Migrate(ctx, e.ledger); err != nil {
		return nil, err
	}
	tokensURL, tokens, err := serveTokens(e.refresher)
	if err != nil {
		return nil, err
	}
	rs := &replicas{e: e, tokens: tokens, spec: replicaSpec{
		Ledger: e.opts.Ledger, DeskURL: e.desk.URL(), ChatURL: e.chat.URL(), TokensURL: tokensURL,
		Workers: e.opts.Workers, ResumeEvery: e.opts.ResumeEvery, Lease: e.opts.Lease,
		AttemptTimeout: e.opts.AttemptTimeout, LookupSettle: e.opts.LookupSettle, ReaskEvery: e.opts.ReaskEvery,
		ReaskTimes: e.opts.ReaskTimes, Verbose: os.Getenv("WRITEGEN_SOAK_VERBOSE") != "",
	}}
	rs.procs = make([]*replicaProc, e.opts.Replicas)
	for i := range rs.procs {
		p, err := rs.start(ctx, i)
		if err != nil {
			rs.close()
			return nil, err
		}
		rs.procs[i] = p
	}
	return rs, nil
}

// start starts the process of replica i and waits until it serves its webhooks.
func (rs *replicas) start(ctx context.Context, i int) (*replicaProc, error) {
	spec := rs.spec
	spec.Index = i
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p := &replicaProc{index: i, cmd: exec.Command(exe, "-test.run=^$"), replies: make(chan replicaMsg, 1),
		done: make(chan struct{}), stderr: &tail{max: 64 << 10}}
	p.cmd.Env = append(os.Environ(), envReplica+"="+string(b))
	p.cmd.Stderr = p.stderr
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan string, 1)
	go p.read(stdout, ready, rs.e)
	select {
	case p.url = <-ready:
		return p, nil
	case <-p.done:
		p.cmd.Wait() //nolint:errcheck // reported below
		return nil, fmt.Errorf("scenario: replica %d exited before serving (does the program call ReplicaMain first?): %s", i, p.stderr)
	case <-ctx.Done():
		p.kill()
		return nil, ctx.Err()
	}
}

// read reads the process's output until it ends: notices go to the Env, answers to replies.
func (p *replicaProc) read(stdout io.Reader, ready chan<- string, e *Env) {
	defer close(p.done)
	in := bufio.NewScanner(stdout)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var m replicaMsg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintf(p.stderr, "scenario: unreadable line from replica %d: %q\n", p.index, in.Text())
			continue
		}
		switch {
		case m.URL != "":
			ready <- m.URL
		case m.Notice != nil:
			e.Uncertain(context.Background(), m.Notice.uncertain())
		case m.Fenced:
			e.countFenced(p.index)
		default:
			p.replies <- m
		}
	}
}

// command sends cmd and returns the answer.
func (p *replicaProc) command(ctx context.Context, cmd string) (replicaMsg, error) {
	p.cmdMu.Lock()
	defer p.cmdMu.Unlock()
	if _, err := io.WriteString(p.stdin, cmd+"\n"); err != nil {
		return replicaMsg{}, fmt.Errorf("scenario: replica %d: %s: %w: %s", p.index, cmd, err, p.stderr)
	}
	select {
	case m := <-p.replies:
		if m.Err != "" {
			return m, fmt.Errorf("scenario: replica %d: %s: %s", p.index, cmd, m.Err)
		}
		return m, nil
	case <-p.done:
		return replicaMsg{}, fmt.Errorf("scenario: replica %d exited: %s", p.index, p.stderr)
	case <-ctx.Done():
		return replicaMsg{}, fmt.Errorf("scenario: replica %d: %s: %w", p.index, cmd, ctx.Err())
	}
}

func (p *replicaProc) stats(ctx context.Context) (relay.Stats, error) {
	m, err := p.command(ctx, "stats")
	if err != nil || m.Stats == nil {
		return relay.Stats{}, err
	}
	return *m.Stats, nil
}

// kill kills the process and waits for it.
func (p *replicaProc) kill() {
	p.cmd.Process.Kill() //nolint:errcheck // reported by Wait
	p.cmd.Wait()         //nolint:errcheck // killed
}

// owner is what the lease owners of the process's claims contain: the runtime names them
// "host/pid/random".
func (p *replicaProc) owner() string { return "/" + strconv.Itoa(p.cmd.Process.Pid) + "/" }

func (rs *replicas) proc(i int) *replicaProc {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.procs[i]
}

func (rs *replicas) route(eventID string, n int) string {
	s := rs.e.schedule()
	return rs.proc((s.pick(len(rs.procs), "replica", eventID) + n - 1) % len(rs.procs)).url
}

func (rs *replicas) stats() relay.Stats {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rs.mu.Lock()
	sum, procs := rs.past, append([]*replicaProc(nil), rs.procs...)
	rs.mu.Unlock()
	for _, p := range procs {
		st, _ := p.stats(ctx) // a replica that does not answer counts nothing
		sum = addStats(sum, st)
	}
	return sum
}

func (rs *replicas) hold(ctx context.Context) (func(), error) {
	rs.mu.Lock()
	procs := append([]*replicaProc(nil), rs.procs...)
	rs.mu.Unlock()
	release := func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		for _, p := range procs {
			p.command(rctx, "release") //nolint:errcheck // a replica that died holds nothing
		}
	}
	for _, p := range procs {
		if _, err := p.command(ctx, "hold"); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

func (rs *replicas) reconcile(ctx context.Context) (int, error) {
	rs.mu.Lock()
	procs := append([]*replicaProc(nil), rs.procs...)
	rs.mu.Unlock()
	total := 0
	var errs []error
	for _, p := range procs {
		m, err := p.command(ctx, "reconcile")
		if err != nil {
			return total, err
		}
		if m.Reconciled != nil {
			total += *m.Reconciled
		}
		if m.Failed != "" {
			errs = append(errs, fmt.Errorf("scenario: replica %d: reconcile: %s", p.index, m.Failed))
		}
	}
	return total, errors.Join(errs...)
}

// crash kills replica i, after asking what it did, records the claims it held, and starts it
// again after down.
func (rs *replicas) crash(ctx context.Context, i int, down time.Duration) error {
	p := rs.proc(i)
	st, err := p.stats(ctx)
	if err != nil {
		return err
	}
	p.kill()
	rs.mu.Lock()
	rs.past = addStats(rs.past, st)
	rs.mu.Unlock()
	if err := rs.e.orphaned(ctx, p.owner(), "crash"); err != nil {
		return err
	}
	if err := sleepUntil(ctx, time.Now().Add(down)); err != nil {
		return err
	}
	np, err := rs.start(ctx, i)
	if err != nil {
		return err
	}
	rs.mu.Lock()
	rs.procs[i] = np
	rs.mu.Unlock()
	return nil
}

// stall stops replica i for d, as a long pause of its process (a VM migration, a collector
// stopping the world), records the claims it held, and lets it go on.
func (rs *replicas) stall(ctx context.Context, i int, d time.Duration) error {
	p := rs.proc(i)
	if err := stop(p.cmd.Process); err != nil {
		return fmt.Errorf("scenario: stop replica %d: %w", i, err)
	}
	err := rs.e.orphaned(ctx, p.owner(), "stall")
	err = errors.Join(err, sleepUntil(ctx, time.Now().Add(d)))
	if cerr := cont(p.cmd.Process); cerr != nil {
		err = errors.Join(err, fmt.Errorf("scenario: continue replica %d: %w", i, cerr))
	}
	return err
}

func (rs *replicas) close() error {
	rs.mu.Lock()
	procs := rs.procs
	rs.mu.Unlock()
	var errs []error
	for _, p := range procs {
		if p == nil {
			continue
		}
		p.stdin.Close()
		exited := make(chan error, 1)
		go func() { exited <- p.cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				errs = append(errs, fmt.Errorf("scenario: replica %d: %w: %s", p.index, err, p.stderr))
			}
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill() //nolint:errcheck // reported by Wait
			<-exited
			errs = append(errs, fmt.Errorf("scenario: replica %d did not stop; killed", p.index))
		}
	}
	if rs.tokens != nil {
		rs.tokens.Close()
	}
	return errors.Join(errs...)
}

// orphaned records the claims held by the process whose lease owners contain owner, which has
// just crashed or stalled: each must be taken over, or settled by its holder once it goes on.
func (e *Env) orphaned(ctx context.Context, owner, how string) error {
	rows, err := e.ledger.List(ctx, ledger.Filter{State: runtime.StateClaimed, AnyScope: true, AnyTenant: true})
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch how {
	case "crash":
		e.replica.Crashes++
	case "stall":
		e.replica.Stalls++
	}
	for _, r := range rows {
		if strings.Contains(r.LeaseOwner, owner) {
			e.replica.orphans = append(e.replica.orphans, orphan{id: r.ID, fence: r.Fence})
		}
	}
	return nil
}

// addStats returns the sum of a and b.
func addStats(a, b relay.Stats) relay.Stats {
	a.Requests += b.Requests
	a.Repeats += b.Repeats
	a.Threads += b.Threads
	a.FromLookup += b.FromLookup
	a.FromLedger += b.FromLedger
	a.Reconciled += b.Reconciled
	a.Uncertain += b.Uncertain
	a.Failed += b.Failed
	a.NotApplied += b.NotApplied
	a.Replies += b.Replies
	a.FirstReplies += b.FirstReplies
	a.LaterReplies += b.LaterReplies
	a.Sent += b.Sent
	a.SendUncertain += b.SendUncertain
	a.Redriven += b.Redriven
	a.Resumes += b.Resumes
	a.Resumed = a.Resumed.Add(b.Resumed)
	return a
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
