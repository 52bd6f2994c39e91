package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client sends the operations of one provider. It is safe for concurrent
// use. Build it with New; the zero value is not usable.
type Client struct {
	base   url.URL      // the base URL, its path without a trailing slash
	prefix string       // base.EscapedPath(), prepended to every request's path
	read   *http.Client // follows redirects
	write  *http.Client // never follows redirects
	cfg    config
	budget *budget
}

// config holds what the options set.
type config struct {
	http        *http.Client
	secret      []byte
	clock       Clock
	backoffBase time.Duration
	backoffMax  time.Duration
	ratio       float64
	minRetries  int
	maxAttempts int // 0 = no limit beyond the operation's
	mask        Retry
	ledger      Ledger
	tokens      TokenSource
	hooks       Hooks
	notifier    Notifier
	header      http.Header
	resumeAfter time.Duration
}

// Option configures a Client.
type Option func(*config)

// WithHTTPClient sets the HTTP client (default http.DefaultClient). The
// runtime uses a copy whose CheckRedirect stops writes at any redirect, so
// a write never follows a 307/308 that would re-send its body.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.http = hc } }

// WithKeySecret derives provider keys with HMAC-SHA256 keyed with secret,
// so no business data reaches the provider (see ProviderKey).
func WithKeySecret(secret []byte) Option {
	return func(c *config) { c.secret = append([]byte(nil), secret...) }
}

// WithClock sets the clock used for backoff, key windows and the retry
// budget (default: the system clock).
func WithClock(clk Clock) Option { return func(c *config) { c.clock = clk } }

// WithBackoff sets the backoff between attempts: a random wait between 0
// and min(max, base·2ⁿ⁻¹) before attempt n+1 ("full jitter"). Defaults:
// 100ms and 10s.
func WithBackoff(base, max time.Duration) Option {
	return func(c *config) { c.backoffBase, c.backoffMax = base, max }
}

// WithRetryBudget limits retries across the client: each call earns ratio
// retries, at least min retries per second are always allowed, and at most
// ten seconds' worth are saved up. Defaults: 0.2 and 10.
func WithRetryBudget(ratio float64, min int) Option {
	return func(c *config) { c.ratio, c.minRetries = ratio, min }
}

// WithMaxAttempts caps every operation's attempts at n (values below 1 mean
// 1); it never raises an operation's own limit.
func WithMaxAttempts(n int) Option { return func(c *config) { c.maxAttempts = max(n, 1) } }

// WithRetryMask intersects every operation's retry set with mask: it can
// only narrow what generated code declares.
func WithRetryMask(mask Retry) Option { return func(c *config) { c.mask = mask } }

// WithLedger sets the ledger in which operations marked Dedupe claim their
// business key before calling.
func WithLedger(l Ledger) Option { return func(c *config) { c.ledger = l } }

// WithTokenSource authenticates every attempt with
// "Authorization: Bearer <token>" from ts.
func WithTokenSource(ts TokenSource) Option { return func(c *config) { c.tokens = ts } }

// WithHooks sets the hooks that observe attempts and outcomes.
func WithHooks(h Hooks) Option { return func(c *config) { c.hooks = h } }

// WithNotifier sets who is told about uncertain outcomes.
func WithNotifier(n Notifier) Option { return func(c *config) { c.notifier = n } }

// WithHeader adds a static header to every request (API version, user
// agent).
func WithHeader(name, value string) Option {
	return func(c *config) {
		if c.header == nil {
			c.header = http.Header{}
		}
		c.header.Add(name, value)
	}
}

// WithResumeAfter sets how long a ledger row must have been claimed before
// Resume takes it over from the caller that claimed it (default one
// minute).
func WithResumeAfter(d time.Duration) Option { return func(c *config) { c.resumeAfter = d } }

// New returns a client for the provider at baseURL.
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("runtime: base url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("runtime: base url %q: want http(s)://host[/path]", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("runtime: base url %q: query or fragment not allowed", baseURL)
	}
	cfg := config{
		http:        http.DefaultClient,
		clock:       systemClock{},
		backoffBase: 100 * time.Millisecond,
		backoffMax:  10 * time.Second,
		ratio:       0.2,
		minRetries:  10,
		mask:        ^Retry(0),
		resumeAfter: time.Minute,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.http == nil || cfg.clock == nil {
		return nil, errors.New("runtime: nil http client or clock")
	}
	w := *cfg.http
	w.CheckRedirect = noRedirect
	prefix := strings.TrimSuffix(u.EscapedPath(), "/")
	u.Path, u.RawPath = "", ""
	return &Client{
		base:   *u,
		prefix: prefix,
		read:   cfg.http,
		write:  &w,
		cfg:    cfg,
		budget: newBudget(cfg.ratio, cfg.minRetries, cfg.clock.Now()),
	}, nil
}

// noRedirect stops a write at a redirect: the redirect itself is returned
// as the response.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Ledger returns the ledger set with WithLedger, or nil.
func (c *Client) Ledger() Ledger { return c.cfg.ledger }

// Clock tells the time and waits. Tests inject one so that no test sleeps
// for real backoff.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx ends, then returns ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
