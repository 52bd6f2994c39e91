package safety

import (
	"slices"
	"strings"

	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// reference resolves where the provider keeps a reference to the write, and what the key sets.
func (w *writeCheck) reference() bool {
	switch src := w.from("reference"); {
	case src != nil && src.None["reference"]:
		w.refNone = true // no reference: a lookup is refused for it, never dropped
	case src != nil && (src.Reference == nil || w.bad(src, "reference")):
		w.refused["reference"] = true
	case src != nil && w.needKey(src.Reference.Node, "reference needs a business key: the reference is the provider key or a template over the key's fields"):
		w.s.Reference = w.r.reference(w.so, src.Reference, w.s)
	}
	w.r.sets(w.so, w.s)
	return true
}

// reference checks where the reference is stored and what it is.
func (r *Resolver) reference(so *build.Op, ra *annot.ReferenceAnswer, s *ir.Safety) *ir.Reference {
	ref := &ir.Reference{Query: ra.Query, Pos: r.pos(ra.Node)}
	switch {
	case ra.Body != "" && ra.ThroughNode != nil:
		ref.Body = r.throughPath(so, ra, ref)
	case ra.Body != "":
		if u := unionOnPath(so.Op.Body, ra.Body); u != nil {
			r.errorf(ra.BodyNode, so.Op.ID, "reference body %q goes through %s, a oneOf/anyOf: name the variant the reference is stored in with reference.through (one of: %s); calls that send another variant then carry no reference",
				ra.Body, u.Name, strings.Join(variantNames(u), ", "))
			break
		}
		ref.Body = r.bodyPath(so, ra.BodyNode, "reference body", ra.Body)
	}
	if ra.ValueNode != nil && ra.Value != "" {
		parts, err := annot.KeyTemplate(ra.Value, s.Key.Fields)
		if err != "" {
			r.errorf(ra.ValueNode, so.Op.ID, "reference value %s", err)
		}
		ref.Value, ref.ValueFormat = parts, ra.Value
	}
	if ra.MarkerNode != nil && ra.Body != "" {
		r.marker(so, ra, ref)
	}
	return ref
}

// unionOnPath returns the first oneOf/anyOf the pointer ptr goes through in the request body, nil
// when it goes through none before it stops.
func unionOnPath(body *ir.Body, ptr string) *ir.Type {
	if body == nil || body.Type == nil || !strings.HasPrefix(ptr, "/") {
		return nil
	}
	t := body.Type
	for _, seg := range ir.SplitPointer(ptr) {
		u := ir.Under(t)
		switch {
		case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindUnion:
			return u.Named
		case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindStruct:
			var next *ir.TypeRef
			for _, f := range u.Named.Fields {
				if f.Name == seg {
					next = f.Type
				}
			}
			if next == nil {
				return nil
			}
			t = next
		case u.Kind == ir.RefMap || u.Kind == ir.RefArray:
			t = u.Elem
		default:
			return nil
		}
	}
	if u := ir.Under(t); u.Kind == ir.RefNamed && u.Named.Kind == ir.KindUnion && ir.StringVariant(t) == nil {
		return u.Named
	}
	return nil
}

// variantNames names the variants of a union as reference.through takes them: the schema's
// component name, else the Go name.
func variantNames(u *ir.Type) []string {
	var out []string
	for _, v := range u.Variants {
		out = append(out, variantName(v))
	}
	return out
}

func variantName(v *ir.Variant) string {
	if v.Type.Kind == ir.RefNamed && v.Type.Named.SchemaName != "" {
		return v.Type.Named.SchemaName
	}
	if v.Type.Kind == ir.RefNamed {
		return v.Type.Named.Name
	}
	return v.GoName
}

// throughPath resolves a reference pointer that goes through a variant of a oneOf/anyOf of the
// request body (reference.through): struct fields to the union, the variant named, then the
// variant's properties to a string. The generated code sets the reference only in a union that
// holds that variant.
func (r *Resolver) throughPath(so *build.Op, ra *annot.ReferenceAnswer, ref *ir.Reference) *ir.Path {
	id, body := so.Op.ID, so.Op.Body
	switch {
	case body == nil:
		r.errorf(ra.BodyNode, id, "reference body %q: the operation has no request body", ra.Body)
		return nil
	case body.Encoding != ir.BodyJSON:
		r.errorf(ra.ThroughNode, id, "reference.through: the request body is sent as %s; a reference goes through a oneOf/anyOf of a JSON body only", body.ContentType)
		return nil
	case ra.MarkerNode != nil:
		r.errorf(ra.ThroughNode, id, "reference.through and reference.marker together are not supported: store the reference in a field of the variant")
		return nil
	}
	p := &ir.Path{Pointer: ra.Body, Root: body.Type, Type: body.Type, Pos: r.pos(ra.BodyNode)}
	segs := ir.SplitPointer(ra.Body)
	for i, seg := range segs {
		u := ir.Under(p.Type)
		switch {
		case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindUnion:
			var v *ir.Variant
			for _, c := range u.Named.Variants {
				if variantName(c) == ra.Through || c.Type.Kind == ir.RefNamed && c.Type.Named.Name == ra.Through || c.GoName == ra.Through {
					v = c
				}
			}
			if v == nil {
				r.errorf(ra.ThroughNode, id, "reference.through %q is not a variant of %s (one of: %s)%s", ra.Through, u.Named.Name,
					strings.Join(variantNames(u.Named), ", "), annot.Suggest(ra.Through, variantNames(u.Named)))
				return nil
			}
			vu := ir.Under(v.Type)
			if vu.Kind != ir.RefNamed || vu.Named.Kind != ir.KindStruct {
				r.errorf(ra.ThroughNode, id, "reference.through %q is %s, not an object whose property can hold the reference", ra.Through, ir.DescribeRef(v.Type))
				return nil
			}
			rest := "/" + strings.Join(escapeSegments(segs[i:]), "/")
			q, why := ir.ResolvePath(v.Type, rest, ir.SetPath)
			if why == "" && slices.ContainsFunc(q.Steps, func(st ir.Step) bool { return st.Kind != ir.StepField }) {
				why = "a reference inside a variant is reached through its object properties only"
			}
			if why != "" {
				r.errorf(ra.BodyNode, id, "reference body %q does not resolve in the variant %s: %s", ra.Body, ra.Through, why)
				return nil
			}
			if !ir.IsStringType(q.Type) {
				r.errorf(ra.BodyNode, id, "reference body %q is %s in the variant %s, not a string: writegen stores a string there", ra.Body, ir.DescribeRef(q.Type), ra.Through)
				return nil
			}
			p.Steps = append(p.Steps, ir.Step{Kind: ir.StepVariant, Union: u.Named, Variant: v, Type: v.Type})
			p.Steps = append(p.Steps, q.Steps...)
			p.Type = q.Type
			ref.Through, ref.ThroughPos = v, r.pos(ra.ThroughNode)
			return p
		case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindStruct:
			var f *ir.Field
			for _, x := range u.Named.Fields {
				if x.Name == seg {
					f = x
				}
			}
			if f == nil {
				r.errorf(ra.BodyNode, id, "reference body %q does not resolve in the request body: %s has no property %q", ra.Body, u.Named.Name, seg)
				return nil
			}
			p.Steps = append(p.Steps, ir.Step{Kind: ir.StepField, Field: f, Struct: u.Named, Type: f.Type})
			p.Type = f.Type
		default:
			r.errorf(ra.BodyNode, id, "reference body %q: before reference.through's oneOf/anyOf it goes into %s: reach the union through object properties only", ra.Body, ir.DescribeRef(p.Type))
			return nil
		}
	}
	if u := ir.Under(p.Type); u.Kind == ir.RefNamed && u.Named.Kind == ir.KindUnion {
		r.errorf(ra.BodyNode, id, "reference body %q is the oneOf/anyOf itself: point at the property of the variant %s that holds the reference", ra.Body, ra.Through)
		return nil
	}
	r.errorf(ra.ThroughNode, id, "reference.through names a variant, but reference body %q goes through no oneOf/anyOf: leave through out", ra.Body)
	return nil
}

// escapeSegments escapes JSON pointer segments.
func escapeSegments(segs []string) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = ir.EscapePointer(s)
	}
	return out
}

// marker checks the marker a write appends to a text field of its body: a template that holds
// the reference, appended to a string.
func (r *Resolver) marker(so *build.Op, ra *annot.ReferenceAnswer, ref *ir.Reference) {
	id := so.Op.ID
	parts, holds, bad := splitTemplate(ra.Marker, "ref", func(string) (ir.TemplatePart, bool) { return ir.TemplatePart{}, false })
	switch {
	case bad != "":
		r.errorf(ra.MarkerNode, id, "reference marker %q may only use the placeholder {ref}, the reference (%s)", ra.Marker, bad)
		return
	case !holds:
		r.errorf(ra.MarkerNode, id, "reference marker %q has no {ref}: the lookup finds the write by the reference inside the marker", ra.Marker)
		return
	case strings.TrimSpace(ra.Marker) == "{ref}":
		r.errorf(ra.MarkerNode, id, "reference marker %q is the reference alone: give it text around {ref} (like \" [ref:{ref}]\") so that no other text can contain it by chance", ra.Marker)
		return
	}
	if b := ref.Body; b != nil {
		last := b.Steps[len(b.Steps)-1]
		if last.Kind != ir.StepField || b.Type.Kind != ir.RefBuiltin || b.Type.Builtin != "string" {
			r.errorf(ra.MarkerNode, id, "reference marker: the body field %q is %s, not a string field the marker can be appended to", b.Pointer, ir.DescribeRef(b.Type))
			return
		}
	}
	ref.Marker, ref.MarkerText, ref.MarkerPos = parts, ra.Marker, r.pos(ra.MarkerNode)
}

// splitTemplate splits a template at its placeholders {NAME}, each turned into a part by hole,
// which reports whether the name is known. holds reports whether a placeholder is {ref}; bad
// says what is wrong, or "".
func splitTemplate(text, holeName string, hole func(name string) (ir.TemplatePart, bool)) (parts []ir.TemplatePart, holds bool, bad string) {
	rest := text
	for rest != "" {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			parts = append(parts, ir.TemplatePart{Literal: rest})
			break
		}
		if rest[open] == '}' {
			return nil, false, "a } without {"
		}
		if open > 0 {
			parts = append(parts, ir.TemplatePart{Literal: rest[:open]})
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, false, "a { without }"
		}
		name := rest[open+1 : open+end]
		rest = rest[open+end+1:]
		if name == holeName && holeName != "" {
			parts = append(parts, ir.TemplatePart{Hole: true})
			holds = true
			continue
		}
		part, ok := hole(name)
		if !ok {
			return nil, false, "{" + name + "}"
		}
		parts = append(parts, part)
	}
	return parts, holds, ""
}

// sets lists the places of the request the generated code fills in, each place once.
func (r *Resolver) sets(so *build.Op, s *ir.Safety) {
	add := func(body *ir.Path, query string, v ir.SetValue, n ir.Pos) {
		for _, old := range s.Sets {
			same := body != nil && old.Body != nil && body.Pointer == old.Body.Pointer || query != "" && query == old.Query
			if !same {
				continue
			}
			if old.Value != v && s.Reference.Value != nil {
				r.errorAt(n, so.Op.ID, "the reference is stored where the idempotency key goes: store it elsewhere, or leave out its value")
			}
			return
		}
		s.Sets = append(s.Sets, ir.Set{Body: body, Query: query, Value: v})
	}
	if i := s.Idempotency; i != nil && s.Key != nil && (i.Body != nil || i.Query != "") {
		add(i.Body, i.Query, ir.SetProviderKey, i.Pos)
	}
	if ref := s.Reference; ref != nil && (ref.Body != nil || ref.Query != "") {
		add(ref.Body, ref.Query, ir.SetReference, ref.Pos)
	}
}
