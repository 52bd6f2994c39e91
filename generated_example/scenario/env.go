package scenario

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writegen/writegen/generated_example/chat"
	"github.com/writegen/writegen/generated_example/relay"
	"github.com/writegen/writegen/generated_example/simulator"
	"github.com/writegen/writegen/generated_example/support"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

// Options configure an Env.
type Options struct {
	// Ledger names the ledger as "writegen ledger -db" takes it: "sqlite:PATH" or a
	// postgres:// URL.
	Ledger string
	// Instant makes the clients' backoff cost no real time (see Clock).
	Instant bool
	// Workers is how many events and obligations the relay handles at once, per kind;
	// default 4.
	Workers int
	// Logger receives the relay's errors; default none.
	Logger *slog.Logger
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

// Env is a relay and its peers, ready to run schedules one after another.
type Env struct {
	ledger    *ledger.Ledger
	relay     *relay.Relay
	desk      *simulator.Support
	chat      *simulator.Chat
	server    *http.Server
	clock     *Clock // the clients'
	tokens    *Clock // the refresher's
	refresher *runtime.Refresher
	tokenLife time.Duration // of the desk's access tokens
	hooks     string        // base URL of the relay's webhooks
	prefix    string        // of the conversation ids, unique to the Env (a ledger may be reused)
	stop      context.CancelFunc
	running   sync.WaitGroup

	mu        sync.Mutex
	sched     Schedule
	runs      int                       // schedules run
	convs     int                       // conversations that asked for a person
	requests  int                       // escalation events sent
	paused    int                       // pauses past the key window
	uncertain []*runtime.UncertainError // every outcome told to the notifier
	token     runtime.Token             // as persisted by the refresher
}

// NewEnv opens the ledger, starts the simulators and the relay.
func NewEnv(ctx context.Context, o Options) (env *Env, err error) {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e := &Env{
		clock:  NewClock(o.Instant),
		tokens: NewClock(false),
		prefix: "conv-" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36) + "-",
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

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			ln.Close()
		}
	}()
	e.hooks = "http://" + ln.Addr().String() + "/webhooks/"
	hooks := e.hooks
	e.desk = simulator.NewSupport(simulator.SupportConfig{
		Faults:        e.fault,
		Rotate:        e.rotate,
		Replies:       func(c string) int { return e.schedule().replies(c) },
		WebhookURL:    hooks + "support",
		WebhookSecret: supportSecret,
		Deliveries:    func(id string) simulator.Delivery { return e.schedule().delivery(id) },
		Clock:         e.clock.Now,
	})
	e.chat = simulator.NewChat(simulator.ChatConfig{
		Faults:        e.fault,
		Token:         botToken,
		WebhookURL:    hooks + "chat",
		WebhookSecret: chatSecret,
		Deliveries:    func(id string) simulator.Delivery { return e.schedule().delivery(id) },
		Clock:         e.clock.Now,
	})

	access, refresh, life := e.desk.Credentials()
	e.tokenLife = life
	e.token = runtime.Token{Access: access, Refresh: refresh, Expiry: e.tokens.Now().Add(life)}
	e.refresher = runtime.NewRefresher(e.token, e.refreshToken, e.persistToken, runtime.WithRefreshClock(e.tokens))

	common := []runtime.Option{
		runtime.WithKeySecret(keySecret),
		runtime.WithClock(e.clock),
		runtime.WithBackoff(time.Millisecond, 20*time.Millisecond),
		runtime.WithRetryBudget(1, 1000),
		runtime.WithNotifier(e),
	}
	deskClient, err := support.NewClient(e.desk.URL(), e.ledger, append(common, runtime.WithTokenSource(e.refresher))...)
	if err != nil {
		return nil, err
	}
	chatClient, err := chat.NewClient(e.chat.URL(), e.ledger, append(common, runtime.WithHeader("Authorization", "Bearer "+botToken))...)
	if err != nil {
		return nil, err
	}
	e.relay, err = relay.New(ctx, relay.Config{
		Ledger:        e.ledger,
		Support:       deskClient,
		Chat:          chatClient,
		ChatSecret:    whsec(chatSecret),
		SupportSecret: whsec(supportSecret),
		Workers: ledger.WorkerOptions{
			Workers: o.Workers,
			Poll:    2 * time.Millisecond,
			Backoff: func(n int) time.Duration { return time.Duration(n) * time.Millisecond },
			Logger:  o.Logger,
		},
	})
	if err != nil {
		return nil, err
	}
	e.server = &http.Server{Handler: e.relay.Handler(), ReadHeaderTimeout: 10 * time.Second}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e.stop = stop
	e.running.Go(func() { e.server.Serve(ln) })
	e.running.Go(func() { e.relay.Run(runCtx) })
	return e, nil
}

// Close stops the relay and the simulators and closes the ledger.
func (e *Env) Close() error {
	if e.desk != nil {
		e.desk.Close()
	}
	if e.chat != nil {
		e.chat.Close()
	}
	if e.stop != nil {
		e.stop()
		e.server.Close()
		e.running.Wait()
	}
	return e.ledger.Close()
}

// Ledger returns the ledger the relay uses.
func (e *Env) Ledger() *ledger.Ledger { return e.ledger }

func (e *Env) schedule() Schedule {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sched
}

// fault decides the fault of a write request; a pause moves the clients' clock past the key's
// window while the request is held, then loses its response.
func (e *Env) fault(op, key string, n int) simulator.Fault {
	s := e.schedule()
	if s.paused(op, key, n) {
		e.mu.Lock()
		e.paused++
		e.mu.Unlock()
		e.clock.Jump(pauseLength)
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
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.desk.URL()+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		return runtime.Token{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return runtime.Token{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return runtime.Token{}, fmt.Errorf("token refresh: status %d", resp.StatusCode)
	}
	var pair struct {
		Access  string `json:"access_token"`
		Refresh string `json:"refresh_token"`
		Expires int64  `json:"expires_in"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&pair); err != nil {
		return runtime.Token{}, err
	}
	return runtime.Token{Access: pair.Access, Refresh: pair.Refresh, Expiry: e.tokens.Now().Add(time.Duration(pair.Expires) * time.Second)}, nil
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

// Uncertain implements runtime.Notifier: it records who would be told.
func (e *Env) Uncertain(_ context.Context, ue *runtime.UncertainError) {
	e.mu.Lock()
	e.uncertain = append(e.uncertain, ue)
	e.mu.Unlock()
}

// whsec formats a webhook secret as Standard Webhooks receivers take it.
func whsec(secret []byte) string {
	return "whsec_" + base64.StdEncoding.EncodeToString(secret)
}
