package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// memLedger is an in-memory Ledger for the runtime's tests.
type memLedger struct {
	mu      sync.Mutex
	rows    []Record // rows[id-1]; guarded by mu
	byKey   map[Identity]int64
	changed chan struct{} // closed and replaced when a row settles
}

func newMemLedger() *memLedger {
	return &memLedger{byKey: map[Identity]int64{}, changed: make(chan struct{})}
}

func (m *memLedger) Claim(_ context.Context, rec Record, owner string, until time.Time) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec.LeaseOwner, rec.LeaseUntil = owner, until
	if id, ok := m.byKey[rec.Identity]; ok {
		if m.rows[id-1].State != StateNotApplied {
			return m.rows[id-1], false, nil
		}
		rec.ID, rec.State, rec.Fence = id, StateClaimed, m.rows[id-1].Fence+1
		m.rows[id-1] = rec
		return rec, true, nil
	}
	rec.ID, rec.State, rec.Fence = int64(len(m.rows)+1), StateClaimed, 1
	m.rows = append(m.rows, rec)
	m.byKey[rec.Identity] = rec.ID
	return rec, true, nil
}

func (m *memLedger) Renew(_ context.Context, id, fence int64, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := &m.rows[id-1]
	if r.State != StateClaimed || r.Fence != fence {
		return ErrLeaseLost
	}
	r.LeaseUntil = until
	return nil
}

func (m *memLedger) Await(ctx context.Context, id int64) (Record, error) {
	for {
		m.mu.Lock()
		rec := m.rows[id-1]
		ch := m.changed
		m.mu.Unlock()
		if rec.State != StateClaimed {
			return rec, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return rec, fmt.Errorf("%w: %w", ErrInProgress, ctx.Err())
		}
	}
}

func (m *memLedger) Settle(_ context.Context, id, fence int64, to State, s Settlement) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := &m.rows[id-1]
	if r.Fence != fence {
		return ErrLeaseLost
	}
	if r.State != StateClaimed {
		return fmt.Errorf("row %d is %s, not claimed", id, r.State)
	}
	r.State, r.ProviderID, r.Status, r.Attempts, r.LastError = to, s.ProviderID, s.Status, s.Attempts, s.LastError
	r.Body = append([]byte(nil), s.Body...)
	close(m.changed)
	m.changed = make(chan struct{})
	return nil
}

func (m *memLedger) TakeOver(_ context.Context, scope, tenant, operation string, now time.Time, owner string, until time.Time, limit int) ([]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Record
	for i := range m.rows {
		r := &m.rows[i]
		if r.State == StateClaimed && r.Scope == scope && r.Tenant == tenant && r.Operation == operation && r.LeaseUntil.Before(now) {
			r.Fence++
			r.LeaseOwner, r.LeaseUntil = owner, until
			out = append(out, *r)
		}
	}
	return out, nil
}

func (m *memLedger) Record(_ context.Context, rec Record) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec.ID = int64(len(m.rows) + 1)
	m.rows = append(m.rows, rec)
	return rec.ID, nil
}

func (m *memLedger) row(id int64) Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows[id-1]
}
