package safety

import (
	"slices"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/ir"
)

// retry resolves the retry set, refusing a member that can never cause another attempt.
func (w *writeCheck) retry() bool {
	s := w.s
	src := w.from("retry")
	if src == nil {
		if w.readOnly() {
			s.Retry, s.Attempts = runtime.RetryReads, readAttempts // called like a read, retried like one
		}
		return true
	}
	s.RetryPos = w.r.pos(src.Set["retry"])
	s.Attempts = src.Attempts
	s.RetryOn = slices.Clone(src.Retry)
	quiet := w.refused["key"] || w.refused["idempotency"] || w.refused["lookup"] // what it depends on is refused
	for _, m := range s.RetryOn {
		s.Retry |= m.Kind
		if why := neverFires(m, s); why != "" && !quiet {
			w.r.errorAt(m.Pos, w.op.ID, "retry on %s never fires: %s", m.Name, why)
		}
	}
	return true
}

// neverFires says why a member of a retry set can never cause another attempt of the write, or
// "" when it can. After an answer that may come from a committed write (no answer at all, a 5xx),
// the runtime sends again only what cannot make a second effect: an idempotent write, a keyed
// write inside its key's window, or a write a strongly consistent lookup did not find.
func neverFires(m ir.RetryMember, s *ir.Safety) string {
	keyed := s.Key != nil && s.Idempotency != nil
	safe := s.Effect == runtime.EffectReadOnly || s.Effect == runtime.EffectIdempotent || keyed ||
		s.Lookup != nil && (s.Lookup.Consistency == runtime.Strong || s.Lookup.Lag > 0)
	switch m.Kind {
	case runtime.RetryAmbiguous:
		if !safe {
			return "after a lost answer the write may have committed, and with no idempotency key, no strongly consistent lookup (or eventual with a lag) and no idempotent effect it is never sent again; remove it, or declare what makes a resend safe"
		}
	case runtime.Retry500, runtime.Retry502, runtime.Retry503, runtime.Retry504, runtime.Retry5xx:
		if !safe {
			return "a 5xx may answer a write that committed, and with no idempotency key, no strongly consistent lookup and no idempotent effect it is never sent again; remove it, or declare what makes a resend safe"
		}
	case runtime.Retry409:
		if !keyed {
			return "only a write with an idempotency key reads 409 as \"the first attempt is still running\"; without one a 409 is a rejection, never retried"
		}
	}
	return ""
}
