package writegenimpl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"github.com/writegen/writegen/runtime"
)

// finish ends a call: it settles the duplicates a lookup found, records
// and notifies the uncertain outcome this caller produced (own), and tells
// the hooks.
func (x *logical) finish(ctx context.Context, o outcome, err error, to runtime.State, own bool) {
	if own && len(x.found) > 1 {
		x.duplicates(ctx)
	}
	if own && err != nil {
		x.recordIfUncertain(ctx, err)
	}
	if h := x.c.s.Hooks.CallDone; h != nil {
		h(ctx, &x.info, runtime.Outcome{Attempts: x.attempts, Source: o.source, State: to, Err: err})
	}
}

// recordIfUncertain records err when it is uncertain.
func (x *logical) recordIfUncertain(ctx context.Context, err error) {
	if ue := (*runtime.UncertainError)(nil); errors.As(err, &ue) {
		x.recordUncertain(ctx, ue, "", x.settledRow)
	}
}

// recordUncertain records an uncertain outcome where a person finds it and
// tells the notifier: the ledger row of a dedupe write holds it already
// (ue.Recorded is set); otherwise the client's ledger records a row of its
// own; otherwise only the notifier, or else the default slog logger at
// level ERROR, knows. providerID is the effect's id when one is known.
//
// row is the ledger row this call settled uncertain, 0 when none: its
// owner is told once by this client, not again each time a Resume drives
// the row on and leaves it uncertain (see toldRows).
func (x *logical) recordUncertain(ctx context.Context, ue *runtime.UncertainError, providerID string, row int64) {
	if row != 0 && !x.c.told.first(row) {
		return
	}
	rctx := context.WithoutCancel(ctx)
	if l := x.c.s.Ledger; ue.Recorded == "" && l != nil && x.mode != modeRead {
		x.encode()
		last := ue.Reason
		if ue.Cause != nil {
			last += ": " + ue.Cause.Error()
		}
		id, err := l.Record(rctx, runtime.Record{
			Identity: ue.Identity, OperationID: x.op.ID, ProviderKey: ue.ProviderKey, Reference: x.storedRef(),
			Owner: ue.Owner, State: runtime.StateUncertain, ProviderID: providerID, Status: ue.Status, Body: ue.Body,
			Request: x.enc, Digest: x.digest, Attempts: ue.Attempts, LastError: last,
		})
		if err == nil {
			ue.Recorded = "ledger row " + strconv.FormatInt(id, 10)
		} else {
			x.ledgerFailed(ctx, fmt.Errorf("writegen: operation %q%s: record the uncertain outcome: %w", x.op.ID, keyOf(ue.Identity), err))
		}
	}
	n := x.c.s.Notifier
	switch {
	case ue.Recorded != "":
	case n != nil:
		ue.Recorded = "notifier"
	default:
		ue.Recorded = "log"
		slog.Default().ErrorContext(rctx, "writegen: outcome uncertain",
			"operation", x.op.ID, "scope", ue.Scope, "tenant", ue.Tenant, "key", ue.BusinessKey,
			"provider_key", ue.ProviderKey, "owner", ue.Owner, "attempts", ue.Attempts,
			"reason", ue.Reason, "status", ue.Status, "err", ue.Cause)
	}
	if n != nil {
		n.Uncertain(ctx, ue)
	}
}

// storedRef is the reference a ledger row stores: "" when it is the
// provider key.
func (x *logical) storedRef() string {
	if x.ref == x.info.ProviderKey {
		return ""
	}
	return x.ref
}

// duplicates settles the effects a lookup found beyond the first, which
// the call adopted: each is compensated and recorded compensated when the
// operation declares a compensation, and recorded uncertain and notified
// otherwise (or when the compensation fails).
func (x *logical) duplicates(ctx context.Context) {
	for _, d := range x.found[1:] {
		body, _ := json.Marshal(d.body)
		if x.codec.undo != nil {
			err := x.codec.undo(ctx, d)
			if err == nil {
				x.compensated++
				if l := x.c.s.Ledger; l != nil {
					x.encode()
					_, err := l.Record(context.WithoutCancel(ctx), runtime.Record{
						Identity: x.info.Identity, OperationID: x.op.ID, ProviderKey: x.info.ProviderKey,
						Reference: x.storedRef(), Owner: x.op.Owner, State: runtime.StateCompensated, ProviderID: d.id,
						Body: body, Request: x.enc, Digest: x.digest, Attempts: x.attempts,
						LastError: "duplicate effect " + strconv.Quote(d.id) + " found by the lookup, compensated",
					})
					if err != nil {
						x.ledgerFailed(ctx, fmt.Errorf("writegen: operation %q%s: record compensated duplicate %q: %w",
							x.op.ID, keyOf(x.info.Identity), d.id, err))
					}
				}
				continue
			}
			ue := x.uncertain("duplicate effect found by the lookup; its compensation failed",
				fmt.Errorf("duplicate %q: %w", d.id, err))
			ue.Body = body
			x.recordUncertain(ctx, ue, d.id, 0)
			continue
		}
		ue := x.uncertain("duplicate effect found by the lookup", fmt.Errorf("duplicate %q", d.id))
		ue.Body = body
		x.recordUncertain(ctx, ue, d.id, 0)
	}
}

// ledgerFailed tells the hooks that the ledger could not record something
// the caller still gets.
func (x *logical) ledgerFailed(ctx context.Context, err error) {
	if h := x.c.s.Hooks.LedgerFailed; h != nil {
		h(ctx, &x.info, err)
	}
}

// toldRows remembers the ledger rows whose uncertain outcome a client told,
// so that a row Resume drives on (its provider key still inside its window)
// and leaves uncertain again is not told to its owner on every pass: once a
// minute for a day would be 1,440 times. Another process, or this one after
// a restart, tells once more: an owner is told at least once, and a process
// that settled a row and died before telling leaves it to the next. It
// holds the maxTold rows told last.
type toldRows struct {
	mu   sync.Mutex
	ids  map[int64]struct{}
	ring []int64 // the rows in ids, oldest at next once full
	next int
}

const maxTold = 1 << 14

// forget forgets that row was told.
func (t *toldRows) forget(row int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.ids, row) // its place in ring is reused in turn; deleting a row absent is harmless
}

// first records row and reports whether it was not recorded yet.
func (t *toldRows) first(row int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.ids[row]; ok {
		return false
	}
	if t.ids == nil {
		t.ids = make(map[int64]struct{})
	}
	if len(t.ring) < maxTold {
		t.ring = append(t.ring, row)
	} else {
		delete(t.ids, t.ring[t.next])
		t.ring[t.next] = row
		t.next = (t.next + 1) % maxTold
	}
	t.ids[row] = struct{}{}
	return true
}
