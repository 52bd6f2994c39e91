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
	rows    []Record // rows[id-1]
	byKey   map[[2]string]int64
	changed chan struct{} // closed and replaced when a row settles
}

func newMemLedger() *memLedger {
	return &memLedger{byKey: map[[2]string]int64{}, changed: make(chan struct{})}
}

func (m *memLedger) Claim(_ context.Context, rec Record) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{rec.Operation, rec.BusinessKey}
	if id, ok := m.byKey[k]; ok {
		if m.rows[id-1].State != StateNotSent {
			return m.rows[id-1], false, nil
		}
		rec.ID, rec.State = id, StateClaimed
		m.rows[id-1] = rec
		return rec, true, nil
	}
	rec.ID, rec.State = int64(len(m.rows)+1), StateClaimed
	m.rows = append(m.rows, rec)
	m.byKey[k] = rec.ID
	return rec, true, nil
}

func (m *memLedger) Await(ctx context.Context, operation, businessKey string) (Record, error) {
	for {
		m.mu.Lock()
		rec := m.rows[m.byKey[[2]string{operation, businessKey}]-1]
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

func (m *memLedger) Settle(_ context.Context, id int64, to State, s Settlement) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := &m.rows[id-1]
	if r.State != StateClaimed {
		return fmt.Errorf("row %d is %s, not claimed", id, r.State)
	}
	r.State, r.ProviderID, r.Status, r.Attempts, r.LastError = to, s.ProviderID, s.Status, s.Attempts, s.LastError
	r.Body = append([]byte(nil), s.Body...)
	close(m.changed)
	m.changed = make(chan struct{})
	return nil
}

func (m *memLedger) Pending(_ context.Context, operation string, olderThan time.Time) ([]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Record
	for _, r := range m.rows {
		if r.State == StateClaimed && r.Operation == operation && r.CreatedAt.Before(olderThan) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (m *memLedger) row(id int64) Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows[id-1]
}
