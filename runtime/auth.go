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
	// Rotated reports whether the token of generation gen has been replaced.
	Rotated(gen uint64) bool
}

// RefresherOption configures a Refresher.
type RefresherOption func(*Refresher)

// WithRefreshClock sets the clock a Refresher reads expiry with.
func WithRefreshClock(clk Clock) RefresherOption { return func(r *Refresher) { r.clock = clk } }

// WithRefreshMargin makes a Refresher refresh a token d before it expires
// (default 30s).
func WithRefreshMargin(d time.Duration) RefresherOption { return func(r *Refresher) { r.margin = d } }

// Refresher is a TokenSource for one credential that refreshes its token
// when it expires. Concurrent callers share one refresh. A new token is
// persisted before anyone uses it, so a rotated refresh token is never
// lost: if persisting fails, the token is kept unused and persisting is
// tried again by the next call.
type Refresher struct {
	refresh func(ctx context.Context, refreshToken string) (Token, error)
	persist func(ctx context.Context, t Token) error
	clock   Clock
	margin  time.Duration

	gen atomic.Uint64 // generation of tok; written under mu

	mu      sync.Mutex // guards tok, unsaved and flight
	tok     Token
	unsaved bool      // tok came from a refresh and is not persisted yet
	flight  *inFlight // the refresh in progress, nil if none
}

// inFlight is a refresh that other callers wait for.
type inFlight struct {
	done chan struct{} // closed when err is set
	err  error
}

// NewRefresher returns a Refresher starting from initial. refresh exchanges
// a refresh token for a new token (an empty Refresh in its result keeps the
// old refresh token); persist stores a new token and is called before the
// token is used.
func NewRefresher(initial Token, refresh func(ctx context.Context, refreshToken string) (Token, error), persist func(ctx context.Context, t Token) error, opts ...RefresherOption) *Refresher {
	r := &Refresher{refresh: refresh, persist: persist, clock: systemClock{}, margin: 30 * time.Second, tok: initial}
	r.gen.Store(1)
	for _, o := range opts {
		o(r)
	}
	return r
}

// Token returns the current access token, refreshing it first when it is
// about to expire.
func (r *Refresher) Token(ctx context.Context) (string, uint64, error) {
	for {
		r.mu.Lock()
		if !r.unsaved && (r.tok.Expiry.IsZero() || r.clock.Now().Add(r.margin).Before(r.tok.Expiry)) {
			tok, gen := r.tok.Access, r.gen.Load()
			r.mu.Unlock()
			return tok, gen, nil
		}
		if f := r.flight; f != nil {
			r.mu.Unlock()
			select {
			case <-f.done:
				if f.err != nil {
					return "", 0, f.err
				}
				continue
			case <-ctx.Done():
				return "", 0, ctx.Err()
			}
		}
		f := &inFlight{done: make(chan struct{})}
		r.flight = f
		r.mu.Unlock()
		f.err = r.renew(ctx)
		r.mu.Lock()
		r.flight = nil
		r.mu.Unlock()
		close(f.done)
		if f.err != nil {
			return "", 0, f.err
		}
	}
}

// renew refreshes the token unless a refreshed one awaits persisting, then
// persists it and makes it current. Only the caller that set r.flight runs
// it.
func (r *Refresher) renew(ctx context.Context) error {
	r.mu.Lock()
	tok, unsaved := r.tok, r.unsaved
	r.mu.Unlock()
	if !unsaved {
		t, err := r.refresh(ctx, tok.Refresh)
		if err != nil {
			return fmt.Errorf("runtime: refresh token: %w", err)
		}
		if t.Refresh == "" {
			t.Refresh = tok.Refresh
		}
		tok = t
		r.mu.Lock()
		r.tok, r.unsaved = tok, true
		r.mu.Unlock()
	}
	if err := r.persist(ctx, tok); err != nil {
		return fmt.Errorf("runtime: persist refreshed token: %w", err)
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
