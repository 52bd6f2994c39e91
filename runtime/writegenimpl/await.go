package writegenimpl

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/writegen/writegen/runtime"
)

// A call whose business key another caller holds waits for that caller's
// outcome. If the holder dies, or hangs, its lease ends and nobody else
// would move the row before a Resume: the waiting call takes it over,
// fenced, once the lease has ended by the ledger's clock, and drives it on
// as Resume would (promise 54), instead of waiting out its own deadline
// for a call nobody is making.

// awaitMinPause is the shortest wait between two takeovers that found
// the lease not ended, and awaitMaxPause the longest wait on a lease
// before its end is read again (a holder renews its lease every third of
// it). Both are waits for the ledger's clock, which the client's cannot
// move: they are waited in real time.
const (
	awaitMinPause = 10 * time.Millisecond
	awaitMaxPause = 5 * time.Second
)

// ledgerClock is a ledger that reads its own clock, the one that judges
// leases: runtime/ledger's ledgers do (Ledger.Now). With a ledger that
// cannot tell its clock, a call waits for the holder's outcome until its
// own context ends, and the row is left to Resume: the client's clock
// never judges another caller's lease (promise 37).
type ledgerClock interface {
	Now(ctx context.Context) (time.Time, error)
}

// awaitOrTake waits for row, claimed by another caller with the call's own
// request, to be settled, and returns it as settled, or as last seen when
// ctx ended. When the holder's lease ends first, it takes the row over
// for h and returns it with true, and the end of the new lease by the
// client's clock. A row it cannot take over (a ledger that is not a
// RowTaker, another request, a row without a digest) is returned at once,
// as it is: fromLedger waits for it, or refuses it.
func (x *logical) awaitOrTake(ctx context.Context, row runtime.Record, h runtime.Holder) (runtime.Record, time.Time, bool) {
	l := x.c.s.Ledger
	clock, ok := l.(ledgerClock)
	if _, taker := l.(runtime.RowTaker); !ok || !taker || row.Identity != x.info.Identity || len(row.Digest) == 0 ||
		!bytes.Equal(row.Digest, x.digest) {
		return row, time.Time{}, false
	}
	pause := awaitMinPause
	for row.State == runtime.StateClaimed && ctx.Err() == nil {
		now, err := clock.Now(ctx)
		if err != nil {
			return row, time.Time{}, false // fromLedger waits
		}
		if left := row.LeaseUntil.Sub(now); left > 0 {
			wctx, cancel := context.WithTimeout(ctx, min(left, awaitMaxPause))
			seen, err := l.Await(wctx, row.ID)
			cancel()
			switch {
			case err == nil:
				return seen, time.Time{}, false
			case ctx.Err() != nil, !errors.Is(err, runtime.ErrInProgress):
				return row, time.Time{}, false // fromLedger waits, and tells
			case seen.ID == row.ID:
				row = seen // as last seen: its lease as renewed
			}
			continue
		}
		start := x.c.s.Clock.Now() // the new lease lasts from after it, by the ledger's clock
		taken, won := x.takeRow(ctx, row, h)
		if won {
			return taken, start.Add(x.c.s.Lease), true
		}
		if taken.ID != row.ID {
			return row, time.Time{}, false // the ledger failed: fromLedger tells
		}
		if taken.LeaseUntil.Equal(row.LeaseUntil) && taken.Fence == row.Fence {
			// Not ended after all (the ledger's clock was read apart from
			// the takeover, or the ledger failed): a pause.
			t := time.NewTimer(pause)
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
			pause = min(2*pause, awaitMaxPause)
		}
		row = taken
	}
	return row, time.Time{}, false
}
