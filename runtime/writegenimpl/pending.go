package writegenimpl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/writegen/writegen/runtime"
)

// pending holds the outcomes a client's calls got but could not record in
// their ledger rows, because the ledger failed: a receipt the caller has,
// kept so that the row does not end uncertain when the ledger is back. The
// client records them before its next ledger write (a claim) and at the
// start of Resume, with the fence the call held: unless another caller
// took the row over meanwhile, the row gets the outcome, and the next
// caller with its business key adopts it.
type pending struct {
	n     atomic.Int32 // len(rows), read without mu on every claim
	mu    sync.Mutex   // guards rows; held while they are recorded
	rows  map[int64]pendingRow
	order []int64 // row ids, oldest first
}

// pendingRow is one outcome to record: Settle(id, fence, to, s).
type pendingRow struct {
	op    string
	fence int64
	to    runtime.State
	s     runtime.Settlement
}

// keep holds the outcome of row id until it is recorded.
func (p *pending) keep(op string, id, fence int64, to runtime.State, s runtime.Settlement) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rows == nil {
		p.rows = map[int64]pendingRow{}
	}
	if _, ok := p.rows[id]; !ok {
		p.order = append(p.order, id)
	}
	s.Body = append([]byte(nil), s.Body...)
	p.rows[id] = pendingRow{op: op, fence: fence, to: to, s: s}
	p.n.Store(int32(len(p.rows)))
}

// flush records the outcomes held, oldest first, until the ledger fails
// again; a row another caller took over meanwhile keeps that caller's
// outcome, and the one held is dropped. It returns what could not be
// done: an error of the ledger (the rest stays held), and the rows whose
// outcome was dropped.
func (p *pending) flush(ctx context.Context, l runtime.Ledger) error {
	if p.n.Load() == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for len(p.order) > 0 {
		id := p.order[0]
		r := p.rows[id]
		err := l.Settle(ctx, id, r.fence, r.to, r.s)
		if err != nil && !errors.Is(err, runtime.ErrLeaseLost) {
			// The ledger fails still: this row goes last, and the rest
			// waits for the next time.
			errs = append(errs, fmt.Errorf("writegen: operation %q: record the %s outcome kept for ledger row %d: %w", r.op, r.to, id, err))
			p.order = append(p.order[1:], id)
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("writegen: operation %q: the %s outcome kept for ledger row %d was not recorded: the row was taken over: %w",
				r.op, r.to, id, err))
		}
		delete(p.rows, id)
		p.order = slices.Delete(p.order, 0, 1)
	}
	p.n.Store(int32(len(p.rows)))
	return errors.Join(errs...)
}
