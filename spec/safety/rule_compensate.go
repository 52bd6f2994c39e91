package safety

import (
	"slices"
	"strconv"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// compensate resolves the write that undoes a duplicate of a compensatable write.
func (w *writeCheck) compensate() bool {
	switch src := w.from("compensate"); {
	case src == nil:
		if w.s.Effect == runtime.EffectCompensatable {
			w.fail(src0(w.from, "effect"), "effect compensatable needs compensate: the operation that undoes a duplicate")
		}
	case src.Compensate == nil || w.bad(src, "compensate") || w.refused["lookup"] || w.refused["response"]:
	default:
		w.s.Compensate = w.r.compensation(w.so, src.Compensate, w.s)
	}
	return true
}

// compensation checks a compensation: an idempotent write without a business key, called for
// each duplicate a lookup finds, with the duplicate's id where "{id}" is written.
func (r *Resolver) compensation(so *build.Op, c *annot.CompensateAnswer, s *ir.Safety) *ir.Compensation {
	id := so.Op.ID
	co := r.compensateOp[so]
	if co == nil {
		return nil // reported when the scope was decided
	}
	switch l := s.Lookup; {
	case l == nil:
		r.errorf(c.Node, id, "compensate undoes the duplicates a lookup finds beyond the first, and the write has no lookup: add one, or leave compensate out")
		return nil
	case l.Operation != nil && !slices.ContainsFunc(pathSteps(l.Found), func(st ir.Step) bool { return st.Kind == ir.StepEach }):
		found := "the whole response"
		if l.Found != nil {
			found = strconv.Quote(l.Found.Pointer)
		}
		r.errorf(c.Node, id, "compensate undoes the duplicates a lookup finds beyond the first, but this lookup finds at most one (found: %s): point found at an element of a list (like /items/0), so that every element is a found effect", found)
		return nil
	}
	out := &ir.Compensation{Operation: co.Op, Name: so.Op.Local + "Compensate", Pos: r.pos(c.Node)}
	effect, _ := r.from(co, "effect")
	key, _ := r.from(co, "key")
	if effect == nil || effect.Effect == 0 || effect.Bad["effect"] {
		return nil // the compensation's own entry is refused for it
	}
	if effect.Effect != runtime.EffectIdempotent || key != nil && key.Key != nil {
		r.errorf(c.OpNode, id, "compensation %q is called once for each duplicate and may be called again: it must be an idempotent write without a business key", co.Op.ID)
		return nil
	}
	if co.Op.Body != nil && co.Op.Body.Required {
		r.errorf(c.OpNode, id, "compensation %q takes a request body: a compensation passes parameters only", co.Op.ID)
		return nil
	}
	var holds bool
	out.Params, holds = r.templates(so, co.Op, c.Params, c.OpNode, "{id}", "compensation")
	if holds && s.ID == nil {
		r.errorf(c.Node, id, "compensation params use {id}, the duplicate's durable id, but the write's answer is not a receipt with an id")
	}
	return out
}
