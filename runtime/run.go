package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"time"
)

// errResumed is the cause recorded for a row resumed after a restart: its
// first attempt may or may not have reached the provider.
var errResumed = errors.New("claimed before a restart")

// run sends x until it succeeds, a lookup adopts an earlier effect, or the
// rules stop it. A resumed call starts as if its previous attempt had been
// ambiguous. On success the caller owns res.resp and must release it.
func (x *logical) run(ctx context.Context, resumed bool) (result, error) {
	x.budgeted = !resumed
	tctx := httptrace.WithClientTrace(ctx, &x.trace)
	x.c.budget.call()
	var f failure // the last failure, decided on when pending
	pending := resumed
	if resumed {
		f = failure{allowed: x.set.Has(RetryAmbiguous), committed: true, what: "ambiguous", cause: errResumed}
	}
	for {
		if pending {
			d, adopted, err := x.decide(ctx, f)
			if x.attempts > 0 {
				x.attemptDone(ctx, f.class, x.status, f.cause, d)
			}
			if err != nil || adopted {
				return result{adopted: adopted}, err
			}
			if err := x.c.cfg.clock.Sleep(ctx, d); err != nil {
				return result{}, x.ended(err)
			}
		}
		if err := ctx.Err(); err != nil {
			return result{}, x.ended(err)
		}
		x.attempts++
		r := x.send(ctx, tctx, x.attempts)
		x.status = r.status
		if r.class == ClassOK {
			x.attemptDone(ctx, r.class, r.status, nil, 0)
			return result{resp: r}, nil
		}
		f, pending = x.classify(r), true
		r.release()
	}
}

// result is how a logical call ended when it did not fail.
type result struct {
	resp    response // the 2xx response, unless adopted
	adopted bool     // a lookup found the effect of an earlier attempt
}

// failure describes a failed attempt.
type failure struct {
	class     Class         // how the attempt is classified
	allowed   bool          // the retry set (narrowed by provider hints) allows another attempt
	committed bool          // the provider may have acted on it
	what      string        // the kind, for messages: "ambiguous", "status 503"
	cause     error         // the error of the attempt
	err       error         // what the call returns if it stops here with nothing possibly committed
	after     time.Duration // the provider's Retry-After
	hinted    bool          // the provider advised against retrying
	uncertain string        // if set: stop at once, uncertain for this reason
}

// classify turns a failed attempt into a failure.
func (x *logical) classify(r response) failure {
	switch r.class {
	case ClassNotSent:
		return failure{class: ClassNotSent, allowed: x.set.Has(RetryNotSent), what: "not sent", cause: r.err, err: x.notSent(r.err)}
	case ClassAmbiguous:
		return failure{class: ClassAmbiguous, allowed: x.set.Has(RetryAmbiguous), committed: true, what: "ambiguous", cause: r.err,
			err: fmt.Errorf("runtime: operation %q: %w", x.op.Name, r.err)}
	}
	s := r.status
	body := append([]byte(nil), r.bytes()...)
	se := &StatusError{Operation: x.op.Name, Status: s, Header: r.header, Body: body, Attempts: x.attempts}
	f := failure{class: ClassStatus, what: "status " + strconv.Itoa(s), cause: se, err: se, allowed: x.set.status(s)}
	f.after = retryAfter(r.header, x.c.cfg.clock.Now())
	f.hinted = r.header.Get("Stripe-Should-Retry") == "false" || r.header.Get("X-Should-Retry") == "false"
	write := x.mode != modeRead
	keyed := x.mode == modeWrite && x.op.Keyed
	switch {
	case (s == 401 || s == 403) && !x.op.RotationSafe && x.c.cfg.tokens != nil && x.c.cfg.tokens.Rotated(r.gen):
		// The token was replaced under the request: for a write the provider
		// may have acted before refusing it; a read is simply asked again.
		f.class, f.allowed, f.committed, f.what = ClassAmbiguous, x.set.Has(RetryAmbiguous), write, "ambiguous"
		f.cause = fmt.Errorf("credential rotated during the attempt: %w", se)
	case keyed && s == 409:
		f.committed, f.what = true, "still in progress (409)"
	case keyed && keyReused(s, body, x.sent):
		f.uncertain = "key reused with another payload"
	case s >= 500 && s <= 599:
		f.committed = write
	case s == 409:
		f.allowed = false // only a keyed write reads 409 as "still running"
	}
	if f.hinted {
		f.allowed = false
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
	more := f.allowed && x.attempts < x.limit
	safe := !write || !x.sent || x.resendSafe()
	why := ""
	if more && safe {
		if delay, why = x.wait(ctx, f.after, write && x.sent && !x.idempotent()); why == "" {
			return delay, false, nil
		}
	}
	if write && x.sent && x.lookup != nil {
		found, err := x.lookup(ctx)
		switch {
		case err != nil:
			return 0, false, x.uncertain("lookup failed", err)
		case found:
			return 0, true, nil
		case x.op.Lookup != Strong:
			return 0, false, x.uncertain("not found by an eventually consistent lookup", f.cause)
		case more && !safe:
			if delay, why = x.wait(ctx, f.after, false); why == "" {
				return delay, false, nil
			}
		}
	}
	if !write || !x.sent {
		return 0, false, f.err
	}
	if why == "" {
		why = x.stopReason(f)
	}
	return 0, false, x.uncertain(why, f.cause)
}

// stopReason says why a possibly committed write was not sent again.
func (x *logical) stopReason(f failure) string {
	switch {
	case f.hinted:
		return "provider advised against retrying"
	case x.op.Keyed && !x.inWindow() && x.lookup == nil:
		return "key window expired"
	case !x.op.Keyed && x.lookup == nil && !x.idempotent():
		return f.what + " without key or lookup"
	case !f.allowed:
		return f.what + " is not in the retry set"
	}
	return "attempts exhausted"
}

// wait returns the delay before the next attempt, or why there is none: the
// backoff with full jitter, at least the provider's Retry-After, within the
// context's deadline and the client's retry budget, and, when the next
// attempt relies on the key (byKey), within the key's window.
func (x *logical) wait(ctx context.Context, after time.Duration, byKey bool) (time.Duration, string) {
	d := x.c.backoff(x.attempts)
	d = max(d, after)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return 0, "context deadline before the next attempt"
	}
	now := x.c.cfg.clock.Now()
	if byKey && x.op.KeyWindow > 0 && now.Add(d).Sub(x.keyTime) >= x.op.KeyWindow {
		return 0, "key window ends before the next attempt"
	}
	if x.budgeted && !x.c.budget.retry(now) {
		return 0, "retry budget exhausted"
	}
	x.budgeted = true
	return d, ""
}

// backoff returns a random wait before the attempt after attempt n.
func (c *Client) backoff(n int) time.Duration {
	if n < 1 || c.cfg.backoffBase <= 0 {
		return 0
	}
	ceil := c.cfg.backoffMax
	if n < 32 && c.cfg.backoffBase<<(n-1) < ceil && c.cfg.backoffBase<<(n-1) > 0 {
		ceil = c.cfg.backoffBase << (n - 1)
	}
	if ceil <= 0 {
		return 0
	}
	return rand.N(ceil + 1)
}

// resendSafe reports whether sending the request again cannot make a
// second effect.
func (x *logical) resendSafe() bool {
	return x.idempotent() || x.op.Keyed && x.mode == modeWrite && x.inWindow()
}

func (x *logical) idempotent() bool {
	return x.op.Effect == EffectIdempotent || x.op.Effect == EffectReadOnly
}

// inWindow reports whether the provider still remembers the key: its window
// is counted from the first send (or the ledger claim), which is never later
// than when the provider first saw it.
func (x *logical) inWindow() bool {
	return x.op.KeyWindow <= 0 || x.c.cfg.clock.Now().Sub(x.keyTime) < x.op.KeyWindow
}

// ended is the error of a call whose context ended.
func (x *logical) ended(err error) error {
	if x.sent && x.mode != modeRead {
		return x.uncertain("context ended after send", err)
	}
	if x.sent {
		return fmt.Errorf("runtime: operation %q: %w", x.op.Name, err)
	}
	return x.notSent(err)
}

func (x *logical) notSent(cause error) error {
	return fmt.Errorf("runtime: operation %q: %w: %w", x.op.Name, ErrNotSent, cause)
}

func (x *logical) uncertain(reason string, cause error) *UncertainError {
	if se := (*StatusError)(nil); errors.As(cause, &se) {
		se.unsettled = true
	}
	return &UncertainError{
		Operation: x.op.Name, BusinessKey: x.bk, ProviderKey: x.pk, Owner: x.op.Owner,
		Attempts: x.attempts, Reason: reason, Cause: cause,
	}
}

func (x *logical) attemptDone(ctx context.Context, c Class, status int, err error, d time.Duration) {
	if h := x.c.cfg.hooks.AttemptDone; h != nil {
		h(ctx, x.op, Attempt{Operation: x.op.Name, Number: x.attempts, Class: c, Status: status, Err: err, Delay: d})
	}
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
