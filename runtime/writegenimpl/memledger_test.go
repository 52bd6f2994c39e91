package writegenimpl

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/writegen/writegen/runtime"
)

// memLedger is an in-memory runtime.Ledger for the executor's tests. It
// keeps the rules a real ledger keeps: one claim per identity, fences and
// leases, takeover only of expired leases and re-drivable uncertain rows,
// rows written by Record that are not claims. It is a runtime.RowTaker.
type memLedger struct {
	mu      sync.Mutex                 // guards the fields below
	rows    []memRow                   // rows[id-1]
	claims  map[runtime.Identity]int64 // the claim row of each identity
	changed chan struct{}              // closed and replaced when a row leaves state claimed
	// clock is the ledger's own, which sets and judges leases, as a
	// database's does; nil for the system's.
	clock runtime.Clock

	// Hooks for tests, set before use and called without mu held: settle
	// and renew answer Settle and Renew before the row is touched (a
	// non-nil error fails them), renewed is told of every successful Renew,
	// waiting of every Await that blocks.
	settle  func(id int64, to runtime.State) error
	renew   func(id int64) error
	renewed func(id int64, until time.Time)
	waiting func(id int64) // Await is about to wait for row id
}

// memRow is a row with what a Record does not show.
type memRow struct {
	runtime.Record
	claim        bool // written by Claim, not by Record
	redrive      bool
	redriveUntil time.Time
	redriveAt    time.Time // by the ledger's clock: TakeOver hands the row over from then on
}

func newMemLedger() *memLedger {
	return &memLedger{claims: map[runtime.Identity]int64{}, changed: make(chan struct{})}
}

// newMemLedgerOn returns a memLedger whose leases follow clk.
func newMemLedgerOn(clk runtime.Clock) *memLedger {
	m := newMemLedger()
	m.clock = clk
	return m
}

// now is the time of the ledger's clock.
func (m *memLedger) now() time.Time {
	if m.clock == nil {
		return time.Now()
	}
	return m.clock.Now()
}

// takeable reports whether TakeOver (or TakeOverRow: row) by h at now hands r out.
func (m *memLedger) takeable(r *memRow, now time.Time, h runtime.Holder, row bool) bool {
	expired := r.State == runtime.StateClaimed && (r.LeaseUntil.Before(m.now()) ||
		h.Instance != "" && r.LeaseInstance == h.Instance && r.LeaseIncarnation < h.Incarnation)
	redrive := r.State == runtime.StateUncertain && r.redrive && (r.redriveUntil.IsZero() || now.Before(r.redriveUntil)) &&
		(row || !m.now().Before(r.redriveAt))
	return r.claim && (expired || redrive)
}

func (m *memLedger) Claim(_ context.Context, rec runtime.Record, h runtime.Holder, lease time.Duration) (runtime.Record, bool, error) {
	if rec.BusinessKey == "" {
		return runtime.Record{}, false, fmt.Errorf("ledger: claim needs a business key")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rec.State, rec.LeaseOwner, rec.LeaseUntil = runtime.StateClaimed, h.Owner, m.now().Add(lease)
	rec.LeaseInstance, rec.LeaseIncarnation = h.Instance, h.Incarnation
	if id, ok := m.claims[rec.Identity]; ok {
		r := &m.rows[id-1]
		if r.State != runtime.StateNotApplied {
			return r.Record, false, nil
		}
		rec.ID, rec.Fence, rec.CreatedAt = id, r.Fence+1, r.CreatedAt
		r.Record = rec
		return rec, true, nil
	}
	rec.ID, rec.Fence = int64(len(m.rows)+1), 1
	m.rows = append(m.rows, memRow{Record: rec, claim: true})
	m.claims[rec.Identity] = rec.ID
	return rec, true, nil
}

func (m *memLedger) Renew(_ context.Context, id, fence int64, lease time.Duration) error {
	if m.renew != nil {
		if err := m.renew(id); err != nil {
			return err
		}
	}
	m.mu.Lock()
	r := &m.rows[id-1]
	if r.State != runtime.StateClaimed || r.Fence != fence {
		m.mu.Unlock()
		return fmt.Errorf("ledger: renew row %d with fence %d: %w", id, fence, runtime.ErrLeaseLost)
	}
	until := m.now().Add(lease)
	r.LeaseUntil = until
	m.mu.Unlock()
	if m.renewed != nil {
		m.renewed(id, until)
	}
	return nil
}

func (m *memLedger) Settle(_ context.Context, id, fence int64, to runtime.State, s runtime.Settlement) error {
	if m.settle != nil {
		if err := m.settle(id, to); err != nil {
			return err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := &m.rows[id-1]
	switch {
	case r.Fence != fence:
		return fmt.Errorf("ledger: settle row %d with fence %d (now %d): %w", id, fence, r.Fence, runtime.ErrLeaseLost)
	case r.State != runtime.StateClaimed:
		return fmt.Errorf("ledger: row %d is %s, not claimed", id, r.State)
	}
	r.State, r.ProviderID, r.Status, r.Attempts, r.LastError = to, s.ProviderID, s.Status, s.Attempts, s.LastError
	r.Body = append([]byte(nil), s.Body...)
	r.redrive, r.redriveUntil = to == runtime.StateUncertain && s.Redrive, s.RedriveUntil
	r.redriveAt = m.now().Add(s.RedriveAfter)
	r.LeaseOwner, r.LeaseUntil = "", m.now() // a settled row's lease ends when it is settled
	close(m.changed)
	m.changed = make(chan struct{})
	return nil
}

func (m *memLedger) Await(ctx context.Context, id int64) (runtime.Record, error) {
	for {
		m.mu.Lock()
		rec := m.rows[id-1].Record
		ch := m.changed
		m.mu.Unlock()
		if rec.State != runtime.StateClaimed {
			return rec, nil
		}
		if m.waiting != nil {
			m.waiting(id)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return rec, fmt.Errorf("ledger: row %d: %w: %w", id, runtime.ErrInProgress, ctx.Err())
		}
	}
}

func (m *memLedger) TakeOver(_ context.Context, scope, tenant, operation string, now time.Time, h runtime.Holder, lease time.Duration, limit int) ([]runtime.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []runtime.Record
	for i := range m.rows {
		r := &m.rows[i]
		if len(out) == limit {
			break
		}
		if !r.claim || r.Scope != scope || r.Tenant != tenant || operation != "" && r.Operation != operation {
			continue
		}
		if !m.takeable(r, now, h, false) {
			continue
		}
		m.hand(r, h, lease)
		out = append(out, r.Record)
	}
	return out, nil
}

// hand claims r anew for h, telling how much of the previous lease was left.
func (m *memLedger) hand(r *memRow, h runtime.Holder, lease time.Duration) {
	if r.State == runtime.StateUncertain {
		r.Redrives++
	}
	now := m.now()
	r.LeaseLeft = r.LeaseUntil.Sub(now)
	r.State, r.Fence, r.LeaseOwner, r.LeaseUntil, r.redrive = runtime.StateClaimed, r.Fence+1, h.Owner, now.Add(lease), false
	r.LeaseInstance, r.LeaseIncarnation = h.Instance, h.Incarnation
}

func (m *memLedger) TakeOverRow(_ context.Context, id int64, now time.Time, h runtime.Holder, lease time.Duration) (runtime.Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id < 1 || int(id) > len(m.rows) {
		return runtime.Record{}, false, fmt.Errorf("ledger: no row %d", id)
	}
	r := &m.rows[id-1]
	if !m.takeable(r, now, h, true) {
		return r.Record, false, nil
	}
	m.hand(r, h, lease)
	return r.Record, true, nil
}

func (m *memLedger) Record(_ context.Context, rec runtime.Record) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec.ID = int64(len(m.rows) + 1)
	m.rows = append(m.rows, memRow{Record: rec})
	return rec.ID, nil
}

// row returns row id.
func (m *memLedger) row(id int64) memRow {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows[id-1]
}

// all returns every row.
func (m *memLedger) all() []memRow {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]memRow(nil), m.rows...)
}
