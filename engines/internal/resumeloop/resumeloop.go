// Package resumeloop drives a generated client's Resume while an engine's step or activity
// runs a write, for the engine integrations (engines/temporal, engines/dbos).
package resumeloop

import (
	"context"
	"time"

	"github.com/writegen/writegen/runtime"
)

// Resumer is a generated client: its Resume drives on the writes whose ledger claim outlived
// the caller that made it.
type Resumer interface {
	Resume(ctx context.Context) (runtime.ResumeReport, error)
}

// While calls c.Resume every `every` until the returned function is called; that function
// waits for the last Resume to end. A nil c or an every of 0 or less calls nothing.
func While(ctx context.Context, c Resumer, every time.Duration) (stop func()) {
	if c == nil || every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				c.Resume(ctx) //nolint:errcheck // the next tick tries again; the write reports its own outcome
			}
		}
	}()
	return func() { cancel(); <-done }
}
