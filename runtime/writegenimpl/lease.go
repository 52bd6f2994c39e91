package writegenimpl

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/writegen/writegen/runtime"
)

// lease is a ledger claim held by one call: the row, the fence its claim
// returned and how long the claim lasts. A heartbeat goroutine renews it
// every Lease/3 while the call runs; the call renews it itself before an
// attempt that the lease would not cover.
type lease struct {
	l      runtime.Ledger
	id     int64
	fence  int64
	length time.Duration
	clock  runtime.Clock

	mu    sync.Mutex // guards until, lost and err
	until time.Time  // the lease's end as last renewed
	lost  bool       // another caller took the row over: the fence is stale
	err   error      // the last renewal's error, nil after a success

	stop context.CancelFunc // ends the heartbeat
	done chan struct{}      // closed when the heartbeat has ended
}

// hold starts the heartbeat of the claim of row id with fence, whose lease
// runs until until. The caller must release it on every path.
func (c *Client) hold(ctx context.Context, id, fence int64, until time.Time) *lease {
	le := &lease{l: c.s.Ledger, id: id, fence: fence, length: c.s.Lease, clock: c.s.Clock, until: until,
		done: make(chan struct{})}
	hctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	le.stop = stop
	go le.heartbeat(hctx, c.beat)
	return le
}

// heartbeat renews the lease every length/3 until it is released or lost.
func (le *lease) heartbeat(ctx context.Context, beat func(context.Context, time.Duration) error) {
	defer close(le.done)
	for {
		if beat(ctx, le.length/3) != nil {
			return
		}
		if le.renew(ctx); le.isLost() {
			return
		}
	}
}

// renew extends the lease to length from now. The ledger counts the length
// from when it runs the statement, after now: counted from now, by the
// client's clock, the lease ends no later than the ledger's clock says.
func (le *lease) renew(ctx context.Context) error {
	until := le.clock.Now().Add(le.length)
	err := le.l.Renew(ctx, le.id, le.fence, le.length)
	le.mu.Lock()
	defer le.mu.Unlock()
	switch {
	case err == nil:
		if until.After(le.until) {
			le.until = until
		}
		le.err = nil
	case errors.Is(err, runtime.ErrLeaseLost):
		le.lost, le.err = true, err
	case ctx.Err() == nil: // an error of the ledger, not of a released lease
		le.err = err
	}
	return err
}

func (le *lease) isLost() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.lost
}

// ensure makes sure the lease lasts at least need more, renewing it if it
// would not; the error says why it cannot.
func (le *lease) ensure(ctx context.Context, need time.Duration) error {
	le.mu.Lock()
	lost, until, lerr := le.lost, le.until, le.err
	le.mu.Unlock()
	if lost {
		return lerr
	}
	if until.Sub(le.clock.Now()) >= need {
		return nil
	}
	if err := le.renew(ctx); err != nil {
		if lerr != nil && !errors.Is(err, runtime.ErrLeaseLost) {
			return fmt.Errorf("%w (the heartbeat failed too: %v)", err, lerr)
		}
		return err
	}
	le.mu.Lock()
	until = le.until
	le.mu.Unlock()
	if left := until.Sub(le.clock.Now()); left < need {
		return fmt.Errorf("writegen: the renewed lease lasts %v, the next attempt needs %v: the renewal took %v, more than the lease's slack of %v",
			left, need, le.length-left, le.length-need)
	}
	return nil
}

// left returns how long the lease lasts from now.
func (le *lease) left() time.Duration {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.until.Sub(le.clock.Now())
}

// release ends the heartbeat and waits for it.
func (le *lease) release() {
	le.stop()
	<-le.done
}
