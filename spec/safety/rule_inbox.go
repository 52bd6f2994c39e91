package safety

import (
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// inbox resolves the webhook inbox keyed by the fields the annotation names.
func (w *writeCheck) inbox() bool {
	if src := w.from("inbox"); src != nil && src.Inbox != nil {
		w.s.Inbox = w.r.inbox(w.so, src.Inbox)
	}
	return true
}

// inbox records the inbox a write declares; writes that name one source must declare it alike.
func (r *Resolver) inbox(so *build.Op, in *ir.Inbox) *ir.Inbox {
	prev := r.inboxes[in.Source]
	if prev == nil {
		c := *in
		r.inboxes[in.Source] = &c
		prev = &c
	} else if prev.Retention != in.Retention || prev.Order != in.Order {
		r.errorAt(in.Pos, so.Op.ID, "inbox %q is declared with other answers at %s: one source has one inbox", in.Source, prev.Pos)
	}
	prev.Writes = append(prev.Writes, so.Op)
	return prev
}
