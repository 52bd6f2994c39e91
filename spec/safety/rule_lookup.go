package safety

import (
	"fmt"
	"slices"
	"strings"

	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// lookup resolves the lookup written, type-checked against the write, or refuses it with its reason.
func (w *writeCheck) lookup() bool {
	src := w.from("lookup")
	if src == nil {
		return true
	}
	r, so, s := w.r, w.so, w.s
	lop := r.lookupOp[so]
	switch {
	case src.Lookup == nil || w.bad(src, "lookup") || w.refused["key"] || w.refused["reference"] || w.refused["idempotency"],
		src.Lookup.Op != "" && (lop == nil || len(lop.Errs) > 0 || r.Defective[lop.Op.ID] || r.Defective[w.op.ID]):
		// refused where it is written, or its types are
		w.refused["lookup"] = true
	case w.readOnly():
		w.fail(src.Lookup.Node, "a read_only operation is sent again like a read after any failure, so nothing asks its lookup: leave the lookup out")
		w.refused["lookup"] = true
	case w.refNone && (s.Idempotency == nil || s.Idempotency.Body == nil && s.Idempotency.Query == ""):
		w.fail(src.Lookup.Node, "lookup searches by the write's reference, but the entry says reference: none, so the provider keeps nothing to find the write by: store one (reference: {body: /field}) or leave the lookup out")
		w.refused["lookup"] = true
	case w.needKey(src.Lookup.Node, "lookup needs a business key: it searches for the write's reference, derived from the key"):
		if s.Lookup = r.lookup(so, src.Lookup, s); s.Lookup == nil {
			w.refused["lookup"] = true
		}
	}
	return true
}

// lookup checks a lookup answer: the reference reaches the provider with the write, the lookup
// is called with it, and what it finds has the write's response type.
func (r *Resolver) lookup(so *build.Op, l *annot.LookupAnswer, s *ir.Safety) *ir.Lookup {
	id := so.Op.ID
	out := &ir.Lookup{Consistency: l.Consistency, Lag: l.Lag, Source: l.Source, Func: l.Fn, Pos: r.pos(l.Node)}
	if l.SourceNode != nil {
		out.SourcePos = r.pos(l.SourceNode)
	}
	if s.Reference == nil && (s.Idempotency == nil || s.Idempotency.Body == nil && s.Idempotency.Query == "") {
		where := "no reference is sent"
		if s.Idempotency != nil && s.Idempotency.Header != "" {
			where = "the provider key travels only in the header " + s.Idempotency.Header + ", which the provider does not keep"
		}
		r.errorf(l.Node, id, "lookup searches by the write's reference, but %s: store it with reference: {body: /field} (or a query parameter), or take the key in a body or query field", where)
		return nil
	}
	if l.Fn != "" {
		out.Name, out.QueryName = so.Op.Local+"Lookup", so.Op.GoName+"Lookup"
		out.Values = r.funcValues(so, s)
		return out
	}
	resp := so.Op.Response
	if resp.Type == nil || ir.IsBytes(resp.Type) {
		r.errorf(l.Node, id, "lookup operation %q: the write answers with no JSON body, so no response of the lookup has its type: write the lookup by hand (lookup: {func: ...})", l.Op)
		return nil
	}
	lo := r.lookupOp[so]
	if lo == nil {
		return nil // reported when the scope was decided
	}
	read := lo.Op
	out.Operation = read
	out.Name = so.Op.Local + "Lookup"
	before := len(r.Errs)
	passes := false
	out.Params, out.Values, passes = r.lookupTemplates(so, s, read, l.Params, l.OpNode, "ref")
	if l.Body != nil {
		out.Body = r.bodyTemplate(so, read, l.Body)
		passes = passes || out.Body != nil && slices.ContainsFunc(out.Body.Parts, func(p ir.JSONPart) bool { return p.String != nil })
	} else if read.Body != nil && read.Body.Required {
		r.errorf(l.OpNode, id, "lookup operation %q takes a request body: give it as body: {...}, with \"{ref}\" where the reference goes", read.ID)
	}
	if l.MatchNode == nil && s.Reference != nil && s.Reference.Marker != nil {
		r.errorf(l.Node, id, "the write appends its reference as a marker (reference.marker) that no read can filter on: the lookup must match it, like match: %s (the text field the marker is appended to, in the found element)", s.Reference.Body.Pointer)
		return nil
	}
	if l.Escape != "" && len(r.Errs) == before && !r.escaped(so, l, out) {
		return nil
	}
	rr := read.Response
	if rr.Type == nil || ir.IsBytes(rr.Type) {
		r.errorf(l.OpNode, id, "lookup operation %q has no JSON response to find the write in", read.ID)
		return nil
	}
	found := &ir.Path{Root: rr.Type, Type: rr.Type, Pos: r.pos(l.OpNode)}
	if l.Found != "" {
		var why string
		if found, why = ir.ResolvePath(rr.Type, l.Found, ir.EachPath); why != "" {
			r.errorf(l.FoundNode, id, "lookup found %q does not resolve in the response of %q: %s", l.Found, read.ID, why)
			return nil
		}
		found.Pos = r.pos(l.FoundNode)
		out.Found = found
	}
	if !passes && !slices.ContainsFunc(pathSteps(out.Found), func(st ir.Step) bool { return st.Kind == ir.StepEach }) && len(r.Errs) == before {
		r.errorf(l.OpNode, id, "lookup reads one object without passing the reference: it could only tell that object is not the write's, never that the write is absent; pass a value with {ref} in params or body, or point found at an element of a list it walks (like /items/0)")
		return nil
	}
	if !r.sameObject(so, l, s, found, out) {
		return nil
	}
	if s.OK != nil {
		out.OK = okIn(read.Response.Type, s.OK.Pointer)
	}
	if !r.walk(so, l, s, out, found) || !r.matchOf(so, l, s, out, found) || !r.newestFirst(so, l, out) {
		return nil
	}
	if l.AdoptRead != nil && !r.adoptBy(so, l, s, out, found) {
		return nil
	}
	return out
}

// sameObject checks that what a lookup finds is the receipt's object: the write's response, or
// its object (response.object), of the very same schema, so that the generated code can adopt
// it as it is (wrapped back into the envelope).
func (r *Resolver) sameObject(so *build.Op, l *annot.LookupAnswer, s *ir.Safety, found *ir.Path, out *ir.Lookup) bool {
	id, resp := so.Op.ID, so.Op.Response
	want, what := resp.Type, so.Op.ID+" answers with "+ir.DescribeRef(resp.Type)
	if s.Object != nil {
		want, what = s.Object.Type, "the receipt's object at "+s.Object.Pointer+" in the answer of "+so.Op.ID+" is "+ir.DescribeRef(s.Object.Type)
	}
	switch {
	case l.Adopt == "fields":
		return r.copies(so, l, s, found, out, want, what)
	case l.AdoptRead != nil:
		return true // the receipt is read by the found element's id: adoptBy checks that read
	}
	switch {
	case ir.SameType(found.Type, resp.Type): // the write's whole answer, envelope and all
		return true
	case s.Object != nil && ir.SameType(found.Type, want):
		out.Object = true
		return true
	case extends(want, found.Type):
		out.Object, out.Extends = s.Object != nil, true
		return true
	}
	at := l.FoundNode
	if at == nil {
		at = l.OpNode
	}
	hint := "a lookup must find what the write returns"
	switch u := ir.Under(found.Type); {
	case u.Kind == ir.RefArray && ir.SameType(u.Elem, want):
		hint = "point found at an element of the list (like " + found.Pointer + "/0): every element is a found effect"
	case s.Object == nil:
		if ptr := fieldOfType(resp.Type, found.Type); ptr != "" {
			hint = "when the write's answer wraps its object in an envelope, say where it is with response.object (like response: {is: receipt, object: " + ptr + ", id: /id}): the lookup must then find that object"
		} else {
			hint = "a lookup must find what the write returns (with response.object, the object inside the write's answer), of the same schema"
		}
	default:
		hint = "a lookup must find objects of the receipt's object's own schema, not a look-alike"
	}
	r.errorf(at, id, "lookup finds %s, but %s: %s", ir.DescribeRef(found.Type), what, hint)
	return false
}

// extends reports whether the struct r extends the struct f: an allOf of f's schema with
// optional properties of its own (Intercom's create_contact_response is allOf [contact] and
// enabled_push_messaging). f's fields are then r's first ones, of the same names, types and
// encodings, so that an f found by a lookup becomes an r by copying them.
func extends(r, f *ir.TypeRef) bool {
	ru, fu := ir.Under(r), ir.Under(f)
	if ru.Kind != ir.RefNamed || fu.Kind != ir.RefNamed || ru.Named.Kind != ir.KindStruct || fu.Named.Kind != ir.KindStruct {
		return false
	}
	rt, ft := ru.Named, fu.Named
	if rt.AdditionalProperties != nil || ft.AdditionalProperties != nil || len(rt.Fields) <= len(ft.Fields) {
		return false
	}
	for i, ff := range ft.Fields {
		rf := rt.Fields[i]
		if rf.Name != ff.Name || !ir.SameType(rf.Type, ff.Type) || rf.Pointer != ff.Pointer || rf.OmitEmpty != ff.OmitEmpty ||
			rf.Untagged != ff.Untagged || rf.Required != ff.Required || rf.Nullable != ff.Nullable {
			return false
		}
	}
	for _, rf := range rt.Fields[len(ft.Fields):] {
		if rf.Required {
			return false
		}
	}
	return true
}

// copies checks lookup.adopt: fields: the receipt's object want (what, for messages) is built
// from an element of another schema (Jira's create answers id, key and self; its search finds
// whole issues) by copying the properties of the same name, so each of want's properties is
// one of the element's, of the same type and encoding, or optional and left empty, and the
// receipt's id is among those copied.
func (r *Resolver) copies(so *build.Op, l *annot.LookupAnswer, s *ir.Safety, found *ir.Path, out *ir.Lookup, want *ir.TypeRef, what string) bool {
	id := so.Op.ID
	if ir.SameType(found.Type, want) || ir.SameType(found.Type, so.Op.Response.Type) {
		r.errorf(l.AdoptNode, id, "lookup adopt: fields copies the properties of an element of another schema, and %s finds %s, what the receipt is: leave adopt out", l.Op, ir.DescribeRef(found.Type))
		return false
	}
	wu, fu := ir.Under(want), ir.Under(found.Type)
	if wu.Kind != ir.RefNamed || fu.Kind != ir.RefNamed || wu.Named.Kind != ir.KindStruct || fu.Named.Kind != ir.KindStruct {
		r.errorf(l.AdoptNode, id, "lookup adopt: fields copies properties from object to object, and %s finds %s while %s: point found at an object", l.Op, ir.DescribeRef(found.Type), what)
		return false
	}
	idField, at := "", 0 // the property of want the id is in (ID goes through Object)
	if s.Object != nil {
		at = len(s.Object.Steps)
	}
	if s.ID != nil && len(s.ID.Steps) > at && s.ID.Steps[at].Kind == ir.StepField {
		idField = s.ID.Steps[at].Field.Name
	}
	copied := false
	for _, wf := range wu.Named.Fields {
		i := slices.IndexFunc(fu.Named.Fields, func(f *ir.Field) bool { return f.Name == wf.Name })
		if i < 0 {
			if wf.Required {
				r.errorf(l.AdoptNode, id, "lookup adopt: fields: the receipt's required property %q is not a property of %s, which %s finds: the receipt adopted would lack it", wf.Name, ir.DescribeRef(found.Type), l.Op)
				return false
			}
			continue
		}
		ff := fu.Named.Fields[i]
		if !ir.SameType(wf.Type, ff.Type) || wf.Pointer != ff.Pointer {
			r.errorf(l.AdoptNode, id, "lookup adopt: fields: property %q is %s in the receipt and %s in %s, which %s finds: only properties of the same type, required or optional in both, are copied",
				wf.Name, fieldText(wf), fieldText(ff), ir.DescribeRef(found.Type), l.Op)
			return false
		}
		copied = copied || wf.Name == idField
	}
	if !copied {
		r.errorf(l.AdoptNode, id, "lookup adopt: fields: the receipt's id %s is not a property %s finds: the receipt adopted would have no id", s.ID.Pointer, l.Op)
		return false
	}
	out.Object, out.Copies = s.Object != nil, true
	return true
}

// fieldText describes a field's type for messages, and whether it is required or optional (a
// pointer in Go).
func fieldText(f *ir.Field) string {
	if f.Pointer {
		return ir.DescribeRef(f.Type) + " (optional)"
	}
	return ir.DescribeRef(f.Type) + " (required)"
}

// fieldOfType returns the pointer of the property of the struct t whose type is f, "" without
// one.
func fieldOfType(t, f *ir.TypeRef) string {
	u := ir.Under(t)
	if u.Kind != ir.RefNamed || u.Named.Kind != ir.KindStruct {
		return ""
	}
	for _, fl := range u.Named.Fields {
		if ir.SameType(fl.Type, f) {
			return "/" + ir.EscapePointer(fl.Name)
		}
	}
	return ""
}

// okIn resolves the write's response.ok pointer in a read's response: the read's own success
// flag, when it has a boolean there, reached through struct fields; else nil.
func okIn(t *ir.TypeRef, ptr string) *ir.Path {
	p, why := ir.ResolvePath(t, ptr, ir.ReadPath)
	if why != "" || len(p.Steps) == 0 || slices.ContainsFunc(p.Steps, func(st ir.Step) bool { return st.Kind != ir.StepField }) {
		return nil
	}
	if u := ir.Under(p.Type); u.Kind != ir.RefBuiltin || u.Builtin != "bool" {
		return nil
	}
	return p
}

// escaped checks a lookup's escape: it has substitutions to escape, and none of them sits inside
// quotes the template writes itself (the escaped value is a whole literal, quotes included).
func (r *Resolver) escaped(so *build.Op, l *annot.LookupAnswer, out *ir.Lookup) bool {
	id := so.Op.ID
	quote := map[ir.Escape]string{ir.EscapeStripeSearch: "'", ir.EscapeZendeskSearch: `"`, ir.EscapeGitHubSearch: `"`, ir.EscapeJQL: `"`}[l.Escape]
	n := 0
	ok := true
	check := func(parts []ir.TemplatePart, text string, at *yaml.Node) {
		for i, p := range parts {
			if !p.Hole && p.Value == nil {
				continue
			}
			n++
			if quote == "" || i == 0 || i == len(parts)-1 {
				continue
			}
			if strings.HasSuffix(parts[i-1].Literal, quote) && strings.HasPrefix(parts[i+1].Literal, quote) {
				name := "ref"
				if p.Value != nil {
					name = p.Value.Name
				}
				r.errorf(at, id, "lookup template %q quotes {%s} itself, but escape: %s writes each substitution as a whole literal, quotes included: write {%s} without the %s around it", text, name, l.Escape, name, quote)
				ok = false
			}
		}
	}
	for _, t := range out.Params {
		at := l.OpNode
		for _, g := range l.Params {
			if g.Name == t.Param.Name {
				at = g.ValueNode
			}
		}
		check(t.Parts, t.Text, at)
	}
	if out.Body != nil {
		for _, p := range out.Body.Parts {
			if p.String != nil {
				check(p.String, partsText(p.String), l.Body)
			}
		}
	}
	if n == 0 && ok {
		r.errorf(l.EscapeNode, id, "escape: %s escapes the {...} substitutions of the lookup's params and body, and it has none: leave escape out", l.Escape)
		return false
	}
	out.Escape = l.Escape
	return ok
}

// partsText is a template as written, from its parts.
func partsText(parts []ir.TemplatePart) string {
	var b strings.Builder
	for _, p := range parts {
		switch {
		case p.Hole:
			b.WriteString("{ref}")
		case p.Value != nil:
			b.WriteString("{" + p.Value.Name + "}")
		default:
			b.WriteString(p.Literal)
		}
	}
	return b.String()
}

// lookupTemplates resolves the parameters a lookup passes, each a template over the reference
// (the placeholder hole: {ref}, or {id} for a read that adopts) and the values of the write
// ({NAME}: a required path or query parameter of the write, or a field of its key), or a
// constant of the parameter's own type. It returns the values used, sorted by name, and whether
// a template holds the placeholder. With hole "" (and s nil) it resolves constants only, and
// needs no required parameter (newest_first).
func (r *Resolver) lookupTemplates(so *build.Op, s *ir.Safety, read *ir.Operation, given []annot.TemplateAnswer, at *yaml.Node, hole string) ([]*ir.Template, []*ir.LookupValue, bool) {
	id := so.Op.ID
	var out []*ir.Template
	var values []*ir.LookupValue
	holds := false
	for _, g := range given {
		var param *ir.Param
		for _, q := range read.Params {
			if q.Name == g.Name {
				param = q
				break
			}
		}
		if param == nil {
			r.errorf(g.NameNode, id, "lookup operation %q has no parameter %q%s", read.ID, g.Name, annot.Suggest(g.Name, paramNames(read)))
			continue
		}
		why := ""
		parts, h, bad := splitTemplate(g.Text, hole, func(name string) (ir.TemplatePart, bool) {
			if s == nil {
				why = "the value is a constant of the spec, not a template"
				return ir.TemplatePart{}, false
			}
			v, msg := r.lookupValue(so, s, name, g.ValueNode)
			if v == nil {
				why = msg
				return ir.TemplatePart{}, false
			}
			if i := slices.IndexFunc(values, func(o *ir.LookupValue) bool { return o.Name == name }); i >= 0 {
				v = values[i]
			} else {
				values = append(values, v)
			}
			return ir.TemplatePart{Value: v}, true
		})
		if bad != "" {
			if why == "" {
				why = bad
			}
			r.errorf(g.ValueNode, id, "lookup param %q: %q: %s", g.Name, g.Text, why)
			continue
		}
		holds = holds || h
		t := &ir.Template{Param: param, Text: g.Text, Parts: parts, Pos: r.pos(g.ValueNode)}
		single := len(parts) == 1 && parts[0].Value != nil
		constant := !slices.ContainsFunc(parts, func(p ir.TemplatePart) bool { return p.Hole || p.Value != nil })
		switch u := ir.Under(param.Type); {
		case constant && !ir.IsStringType(param.Type) && !(u.Kind == ir.RefArray && ir.IsStringType(u.Elem)):
			// a constant of the parameter's own type: per_page: 100
			v, ok := constantOf(param.Type, g.Text)
			if !ok {
				r.errorf(g.ValueNode, id, "lookup param %q is %s, and %q is not one", g.Name, ir.DescribeRef(param.Type), g.Text)
				continue
			}
			t.Const = v
		case ir.IsIntegerType(param.Type) && u.Kind == ir.RefBuiltin && hole == "id" && len(parts) == 1 && parts[0].Hole:
			// the found element's id, an integer: issues/get's issue_number
		case ir.IsIntegerType(param.Type) && u.Kind == ir.RefBuiltin:
			if !single || !parts[0].Value.Integer {
				r.errorf(g.ValueNode, id, "lookup param %q is %s, not a string: writegen passes it a string, or one integer value of the write (like \"{ticket_id}\")", g.Name, ir.DescribeRef(param.Type))
				continue
			}
		case !ir.IsStringType(param.Type) && !(u.Kind == ir.RefArray && ir.IsStringType(u.Elem)):
			r.errorf(g.ValueNode, id, "lookup param %q is %s, not a string: writegen passes it a string", g.Name, ir.DescribeRef(param.Type))
			continue
		}
		out = append(out, t)
	}
	for _, q := range read.Params {
		if hole != "" && q.Required && !slices.ContainsFunc(given, func(g annot.TemplateAnswer) bool { return g.Name == q.Name }) {
			r.errorf(at, id, "lookup operation %q needs its required parameter %q in params", read.ID, q.Name)
		}
	}
	slices.SortFunc(out, func(a, b *ir.Template) int { return strings.Compare(a.Param.Name, b.Param.Name) })
	slices.SortFunc(values, func(a, b *ir.LookupValue) int { return strings.Compare(a.Name, b.Name) })
	return out, values, holds
}

// lookupValue resolves {name} in a lookup's params to a value of the write, or says why it is
// none.
func (r *Resolver) lookupValue(so *build.Op, s *ir.Safety, name string, n *yaml.Node) (*ir.LookupValue, string) {
	v := &ir.LookupValue{Name: name, Pos: r.pos(n)}
	for _, q := range so.Op.Params {
		if q.Name == name && (q.In == ir.InPath || q.In == ir.InQuery) {
			v.Param = q
		}
	}
	if s.Key != nil {
		for i := range s.Key.Fields {
			if s.Key.Fields[i].Name == name {
				v.Field = &s.Key.Fields[i]
			}
		}
	}
	switch {
	case v.Param != nil && v.Field != nil:
		return nil, fmt.Sprintf("{%s} is both a parameter of %s and a field of its key: name the key field otherwise", name, so.Op.ID)
	case v.Field != nil:
		v.Integer = v.Field.Type == "int64"
	case v.Param != nil:
		switch u := ir.Under(v.Param.Type); {
		case !v.Param.Required:
			return nil, fmt.Sprintf("{%s} is an optional parameter of %s: a lookup value must be known to every call, so only a required one may travel with the reference", name, so.Op.ID)
		case ir.IsIntegerType(v.Param.Type) && u.Kind == ir.RefBuiltin:
			v.Integer = true
		case !ir.IsStringType(v.Param.Type) || u.Kind != ir.RefBuiltin && u.Kind != ir.RefNamed:
			return nil, fmt.Sprintf("{%s} is %s, a parameter of %s that cannot travel with the reference: only a string or an integer can", name, ir.DescribeRef(v.Param.Type), so.Op.ID)
		}
	default:
		names := paramNames(so.Op)
		if s.Key != nil {
			for _, f := range s.Key.Fields {
				names = append(names, f.Name)
			}
		}
		return nil, fmt.Sprintf("{%s} is neither {ref} nor a path or query parameter of %s nor a field of its key%s", name, so.Op.ID, annot.Suggest(name, names))
	}
	return v, ""
}

// templates resolves the parameters a lookup or a compensation passes, each a template with the
// placeholder hole. It reports whether one of them holds the placeholder.
func (r *Resolver) templates(so *build.Op, target *ir.Operation, given []annot.TemplateAnswer, at *yaml.Node, hole, what string) ([]*ir.Template, bool) {
	id := so.Op.ID
	var out []*ir.Template
	holds := false
	for _, g := range given {
		var param *ir.Param
		for _, q := range target.Params {
			if q.Name == g.Name {
				param = q
				break
			}
		}
		if param == nil {
			r.errorf(g.NameNode, id, "%s operation %q has no parameter %q", what, target.ID, g.Name)
			continue
		}
		t := &ir.Template{Param: param, Text: g.Text, Pos: r.pos(g.ValueNode)}
		for i, lit := range strings.Split(g.Text, hole) {
			if strings.ContainsAny(lit, "{}") {
				r.errorf(g.ValueNode, id, "%s param %q: %q may only use the placeholder %s", what, g.Name, g.Text, hole)
				t = nil
				break
			}
			if i > 0 {
				t.Parts = append(t.Parts, ir.TemplatePart{Hole: true})
				holds = true
			}
			if lit != "" {
				t.Parts = append(t.Parts, ir.TemplatePart{Literal: lit})
			}
		}
		if t == nil {
			continue
		}
		if u := ir.Under(param.Type); !ir.IsStringType(param.Type) && !(u.Kind == ir.RefArray && ir.IsStringType(u.Elem)) {
			r.errorf(g.ValueNode, id, "%s param %q is %s, not a string: writegen passes it a string", what, g.Name, ir.DescribeRef(param.Type))
			continue
		}
		out = append(out, t)
	}
	for _, q := range target.Params {
		if q.Required && !slices.ContainsFunc(given, func(g annot.TemplateAnswer) bool { return g.Name == q.Name }) {
			r.errorf(at, id, "%s operation %q needs its required parameter %q in params", what, target.ID, q.Name)
		}
	}
	slices.SortFunc(out, func(a, b *ir.Template) int { return strings.Compare(a.Param.Name, b.Param.Name) })
	return out, holds
}
