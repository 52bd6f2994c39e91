package ledgertest

import (
	"context"
	"sync"
	"time"
)

// Clock is a clock for tests: it stands still until advanced, and Sleep
// advances it instead of waiting.
type Clock struct {
	mu  sync.Mutex
	now time.Time // guarded by mu
}

// NewClock returns a clock that reads the current time until advanced.
func NewClock() *Clock { return &Clock{now: time.Now()} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep advances the clock by d.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.Advance(d)
	return ctx.Err()
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
