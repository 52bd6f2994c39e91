package scenario

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/writegen/writegen/generated_example/chat"
	"github.com/writegen/writegen/generated_example/relay"
	"github.com/writegen/writegen/generated_example/simulator"
	"github.com/writegen/writegen/generated_example/support"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// Options configure an Env.
type Options struct {
	// Ledger names the ledger as "writegen ledger -db" takes it: "sqlite:PATH" or a
	// postgres:// URL.
	Ledger string
	// Instant makes the clients' backoff cost no real time (see Clock). It needs the relay in
	// this process (Replicas 0): processes do not share a clock that jumps.
	Instant bool
	// Workers is how many events and obligations each relay handles at once, per kind;
	// default 4.
	Workers int
	// ResumeEvery is how often each relay calls Resume; default 20ms.
	ResumeEvery time.Duration
	// Lease is the lease of the clients' ledger claims (runtime.WithLease), and AttemptTimeout
	// the deadline of each attempt; defaults: the runtime's in this process, 300ms and 200ms
	// with Replicas.
	Lease, AttemptTimeout time.Duration
	// LookupSettle is the client's floor under its lookups' settle times and lags
	// (runtime.WithLookupSettle); 0 or less keeps what the annotations declare.
	LookupSettle time.Duration
	// ReaskEvery and ReaskTimes are the schedule on which Resume asks again the lookup of a
	// write left uncertain because it could not answer yet (runtime.WithReask): 0 keeps the
	// runtime's defaults; ReaskTimes below 0 has Resume ask none again, leaving every such
	// write to a person at once, as the runtime did before it asked again.
	ReaskEvery time.Duration
	ReaskTimes int
	// Replicas, when 2 or more, runs the relay in that many processes of its own, sharing the
	// ledger (a PostgreSQL one, usually), each with its own webhook server, workers and
	// periodic Resume; the simulators deliver each webhook to one of them. The processes
	// re-execute this program, which must call ReplicaMain first thing. 0 or 1 runs one relay
	// in this process.
	Replicas int
	// Logger receives the relays' errors; default none.
	Logger *slog.Logger

	gate *pauseGate // pauses the clients; nil: nothing does
}

// The secrets the simulators and the relay share.
var (
	chatSecret    = []byte("chat platform webhook secret")
	supportSecret = []byte("support desk webhook secret")
	keySecret     = []byte("provider keys secret")
)

const botToken = "bot-token"

// pauseLength is how long a paused connector sleeps: past every key window (24 hours).
const pauseLength = 25 * time.Hour

// relays is where the relay runs: in this process, or in processes of its own.
type relays interface {
	// route returns the base URL of the relay that delivery n of an event goes to.
	route(eventID string, n int) string
	// stats returns what the relays did, summed.
	stats() relay.Stats
	// hold holds the periodic Resume of every relay (see relay.HoldResume).
	hold(ctx context.Context) (release func(), err error)
	// reconcile has every relay reconcile its uncertain escalations (see relay.Reconcile) and
	// returns how many got their thread.
	reconcile(ctx context.Context) (int, error)
	close() error
}

// Env is a relay, or several, and their peers, ready to run schedules one after another.
type Env struct {
	opts      Options
	ledger    *ledger.Ledger
	relays    relays
	desk      *simulator.Support
	chat      *simulator.Chat
	clock     *Clock     // the clients', the ledger's and the simulators'
	gate      *pauseGate // pauses the relay's clients in this process (see Env.fault)
	tokens    *Clock     // the refresher's
	refresher *runtime.Refresher
	tokenLife time.Duration // of the desk's access tokens
	prefix    string        // of the conversation ids, unique to the Env (a ledger may be reused)

	mu         sync.Mutex
	sched      Schedule
	runs       int                       // schedules run
	convs      int                       // conversations that asked for a person
	requests   int                       // escalation events sent
	paused     int                       // pauses past the key window
	uncertain  []*runtime.UncertainError // every outcome told to the notifier
	token      runtime.Token             // as persisted by the refresher
	checked    Checks                    // what the checks counted
	all        []string                  // the conversations of every run
	end        Checks                    // what the check of every run's escalations counted, at Settle
	replica    ReplicaFigures            // what happened to the relay processes
	struck     map[int]bool              // the replicas killed or stopped in this run or the one before
	lastStruck int                       // the replica killed or stopped in this run, -1 if none
}

// NewEnv opens the ledger, starts the simulators and the relay, or its replicas.
func NewEnv(ctx context.Context, o Options) (env *Env, err error) {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.ResumeEvery <= 0 {
		o.ResumeEvery = 100 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Replicas > 1 {
		if o.Instant {
			return nil, errors.New("scenario: an instant clock needs the relay in this process (Replicas 0)")
		}
		if o.Lease <= 0 {
			o.Lease = 300 * time.Millisecond
		}
		if o.AttemptTimeout <= 0 {
			o.AttemptTimeout = 200 * time.Millisecond
		}
	}
	e := &Env{
		opts:       o,
		lastStruck: -1,
		gate:       &pauseGate{next: http.DefaultTransport},
		clock:      NewClock(o.Instant),
		tokens:     NewClock(false),
		prefix:     "conv-" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36) + "-",
	}
	e.ledger, err = ledgercli.Open(ctx, o.Ledger, ledger.WithClock(e.clock))
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()

	route := func(hook string) simulator.RouteFunc {
		return func(id string, n int) string { return e.relays.route(id, n) + hook }
	}
	e.desk = simulator.NewSupport(simulator.SupportConfig{
		Faults:        e.fault,
		SlowCommit:    func(op, key string, n int) time.Duration { return e.schedule().slowCommit(op, key, n) },
		Rotate:        e.rotate,
		Replies:       func(c string) int { return e.schedule().replies(c) },
		Route:         route("support"),
		WebhookSecret: supportSecret,
		Deliveries:    func(id string) simulator.Delivery { return e.schedule().delivery(id) },
		Clock:         e.clock.Now,
		SearchDown:    func() bool { return e.schedule().SearchDown },
	})
	e.chat = simulator.NewChat(simulator.ChatConfig{
		Faults:        e.fault,
		SlowCommit:    func(op, key string, n int) time.Duration { return e.schedule().slowCommit(op, key, n) },
		Token:         botToken,
		Route:         route("chat"),
		WebhookSecret: chatSecret,
		Deliveries:    func(id string) simulator.Delivery { return e.schedule().delivery(id) },
		Clock:         e.clock.Now,
	})

	access, refresh, life := e.desk.Credentials()
	e.tokenLife = life
	e.token = runtime.Token{Access: access, Refresh: refresh, Expiry: e.tokens.Now().Add(life)}
	e.refresher = runtime.NewRefresher(e.token, e.refreshToken, e.persistToken, runtime.WithRefreshClock(e.tokens))

	if o.Replicas > 1 {
		e.relays, err = startReplicas(ctx, e)
	} else {
		e.relays, err = startLocal(ctx, e)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// clientOptions returns the options of the generated clients, in this process or a replica.
func clientOptions(o Options, clock runtime.Clock, n runtime.Notifier) []runtime.Option {
	opts := []runtime.Option{
		runtime.WithKeySecret(keySecret),
		runtime.WithClock(clock),
		runtime.WithBackoff(time.Millisecond, 20*time.Millisecond),
		runtime.WithRetryBudget(1, 1000),
		runtime.WithNotifier(n),
	}
	if o.gate != nil {
		opts = append(opts, runtime.WithHTTPClient(&http.Client{Transport: o.gate}),
			runtime.WithHooks(runtime.Hooks{AttemptStart: o.gate.attemptStart}))
	}
	if o.Lease > 0 {
		opts = append(opts, runtime.WithLease(o.Lease))
	}
	if o.AttemptTimeout > 0 {
		opts = append(opts, runtime.WithAttemptTimeout(o.AttemptTimeout))
	}
	if o.LookupSettle != 0 {
		opts = append(opts, runtime.WithLookupSettle(max(o.LookupSettle, 0)))
	}
	switch {
	case o.ReaskTimes < 0:
		opts = append(opts, runtime.WithReask(0, 0))
	case o.ReaskTimes > 0:
		opts = append(opts, runtime.WithReask(o.ReaskEvery, o.ReaskTimes))
	case o.ReaskEvery > 0:
		every := o.ReaskEvery // the runtime's number of asks, on another time scale
		opts = append(opts, func(s *writegenimpl.Settings) { s.ReaskEvery = every })
	}
	return opts
}

// watcher is told what the clients of a relay met: uncertain outcomes, and claims they lost.
type watcher interface {
	runtime.Notifier
	// fenced is told when a call's settlement of row id was refused because another caller took
	// the row over (the call's fence is stale): the call had stopped renewing its lease.
	fenced(id, fence int64)
}

// fenceWatch is the ledger of the clients: the relay's, which tells w when a settlement is
// refused for a stale fence. It changes nothing.
type fenceWatch struct {
	*ledger.Ledger
	w watcher
}

// Settle implements runtime.Ledger.
func (l fenceWatch) Settle(ctx context.Context, id, fence int64, to runtime.State, s runtime.Settlement) error {
	err := l.Ledger.Settle(ctx, id, fence, to, s)
	if errors.Is(err, runtime.ErrLeaseLost) {
		l.w.fenced(id, fence)
	}
	return err
}

// newRelay builds a relay on l with clients of the simulators at deskURL and chatURL.
func newRelay(ctx context.Context, o Options, l *ledger.Ledger, deskURL, chatURL string, clock runtime.Clock,
	tokens runtime.TokenSource, w watcher) (*relay.Relay, error) {
	common := clientOptions(o, clock, w)
	cl := fenceWatch{l, w}
	deskClient, err := support.NewClient(deskURL, cl, append(common, runtime.WithTokenSource(tokens))...)
	if err != nil {
		return nil, err
	}
	chatClient, err := chat.NewClient(chatURL, cl, append(common, runtime.WithHeader("Authorization", "Bearer "+botToken))...)
	if err != nil {
		return nil, err
	}
	return relay.New(ctx, relay.Config{
		Ledger:        l,
		Support:       deskClient,
		Chat:          chatClient,
		ChatSecret:    whsec(chatSecret),
		SupportSecret: whsec(supportSecret),
		ResumeEvery:   o.ResumeEvery,
		Workers: ledger.WorkerOptions{
			Workers: o.Workers,
			Lease:   workerLease(o),
			Poll:    2 * time.Millisecond,
			Backoff: func(n int) time.Duration { return time.Duration(n) * time.Millisecond },
			Logger:  o.Logger,
		},
	})
}

// workerLease is how long a relay's worker holds an event or an obligation: long enough for
// every attempt of a call and a wait for another caller's, short enough that the events of a
// replica killed in the middle are handled again soon. In this process, the ledger's default.
func workerLease(o Options) time.Duration {
	if o.Replicas > 1 {
		return time.Second
	}
	return 0
}

// local is the relay in this process.
type local struct {
	relay   *relay.Relay
	server  *http.Server
	url     string
	stop    context.CancelFunc
	running sync.WaitGroup
}

func startLocal(ctx context.Context, e *Env) (*local, error) {
	o := e.opts
	o.gate = e.gate
	r, err := newRelay(ctx, o, e.ledger, e.desk.URL(), e.chat.URL(), e.clock, e.refresher, e)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	lo := &local{relay: r, url: "http://" + ln.Addr().String() + "/webhooks/"}
	lo.server = &http.Server{Handler: r.Handler(), ReadHeaderTimeout: 10 * time.Second}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	lo.stop = stop
	lo.running.Go(func() { lo.server.Serve(ln) })
	lo.running.Go(func() { r.Run(runCtx) })
	return lo, nil
}

func (lo *local) route(string, int) string { return lo.url }
func (lo *local) stats() relay.Stats       { return lo.relay.Stats() }

func (lo *local) hold(ctx context.Context) (func(), error) { return lo.relay.HoldResume(ctx) }

func (lo *local) reconcile(ctx context.Context) (int, error) { return lo.relay.Reconcile(ctx) }

func (lo *local) close() error {
	lo.stop()
	err := lo.server.Close()
	lo.running.Wait()
	return err
}

// Close stops the relays and the simulators and closes the ledger.
func (e *Env) Close() error {
	if e.desk != nil {
		e.desk.Close()
	}
	if e.chat != nil {
		e.chat.Close()
	}
	var err error
	if e.relays != nil {
		err = e.relays.close()
	}
	return errors.Join(err, e.ledger.Close())
}

// HoldResume keeps every relay from starting another periodic Resume until release is called,
// after waiting for the ones in progress to end (see relay.Relay.HoldResume): the ledger is then
// at rest, unless events are still being handled. Run holds them while it checks a run.
func (e *Env) HoldResume(ctx context.Context) (release func(), err error) {
	return e.relays.hold(ctx)
}

// Ledger returns the ledger the relays use.
func (e *Env) Ledger() *ledger.Ledger { return e.ledger }

// WebhookURL returns the base URL of the webhooks of the relay that an event's first delivery
// goes to ("http://127.0.0.1:PORT/webhooks/"; add "chat" or "support").
func (e *Env) WebhookURL(eventID string) string { return e.relays.route(eventID, 1) }

func (e *Env) schedule() Schedule {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sched
}

// fault decides the fault of a write request; a pause moves the clients' clock past the key's
// window while the request is held, then loses its response: the relay's clients pause as a
// whole (see pauseGate). Replicas are not paused (they do not share a clock that jumps).
func (e *Env) fault(op, key string, n int) simulator.Fault {
	s := e.schedule()
	if s.paused(op, key, n) && e.opts.Replicas <= 1 {
		e.mu.Lock()
		e.paused++
		e.mu.Unlock()
		e.gate.pause(func() { e.clock.Jump(pauseLength) })
		return simulator.LoseResponse
	}
	return s.fault(op, key, n)
}

// rotate makes the refresher refresh now, as a concurrent request of the client would when it
// finds the token expired: the refresher's clock moves past any token's expiry first.
func (e *Env) rotate(ctx context.Context) error {
	e.tokens.Jump(2 * e.tokenLife)
	_, _, err := e.refresher.Token(ctx)
	return err
}

// refreshToken exchanges a refresh token at the desk.
func (e *Env) refreshToken(ctx context.Context, refresh string) (runtime.Token, error) {
	p, err := simulator.RefreshToken(ctx, e.desk.URL(), refresh, e.tokens.Now)
	return runtime.Token{Access: p.Access, Refresh: p.Refresh, Expiry: p.Expiry}, err
}

// persistToken keeps the rotated token before it is used (a connector would store it in its
// database).
func (e *Env) persistToken(_ context.Context, t runtime.Token) error {
	if t.Access == "" || t.Refresh == "" {
		return errors.New("empty token")
	}
	e.mu.Lock()
	e.token = t
	e.mu.Unlock()
	return nil
}

// Uncertain implements runtime.Notifier: it records who would be told. Replicas tell the Env
// through their output.
func (e *Env) Uncertain(_ context.Context, ue *runtime.UncertainError) {
	e.mu.Lock()
	e.uncertain = append(e.uncertain, ue)
	e.mu.Unlock()
}

// fenced counts a call of the relay in this process that lost its claim.
func (e *Env) fenced(int64, int64) { e.countFenced(-1) }

// countFenced counts a call that lost its claim, in replica i (-1: in this process).
func (e *Env) countFenced(i int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.replica.Fenced++
	if i >= 0 && !e.struck[i] {
		e.replica.FencedLive++
	}
}

// whsec formats a webhook secret as Standard Webhooks receivers take it.
func whsec(secret []byte) string {
	return "whsec_" + base64.StdEncoding.EncodeToString(secret)
}
