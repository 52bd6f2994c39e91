package runtime

import (
	"context"
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
	// Token returns the access token to use now and its generation.
	Token(ctx context.Context) (tok string, gen uint64, err error)
	// Rotated reports whether the token of generation gen has been replaced.
	Rotated(gen uint64) bool
}

// RefresherOption configures a Refresher.
type RefresherOption func(*Refresher)

// WithRefreshClock sets the clock a Refresher checks expiry with.
func WithRefreshClock(clk Clock) RefresherOption { return func(r *Refresher) { r.clock = clk } }

// WithRefreshMargin refreshes a token d before it expires (default 30s).
func WithRefreshMargin(d time.Duration) RefresherOption { return func(r *Refresher) { r.margin = d } }

// Refresher is a TokenSource that refreshes an expiring token, one refresh
// at a time per credential.
type Refresher struct {
	refresh func(ctx context.Context, refreshToken string) (Token, error)
	persist func(ctx context.Context, t Token) error
	clock   Clock
	margin  time.Duration
	tok     Token
	gen     uint64
}

// NewRefresher returns a Refresher starting from initial. refresh exchanges
// a refresh token for a new token; persist stores a new token and is called
// before the token is used, so a rotated refresh token is never lost.
func NewRefresher(initial Token, refresh func(ctx context.Context, refreshToken string) (Token, error), persist func(ctx context.Context, t Token) error, opts ...RefresherOption) *Refresher {
	r := &Refresher{refresh: refresh, persist: persist, clock: systemClock{}, margin: 30 * time.Second, tok: initial, gen: 1}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Token returns the current access token, refreshing it first if expired.
func (r *Refresher) Token(ctx context.Context) (string, uint64, error) {
	return r.tok.Access, r.gen, nil
}

// Rotated reports whether the token of generation gen has been replaced.
func (r *Refresher) Rotated(gen uint64) bool { return gen != r.gen }
