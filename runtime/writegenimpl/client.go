package writegenimpl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/internal/settings"
)

// Settings is what runtime's options set (a runtime.Option is a func(*Settings)), with the
// defaults NewClient gives each field. Programs build it with those options, not by hand.
type Settings = settings.Settings[runtime.Clock, runtime.Ledger, runtime.TokenSource, runtime.Hooks, runtime.Notifier, runtime.Retry]

// Client is the executor of one generated client: the provider's base URL,
// its scope and the settings the options made. It is safe for concurrent
// use. Build it with NewClient; the zero value is not usable.
type Client struct {
	scope  string       // the provider scope of the annotation file
	base   url.URL      // the base URL, its path cut off
	prefix string       // the base URL's escaped path without a trailing slash
	read   *http.Client // follows redirects
	write  *http.Client // never follows redirects
	s      Settings
	budget *budget
	// deadlines gives each attempt its deadline, AttemptTimeout.
	deadlines *attemptDeadlines
	owner     string // the lease owner of this client's claims: host, process and a random part
	told      *toldRows
	provider  providerClock // the provider's clock, for bounded list lookups
	holder    holder        // who holds this client's claims
	pending   *pending      // receipts the ledger could not record yet

	// beat waits for the next renewal of a lease: d of real time by
	// default. Tests replace it to renew on their signal.
	beat func(ctx context.Context, d time.Duration) error
}

// Defaults of Settings.
const (
	defaultBackoffBase    = 100 * time.Millisecond
	defaultBackoffMax     = 10 * time.Second
	defaultBudgetRatio    = 0.2
	defaultBudgetMin      = 10
	defaultAttemptTimeout = 30 * time.Second
	defaultMaxRetryAfter  = 60 * time.Second
	defaultLease          = 60 * time.Second
	defaultReaskEvery     = time.Minute
	defaultReaskTimes     = 8
)

// NewClient builds the executor of one generated client. scope is the
// provider scope of the annotation file; baseURL is the provider's URL. The
// generated constructor is
//
//	const DefaultBaseURL = "https://desk.example.com/v1"   // servers[0], variables at their defaults
//	func NewClient(baseURL string, [ledger runtime.Ledger,] opts ...runtime.Option) (*Client, error)
//
// where baseURL "" means DefaultBaseURL (an error when the spec declares
// no server).
func NewClient(scope, baseURL string, opts []runtime.Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("writegen: base url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("writegen: base url %q: want http(s)://host[/path]", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("writegen: base url %q: query or fragment not allowed", baseURL)
	}
	s := Settings{
		HTTPClient:     &http.Client{},
		Clock:          runtime.SystemClock,
		BackoffBase:    defaultBackoffBase,
		BackoffMax:     defaultBackoffMax,
		BudgetRatio:    defaultBudgetRatio,
		BudgetMin:      defaultBudgetMin,
		RetryMask:      ^runtime.Retry(0),
		AttemptTimeout: defaultAttemptTimeout,
		MaxRetryAfter:  defaultMaxRetryAfter,
		Lease:          defaultLease,
		ReaskEvery:     defaultReaskEvery,
		ReaskTimes:     defaultReaskTimes,
	}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	switch {
	case s.HTTPClient == nil || s.Clock == nil:
		return nil, errors.New("writegen: nil http client or clock")
	case s.AttemptTimeout <= 0:
		return nil, fmt.Errorf("writegen: attempt timeout %v: want a positive duration", s.AttemptTimeout)
	case s.Lease <= 0:
		return nil, fmt.Errorf("writegen: lease %v: want a positive duration", s.Lease)
	case s.Ledger != nil && s.Lease < s.AttemptTimeout+s.Lease/6:
		return nil, fmt.Errorf("writegen: a lease of %v cannot cover an attempt of %v and its renewal: want a lease of at least %v (WithLease)",
			s.Lease, s.AttemptTimeout, s.AttemptTimeout*6/5)
	case s.Instance != "" && strings.TrimSpace(s.Instance) != s.Instance:
		return nil, fmt.Errorf("writegen: instance %q: want a name without leading or trailing spaces (WithInstance)", s.Instance)
	case s.Instance != "" && s.Ledger == nil:
		return nil, fmt.Errorf("writegen: instance %q: an instance name is for a ledger's claims, and the client has no ledger (WithLedger)", s.Instance)
	}
	if _, ok := s.Ledger.(runtime.Incarnations); s.Instance != "" && !ok {
		return nil, fmt.Errorf("writegen: instance %q: the ledger (%T) does not number the runs of instances (runtime.Incarnations)", s.Instance, s.Ledger)
	}
	w := *s.HTTPClient
	w.CheckRedirect = noRedirect
	prefix := strings.TrimSuffix(u.EscapedPath(), "/")
	u.Path, u.RawPath = "", ""
	owner := leaseOwner()
	return &Client{
		holder:    holder{h: runtime.Holder{Owner: owner, Instance: s.Instance}},
		pending:   new(pending),
		scope:     scope,
		base:      *u,
		prefix:    prefix,
		read:      s.HTTPClient,
		write:     &w,
		s:         s,
		budget:    newBudget(s.BudgetRatio, s.BudgetMin, s.Clock.Now()),
		deadlines: &attemptDeadlines{timeout: s.AttemptTimeout},
		told:      new(toldRows),
		owner:     owner,
		beat:      runtime.SystemClock.Sleep,
	}, nil
}

// holder is who holds a client's claims: the incarnation of its instance
// is asked of the ledger at the first claim, and asked again after an
// error.
type holder struct {
	mu sync.Mutex
	h  runtime.Holder
}

// holderOf returns who holds the client's claims.
func (c *Client) holderOf(ctx context.Context) (runtime.Holder, error) {
	c.holder.mu.Lock()
	defer c.holder.mu.Unlock()
	h := c.holder.h
	if h.Instance == "" || h.Incarnation != 0 {
		return h, nil
	}
	n, err := c.s.Ledger.(runtime.Incarnations).Incarnate(ctx, h.Instance)
	if err != nil {
		return h, fmt.Errorf("writegen: instance %q: %w", h.Instance, err)
	}
	c.holder.h.Incarnation = n
	return c.holder.h, nil
}

// noRedirect stops a write at a redirect: the redirect itself is returned
// as the response.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Ledger returns the ledger set with runtime.WithLedger, or nil.
func (c *Client) Ledger() runtime.Ledger { return c.s.Ledger }

// leaseOwner names this process's claims: host, process id and a random
// part, so that two clients of one process do not share leases.
func leaseOwner() string {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(b[:])
}
