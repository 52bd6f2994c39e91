package writegenimpl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/internal/lookupctx"
)

// errResumed is the cause recorded for a row resumed after its lease
// expired: its last attempt may or may not have reached the provider.
var errResumed = errors.New("claimed by a caller whose lease expired")

// Reasons of uncertain outcomes that the executor tests for.
const (
	reasonKeyReused  = "key reused with another payload"
	reasonUndecoded  = "the 2xx response could not be decoded"
	reasonNoID       = "the 2xx response has no id"
	reasonSuperseded = "superseded by another caller"
	reasonLease      = "lease could not be renewed"
	// A lookup that could not prove the write absent: its cause says why (a
	// *runtime.BoundError, *runtime.OrderError or *runtime.ShiftError).
	reasonInconclusive = "lookup inconclusive"
)

// run sends x until it succeeds, a lookup adopts an earlier effect, or the
// rules stop it. A resumed call starts from the failure first, as if its
// previous attempt had just failed so. On success the caller owns res.resp
// and must release it.
func (x *logical) run(ctx context.Context, resumed bool, first failure) (result, error) {
	x.budgeted = !resumed
	x.c.budget.call()
	f, pending := first, resumed
	for {
		if pending {
			x.ending = x.attempts > 0
			d, adopted, err := x.decide(ctx, f)
			x.attemptDone(ctx, f, d)
			if err != nil || adopted {
				return result{adopted: adopted}, err
			}
			if err := x.c.s.Clock.Sleep(ctx, d); err != nil {
				return result{}, x.ended(err)
			}
		}
		if err := ctx.Err(); err != nil {
			return result{}, x.ended(err)
		}
		if x.lease != nil {
			// The lease must outlast the attempt even if no heartbeat renews
			// it meanwhile; the rest of the lease (at least a sixth, as
			// NewClient checks) is the slack for the renewal's round trip.
			if err := x.lease.ensure(ctx, x.c.s.AttemptTimeout); err != nil {
				if x.sent {
					x.reaskLater()
					return result{}, x.uncertain(reasonLease, err)
				}
				return result{}, x.notApplied(reasonLease, err)
			}
		}
		x.attempts++
		r := x.send(ctx, x.attempts)
		x.status = r.status
		if r.class == runtime.ClassOK {
			x.ending = true
			x.attemptDone(ctx, failure{class: r.class, conns: r.conns}, 0)
			return result{resp: r}, nil
		}
		x.lastEnd = x.c.s.Clock.Now()
		f, pending = x.classify(r), true
		r.release()
	}
}

// result is how a logical call ended when it did not fail.
type result struct {
	resp    response // the 2xx response, unless adopted
	adopted bool     // a lookup found the effect of an earlier attempt (x.found[0])
}

// failure describes a failed attempt.
type failure struct {
	class     runtime.Class
	allowed   bool          // the retry set (narrowed by provider hints) allows another attempt
	committed bool          // the provider may have acted on it
	what      string        // the kind, for messages: "ambiguous", "status 503"
	cause     error         // the error of the attempt
	err       error         // what the call returns if it stops here with nothing possibly committed
	after     time.Duration // the provider's Retry-After
	hinted    bool          // the provider advised against retrying
	uncertain string        // if set: stop at once, uncertain for this reason
	running   bool          // the provider is still running an earlier attempt (409): wait the whole backoff
	asked     bool          // the provider asked for the retry of a keyed write (429 with Retry-After)
	conns     int           // connections the attempt used
}

// classify turns a failed attempt into a failure.
func (x *logical) classify(r response) failure {
	write := x.mode != modeRead
	switch r.class {
	case runtime.ClassNotSent:
		return failure{class: r.class, allowed: x.set.Has(runtime.RetryNotSent), what: "not sent", cause: r.err,
			err: x.notApplied("not sent", r.err), conns: r.conns}
	case runtime.ClassAmbiguous: // written, and no complete answer
		return failure{class: r.class, allowed: x.set.Has(runtime.RetryAmbiguous), committed: true, what: "ambiguous",
			cause: r.err, err: fmt.Errorf("writegen: operation %q: %w", x.op.ID, r.err), conns: r.conns}
	}
	s := r.status
	body := append([]byte(nil), r.bytes()...)
	se := &runtime.StatusError{Operation: x.op.ID, Status: s, Header: r.header, Body: body, Attempts: x.attempts}
	f := failure{class: runtime.ClassStatus, what: "status " + strconv.Itoa(s), cause: se, allowed: retryOn(x.set, s), conns: r.conns}
	f.after = retryAfter(r.header, x.c.s.Clock.Now())
	f.hinted = r.header.Get("Stripe-Should-Retry") == "false" || r.header.Get("X-Should-Retry") == "false"
	keyed := x.mode == modeWrite && x.op.Keyed
	notApplied := false
	switch {
	case r.wrote > 1:
		// The transport wrote the request more than once: an earlier copy
		// may have committed, whatever this status says about the last.
		f.class, f.allowed, f.committed, f.what = runtime.ClassAmbiguous, x.set.Has(runtime.RetryAmbiguous), write, "sent twice by the transport"
		f.cause = fmt.Errorf("the transport wrote the request %d times: %w", r.wrote, se)
	case (s == 401 || s == 403) && !x.op.RotationSafe && x.c.s.Tokens != nil && x.c.s.Tokens.Rotated(r.gen):
		// The token was replaced under the request: for a write the provider
		// may have acted before refusing it; a read is simply asked again.
		f.class, f.allowed, f.committed, f.what = runtime.ClassAmbiguous, x.set.Has(runtime.RetryAmbiguous), write, "ambiguous"
		f.cause = fmt.Errorf("credential rotated during the attempt: %w", se)
	case s == 401 || s == 403:
		notApplied = true // refused before anything was done
	case keyed && s == 409:
		f.committed, f.running, f.what = true, true, "still in progress (409)"
	case keyed && !x.keyUnseen() && keyReused(s, body, x.sent):
		f.uncertain = reasonKeyReused
	case s == 408 || s == 425 || s == 429:
		notApplied = true
		f.asked = keyed && s == 429 && f.after > 0
	case s >= 500 && s <= 599:
		f.committed = write
	case s == 409:
		f.allowed = false // only a keyed write reads 409 as "still running"
	}
	if f.hinted {
		f.allowed = false
	}
	switch {
	case notApplied:
		se.State = runtime.StateNotApplied
		f.err = x.notApplied(f.what+" "+http.StatusText(s), se)
	case write || s >= 400 && s <= 499:
		se.State = runtime.StateRejected
		f.err = se
	default:
		f.err = se
	}
	return f
}

// keyReused reports whether a status answers a keyed write with the
// provider's "this key was used with another payload": 422, or any 4xx but
// 409 whose body speaks of idempotency (Stripe's idempotency_error). A 422 on
// the first send of a key is read as a plain rejection unless its body says
// so.
func keyReused(status int, body []byte, sentBefore bool) bool {
	if status < 400 || status > 499 {
		return false
	}
	if bytes.Contains(bytes.ToLower(body), []byte("idempoten")) {
		return true
	}
	return status == 422 && sentBefore
}

// keyUnseen reports whether the provider cannot have seen the call's key
// before: the call created the key's ledger row (so no caller sent the key
// before it: the ledger hands one business key, hence one provider key, to
// one caller at a time, and a row claimed again is not new) and nothing it
// sent may have reached the provider.
//
// A 4xx to such a send cannot mean "this key was used with another
// payload": it is about this request, the key itself included (a key longer
// than the provider takes, a character it refuses), and nothing was done,
// so the call ends rejected with the provider's answer, which the caller
// can act on (promise 40). Anywhere else, a 4xx that speaks of idempotency
// stays "key reused" and uncertain: without a new ledger row, another
// caller (another process, an earlier call without a ledger) may have sent
// the same provider key with another payload and made an effect, and the
// words of a provider's message are not evidence enough to call it
// rejected. Keys are made to fit the bound the spec or annotation declares
// (hashed when longer), so a provider's "key too long" is a sign that the
// declared bound is wrong.
func (x *logical) keyUnseen() bool {
	return x.keyNew && !x.sent && x.op.Dedupe
}

// decide applies the rules after a failed attempt: the delay before the
// next attempt, or adopted when a lookup found the effect, or the error the
// call ends with.
func (x *logical) decide(ctx context.Context, f failure) (delay time.Duration, adopted bool, err error) {
	if f.committed {
		x.sent = true
	}
	write := x.mode != modeRead
	if f.uncertain != "" {
		return 0, false, x.uncertain(f.uncertain, f.cause)
	}
	if err := ctx.Err(); err != nil {
		return 0, false, x.ended(err)
	}
	if f.running {
		x.running++
	}
	more := f.allowed && x.attempts-x.running < x.limit
	safe := !write || !x.sent || x.resendSafe()
	why := ""
	if more && safe {
		if delay, why = x.wait(ctx, f, write && x.sent && !x.idempotent()); why == "" {
			return delay, false, nil
		}
	}
	if write && x.sent && x.lookups {
		x.attemptDone(ctx, f, 0) // the attempt ends before the lookup starts
		found, err := x.ask(ctx, f)
		switch {
		case err != nil:
			return 0, false, err
		case found:
			return 0, true, nil
		case more && !safe:
			if delay, why = x.wait(ctx, f, false); why == "" {
				return delay, false, nil
			}
		}
		if x.claimed {
			// The call holds the key's claim, so no other attempt with the key runs (a row
			// claimed again ended not applied, one taken over was fenced), and the lookup
			// covered every effect the write could have made once the last moment an
			// attempt could still commit had passed: nothing happened, on the same evidence
			// that allows a resend. Without a claim, another caller may be sending it.
			if why == "" {
				why = x.stopReason(f)
			}
			if se := (*runtime.StatusError)(nil); errors.As(f.cause, &se) {
				se.State = runtime.StateNotApplied
			}
			_, what := x.proof()
			return 0, false, x.notApplied(why+"; the lookup found no effect once "+what+" had passed since the last attempt could run", f.cause)
		}
	}
	if !write || !x.sent {
		if na := (*runtime.NotAppliedError)(nil); why != "" && errors.As(f.err, &na) {
			na.Reason += "; not retried: " + why
		}
		return 0, false, f.err
	}
	if why == "" {
		why = x.stopReason(f)
	}
	return 0, false, x.uncertain(why, f.cause)
}

// ask asks the lookup whether an earlier attempt of the write took effect,
// after failure f. found: x.found[0] is the effect, to adopt. Otherwise, with
// a nil error, "not found" is proof that nothing committed: the lookup
// covered every effect the write could have made (a walk says when it
// could not) after the last moment an attempt could still commit and the
// lookup's settle time or lag (promise 49). Short of that it returns the
// uncertain outcome, with x.reask set when asking again later may settle
// it (promise 50).
func (x *logical) ask(ctx context.Context, f failure) (found bool, err error) {
	asked := x.c.s.Clock.Now() // the provider reads no sooner than this
	found, err = x.look(ctx)
	if err == nil && !found {
		proof, what := x.proof()
		if proof < 0 {
			x.reask = x.reaskEvery()
			return false, x.uncertain("not found by an eventually consistent lookup", f.cause)
		}
		if due := x.quiet().Add(proof); asked.Before(due) {
			// "Not found" counts only from a read the provider made once proof had
			// passed since the last moment an attempt could still run, however late
			// its answer came back: wait for that moment, within the context and the
			// attempt budget, and ask again.
			if d := due.Sub(x.c.s.Clock.Now()); d > 0 {
				if reason := x.settleWait(ctx, d, what); reason != "" {
					x.reask = max(due.Sub(x.c.s.Clock.Now()), time.Millisecond)
					return false, x.uncertain(reason, f.cause)
				}
			}
			found, err = x.look(ctx)
		}
	}
	var bound *runtime.BoundError
	var order *runtime.OrderError
	switch {
	case errors.As(err, &bound), errors.As(err, &order):
		// A later walk would be no shorter, nor the list in another order: for a person.
		return false, x.uncertain(reasonInconclusive, err)
	case err != nil:
		x.reask = x.reaskEvery()
		return false, x.uncertain("lookup failed", err)
	}
	return found, nil
}

// proof returns how long after the last moment an attempt could still run
// the lookup's "not found" proves the write did not commit, and what that
// wait is, for messages: an eventual lookup's declared lag, a strong one's
// settle time (the longest the provider may still commit a request whose
// connection was lost), never shorter than the client's WithLookupSettle.
// It is negative when "not found" never proves it: an eventual lookup
// without a lag.
func (x *logical) proof() (time.Duration, string) {
	floor := x.c.s.LookupSettle
	switch {
	case x.op.Lookup == runtime.Eventual && x.op.LookupLag > 0:
		d := max(x.op.LookupLag, floor)
		return d, "the lookup's lag (" + d.String() + ")"
	case x.op.Lookup == runtime.Eventual:
		return -1, ""
	case x.op.LookupLag > 0:
		d := max(x.op.LookupLag, floor)
		return d, "the lookup's settle time (" + d.String() + ")"
	}
	d := max(DefaultSettle, floor)
	return d, "the default settle time of a strong lookup (" + d.String() + ")"
}

// quiet returns the last moment an attempt of the write could still be
// running, as far as the call knows: when its own last attempt ended, or,
// for a row taken over, when the previous holder's lease ended (every
// attempt is kept inside its lease), by this client's clock.
func (x *logical) quiet() time.Time {
	if x.lastEnd.IsZero() {
		return x.c.s.Clock.Now()
	}
	return x.lastEnd
}

// reaskLater has a later Resume ask the lookup, which the call stops
// before asking (its context ended, its lease could not be renewed): once
// the settle time or lag has passed since the last attempt could still run,
// on the schedule of WithReask (promise 50). A write without a lookup is
// left as it is.
func (x *logical) reaskLater() {
	if !x.lookups {
		return
	}
	x.reask = x.reaskEvery()
	if proof, _ := x.proof(); proof > 0 {
		x.reask = max(x.quiet().Add(proof).Sub(x.c.s.Clock.Now()), time.Millisecond)
	}
}

// reaskEvery is the first step of the schedule on which Resume asks an
// uncertain write's lookup again: its settle time or lag, else the
// client's WithReask.
func (x *logical) reaskEvery() time.Duration {
	if d, _ := x.proof(); d > 0 {
		return d
	}
	return x.c.s.ReaskEvery
}

// settleWait waits d, or says why the call cannot wait that long: the
// context's deadline comes first, or the wait passes the attempt budget's
// time.
func (x *logical) settleWait(ctx context.Context, d time.Duration, what string) string {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return "not found, and the context ends before " + what + " has passed since the last attempt could run: the write may still appear"
	}
	if b := x.runningBudget(); x.waited+d > b {
		return fmt.Sprintf("not found, and waiting out %s (%v more) would pass the attempt budget's time (%v): the write may still appear", what, d, b)
	}
	x.waited += d
	if err := x.c.s.Clock.Sleep(ctx, d); err != nil {
		return "not found, and the context ended while waiting out " + what
	}
	return ""
}

// look asks the operation's lookup for the effects of earlier attempts and
// keeps those that carry the write's reference (promise 47).
func (x *logical) look(ctx context.Context) (bool, error) {
	lctx := ctx
	if h := x.c.s.Hooks.LookupStart; h != nil {
		if c := h(ctx, &x.info); c != nil {
			lctx = c
		}
	}
	// The lookup learns the reference and when the write first used its key
	// (runtime.LookupSince), in the provider's time as far as its answers
	// tell it.
	ref := rawReference(x.op, x.ref)
	in := &lookupctx.Info{Ref: ref, Marker: markerOf(x.op, ref), First: x.keyTime, Offset: x.c.provider.offset}
	fs, err := x.codec.find(lookupctx.With(lctx, in), x.ref)
	ours := fs[:0]
	for _, f := range fs {
		if f.ref == "" && err == nil {
			// Every reference is a text: a lookup that leaves Ref empty cannot
			// tell the write's effects from others, and its "not found" would
			// prove nothing.
			err = fmt.Errorf("the lookup returned an effect (id %q) without the text that carries its reference (runtime.Found.Ref)", f.id)
		}
		if in.Carries(f.ref) {
			ours = append(ours, f)
		}
	}
	if h := x.c.s.Hooks.LookupDone; h != nil {
		h(lctx, &x.info, len(ours), err)
	}
	if err != nil {
		return false, err
	}
	x.found = ours
	return len(ours) > 0, nil
}

// stopReason says why a possibly committed write was not sent again.
func (x *logical) stopReason(f failure) string {
	switch {
	case f.hinted:
		return "provider advised against retrying"
	case x.op.Keyed && x.mode == modeWrite && !x.inWindow() && !x.lookups:
		if x.op.KeyWindow == 0 {
			return "key window unknown: the key is re-sent only by the call that first sent it"
		}
		return "key window expired"
	case !(x.op.Keyed && x.mode == modeWrite) && !x.lookups && !x.idempotent():
		return f.what + " without key or lookup"
	case !f.allowed:
		return f.what + " is not in the retry set"
	}
	return "attempts exhausted"
}

// wait returns the delay before the next attempt after failure f, or why
// there is none: the backoff with full jitter, at least the provider's
// Retry-After (up to the client's MaxRetryAfter), within the context's
// deadline and the client's retry budget, and, when the next attempt
// relies on the key (byKey), within the key's window.
//
// A 409 "still in progress" on a keyed write (f.running) is waited for:
// the provider is still running an earlier attempt with the key, and the
// next send asks it again. Such a wait is the whole backoff (no other
// caller competes for the key), growing with each send up to BackoffMax,
// and never shorter than the provider's Retry-After. It does not count
// against the operation's attempts, nor draw on the retry budget, which
// stop failing providers, not slow ones: the 409 waits of a call are
// bounded instead by the attempt budget's time, runningBudget, by the
// context's deadline, and by the key's window, past which no 409 is sent
// again. A 429 with Retry-After on a keyed write inside its window
// (f.asked) is a retry the provider asked for, at its time: it does not
// draw on the retry budget either, and counts against the attempts.
func (x *logical) wait(ctx context.Context, f failure, byKey bool) (time.Duration, string) {
	after := f.after
	if limit := x.c.s.MaxRetryAfter; after > limit {
		return 0, "Retry-After " + after.String() + " is longer than the longest wait (" + limit.String() + ")"
	}
	d := max(x.c.backoff(x.attempts, !f.running), after)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return 0, "context deadline before the next attempt"
	}
	now := x.c.s.Clock.Now()
	if (byKey || f.running) && x.op.KeyWindow > 0 && now.Add(d).Sub(x.keyTime) >= x.op.KeyWindow {
		return 0, "key window ends before the next attempt"
	}
	if f.running {
		if b := x.runningBudget(); x.waited+d > b {
			return 0, fmt.Sprintf("still in progress (409) after %v of waiting: the next wait (%v) would pass the attempt budget's time (%d attempts of %v)",
				x.waited, d, x.limit, b/time.Duration(x.limit))
		}
		x.waited += d
		return d, ""
	}
	if f.asked && x.inWindow() {
		// The provider asked for this retry, at its time, of a write its
		// key keeps one: not the storm the budget stops.
		return d, ""
	}
	if x.budgeted && !x.c.budget.retry(now) {
		return 0, "retry budget exhausted"
	}
	x.budgeted = true
	return d, ""
}

// runningBudget is the attempt budget's time: how long a call waits in
// all for a provider that answers 409 "still in progress", the time its
// attempts would take if each used its whole timeout (the operation's
// attempts × AttemptTimeout, or × BackoffMax when attempts have no
// timeout).
func (x *logical) runningBudget() time.Duration {
	per := x.c.s.AttemptTimeout
	if per <= 0 {
		per = x.c.s.BackoffMax
	}
	return time.Duration(x.limit) * per
}

// backoff returns the wait before the attempt after attempt n: a random
// one up to the ceiling with jitter, else the ceiling.
func (c *Client) backoff(n int, jitter bool) time.Duration {
	base := c.s.BackoffBase
	if n < 1 || base <= 0 {
		return 0
	}
	ceil := c.s.BackoffMax
	if n < 32 && base<<(n-1) < ceil && base<<(n-1) > 0 {
		ceil = base << (n - 1)
	}
	if ceil <= 0 || !jitter {
		return max(ceil, 0)
	}
	return rand.N(ceil + 1)
}

// resendSafe reports whether sending the request again cannot make a
// second effect.
func (x *logical) resendSafe() bool {
	return x.idempotent() || x.op.Keyed && x.mode == modeWrite && x.inWindow()
}

func (x *logical) idempotent() bool {
	return x.op.Effect == runtime.EffectIdempotent || x.op.Effect == runtime.EffectReadOnly
}

// inWindow reports whether the provider still remembers the key: its window
// is counted from the first send (or the ledger claim), which is never later
// than when the provider first saw it. A key whose window is unknown is
// relied on only by the call that first used it (see KeyForever).
func (x *logical) inWindow() bool {
	switch w := x.op.KeyWindow; {
	case w < 0:
		return true
	case w == 0:
		return x.keyOwn
	}
	return x.c.s.Clock.Now().Sub(x.keyTime) < x.op.KeyWindow
}

// ended is the error of a call whose context ended.
func (x *logical) ended(err error) error {
	switch {
	case x.sent && x.mode != modeRead:
		x.reaskLater()
		return x.uncertain("context ended after send", err)
	case x.sent:
		return fmt.Errorf("writegen: operation %q: %w", x.op.ID, err)
	}
	return x.notApplied("context ended before anything was sent", err)
}

func (x *logical) notApplied(reason string, cause error) error {
	return &runtime.NotAppliedError{Operation: x.op.ID, Reason: reason, Cause: cause}
}

// uncertain returns the uncertain outcome of x for reason; a status that is
// its cause settles nothing.
func (x *logical) uncertain(reason string, cause error) *runtime.UncertainError {
	if se := (*runtime.StatusError)(nil); errors.As(cause, &se) {
		se.State = runtime.StateUncertain
	}
	return &runtime.UncertainError{
		Identity: x.info.Identity, OperationID: x.op.ID, ProviderKey: x.info.ProviderKey, Owner: x.op.Owner,
		Attempts: x.attempts, Reason: reason, Status: x.status, Cause: cause,
	}
}

// attemptDone tells the hooks how the last attempt ended, once: d is the
// wait before the next attempt.
func (x *logical) attemptDone(ctx context.Context, f failure, d time.Duration) {
	if !x.ending {
		return
	}
	x.ending = false
	if h := x.c.s.Hooks.AttemptDone; h != nil {
		if x.actx != nil {
			ctx = x.actx // the attempt's own, as AttemptStart made it
		}
		h(ctx, &x.info, runtime.Attempt{Number: x.attempts, Class: f.class, Status: x.status, Err: f.cause, Delay: d, Conns: f.conns})
	}
}

// retryOn reports whether r allows a retry after HTTP status code s.
func retryOn(r runtime.Retry, s int) bool {
	var k runtime.Retry
	switch s {
	case 408:
		k = runtime.Retry408
	case 409:
		k = runtime.Retry409
	case 425:
		k = runtime.Retry425
	case 429:
		k = runtime.Retry429
	case 500:
		k = runtime.Retry500
	case 502:
		k = runtime.Retry502
	case 503:
		k = runtime.Retry503
	case 504:
		k = runtime.Retry504
	}
	if k != 0 && r.Has(k) {
		return true
	}
	return s >= 500 && s <= 599 && r.Has(runtime.Retry5xx)
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(s, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}
