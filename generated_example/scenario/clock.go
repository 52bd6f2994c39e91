package scenario

import (
	"context"
	"sync/atomic"
	"time"
)

// Clock is a runtime.Clock that can jump forward. An instant clock does not wait in Sleep: it
// moves itself forward by the wait instead, so that backoff costs no real time.
type Clock struct {
	instant bool
	offset  atomic.Int64 // added to the system time, in nanoseconds
}

// NewClock returns a clock at the system time.
func NewClock(instant bool) *Clock { return &Clock{instant: instant} }

// Now returns the system time plus every jump and instant wait so far.
func (c *Clock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Sleep waits for d, or, on an instant clock, moves the clock forward by d at once.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if c.instant {
		c.offset.Add(int64(d))
		return ctx.Err()
	}
	return sleepUntil(ctx, time.Now().Add(d))
}

// Jump moves the clock forward by d, as if the process had been paused.
func (c *Clock) Jump(d time.Duration) { c.offset.Add(int64(d)) }
