package runtime

import (
	"context"
	"net/http"
	"time"

	"github.com/writegen/writegen/runtime/internal/settings"
)

// Option configures a generated client: pass options to its NewClient.
type Option func(*clientSettings)

// clientSettings is what the options set and the executor reads (writegenimpl.Settings).
type clientSettings = settings.Settings[Clock, Ledger, TokenSource, Hooks, Notifier, Retry]

// WithHTTPClient sets the HTTP client. The runtime uses a copy whose
// CheckRedirect stops writes at any redirect, so a write never follows a
// 307/308 that would re-send its body; reads follow redirects as hc does.
// A client Timeout, if set, bounds each attempt besides AttemptTimeout.
func WithHTTPClient(hc *http.Client) Option { return func(s *clientSettings) { s.HTTPClient = hc } }

// WithKeySecret derives provider keys with HMAC-SHA256 keyed with secret,
// so no business data reaches the provider (see ProviderKey). Every process
// that writes the same business keys must use the same secret.
func WithKeySecret(secret []byte) Option {
	return func(s *clientSettings) { s.KeySecret = append([]byte(nil), secret...) }
}

// WithTenant names the tenant or account of the provider that the client
// writes to. The tenant is part of every write's identity, in the ledger
// and in the provider key: clients of two tenants sharing one ledger never
// see each other's rows.
func WithTenant(tenant string) Option { return func(s *clientSettings) { s.Tenant = tenant } }

// WithClock sets the clock used for backoff, key windows, leases and the
// retry budget. Tests inject one so that nothing sleeps for real; the
// heartbeat that renews a lease waits on real time, so a test clock never
// makes it spin.
func WithClock(clk Clock) Option { return func(s *clientSettings) { s.Clock = clk } }

// WithBackoff sets the backoff between attempts: a random wait between 0
// and min(max, base·2ⁿ⁻¹) before attempt n+1 ("full jitter"). Defaults:
// 100ms and 10s.
func WithBackoff(base, max time.Duration) Option {
	return func(s *clientSettings) { s.BackoffBase, s.BackoffMax = base, max }
}

// WithRetryBudget limits retries across the client: each call earns ratio
// retries, at least min retries per second are always allowed, and at most
// ten seconds' worth are saved up; a new client starts with them saved.
// Defaults: 0.2 and 10. A retry the provider asked for of a keyed write
// inside its key's window (a 409 while the key is in flight, a 429 with
// Retry-After) does not draw on the budget.
func WithRetryBudget(ratio float64, min int) Option {
	return func(s *clientSettings) { s.BudgetRatio, s.BudgetMin = ratio, min }
}

// WithMaxAttempts caps every operation's attempts at n (values below 1 mean
// 1); it never raises an operation's own limit.
func WithMaxAttempts(n int) Option { return func(s *clientSettings) { s.MaxAttempts = max(n, 1) } }

// WithRetryMask intersects every operation's retry set with mask: it can
// only narrow what generated code declares.
func WithRetryMask(mask Retry) Option { return func(s *clientSettings) { s.RetryMask = mask } }

// WithAttemptTimeout bounds each attempt (default 30s). An attempt that
// times out after its request was written is ambiguous and follows the
// rules of any other ambiguous attempt.
func WithAttemptTimeout(d time.Duration) Option {
	return func(s *clientSettings) { s.AttemptTimeout = d }
}

// WithMaxRetryAfter sets the longest Retry-After the runtime waits for
// (default 60s). A longer one ends the call by the rules: not applied when
// nothing may have committed, uncertain otherwise. A claimed write is never
// held while waiting an hour.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(s *clientSettings) { s.MaxRetryAfter = d }
}

// WithLease sets the lease of a ledger claim (default 60s). While the call
// runs, its lease is renewed every d/3; a row whose lease has expired may be
// taken over by Resume in this or another process. The ledger sets and
// judges leases by its database's clock, never by a client's. Before each
// attempt the lease must last the whole attempt timeout, renewed if need
// be: the lease must exceed the attempt timeout by a sixth of itself
// (d ≥ 1.2 × AttemptTimeout), which is what a renewal's round trip to the
// database may take, and NewClient refuses a shorter one.
func WithLease(d time.Duration) Option { return func(s *clientSettings) { s.Lease = d } }

// WithInstance names this instance of the program: a name that stays the
// same when the instance restarts and that no other running process uses
// (a StatefulSet pod's name, a host's). The ledger numbers each run of the
// instance (runtime.Incarnations), and its claims carry the name and the
// run: after a crash, the restarted instance takes the claims its earlier
// run left at once (Resume at start-up, or a call with their business
// key), fenced as any takeover, instead of waiting out their leases.
// Another instance still waits for the lease. Two processes running under
// one name at once would take each other's live claims: never share one.
// Each handle of a ledger is one run (runtime/ledger's Open): the clients
// of one process that share a name share one handle.
func WithInstance(name string) Option { return func(s *clientSettings) { s.Instance = name } }

// WithLookupSettle sets the least time a lookup's "not found" waits for
// (default 0). A lookup's "not found" proves that an earlier attempt did not
// commit only once the last moment the attempt could still run, plus the
// settle time or lag the annotation declares for the provider
// (consistency: {strong: 2s}, {eventual: 30s}), has passed. d lengthens
// every settle time and lag shorter than it, for an operator who trusts the
// provider's word less; it never shortens one.
func WithLookupSettle(d time.Duration) Option {
	return func(s *clientSettings) { s.LookupSettle = max(d, 0) }
}

// WithReask sets the schedule on which Resume asks again the lookup of a
// write left uncertain because the lookup could not answer yet (its lag or
// settle time had not passed, it failed, or an eventual lookup without a
// lag found nothing): at most times more asks (default 8), the first once
// the lag or settle time has passed, or after every (default 1m) when the
// lookup declares none, then each twice as long after the one before.
// What is still uncertain after the last is left to a person. times 0
// leaves every such write to a person at once.
func WithReask(every time.Duration, times int) Option {
	return func(s *clientSettings) {
		if every > 0 {
			s.ReaskEvery = every
		}
		s.ReaskTimes = max(times, 0)
	}
}

// WithLedger sets the ledger in which operations marked "dedupe: ledger"
// claim their business key before calling, and in which the uncertain
// outcomes of other writes are recorded for a person.
func WithLedger(l Ledger) Option { return func(s *clientSettings) { s.Ledger = l } }

// WithTokenSource authenticates every attempt with
// "Authorization: Bearer <token>" from ts.
func WithTokenSource(ts TokenSource) Option { return func(s *clientSettings) { s.Tokens = ts } }

// WithHooks sets the hooks that observe calls, attempts and lookups.
func WithHooks(h Hooks) Option { return func(s *clientSettings) { s.Hooks = h } }

// WithNotifier sets who is told about uncertain outcomes.
func WithNotifier(n Notifier) Option { return func(s *clientSettings) { s.Notifier = n } }

// WithHeader adds a static header to every request (API version, user
// agent).
func WithHeader(name, value string) Option {
	return func(s *clientSettings) {
		if s.Header == nil {
			s.Header = http.Header{}
		}
		s.Header.Add(name, value)
	}
}

// Clock tells the time and waits. Tests inject one so that no test sleeps
// for real backoff.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx ends, then returns ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the Clock of the operating system, the default of
// WithClock.
var SystemClock Clock = systemClock{}

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
