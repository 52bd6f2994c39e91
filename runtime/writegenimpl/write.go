package writegenimpl

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/writegen/writegen/runtime"
)

// outcome is what a write returns, before it becomes a receipt or an
// acknowledgement.
type outcome struct {
	id       string
	body     any // a *T
	raw      []byte
	source   runtime.Source
	attempts int
	status   int
	pk       string
}

// keyed runs a keyed write, through the ledger when op.Dedupe, and returns
// its outcome: with its body read by its id when it is a receipt a person
// recorded (the ledger holds its id alone) and the write has a read. The
// write is settled whatever the read answers; the body is nil when it fails.
func (c *Client) keyed(ctx context.Context, w *keyedWrite) (outcome, error) {
	if w.codec.err != nil {
		return outcome{}, fmt.Errorf("writegen: operation %q: %w", w.op.ID, w.codec.err)
	}
	o, err := c.claimAndRun(ctx, w)
	if err != nil && !errors.Is(err, runtime.ErrDecode) {
		return o, err
	}
	if read := w.codec.read; read != nil && w.receipt && o.body == nil && o.id != "" && o.source == runtime.AdoptedLedger {
		if body, err := read(ctx, JoinReference("", w.values...), o.id); err == nil {
			o.body = body
		}
	}
	return o, err
}

// claimAndRun runs w, claiming its key in the ledger first when op.Dedupe.
func (c *Client) claimAndRun(ctx context.Context, w *keyedWrite) (outcome, error) {
	op, cd := w.op, w.codec
	if w.key == nil {
		return outcome{}, &runtime.EmptyKeyError{Operation: op.ID}
	}
	bk, err := w.key.BusinessKey()
	if err != nil {
		return outcome{}, err
	}
	if bk == "" {
		return outcome{}, &runtime.EmptyKeyError{Operation: op.ID}
	}
	if (w.request == nil) == (w.build == nil) {
		return outcome{}, fmt.Errorf("writegen: operation %q: want a request or a function that builds it, one of the two", op.ID)
	}
	if w.receipt && cd.idOf == nil {
		return outcome{}, fmt.Errorf("writegen: operation %q: a receipt needs an id accessor", op.ID)
	}
	id := runtime.Identity{Scope: c.scope, Tenant: c.s.Tenant, Operation: op.keyScope(), BusinessKey: bk}
	pk := runtime.ProviderKey(id, op.KeyMaxLength, c.s.KeySecret)
	ref := w.reference
	if ref == "" {
		ref = pk
	}
	r := w.request
	if w.build != nil {
		if r, err = w.build(pk, ref); err != nil {
			return outcome{}, fmt.Errorf("writegen: operation %q: build request: %w", op.ID, err)
		}
	}
	x, err := c.prepare(op, modeWrite, r)
	if err != nil {
		return outcome{}, err
	}
	x.setKey(id, pk, JoinReference(ref, w.values...))
	x.codec, x.receipt = cd, w.receipt
	x.lookups = cd.find != nil && op.Lookup != runtime.NoLookup && !r.NoReference
	ctx = x.callStart(ctx)
	if !op.Dedupe {
		res, err := x.run(ctx, false, failure{})
		o, err := x.complete(res, err)
		x.finish(ctx, o, err, stateOf(err), true)
		return o, err
	}
	l := c.s.Ledger
	if l == nil {
		err := fmt.Errorf("writegen: operation %q dedupes in a ledger but the client has none (WithLedger)", op.ID)
		x.finish(ctx, outcome{}, err, "", false)
		return outcome{}, err
	}
	x.encode()
	if err := c.pending.flush(ctx, l); err != nil {
		x.ledgerFailed(ctx, err) // outcomes kept from earlier calls
	}
	h, err := c.holderOf(ctx)
	now := c.s.Clock.Now()
	var row runtime.Record
	won := false
	if err == nil {
		row, won, err = l.Claim(ctx, runtime.Record{
			Identity: id, OperationID: op.ID, ProviderKey: pk, Reference: x.storedRef(), Owner: op.Owner,
			State: runtime.StateClaimed, Request: x.enc, Digest: x.digest, CreatedAt: now, UpdatedAt: now,
		}, h, c.s.Lease)
	}
	if err != nil {
		err = x.claimFailed(err)
		x.finish(ctx, outcome{}, err, stateOf(err), false)
		return outcome{}, err
	}
	if !won && (row.State == runtime.StateUncertain || row.State == runtime.StateClaimed && h.Instance != "" &&
		row.LeaseInstance == h.Instance && row.LeaseIncarnation < h.Incarnation) {
		// An uncertain row that may be driven on, or a claim that an
		// earlier run of this instance left, is driven on now, as Resume
		// would, by whoever takes it over first.
		if row, won = x.takeRow(ctx, row, h); won {
			return x.driveTaken(ctx, row, now.Add(c.s.Lease))
		}
	}
	if !won && row.State == runtime.StateClaimed {
		// Another caller holds the key: wait for its outcome, or, once its
		// lease has ended, drive its row on (promise 54).
		var until time.Time
		if row, until, won = x.awaitOrTake(ctx, row, h); won {
			return x.driveTaken(ctx, row, until)
		}
	}
	if !won {
		o, err := x.fromLedger(ctx, row)
		x.finish(ctx, o, err, stateOf(err), false)
		return o, err
	}
	// A not_applied row claimed again keeps its first use: the window is
	// counted from the earlier of the two.
	x.keyTime, x.rowID, x.keyNew = now, row.ID, row.Fence <= 1
	if row.Fence > 1 { // a not_applied row claimed again is a new call: its outcome is told anew
		c.told.forget(row.ID)
	}
	if !row.CreatedAt.IsZero() && row.CreatedAt.Before(now) {
		x.keyTime = row.CreatedAt
	}
	// The lease lasts c.s.Lease from when the ledger set it, which is after
	// now: counted from now, by this client's clock, it ends no later than
	// the ledger's clock says.
	x.lease = c.hold(ctx, row.ID, row.Fence, now.Add(c.s.Lease))
	x.claimed = true
	res, err := x.run(ctx, false, failure{})
	o, err := x.complete(res, err)
	o, _, err = x.settle(ctx, o, err)
	return o, err
}

// direct runs a read or a write without a key and decodes its body into
// into, a pointer or nil; anything else is refused before the call.
func (c *Client) direct(ctx context.Context, op *Operation, req *Request, m mode, into any) error {
	if into == nil {
		into = noBody
	} else if v := reflect.ValueOf(into); v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("writegen: operation %q: into is a %T: want a non-nil pointer to decode the response into, or nil", op.ID, into)
	}
	x, err := c.prepare(op, m, req)
	if err != nil {
		return err
	}
	x.codec = codec{into: into}
	ctx = x.callStart(ctx)
	res, err := x.run(ctx, false, failure{})
	if m == modeRead {
		if err == nil {
			if _, derr := x.codec.decode(res.resp.bytes()); derr != nil {
				err = &runtime.DecodeError{Operation: op.ID, Status: res.resp.status, Body: append([]byte(nil), res.resp.bytes()...), Cause: derr}
			}
			res.resp.release()
		}
		x.finish(ctx, outcome{attempts: x.attempts}, err, "", true)
		return err
	}
	o, err := x.complete(res, err)
	x.finish(ctx, o, err, stateOf(err), true)
	return err
}

// callStart tells the hooks that the call starts and returns its context.
func (x *logical) callStart(ctx context.Context) context.Context {
	if h := x.c.s.Hooks.CallStart; h != nil {
		if c := h(ctx, &x.info); c != nil {
			return c
		}
	}
	return ctx
}

// encode stores the encoded request and its digest in x.
func (x *logical) encode() {
	if x.enc == nil {
		x.enc = EncodeRequest(x.request)
		d := sha256.Sum256(x.enc)
		x.digest = d[:]
	}
}

// complete turns the end of a write's attempts into its outcome and
// releases the response. A 2xx that does not decode took effect: it
// completes with a *runtime.DecodeError beside the outcome, settled done,
// when the id of a receipt can be read from the raw body through
// op.IDPointer (an acknowledgement needs none); otherwise, as a receipt
// without an id, it is uncertain. Neither is sent again.
func (x *logical) complete(res result, err error) (outcome, error) {
	o := outcome{attempts: x.attempts, pk: x.info.ProviderKey}
	if err != nil {
		return o, x.typed(err)
	}
	if res.adopted {
		f := x.found[0]
		o.id, o.body, o.source = f.id, f.body, runtime.AdoptedLookup
		o.raw, _ = json.Marshal(f.body)
		if x.receipt && o.id == "" {
			return o, x.uncertain("the lookup found an effect without an id", nil)
		}
		return o, nil
	}
	o.raw = append([]byte(nil), res.resp.bytes()...)
	o.status = res.resp.status
	res.resp.release()
	body, err := x.codec.decode(o.raw)
	if err != nil {
		de := &runtime.DecodeError{Operation: x.op.ID, Status: o.status, Body: o.raw, Cause: err}
		if !x.receipt {
			return o, de
		}
		if o.id = RawID(o.raw, x.op.IDPointer); o.id != "" {
			return o, de
		}
		if x.lookups {
			x.reask = x.reaskEvery() // a 2xx nobody could read: only the lookup can settle it
		}
		ue := x.uncertain(reasonUndecoded, err)
		ue.Body = o.raw
		return o, ue
	}
	o.body = body
	if x.op.Refused != nil {
		if why := x.op.Refused(body); why != "" {
			return o, &runtime.StatusError{Operation: x.op.ID, Status: o.status, Body: o.raw, Attempts: x.attempts,
				State: runtime.StateRejected, Refusal: why}
		}
	}
	if x.receipt {
		if o.id = x.codec.id(body); o.id == "" {
			ue := x.uncertain(reasonNoID, nil)
			ue.Body = o.raw
			return o, ue
		}
	}
	return o, nil
}

// typed makes sure a write's error is one of the outcomes: an error the
// rules did not produce is uncertain once an attempt may have committed,
// and not applied before.
func (x *logical) typed(err error) error {
	var ue *runtime.UncertainError
	var na *runtime.NotAppliedError
	var se *runtime.StatusError
	switch {
	case x.mode == modeRead, errors.As(err, &ue), errors.As(err, &na), errors.As(err, &se) && se.State == runtime.StateRejected:
		return err
	case x.sent:
		return x.uncertain("failed after send", err)
	}
	return x.notApplied("failed before sending", err)
}

// stateOf returns the ledger state an outcome settles in.
func stateOf(err error) runtime.State {
	if err == nil {
		return runtime.StateActive
	}
	return errorState(err)
}

// errorState is stateOf of an error; apart so that a success allocates no
// target for errors.As.
func errorState(err error) runtime.State {
	var ue *runtime.UncertainError
	var na *runtime.NotAppliedError
	switch {
	case errors.As(err, &ue):
		return runtime.StateUncertain
	case errors.Is(err, runtime.ErrDecode):
		return runtime.StateActive // a 2xx that took effect
	case errors.As(err, &na):
		return runtime.StateNotApplied
	case errors.Is(err, runtime.ErrRejected):
		return runtime.StateRejected
	case errors.Is(err, runtime.ErrCompensated):
		return runtime.StateCompensated
	case errors.Is(err, runtime.ErrInProgress):
		return runtime.StateClaimed
	}
	return ""
}

// settlement returns what the ledger records of an outcome.
func (x *logical) settlement(o outcome, err error) (runtime.State, runtime.Settlement) {
	to := stateOf(err)
	s := runtime.Settlement{Attempts: x.attempts, Status: x.status}
	var ue *runtime.UncertainError
	var se *runtime.StatusError
	switch {
	case err == nil || errors.Is(err, runtime.ErrDecode):
		s.ProviderID, s.Body, s.Status = o.id, o.raw, o.status
	case errors.As(err, &ue):
		s.LastError, s.Body, s.Status = ue.Reason, ue.Body, ue.Status
		if ue.Cause != nil {
			s.LastError += ": " + ue.Cause.Error()
		}
		s.Redrive, s.RedriveUntil, s.RedriveAfter = x.redrive(ue)
		x.scheduled = s.Redrive
	case to == runtime.StateRejected && errors.As(err, &se):
		s.Body, s.LastError = se.Body, err.Error()
	default:
		s.LastError = err.Error()
	}
	return to, s
}

// redrive says whether Resume (or the next call with the business key) may
// drive an uncertain outcome on, until when, and after how long: at once
// while the provider key is inside its window; or, when asking the lookup
// again later may settle it (x.reask), on the schedule of WithReask, once
// the lag or settle time has passed and then each step twice as long,
// until the schedule's asks are spent. A provider that refused the key as
// reused gives the same answer again, and so does one whose 2xx could not
// be read: only a lookup can settle those.
func (x *logical) redrive(ue *runtime.UncertainError) (bool, time.Time, time.Duration) {
	keyed := x.op.Keyed && ue.Reason != reasonKeyReused && !(ue.Status >= 200 && ue.Status <= 299)
	ask := x.reask > 0 && x.redrives < x.c.s.ReaskTimes
	switch {
	case keyed && x.op.KeyWindow < 0:
		return true, time.Time{}, 0
	case keyed && x.op.KeyWindow > 0 && x.inWindow() && ask:
		return true, time.Time{}, 0 // by key while in its window, then by lookup
	case keyed && x.op.KeyWindow > 0 && x.inWindow():
		return true, x.keyTime.Add(x.op.KeyWindow), 0
	case ask:
		after := x.reask
		if x.redrives > 0 {
			after = x.reaskEvery() << min(x.redrives, 16)
		}
		return true, time.Time{}, after
	}
	return false, time.Time{}, 0
}

// settleTimeout bounds recording an outcome after the caller's context
// ended.
const settleTimeout = 30 * time.Second

// settleTries is how often a settle that fails is tried, within the lease,
// waiting settleBackoff, then twice as long each time.
const (
	settleTries   = 4
	settleBackoff = 100 * time.Millisecond
)

// settle records the outcome of a claimed write in its row and returns it,
// with the state recorded ("" when the ledger could not record it). The
// lease is released on every path. A receipt whose settle fails is still
// returned, and kept by the client, which records it before its next
// claim or Resume (pending); until then the row stays claimed. A caller
// whose row was taken over learns the other's outcome.
func (x *logical) settle(ctx context.Context, o outcome, err error) (outcome, runtime.State, error) {
	to, s := x.settlement(o, err)
	// The outcome is recorded even if ctx ended: the provider call is done.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	l := x.c.s.Ledger
	var serr error
	for try := 1; ; try++ {
		if serr = l.Settle(sctx, x.rowID, x.lease.fence, to, s); serr == nil || errors.Is(serr, runtime.ErrLeaseLost) {
			break
		}
		d := settleBackoff << (try - 1)
		if try == settleTries || x.lease.left() <= d || x.c.s.Clock.Sleep(sctx, d) != nil {
			break
		}
	}
	x.lease.release()
	switch {
	case serr == nil:
		if ue := (*runtime.UncertainError)(nil); errors.As(err, &ue) {
			ue.Recorded = "ledger row " + strconv.FormatInt(x.rowID, 10)
			x.settledRow = x.rowID
		}
		x.finish(ctx, o, err, to, true)
		return o, to, err
	case errors.Is(serr, runtime.ErrLeaseLost):
		o, err := x.superseded(ctx, o, err, serr)
		return o, "", err
	}
	x.c.pending.keep(x.op.ID, x.rowID, x.lease.fence, to, s)
	serr = fmt.Errorf("writegen: operation %q%s: record the %s outcome in ledger row %d (kept, to record before the client's next claim or Resume): %w",
		x.op.ID, keyOf(x.info.Identity), to, x.rowID, serr)
	x.ledgerFailed(ctx, serr)
	err = x.unsettled(to, err, serr)
	x.finish(ctx, o, err, to, true)
	return o, "", err
}

// superseded ends a call whose row another caller took over: it adopts
// the other's outcome, waiting for it within ctx, or ends uncertain. A
// receipt this call holds is never dropped.
func (x *logical) superseded(ctx context.Context, o outcome, err, serr error) (outcome, error) {
	row, aerr := x.c.s.Ledger.Await(ctx, x.rowID)
	switch {
	case aerr != nil && err == nil:
		x.ledgerFailed(ctx, fmt.Errorf("writegen: operation %q%s: ledger row %d was taken over while this call got its answer: %w",
			x.op.ID, keyOf(x.info.Identity), x.rowID, serr))
		x.finish(ctx, o, nil, runtime.StateActive, true)
		return o, nil
	case aerr != nil:
		// The cause names the wait's end without wrapping it: the outcome is
		// uncertain, not in progress.
		ue := x.uncertain(reasonSuperseded, fmt.Errorf("%w; its outcome was not known in time: %v", serr, aerr))
		x.finish(ctx, o, ue, runtime.StateUncertain, true)
		return o, ue
	case err == nil && row.State == runtime.StateActive && x.receipt && row.ProviderID != o.id:
		// Two effects: this call's and the one the other caller recorded.
		ue := x.uncertain(reasonSuperseded, fmt.Errorf("%w: ledger row %d records effect %q, this call made %q",
			serr, x.rowID, row.ProviderID, o.id))
		ue.Body = o.raw
		x.finish(ctx, o, ue, runtime.StateUncertain, true)
		return o, ue
	case err == nil && row.State != runtime.StateActive:
		x.ledgerFailed(ctx, fmt.Errorf("writegen: operation %q%s: ledger row %d was taken over and settled %s while this call got its answer: %w",
			x.op.ID, keyOf(x.info.Identity), x.rowID, row.State, serr))
		x.finish(ctx, o, nil, runtime.StateActive, true)
		return o, nil
	}
	o2, err2 := x.fromLedger(ctx, row)
	o2.attempts = x.attempts
	x.finish(ctx, o2, err2, stateOf(err2), false)
	return o2, err2
}

// fromLedger returns the outcome a ledger row holds for a write another
// caller made, waiting for it while the row is claimed. The same key with
// another request is refused.
func (x *logical) fromLedger(ctx context.Context, row runtime.Record) (outcome, error) {
	if row.Identity != x.info.Identity {
		return outcome{}, fmt.Errorf("writegen: operation %q%s: the ledger answered a claim with row %d of another identity (%+v); nothing was sent",
			x.op.ID, keyOf(x.info.Identity), row.ID, row.Identity)
	}
	if !sameRequest(row, x.digest) {
		return outcome{}, &runtime.KeyConflictError{Identity: x.info.Identity, OperationID: x.op.ID, RowID: row.ID}
	}
	if row.State == runtime.StateClaimed {
		var err error
		if row, err = x.c.s.Ledger.Await(ctx, row.ID); err != nil {
			return outcome{}, fmt.Errorf("writegen: operation %q%s: %w", x.op.ID, keyOf(x.info.Identity), err)
		}
	}
	return x.fromRecord(row)
}

// sameRequest reports whether row holds the request whose digest is d. A
// row written before digests were stored (a ledger's first schema) holds
// none and is not compared: its request carries the provider key of the
// time, so it would never match.
func sameRequest(row runtime.Record, d []byte) bool {
	return len(row.Digest) == 0 || bytes.Equal(row.Digest, d)
}

// fromRecord returns the outcome a settled row records. Each state gives
// exactly one of the runtime's sentinel errors, or the receipt.
func (x *logical) fromRecord(row runtime.Record) (outcome, error) {
	o := outcome{id: row.ProviderID, raw: row.Body, source: runtime.AdoptedLedger, attempts: row.Attempts,
		status: row.Status, pk: row.ProviderKey}
	op, key := x.op.ID, keyOf(row.Identity)
	recorded := "ledger row " + strconv.FormatInt(row.ID, 10)
	switch row.State {
	case runtime.StateActive:
		if len(row.Body) > 0 {
			// A row a person resolved committed holds the provider's id alone: no body,
			// never a zero one (keyed reads it by the id where the write has a read).
			body, err := x.codec.decode(row.Body)
			if err != nil && (row.ProviderID != "" || !x.receipt) {
				// Settled done from a 2xx that did not decode: the same again.
				return o, &runtime.DecodeError{Operation: op, Status: row.Status, Body: row.Body, Cause: err}
			}
			if err != nil {
				ue := x.uncertainRow(row, "the stored receipt could not be decoded", err)
				return o, ue
			}
			o.body = body
		}
		if o.id == "" {
			o.id = x.codec.id(o.body)
		}
		if x.receipt && o.id == "" {
			return o, x.uncertainRow(row, "the stored receipt has no id", nil)
		}
		return o, nil
	case runtime.StateRejected:
		return o, &runtime.StatusError{Operation: op, Status: row.Status, Body: row.Body, Attempts: row.Attempts,
			State: runtime.StateRejected}
	case runtime.StateNotApplied:
		return o, &runtime.NotAppliedError{Operation: op, Reason: "the call that held the key made no effect",
			Cause: errorText(row.LastError)}
	case runtime.StateUncertain:
		reason, cause, _ := strings.Cut(row.LastError, ": ")
		return o, x.uncertainRow(row, reason, errorText(cause))
	case runtime.StateCompensated:
		return o, fmt.Errorf("writegen: operation %q%s: %w (%s)", op, key, runtime.ErrCompensated, recorded)
	case runtime.StateClaimed:
		return o, fmt.Errorf("writegen: operation %q%s: %w (%s)", op, key, runtime.ErrInProgress, recorded)
	}
	return o, fmt.Errorf("writegen: operation %q%s: %s is in state %q", op, key, recorded, row.State)
}

// uncertainRow returns the uncertain outcome that row records.
func (x *logical) uncertainRow(row runtime.Record, reason string, cause error) *runtime.UncertainError {
	ue := &runtime.UncertainError{Identity: row.Identity, OperationID: x.op.ID, ProviderKey: row.ProviderKey,
		Owner: row.Owner, Attempts: row.Attempts, Reason: reason, Status: row.Status, Cause: cause,
		Recorded: "ledger row " + strconv.FormatInt(row.ID, 10)}
	if row.Status >= 200 && row.Status <= 299 {
		ue.Body = row.Body
	}
	return ue
}

// errorText returns s as an error, nil when empty.
func errorText(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}

// keyOf names the business key (and tenant) in a message.
func keyOf(id runtime.Identity) string {
	s := ""
	if id.Tenant != "" {
		s += " tenant " + strconv.Quote(id.Tenant)
	}
	if id.BusinessKey != "" {
		s += " key " + strconv.Quote(id.BusinessKey)
	}
	return s
}
