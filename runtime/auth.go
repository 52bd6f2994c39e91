package runtime

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Token is an OAuth-style credential.
type Token struct {
	Access  string
	Refresh string
	Expiry  time.Time // zero = never expires
}

// TokenSource supplies the bearer token of each attempt.
type TokenSource interface {
	// Token returns the access token to use now and its generation, a
	// number that changes whenever the token is replaced.
	Token(ctx context.Context) (tok string, gen uint64, err error)
	// Rotated reports whether the token of generation gen has been
	// replaced, or may have been.
	Rotated(gen uint64) bool
}

// RefresherOption configures a Refresher.
type RefresherOption func(*Refresher)

// WithRefreshClock sets the clock a Refresher reads expiry with.
func WithRefreshClock(clk Clock) RefresherOption { return func(r *Refresher) { r.clock = clk } }

// WithRefreshMargin makes a Refresher refresh a token d before it expires
// (default 30s). For a token that lives less than twice the margin, the
// margin is half its lifetime, so each token is refreshed once.
func WithRefreshMargin(d time.Duration) RefresherOption { return func(r *Refresher) { r.margin = d } }

// WithRefreshTimeout bounds one refresh, persisting included (default
// 30s). The refresh runs on its own context, not on that of the caller who
// found the token expired.
func WithRefreshTimeout(d time.Duration) RefresherOption {
	return func(r *Refresher) { r.timeout = d }
}

// minRefreshInterval is the least time between two refreshes of one
// credential, even when the provider hands out tokens that are already
// expired, and the least wait after a failed refresh.
const minRefreshInterval = time.Second

// Refresher is a TokenSource for one credential that refreshes its token
// before it expires.
//
// Concurrent callers share one refresh. The refresh runs apart from them,
// on its own context bounded by WithRefreshTimeout: each caller waits for
// it or for its own context, and a caller that gives up neither cancels it
// nor fails the others. A new token is persisted before anyone uses it, so
// a rotated refresh token is never lost, even when every caller has given
// up: if persisting fails, the token is kept unused and persisting is tried
// again by the next call. Refreshes are bounded: a token is refreshed once
// in its lifetime, a failed refresh is not tried again for a second, and
// two refreshes are at least a second apart.
type Refresher struct {
	refresh func(ctx context.Context, refreshToken string) (Token, error)
	persist func(ctx context.Context, t Token) error
	clock   Clock
	margin  time.Duration
	timeout time.Duration

	gen atomic.Uint64 // generation of tok; written under mu

	mu       sync.Mutex // guards the fields below
	tok      Token
	obtained time.Time // when tok was obtained: its lifetime is Expiry-obtained
	renewed  bool      // tok came from a refresh (not from NewRefresher)
	unsaved  bool      // tok came from a refresh and is not persisted yet
	flight   *inFlight // the refresh in progress, nil if none
	retryAt  time.Time // after a failed refresh: none is tried before then
	lastErr  error     // the error of the failed refresh
}

// inFlight is a refresh that callers wait for.
type inFlight struct {
	done chan struct{} // closed when the fields below are set
	tok  string
	gen  uint64
	err  error
}

// NewRefresher returns a Refresher starting from initial. refresh exchanges
// a refresh token for a new token (an empty Refresh in its result keeps the
// old refresh token); persist stores a new token and is called before the
// token is used.
func NewRefresher(initial Token, refresh func(ctx context.Context, refreshToken string) (Token, error), persist func(ctx context.Context, t Token) error, opts ...RefresherOption) *Refresher {
	r := &Refresher{refresh: refresh, persist: persist, clock: systemClock{}, margin: 30 * time.Second,
		timeout: 30 * time.Second, tok: initial}
	r.gen.Store(1)
	for _, o := range opts {
		o(r)
	}
	r.obtained = r.clock.Now()
	return r
}

// Token returns the current access token, refreshing it first when it is
// about to expire.
func (r *Refresher) Token(ctx context.Context) (string, uint64, error) {
	r.mu.Lock()
	now := r.clock.Now()
	if !r.unsaved && r.fresh(now) {
		tok, gen := r.tok.Access, r.gen.Load()
		r.mu.Unlock()
		return tok, gen, nil
	}
	f := r.flight
	if f == nil {
		if !r.unsaved && now.Before(r.retryAt) {
			err := r.lastErr
			r.mu.Unlock()
			return "", 0, err
		}
		f = &inFlight{done: make(chan struct{})}
		r.flight = f
		go r.run(context.WithoutCancel(ctx), f)
	}
	r.mu.Unlock()
	select {
	case <-f.done:
		return f.tok, f.gen, f.err
	case <-ctx.Done():
		return "", 0, fmt.Errorf("writegen: wait for token refresh: %w", ctx.Err())
	}
}

// fresh reports whether tok may be used at now without a refresh. Called
// with mu held.
func (r *Refresher) fresh(now time.Time) bool {
	if r.tok.Expiry.IsZero() {
		return true
	}
	margin := min(r.margin, r.tok.Expiry.Sub(r.obtained)/2)
	at := r.tok.Expiry.Add(-max(margin, 0))
	if floor := r.obtained.Add(minRefreshInterval); r.renewed && at.Before(floor) {
		at = floor
	}
	return now.Before(at)
}

// run carries out the refresh f on a context of its own, then hands its
// result to every caller waiting for f.
func (r *Refresher) run(parent context.Context, f *inFlight) {
	ctx, cancel := context.WithTimeout(parent, r.timeout)
	defer cancel()
	err := r.renew(ctx)
	r.mu.Lock()
	r.flight = nil
	f.tok, f.gen, f.err = r.tok.Access, r.gen.Load(), err
	if err != nil {
		f.tok, f.gen = "", 0
	}
	r.mu.Unlock()
	close(f.done)
}

// renew refreshes the token unless a refreshed one awaits persisting, then
// persists it and makes it current. Only run calls it, one at a time.
func (r *Refresher) renew(ctx context.Context) error {
	r.mu.Lock()
	tok, unsaved := r.tok, r.unsaved
	r.mu.Unlock()
	if !unsaved {
		t, err := r.refresh(ctx, tok.Refresh)
		if err != nil {
			err = fmt.Errorf("writegen: refresh token: %w", err)
			r.mu.Lock()
			r.retryAt, r.lastErr = r.clock.Now().Add(minRefreshInterval), err
			r.mu.Unlock()
			return err
		}
		if t.Refresh == "" {
			t.Refresh = tok.Refresh
		}
		tok = t
		r.mu.Lock()
		r.tok, r.unsaved, r.obtained, r.renewed = tok, true, r.clock.Now(), true
		r.mu.Unlock()
	}
	if err := r.persist(ctx, tok); err != nil {
		return fmt.Errorf("writegen: persist refreshed token: %w", err)
	}
	r.mu.Lock()
	r.unsaved = false
	r.gen.Add(1)
	r.mu.Unlock()
	return nil
}

// Rotated reports whether the token of generation gen has been replaced, or
// may have been: while a refresh is in flight, or its token waits to be
// persisted, the provider may already have invalidated the old token.
func (r *Refresher) Rotated(gen uint64) bool {
	if r.gen.Load() != gen {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flight != nil || r.unsaved
}
