package safety

import (
	"time"

	"github.com/writegen/writegen/spec/ir"
)

// dedupe resolves the ledger claim and how long the ledger remembers a settled key.
func (w *writeCheck) dedupe() bool {
	if src := w.from("dedupe"); src != nil {
		w.s.Dedupe, w.s.DedupePos = src.Dedupe, w.r.pos(src.Set["dedupe"])
		if w.s.Dedupe {
			w.needKey(src.Set["dedupe"], "dedupe: ledger claims the business key, but the operation has no key")
		}
	}
	w.retention()
	return true
}

// retention resolves how long the ledger remembers the key of a write it claims (retention:),
// once dedupe is resolved.
func (w *writeCheck) retention() {
	src, inherited := w.r.from(w.so, "retention")
	if src == nil || w.bad(src, "retention") || src.Retention == 0 {
		return
	}
	n := src.Set["retention"]
	window := time.Duration(0)
	if i := w.s.Idempotency; i != nil && !i.Forever() {
		window = i.Window
	}
	switch {
	case !w.s.Dedupe && inherited:
		// the defaults' retention is for the writes that claim their keys
	case !w.s.Dedupe:
		w.fail(n, "retention %s says how long the ledger remembers the business key, but the write takes no ledger claim: add dedupe: ledger, or remove retention", ir.DurationText(src.Retention))
	case src.Retention < window:
		w.fail(n, "retention %s is shorter than the provider's key window (%s): a repeat after the ledger forgot the key would count the window from the repeat, and could send the key again after the provider forgot it, a second effect; make it %s or longer, or forever",
			ir.DurationText(src.Retention), ir.DurationText(window), ir.DurationText(window))
	default:
		w.s.Retention, w.s.RetentionPos = src.Retention, w.r.pos(n)
		if inherited {
			w.s.Inherited = append(w.s.Inherited, "retention")
		}
	}
}
