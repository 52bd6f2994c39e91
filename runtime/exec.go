package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Call holds the generated parts of one write.
type Call[T any] struct {
	// Request builds the request once; providerKey is
	// ProviderKey(op, businessKey, secret).
	Request func(providerKey string) (*Request, error)
	// Lookup asks the provider what committed, by reference (the provider
	// key). A nil *Found means not found. nil when op.Lookup is NoLookup.
	Lookup func(ctx context.Context, reference string) (*Found[T], error)
}

// Found is what a lookup found.
type Found[T any] struct {
	ID   string
	Body *T
}

// Source says where a receipt came from.
type Source uint8

// The sources of a receipt.
const (
	Created       Source = iota // the write took effect during this call
	AdoptedLookup               // a lookup found the effect of an earlier attempt
	AdoptedLedger               // the ledger held the receipt of an earlier call
)

// Receipt is the provider's proof of a durable effect.
type Receipt[T any] struct {
	ID          string // durable id at op.IDPointer
	Body        *T
	Source      Source
	Attempts    int
	ProviderKey string
	Status      int
}

// Adopted reports whether the receipt records an effect made before this
// call rather than by it.
func (r *Receipt[T]) Adopted() bool { return r.Source != Created }

// Ack is the provider's acknowledgement that it accepted a write; the
// effect may happen later.
type Ack[T any] struct {
	Status      int
	Body        *T
	Attempts    int
	ProviderKey string
}

// ResumeReport counts what Resume did.
type ResumeReport struct {
	Pending   int // claimed rows found
	Active    int // settled active: sent now or adopted
	Rejected  int // settled rejected
	Uncertain int // settled uncertain
}

// Write runs one logical write to a receipt.
//
// The business key is checked, the provider key derived and the request
// built once; every attempt sends the same bytes. A failed attempt is
// retried when the operation's retry set allows it and re-sending cannot
// make a second effect (the key is in its window, or a strongly consistent
// lookup found nothing); a lookup that finds the effect is adopted; what
// cannot be settled ends in an *UncertainError. With op.Dedupe the business
// key is first claimed in the client's ledger, and only the caller that
// claims it calls the provider.
func Write[T any](ctx context.Context, c *Client, op *Operation, key Key, call Call[T]) (*Receipt[T], error) {
	o, err := write(ctx, c, op, key, call)
	if err != nil {
		return nil, err
	}
	return &Receipt[T]{ID: o.id, Body: o.body, Source: o.source, Attempts: o.attempts, ProviderKey: o.pk, Status: o.status}, nil
}

// Submit runs one logical write whose 2xx is only an acknowledgement, by
// the rules of Write.
func Submit[T any](ctx context.Context, c *Client, op *Operation, key Key, call Call[T]) (*Ack[T], error) {
	o, err := write(ctx, c, op, key, call)
	if err != nil {
		return nil, err
	}
	return &Ack[T]{Status: o.status, Body: o.body, Attempts: o.attempts, ProviderKey: o.pk}, nil
}

// Read runs a read, following redirects, retried within op.Retry (RetryReads
// when op.Retry is empty) on any failure the set names.
func Read[T any](ctx context.Context, c *Client, op *Operation, req *Request) (*T, error) {
	return direct[T](ctx, c, op, req, modeRead)
}

// Do runs a write without a business key, such as an idempotent PUT. Its
// retry set applies as declared, but once an attempt may have taken effect
// it is re-sent only when op.Effect is EffectIdempotent; otherwise the call
// ends uncertain.
func Do[T any](ctx context.Context, c *Client, op *Operation, req *Request) (*T, error) {
	return direct[T](ctx, c, op, req, modeDo)
}

// direct runs a call without a key or ledger and decodes its body.
func direct[T any](ctx context.Context, c *Client, op *Operation, req *Request, m mode) (*T, error) {
	x, err := c.prepare(op, m, req)
	if err != nil {
		return nil, err
	}
	res, err := x.run(ctx, false)
	var body *T
	if err == nil {
		body, err = decode[T](op, res.resp.bytes())
		res.resp.release()
	}
	c.finish(ctx, op, x.attempts, err, true)
	return body, err
}

// outcome is what Write and Submit return, before it becomes a receipt or
// an acknowledgement.
type outcome[T any] struct {
	id       string
	body     *T
	source   Source
	attempts int
	status   int
	pk       string
}

// write runs a keyed write, through the ledger when op.Dedupe.
func write[T any](ctx context.Context, c *Client, op *Operation, key Key, call Call[T]) (o outcome[T], err error) {
	if key == nil {
		return o, &EmptyKeyError{Operation: op.Name}
	}
	bk, err := key.BusinessKey()
	if err != nil {
		return o, err
	}
	if bk == "" {
		return o, &EmptyKeyError{Operation: op.Name}
	}
	if call.Request == nil {
		return o, fmt.Errorf("runtime: operation %q: no request builder", op.Name)
	}
	pk := ProviderKey(op, bk, c.cfg.secret)
	r, err := call.Request(pk)
	if err != nil {
		return o, fmt.Errorf("runtime: operation %q: build request: %w", op.Name, err)
	}
	x, err := c.prepare(op, modeWrite, r)
	if err != nil {
		return o, err
	}
	x.setKey(bk, pk)
	found := setLookup(x, call.Lookup)
	if !op.Dedupe {
		res, err := x.run(ctx, false)
		o, err = complete(x, res, err, found)
		c.finish(ctx, op, x.attempts, err, true)
		return o, err
	}
	l := c.cfg.ledger
	if l == nil {
		return o, fmt.Errorf("runtime: operation %q dedupes in a ledger but the client has none (WithLedger)", op.Name)
	}
	now := c.cfg.clock.Now()
	row, won, err := l.Claim(ctx, Record{
		Identity: Identity{Operation: op.Name, BusinessKey: bk}, OperationID: op.Name, ProviderKey: pk, Owner: op.Owner,
		State: StateClaimed, Request: EncodeRequest(r), CreatedAt: now, UpdatedAt: now,
	}, "", now.Add(c.cfg.resumeAfter))
	if err != nil {
		return o, fmt.Errorf("runtime: operation %q key %q: claim: %w", op.Name, bk, err)
	}
	if !won {
		if row.State == StateClaimed {
			if row, err = l.Await(ctx, row.ID); err != nil {
				c.finish(ctx, op, 0, err, false)
				return o, err
			}
		}
		o, err = fromRecord[T](op, row)
		c.finish(ctx, op, 0, err, false)
		return o, err
	}
	x.keyTime = now
	res, err := x.run(ctx, false)
	o, _, err = settle(ctx, x, row.ID, row.Fence, res, err, found)
	c.finish(ctx, op, x.attempts, err, true)
	return o, err
}

// setLookup installs the operation's lookup, if it has one, with the
// provider key as reference; *found is what it found (found is nil when
// there is no lookup, and so no result can be adopted).
func setLookup[T any](x *logical, lookup func(context.Context, string) (*Found[T], error)) (found **Found[T]) {
	if lookup == nil || x.op.Lookup == NoLookup {
		return nil
	}
	found = new(*Found[T])
	pk := x.pk
	x.lookup = func(ctx context.Context) (bool, error) {
		f, err := lookup(ctx, pk)
		if err != nil {
			return false, err
		}
		*found = f
		return f != nil, nil
	}
	return found
}

// complete turns the end of a keyed write into its outcome, and releases
// the response.
func complete[T any](x *logical, res result, err error, found **Found[T]) (outcome[T], error) {
	o := outcome[T]{attempts: x.attempts, pk: x.pk}
	if err != nil {
		return o, err
	}
	if res.adopted {
		o.id, o.body, o.source = (*found).ID, (*found).Body, AdoptedLookup
		return o, nil
	}
	b := res.resp.bytes()
	o.status = res.resp.status
	if x.op.IDPointer != "" {
		o.id, _ = pointerValue(b, x.op.IDPointer)
	}
	o.body, err = decode[T](x.op, b)
	res.resp.release()
	return o, err
}

// settle records the end of a claimed write in the ledger and returns its
// outcome. If the ledger cannot record it, the row stays claimed, as after
// a crash, for Resume to drive on.
func settle[T any](ctx context.Context, x *logical, id, fence int64, res result, err error, found **Found[T]) (outcome[T], State, error) {
	to, s := StateActive, Settlement{Attempts: x.attempts, Status: x.status}
	var ue *UncertainError
	var se *StatusError
	switch {
	case err == nil && res.adopted:
		s.ProviderID, s.Status = (*found).ID, 0
		s.Body, _ = json.Marshal((*found).Body)
	case err == nil:
		s.Body = append([]byte(nil), res.resp.bytes()...)
		if x.op.IDPointer != "" {
			s.ProviderID, _ = pointerValue(s.Body, x.op.IDPointer)
		}
	case errors.As(err, &ue):
		to, s.LastError = StateUncertain, ue.Reason
		if ue.Cause != nil {
			s.LastError += ": " + ue.Cause.Error()
		}
	case errors.As(err, &se):
		to, s.Body, s.LastError = StateRejected, se.Body, err.Error()
	default: // not sent, or failed before sending: a later call may claim the key again
		to, s.LastError = StateNotApplied, err.Error()
	}
	o, err := complete(x, res, err, found)
	// The outcome is recorded even if ctx ended: the provider call is done.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	if serr := x.c.cfg.ledger.Settle(sctx, id, fence, to, s); serr != nil {
		serr = fmt.Errorf("runtime: operation %q key %q: record %s outcome in the ledger (the row stays claimed for Resume): %w",
			x.op.Name, x.bk, to, serr)
		return outcome[T]{}, "", errors.Join(err, serr)
	}
	return o, to, err
}

// settleTimeout bounds recording an outcome after the caller's context ended.
const settleTimeout = 30 * time.Second

// fromRecord returns what the ledger recorded for a write another caller
// made.
func fromRecord[T any](op *Operation, row Record) (outcome[T], error) {
	o := outcome[T]{id: row.ProviderID, source: AdoptedLedger, attempts: row.Attempts, status: row.Status, pk: row.ProviderKey}
	switch row.State {
	case StateActive:
		var err error
		o.body, err = decode[T](op, row.Body)
		return o, err
	case StateNotApplied:
		return o, fmt.Errorf("runtime: operation %q key %q: %w by the concurrent call: %s", op.Name, row.BusinessKey, ErrNotSent, row.LastError)
	case StateRejected:
		return o, &StatusError{Operation: op.Name, Status: row.Status, Body: row.Body, Attempts: row.Attempts}
	case StateUncertain:
		reason, cause, _ := strings.Cut(row.LastError, ": ")
		e := &UncertainError{Operation: op.Name, BusinessKey: row.BusinessKey, ProviderKey: row.ProviderKey,
			Owner: row.Owner, Attempts: row.Attempts, Reason: reason}
		if cause != "" {
			e.Cause = errors.New(cause)
		}
		return o, e
	}
	return o, fmt.Errorf("runtime: operation %q key %q: ledger row is %s", op.Name, row.BusinessKey, row.State)
}

// decode decodes a JSON response body; an empty body gives a zero T.
func decode[T any](op *Operation, b []byte) (*T, error) {
	v := new(T)
	switch p := any(v).(type) {
	case *Empty:
		return v, nil
	case *[]byte: // a response that is not JSON (a PDF, plain text) is returned as it came
		*p = append([]byte(nil), b...) // b may be a pooled buffer
		return v, nil
	}
	if len(b) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("runtime: operation %q: decode response: %w", op.Name, err)
	}
	return v, nil
}

// finish reports the end of a call to the hooks and, for an uncertain
// outcome this caller produced, to the notifier.
func (c *Client) finish(ctx context.Context, op *Operation, attempts int, err error, own bool) {
	if n := c.cfg.notifier; n != nil && own {
		var ue *UncertainError
		if errors.As(err, &ue) {
			n.Uncertain(ctx, ue)
		}
	}
	if h := c.cfg.hooks.Outcome; h != nil {
		h(ctx, op, attempts, err)
	}
}

// Resume drives on the rows of op left claimed for longer than the
// client's resume delay (see WithResumeAfter), such as after a crash. Each
// is taken as if its last attempt had been ambiguous: it is re-sent with
// the same bytes and provider key while the key is in its window, or looked
// up, or settled uncertain. lookup may be nil. Rows whose calls finish
// settle in the ledger; the report counts them.
func Resume[T any](ctx context.Context, c *Client, op *Operation, lookup func(ctx context.Context, reference string) (*Found[T], error)) (ResumeReport, error) {
	var rep ResumeReport
	l := c.cfg.ledger
	if l == nil {
		return rep, fmt.Errorf("runtime: operation %q: resume needs a ledger (WithLedger)", op.Name)
	}
	now := c.cfg.clock.Now()
	rows, err := l.TakeOver(ctx, "", "", op.Name, now, "", now.Add(c.cfg.resumeAfter), 0)
	if err != nil {
		return rep, fmt.Errorf("runtime: operation %q: list pending rows: %w", op.Name, err)
	}
	rep.Pending = len(rows)
	var errs []error
	for _, row := range rows {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		to, err := resume(ctx, c, op, row, lookup)
		switch to {
		case StateActive:
			rep.Active++
		case StateRejected:
			rep.Rejected++
		case StateUncertain:
			rep.Uncertain++
		}
		if err != nil && to == "" {
			errs = append(errs, err)
		}
	}
	return rep, errors.Join(errs...)
}

// resume drives one claimed row; it returns the state it settled the row
// in, "" if none.
func resume[T any](ctx context.Context, c *Client, op *Operation, row Record, lookup func(context.Context, string) (*Found[T], error)) (State, error) {
	r, err := DecodeRequest(row.Request)
	if err == nil {
		var x *logical
		if x, err = c.prepare(op, modeWrite, r); err == nil {
			x.setKey(row.BusinessKey, row.ProviderKey)
			x.keyTime = row.CreatedAt
			found := setLookup(x, lookup)
			res, err := x.run(ctx, true)
			if x.attempts == 0 && ctx.Err() != nil {
				return "", err // nothing done: leave the row claimed
			}
			_, to, err := settle(ctx, x, row.ID, row.Fence, res, err, found)
			c.finish(ctx, op, x.attempts, err, to != "")
			return to, err
		}
	}
	x := &logical{c: c, op: op, bk: row.BusinessKey, pk: row.ProviderKey}
	ue := x.uncertain("stored request unreadable", err)
	_, to, err := settle[T](ctx, x, row.ID, row.Fence, result{}, ue, nil)
	c.finish(ctx, op, 0, err, to != "")
	return to, err
}
