package safety

import (
	"slices"

	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// response resolves whether a 2xx is a receipt (its durable id and envelope) or an acknowledgement.
func (w *writeCheck) response() bool {
	s := w.s
	if w.readOnly() {
		// A read answers with its body: it has no receipt, and a receipt of the defaults does not apply.
		if w.entry != nil && w.entry.Set["response"] != nil {
			w.fail(w.entry.Set["response"], "a read_only operation answers like a read: leave response out")
		}
		return true
	}
	src := w.from("response")
	if src == nil {
		w.fail(w.at.At, "response is required: is the 2xx a receipt (response: {is: receipt, id: /id}) or an acknowledgement?")
		w.refused["response"] = true
		return true
	}
	s.Receipt = src.RespIs == "receipt"
	w.refused["response"] = w.bad(src, "response")
	if src.Envelope != nil && !w.refused["response"] && !w.r.envelope(w.so, src.Envelope, s) {
		w.refused["response"] = true
	}
	if s.Receipt && src.RespID != "" && !w.refused["response"] {
		if s.ID = w.r.idPath(w.so, s, src.RespIDNode, src.RespID); s.ID == nil {
			w.refused["response"] = true
		}
	}
	return true
}

// idPath resolves a receipt's id pointer in the 2xx body, or in its object (response.object):
// it must end at a string or an integer.
func (r *Resolver) idPath(so *build.Op, s *ir.Safety, n *yaml.Node, ptr string) *ir.Path {
	resp := so.Op.Response
	if resp.Type == nil || resp.ContentType != "" && ir.IsBytes(resp.Type) {
		r.errorf(n, so.Op.ID, "receipt id %q: the %s response has no JSON body", ptr, ir.StatusText(resp.Status))
		return nil
	}
	root, where := resp.Type, "the "+ir.StatusText(resp.Status)+" response"
	if obj := s.Object; obj != nil {
		root, where = obj.Type, "the receipt's object at "+obj.Pointer+" ("+ir.DescribeRef(obj.Type)+")"
	}
	p, why := ir.ResolvePath(root, ptr, ir.ReadPath)
	if why != "" {
		r.errorf(n, so.Op.ID, "receipt id %q does not resolve in %s: %s", ptr, where, why)
		return nil
	}
	if !ir.IsStringType(p.Type) && !ir.IsIntegerType(p.Type) {
		r.errorf(n, so.Op.ID, "receipt id %q is %s in %s, not a string or an integer", ptr, ir.DescribeRef(p.Type), where)
		return nil
	}
	if obj := s.Object; obj != nil {
		// The id is read from the 2xx body, through the object.
		p.Pointer, p.Root = obj.Pointer+p.Pointer, resp.Type
		p.Steps = append(slices.Clone(obj.Steps), p.Steps...)
	}
	p.Pos = r.pos(n)
	return p
}

// envelope resolves where a receipt sits in the 2xx body: the object (response.object) and the
// provider's success flag and error text (response.ok, response.error), each reached through
// struct fields only, so that the generated code can read them and build the body around an
// object a lookup found. It reports whether they resolve.
func (r *Resolver) envelope(so *build.Op, e *annot.EnvelopeAnswer, s *ir.Safety) bool {
	id, resp := so.Op.ID, so.Op.Response
	at := e.ObjectNode
	for _, n := range []*yaml.Node{e.OKNode, e.ErrTextNode} {
		if at == nil {
			at = n
		}
	}
	if resp.Type == nil || ir.IsBytes(resp.Type) {
		r.errorf(at, id, "response: the %s response has no JSON body to find the receipt in", ir.StatusText(resp.Status))
		return false
	}
	where := "the " + ir.StatusText(resp.Status) + " response (" + ir.DescribeRef(resp.Type) + ")"
	fields := func(what, ptr string, n *yaml.Node) *ir.Path {
		p, why := ir.ResolvePath(resp.Type, ptr, ir.ReadPath)
		if why == "" && len(p.Steps) == 0 {
			why = "it is the whole body"
		}
		if why == "" && slices.ContainsFunc(p.Steps, func(st ir.Step) bool { return st.Kind != ir.StepField }) {
			why = "it goes through a list, a map or a oneOf/anyOf: point at it through object properties only"
		}
		if why != "" {
			r.errorf(n, id, "response.%s %q does not resolve in %s: %s", what, ptr, where, why)
			return nil
		}
		p.Pos = r.pos(n)
		return p
	}
	ok := true
	if e.ObjectNode != nil {
		if !s.Receipt {
			return false // refused where it is written
		}
		if p := fields("object", e.Object, e.ObjectNode); p == nil {
			ok = false
		} else if u := ir.Under(p.Type); u.Kind != ir.RefNamed || u.Named.Kind != ir.KindStruct && u.Named.Kind != ir.KindUnion {
			r.errorf(e.ObjectNode, id, "response.object %q is %s in %s, not an object: point at the object the write made", e.Object, ir.DescribeRef(p.Type), where)
			ok = false
		} else {
			s.Object = p
		}
	}
	if e.OKNode != nil {
		if p := fields("ok", e.OK, e.OKNode); p == nil {
			ok = false
		} else if u := ir.Under(p.Type); u.Kind != ir.RefBuiltin || u.Builtin != "bool" {
			r.errorf(e.OKNode, id, "response.ok %q is %s in %s, not a boolean: point at the flag that is false when the provider refused the write", e.OK, ir.DescribeRef(p.Type), where)
			ok = false
		} else {
			s.OK = p
		}
	}
	if e.ErrTextNode != nil && e.OKNode != nil {
		if p := fields("error", e.ErrText, e.ErrTextNode); p == nil {
			ok = false
		} else if !ir.IsStringType(p.Type) {
			r.errorf(e.ErrTextNode, id, "response.error %q is %s in %s, not a string: point at the provider's error text", e.ErrText, ir.DescribeRef(p.Type), where)
			ok = false
		} else {
			s.ErrorText = p
		}
	}
	return ok
}
