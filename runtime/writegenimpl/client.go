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
	"time"

	"github.com/writegen/writegen/runtime"
)

// Client is the executor of one generated client: the provider's base URL,
// its scope and the settings the options made. It is safe for concurrent
// use. Build it with NewClient; the zero value is not usable.
type Client struct {
	scope  string       // the provider scope of the annotation file
	base   url.URL      // the base URL, its path cut off
	prefix string       // the base URL's escaped path without a trailing slash
	read   *http.Client // follows redirects
	write  *http.Client // never follows redirects
	s      runtime.Settings
	budget *budget
	// deadlines gives each attempt its deadline, AttemptTimeout.
	deadlines *attemptDeadlines
	owner     string // the lease owner of this client's claims: host, process and a random part
	told      *toldRows
	provider  providerClock // the provider's clock, for bounded list lookups

	// beat waits for the next renewal of a lease: d of real time by
	// default. Tests replace it to renew on their signal.
	beat func(ctx context.Context, d time.Duration) error
}

// Defaults of runtime.Settings.
const (
	defaultBackoffBase    = 100 * time.Millisecond
	defaultBackoffMax     = 10 * time.Second
	defaultBudgetRatio    = 0.2
	defaultBudgetMin      = 10
	defaultAttemptTimeout = 30 * time.Second
	defaultMaxRetryAfter  = 60 * time.Second
	defaultLease          = 60 * time.Second
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
	s := runtime.Settings{
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
	}
	w := *s.HTTPClient
	w.CheckRedirect = noRedirect
	prefix := strings.TrimSuffix(u.EscapedPath(), "/")
	u.Path, u.RawPath = "", ""
	return &Client{
		scope:     scope,
		base:      *u,
		prefix:    prefix,
		read:      s.HTTPClient,
		write:     &w,
		s:         s,
		budget:    newBudget(s.BudgetRatio, s.BudgetMin, s.Clock.Now()),
		deadlines: &attemptDeadlines{timeout: s.AttemptTimeout},
		told:      new(toldRows),
		owner:     leaseOwner(),
		beat:      runtime.SystemClock.Sleep,
	}, nil
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
