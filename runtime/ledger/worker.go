package ledger

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// WorkerOptions configure the workers of an Outbox or an Inbox. The zero
// value is usable.
type WorkerOptions struct {
	// Name identifies the worker in the leases it takes; default
	// "host:pid:random".
	Name string
	// Workers is how many items are handled at once by Run; default 1.
	Workers int
	// Lease is how long an item is held by the worker that took it, by the
	// database's clock, so that a worker whose machine's clock is off never
	// takes an item another one holds; when a worker dies, another takes the
	// item after this. The context of a send or a handler ends with it.
	// Default 5 minutes.
	Lease time.Duration
	// Poll is how long Run waits before it looks for due items again when
	// there were none; default 1 second.
	Poll time.Duration
	// MaxAttempts ends an item as failed after that many attempts;
	// 0 means no limit.
	MaxAttempts int
	// Backoff is the wait after failed attempt n (1 for the first);
	// default 1s doubling up to 10 minutes.
	Backoff func(n int) time.Duration
	// Logger receives the errors Run cannot return; default slog.Default().
	Logger *slog.Logger
}

func (o WorkerOptions) withDefaults() WorkerOptions {
	if o.Name == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		o.Name = fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	o.Workers = max(o.Workers, 1)
	if o.Lease <= 0 {
		o.Lease = 5 * time.Minute
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Backoff == nil {
		o.Backoff = defaultBackoff
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

func defaultBackoff(n int) time.Duration {
	d := time.Second
	for i := 1; i < n && d < 10*time.Minute; i++ {
		d *= 2
	}
	return min(d, 10*time.Minute)
}

// run calls step from o.Workers goroutines until ctx ends. A step reports
// whether it found an item; when it did not, its goroutine waits for wake
// or for o.Poll.
func run(ctx context.Context, o WorkerOptions, wake <-chan struct{}, step func(context.Context) (bool, error)) error {
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				found, err := step(ctx)
				if err != nil && ctx.Err() == nil {
					o.Logger.ErrorContext(ctx, "ledger worker", "worker", o.Name, "err", err)
				}
				if found && err == nil {
					continue
				}
				t := time.NewTimer(o.Poll)
				select {
				case <-wake:
				case <-t.C:
				case <-ctx.Done():
				}
				t.Stop()
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// drain calls step until it finds nothing due and returns how many items
// it handled.
func drain(ctx context.Context, step func(context.Context) (bool, error)) (int, error) {
	n := 0
	for {
		found, err := step(ctx)
		if err != nil || !found {
			return n, err
		}
		n++
	}
}

// reschedule releases the lease that owner holds on an outbox item or an
// inbox event (statement outboxRetry or inboxRetry) and makes it due again
// after a wait, by the database's clock, recording the cause of the failed
// attempt.
func (l *Ledger) reschedule(ctx context.Context, statement string, id int64, owner string, cause error, after time.Duration) error {
	_, err := l.conn.Exec(ctx, statement, id, owner, errorText(cause), max(after, 0).Microseconds(), micros(l.clock.Now()), l.leaseNow())
	return err
}
