package writegenimpl

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/writegen/writegen/runtime"
)

// resumeBatch is how many rows one TakeOver hands over.
const resumeBatch = 64

// resume takes over and drives on the rows of op that need it.
func (c *Client) resume(ctx context.Context, op *Operation, cd codec) (runtime.ResumeReport, error) {
	var rep runtime.ResumeReport
	l := c.s.Ledger
	if l == nil {
		return rep, ctx.Err() // nothing is claimed or recorded without a ledger
	}
	var errs []error
	// The rows this Resume drove and settled uncertain and re-drivable come
	// back from TakeOver: they are given back and left to the next Resume,
	// and each batch asks for as many more rows, so that the others are
	// reached.
	done := map[int64]bool{}
	back := 0
	if err := c.pending.flush(ctx, l); err != nil {
		errs = append(errs, err) // outcomes kept from calls whose settle failed
	}
	h, err := c.holderOf(ctx)
	if err != nil {
		return rep, err
	}
	for ctx.Err() == nil {
		now := c.s.Clock.Now()
		limit := resumeBatch + back
		rows, err := l.TakeOver(ctx, c.scope, c.s.Tenant, op.keyScope(), now, h, c.s.Lease, limit)
		if err != nil {
			errs = append(errs, fmt.Errorf("writegen: operation %q: take over rows: %w", op.ID, err))
			break
		}
		fresh := 0
		for _, row := range rows {
			if done[row.ID] {
				if err := c.release(ctx, op, cd, row); err != nil {
					errs = append(errs, err)
				}
				continue
			}
			fresh++
			rep.Taken++
			if row.Redrives > 0 {
				rep.Reasked++
			}
			d := c.drive(ctx, op, cd, row, now.Add(c.s.Lease))
			rep.Compensated += d.compensated
			switch d.to {
			case runtime.StateActive:
				rep.Active++
			case runtime.StateRejected:
				rep.Rejected++
			case runtime.StateNotApplied:
				rep.NotApplied++
			case runtime.StateUncertain:
				rep.Uncertain++
				if d.scheduled {
					rep.Scheduled++
				}
				done[row.ID] = true
				back++
			case "":
				errs = append(errs, d.err)
			}
		}
		if fresh == 0 || len(rows) < limit {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return rep, errors.Join(errs...)
}

// resumed prepares the call that drives row on, with its stored request,
// identity and keys. The row must belong to the client's scope and tenant
// and to op: a row of anyone else is never sent.
func (c *Client) resumed(op *Operation, cd codec, row runtime.Record) (*logical, error) {
	if row.Scope != c.scope || row.Tenant != c.s.Tenant || row.Operation != op.keyScope() {
		return nil, fmt.Errorf("writegen: operation %q: the ledger handed over row %d of another scope (%q, tenant %q, operation %q); it was not sent",
			op.ID, row.ID, row.Scope, row.Tenant, row.Operation)
	}
	r, err := DecodeRequest(row.Request)
	if err == nil && len(row.Digest) > 0 {
		if sum := sha256.Sum256(row.Request); !bytes.Equal(sum[:], row.Digest) {
			err = errors.New("the stored request does not match its digest")
		}
	}
	if err != nil {
		r = NewRequest(op.Method, op.Path) // only to carry the identity to the outcome
	}
	x, perr := c.prepare(op, modeWrite, r)
	if perr != nil {
		return nil, perr
	}
	ref := row.Reference
	if ref == "" {
		ref = row.ProviderKey
	}
	x.setKey(row.Identity, row.ProviderKey, ref)
	x.codec, x.receipt = cd, op.Receipt
	x.lookups = cd.find != nil && op.Lookup != runtime.NoLookup && !r.NoReference
	x.taken(row)
	x.enc, x.digest = row.Request, row.Digest
	return x, err
}

// taken sets up x to drive on row, taken over with its fence: the key was
// first used when the row was created; the call now holds the row's claim,
// so no other attempt with the key can start; and an attempt of the
// previous holder may still run until its lease ends (promise 49).
func (x *logical) taken(row runtime.Record) {
	x.keyTime, x.keyOwn, x.rowID, x.claimed = row.CreatedAt, false, row.ID, true
	x.lastEnd = x.c.s.Clock.Now().Add(row.LeaseLeft)
	x.redrives = row.Redrives
}

// driven is how drive left a row: the state it settled it in ("" if
// none, with err), whether a later Resume asks it again, and how many
// duplicates it compensated.
type driven struct {
	to          runtime.State
	scheduled   bool
	compensated int
	err         error
}

// drive drives one row taken over, whose lease lasts until until by the
// client's clock.
func (c *Client) drive(ctx context.Context, op *Operation, cd codec, row runtime.Record, until time.Time) driven {
	x, err := c.resumed(op, cd, row)
	if x == nil {
		return driven{err: err} // left claimed: its lease expires
	}
	ctx = x.callStart(ctx)
	x.lease = c.hold(ctx, row.ID, row.Fence, until)
	if err != nil {
		_, to, err := x.settle(ctx, outcome{}, x.uncertain("stored request unreadable", err))
		return driven{to: to, err: err}
	}
	res, err := x.run(ctx, true, x.resumedFrom(row))
	if x.attempts == 0 && ctx.Err() != nil && !res.adopted {
		x.lease.release()
		return driven{err: err} // nothing done: the row stays claimed until its lease expires
	}
	o, err := x.complete(res, err)
	_, to, err := x.settle(ctx, o, err)
	return driven{to: to, scheduled: x.scheduled, compensated: x.compensated, err: err}
}

// resumedFrom returns the failure a row taken over is driven on from. The
// row's last attempt may have committed: it starts as ambiguous. A row
// that holds a 2xx nobody could read is not sent again (the provider would
// give the same answer): only its lookup can settle it.
func (x *logical) resumedFrom(row runtime.Record) failure {
	first := failure{class: runtime.ClassAmbiguous, allowed: x.set.Has(runtime.RetryAmbiguous), committed: true,
		what: "ambiguous", cause: errResumed}
	if row.Status >= 200 && row.Status <= 299 {
		first.allowed, first.what, first.cause = false, "a 2xx that could not be read", errorText(row.LastError)
	}
	return first
}

// takeRow takes over the row of the call's business key, held by h from
// now on, when it may be driven on: an uncertain row whose key is inside
// its window, or whose strong lookup can answer, as the row's
// Settlement.Redrive says (promise 45), or a claim that an earlier run of
// h's instance left (promise 38). It returns the row taken, with its new
// fence, and true; or the row as the ledger holds it now, and false, when
// the row may not be driven on, another caller (a Resume, another replica)
// took it first, the request is not the row's, or the ledger cannot hand
// over one row (runtime.RowTaker).
func (x *logical) takeRow(ctx context.Context, row runtime.Record, h runtime.Holder) (runtime.Record, bool) {
	rt, ok := x.c.s.Ledger.(runtime.RowTaker)
	if !ok || row.Identity != x.info.Identity || len(row.Digest) == 0 || !bytes.Equal(row.Digest, x.digest) {
		return row, false // a row of a ledger's first schema holds no digest: Resume sends its own request
	}
	now := x.c.s.Clock.Now()
	taken, won, err := rt.TakeOverRow(ctx, row.ID, now, h, x.c.s.Lease)
	if err != nil {
		x.ledgerFailed(ctx, fmt.Errorf("writegen: operation %q%s: take over %s ledger row %d: %w",
			x.op.ID, keyOf(x.info.Identity), row.State, row.ID, err))
		return row, false
	}
	if !won && taken.ID != row.ID {
		return row, false
	}
	return taken, won
}

// driveTaken drives on the row the call took over, whose lease lasts
// until until by the client's clock, as Resume drives a row, with the
// stored request (the call's own: their digests are equal) and provider
// key, and settles it with the outcome. A call whose context ends before
// it did anything gives the row back, uncertain and re-drivable.
func (x *logical) driveTaken(ctx context.Context, row runtime.Record, until time.Time) (outcome, error) {
	x.taken(row)
	x.lease = x.c.hold(ctx, row.ID, row.Fence, until)
	res, err := x.run(ctx, true, x.resumedFrom(row))
	if x.attempts == 0 && ctx.Err() != nil && !res.adopted {
		x.lease.release()
		if gerr := x.c.release(ctx, x.op, x.codec, row); gerr != nil {
			x.ledgerFailed(ctx, gerr) // the row stays claimed until its lease expires
		}
		was := row
		was.State = runtime.StateUncertain
		o, err := x.fromRecord(was)
		x.finish(ctx, o, err, stateOf(err), false)
		return o, err
	}
	o, err := x.complete(res, err)
	o, _, err = x.settle(ctx, o, err)
	return o, err
}

// release settles a row this Resume drove already and got back as it left
// it: uncertain, re-drivable by a later Resume.
func (c *Client) release(ctx context.Context, op *Operation, cd codec, row runtime.Record) error {
	x, _ := c.resumed(op, cd, row)
	if x == nil {
		return nil
	}
	s := runtime.Settlement{ProviderID: row.ProviderID, Status: row.Status, Body: row.Body, Attempts: row.Attempts,
		LastError: row.LastError}
	s.Redrive, s.RedriveUntil, s.RedriveAfter = x.redrive(&runtime.UncertainError{Status: row.Status})
	err := c.s.Ledger.Settle(context.WithoutCancel(ctx), row.ID, row.Fence, runtime.StateUncertain, s)
	if err != nil {
		return fmt.Errorf("writegen: operation %q: give back ledger row %d: %w", op.ID, row.ID, err)
	}
	return nil
}
