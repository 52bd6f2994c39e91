package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/ir"
)

// resolver matches the annotation file to the spec's operations, decides the scope and turns
// the answers into validated Safety.
type resolver struct {
	b       *builder
	a       *annot.File
	rule    string // the safety check's rule running, for the defects it finds (Error.Rule)
	ops     []*specOp
	byName  map[string]*specOp // operationId and "METHOD /path"
	entries map[*specOp]*annot.Answers
	exclude map[*specOp]*annot.Exclusion
	scope   map[*specOp]bool
	// The operations the answers of a write name, found when the scope is decided.
	lookupOp, adoptOp, compensateOp map[*specOp]*specOp
	keyScopes                       map[string]*ir.Operation
	// defective names the operations a defect of the spec is reported for: the checks of
	// answers that depend on their types are not made.
	defective map[string]bool
	// meant holds the operations an entry that names no operation looks like a misspelling of.
	meant   map[*specOp]bool
	inboxes map[string]*ir.Inbox
	errs    ir.ErrorList
}

func newResolver(b *builder, a *annot.File, ops []*specOp) *resolver {
	r := &resolver{b: b, a: a, ops: ops, byName: make(map[string]*specOp),
		entries: make(map[*specOp]*annot.Answers), exclude: make(map[*specOp]*annot.Exclusion), scope: make(map[*specOp]bool),
		lookupOp: make(map[*specOp]*specOp), adoptOp: make(map[*specOp]*specOp), compensateOp: make(map[*specOp]*specOp),
		keyScopes: make(map[string]*ir.Operation), inboxes: make(map[string]*ir.Inbox), defective: make(map[string]bool)}
	for _, so := range ops {
		r.byName[so.op.ID] = so
		r.byName[so.op.Method+" "+so.op.SpecPath] = so
	}
	return r
}

// pos is the position of node n of the annotation file.
func (r *resolver) pos(n *yaml.Node) ir.Pos {
	if n == nil {
		return ir.Pos{File: r.a.File}
	}
	return ir.Pos{File: r.a.File, Line: n.Line, Col: n.Column}
}

// errorf records a defect of the annotation file at node n.
func (r *resolver) errorf(n *yaml.Node, op, format string, args ...any) {
	r.errorAt(r.pos(n), op, format, args...)
}

func (r *resolver) errorAt(pos ir.Pos, op, format string, args ...any) {
	r.errs = append(r.errs, &ir.Error{Pos: pos, Operation: op, Msg: fmt.Sprintf(format, args...), Rule: r.rule})
}

// find returns the operation an annotation names: an operationId or "METHOD /path".
func (r *resolver) find(name string) *specOp {
	if so := r.byName[name]; so != nil {
		return so
	}
	if method, path, ok := strings.Cut(name, " "); ok {
		return r.byName[strings.ToUpper(method)+" "+strings.TrimSpace(path)]
	}
	return nil
}

// closestOp returns the operation whose operationId name looks like a misspelling of, or nil.
func (r *resolver) closestOp(name string) *specOp {
	ids := make([]string, len(r.ops))
	for i, so := range r.ops {
		ids[i] = so.op.ID
	}
	if like := annot.Closest(name, ids); like != "" {
		return r.byName[like]
	}
	return nil
}

// suggestOp returns Suggest's answer for an operation name, "" when none is close.
func (r *resolver) suggestOp(name string) string {
	if so := r.closestOp(name); so != nil {
		return " (did you mean " + strconv.Quote(so.op.ID) + "?)"
	}
	return ""
}

// bind matches entries and exclusions to operations.
func (r *resolver) bind() {
	named := make(map[*specOp]*yaml.Node)
	claim := func(so *specOp, n *yaml.Node, id string) bool {
		prev, dup := named[so]
		if !dup {
			named[so] = n
			return true
		}
		r.errorf(n, id, "%s %s is already named at line %d (as %q)", so.op.Method, so.op.SpecPath, prev.Line, prev.Value)
		return false
	}
	for _, e := range r.a.Entries {
		so := r.find(e.ID)
		switch {
		case e.ID == "":
		case so == nil:
			like := r.closestOp(e.ID)
			if like == nil {
				r.errorf(e.At, e.ID, "no such operation in the spec (name it by operationId or as \"POST /path\")")
				break
			}
			r.errorf(e.At, e.ID, "no such operation in the spec (did you mean %q?)", like.op.ID)
			if r.meant == nil {
				r.meant = map[*specOp]bool{}
			}
			r.meant[like] = true // its missing answers are this entry's misspelling, not a defect of their own
		case !so.op.Write:
			r.errorf(e.At, e.ID, "%s is a read: only writes take write-safety answers", so.op.Method)
		case claim(so, e.At, e.ID):
			r.entries[so] = e
		}
	}
	for _, x := range r.a.Excludes {
		so := r.find(x.ID)
		switch {
		case x.ID == "":
		case so == nil:
			r.errorf(x.Node, x.ID, "excluded operation is not in the spec%s", r.suggestOp(x.ID))
		case r.entries[so] != nil:
			r.errorf(x.Node, x.ID, "%s %s is answered at line %d and excluded here: keep one", so.op.Method, so.op.SpecPath, r.entries[so].At.Line)
		case claim(so, x.Node, x.ID):
			r.exclude[so] = x
		}
	}
}

// decideScope puts in scope every operation the include filter selects (all, without one) that is
// not excluded. Entries outside the filter need no answers: their placeholders do not block.
func (r *resolver) decideScope() {
	in := r.a.Include
	pick := make(map[*specOp]bool)
	tags := make(map[string]bool)
	if in != nil {
		known := make(map[string]bool)
		for _, so := range r.ops {
			for _, t := range so.op.Tags {
				known[t] = true
			}
		}
		for _, n := range in.Operations {
			if so := r.find(n.Value); so != nil {
				pick[so] = true
			} else {
				r.errorf(n, n.Value, "included operation is not in the spec%s", r.suggestOp(n.Value))
			}
		}
		for _, n := range in.Tags {
			if !known[n.Value] {
				r.errorf(n, "", "included tag %q is not used by any operation", n.Value)
			}
			tags[n.Value] = true
		}
	}
	for _, so := range r.ops {
		if r.exclude[so] != nil {
			continue
		}
		if in == nil || pick[so] || slices.ContainsFunc(so.op.Tags, func(t string) bool { return tags[t] }) {
			r.scope[so] = true
		}
	}
}

// resolve converts every operation in scope and finds the operations their answers name:
// lookups and compensations pull them into scope. The answers themselves are checked once every
// name is settled (safety).
func (r *resolver) resolve() {
	queue := make([]*specOp, 0, len(r.scope))
	for _, so := range r.ops {
		if r.scope[so] {
			queue = append(queue, so)
		}
	}
	for len(queue) > 0 {
		so := queue[0]
		queue = queue[1:]
		r.b.convert(so)
		if !so.op.Write {
			continue
		}
		for _, dep := range r.deps(so) {
			if !r.scope[dep] {
				r.scope[dep] = true
				queue = append(queue, dep)
				r.b.convert(dep)
			}
		}
	}
}

// unscopedLookups warns of every lookup written in the entry of an operation outside the scope
// (include): it is neither generated nor checked, and says so rather than vanish.
func (r *resolver) unscopedLookups() ir.ErrorList {
	var out ir.ErrorList
	for _, so := range r.ops {
		e := r.entries[so]
		if r.scope[so] || e == nil || e.Set["lookup"] == nil {
			continue
		}
		out = append(out, &ir.Error{Pos: r.pos(e.Set["lookup"]), Operation: so.op.ID,
			Msg: "the lookup of an operation outside the scope (include) is neither generated nor checked: include the operation, or leave the lookup out"})
	}
	return out
}

// annotated reports whether a write has answers: an entry, or defaults.
func (r *resolver) annotated(so *specOp) bool {
	return r.entries[so] != nil || r.a.Defaults != nil && r.exclude[so] == nil
}

// from returns the answers of a write that a key is taken from: its entry's, else the
// defaults'. inherited reports the second.
func (r *resolver) from(so *specOp, k string) (a *annot.Answers, inherited bool) {
	if e := r.entries[so]; e != nil && e.Set[k] != nil {
		return e, false
	}
	if d := r.a.Defaults; d != nil && d.Set[k] != nil {
		return d, true
	}
	return nil, false
}

// deps finds the operations a write's lookup and compensation name, and reports its
// placeholders: the write is in scope.
func (r *resolver) deps(so *specOp) []*specOp {
	op := so.op
	if e := r.entries[so]; e != nil {
		r.errs = append(r.errs, e.Todos...)
	}
	var deps []*specOp
	if src, _ := r.from(so, "lookup"); src != nil && src.Lookup != nil && src.Lookup.Op != "" {
		l := src.Lookup
		if lo := r.readOf(so, l.Op, l.OpNode, "lookup operation"); lo != nil {
			r.lookupOp[so] = lo
			deps = append(deps, lo)
		}
		if a := l.AdoptRead; a != nil && a.Op != "" {
			if ao := r.readOf(so, a.Op, a.OpNode, "lookup adopt"); ao != nil {
				r.adoptOp[so] = ao
				deps = append(deps, ao)
			}
		}
	}
	if src, _ := r.from(so, "compensate"); src != nil && src.Compensate != nil && src.Compensate.Op != "" {
		c := src.Compensate
		co := r.find(c.Op)
		switch {
		case co == nil:
			r.errorf(c.OpNode, op.ID, "compensation %q is not in the spec%s", c.Op, r.suggestOp(c.Op))
		case co == so:
			r.errorf(c.OpNode, op.ID, "an operation cannot compensate itself")
		case !co.op.Write:
			r.errorf(c.OpNode, op.ID, "compensation %q is a read (%s), not a write", c.Op, co.op.Method)
		case r.exclude[co] != nil:
			r.errorf(c.OpNode, op.ID, "compensation %q is excluded", c.Op)
		case !r.annotated(co):
			r.errorf(c.OpNode, op.ID, "compensation %q has no write-safety annotation", c.Op)
		default:
			r.compensateOp[so] = co
			deps = append(deps, co)
		}
	}
	return deps
}

// readOf finds the read an answer of so names (what, for messages: "lookup operation"), or
// reports why it is none: not in the spec, so itself, a write (unless its entry says read_only),
// or excluded.
func (r *resolver) readOf(so *specOp, name string, n *yaml.Node, what string) *specOp {
	ro := r.find(name)
	switch {
	case ro == nil:
		r.errorf(n, so.op.ID, "%s %q is not in the spec%s", what, name, r.suggestOp(name))
	case ro == so:
		r.errorf(n, so.op.ID, "an operation cannot be its own lookup")
	case ro.op.Write && !(r.entries[ro] != nil && r.entries[ro].Effect == runtime.EffectReadOnly):
		r.errorf(n, so.op.ID, "%s %q is not a read (%s): a search sent as %s is a lookup once its entry says effect: read_only", what, name, ro.op.Method, ro.op.Method)
	case r.exclude[ro] != nil:
		r.errorf(n, so.op.ID, "%s %q is excluded", what, name)
	default:
		return ro
	}
	return nil
}

func src0(from func(string) *annot.Answers, k string) *yaml.Node {
	if a := from(k); a != nil {
		return a.Set[k]
	}
	return nil
}

// key copies a parsed key for one write and settles its scope: key.scope, or the entry's name
// normalised. Two writes never share a key scope.
func (r *resolver) key(so *specOp, k *ir.Key, at *annot.Answers) *ir.Key {
	out := &ir.Key{TypeName: so.op.GoName + "Key", Format: k.Format, Fields: slices.Clone(k.Fields),
		Scope: k.Scope, ScopePos: k.ScopePos, Pos: k.Pos, FormatPos: k.FormatPos}
	for _, p := range k.Parts {
		if p.Field != nil {
			i := slices.IndexFunc(k.Fields, func(f ir.KeyField) bool { return f.Name == p.Field.Name })
			p.Field = &out.Fields[i]
		}
		out.Parts = append(out.Parts, p)
	}
	if out.Scope == "" {
		name := so.op.ID
		if at.ID != "" {
			name = at.ID
		}
		out.ScopePos = r.pos(r.entryNode(so))
		if out.Scope = annot.NormalScope(name); out.Scope == "" {
			r.errorAt(out.ScopePos, so.op.ID, "the name %q makes no key scope: write key.scope (lower-case letters, digits, '.', '_', '-')", name)
			return out
		}
	}
	if prev := r.keyScopes[out.Scope]; prev != nil {
		r.errorAt(out.ScopePos, so.op.ID, "key scope %q is also the key scope of %q (%s): two writes with one key scope share provider keys and ledger rows; give this one its own key.scope",
			out.Scope, prev.ID, prev.Safety.Key.ScopePos)
	} else {
		r.keyScopes[out.Scope] = so.op
	}
	return out
}

// entryNode is the key naming a write's entry, or the defaults key when it has none.
func (r *resolver) entryNode(so *specOp) *yaml.Node {
	if e := r.entries[so]; e != nil {
		return e.At
	}
	return r.a.Defaults.At
}

// bodyPath resolves a pointer to a string of the request body that the generated code fills in.
func (r *resolver) bodyPath(so *specOp, n *yaml.Node, what, ptr string) *ir.Path {
	body := so.op.Body
	switch {
	case body == nil:
		r.errorf(n, so.op.ID, "%s %q: the operation has no request body", what, ptr)
		return nil
	case body.Encoding == ir.BodyRaw:
		r.errorf(n, so.op.ID, "%s %q: the request body is raw bytes of %s, which writegen does not fill in", what, ptr, body.ContentType)
		return nil
	}
	p, why := ir.ResolvePath(body.Type, ptr, ir.SetPath)
	if why != "" {
		r.errorf(n, so.op.ID, "%s %q does not resolve in the request body: %s", what, ptr, why)
		return nil
	}
	if len(p.Steps) == 0 {
		r.errorf(n, so.op.ID, "%s %q is the whole body: point at a string field", what, ptr)
		return nil
	}
	last := p.Steps[len(p.Steps)-1]
	u := ir.Under(p.Type)
	ok := false
	switch {
	case ir.StringVariant(p.Type) != nil: // a oneOf/anyOf with a string member, set to that member
		ok = true
	case last.Kind == ir.StepField && last.Field.Pointer:
		ok = p.Type.Kind == ir.RefBuiltin && p.Type.Builtin == "string"
	default:
		ok = ir.IsStringType(p.Type) || u.Kind == ir.RefBuiltin && u.Builtin == "any"
	}
	if !ok {
		r.errorf(n, so.op.ID, "%s %q is %s, not a string: writegen stores a string there", what, ptr, ir.DescribeRef(p.Type))
		return nil
	}
	p.Pos = r.pos(n)
	return p
}

// reference checks where the reference is stored and what it is.
func (r *resolver) reference(so *specOp, ra *annot.ReferenceAnswer, s *ir.Safety) *ir.Reference {
	ref := &ir.Reference{Query: ra.Query, Pos: r.pos(ra.Node)}
	switch {
	case ra.Body != "" && ra.ThroughNode != nil:
		ref.Body = r.throughPath(so, ra, ref)
	case ra.Body != "":
		if u := unionOnPath(so.op.Body, ra.Body); u != nil {
			r.errorf(ra.BodyNode, so.op.ID, "reference body %q goes through %s, a oneOf/anyOf: name the variant the reference is stored in with reference.through (one of: %s); calls that send another variant then carry no reference",
				ra.Body, u.Name, strings.Join(variantNames(u), ", "))
			break
		}
		ref.Body = r.bodyPath(so, ra.BodyNode, "reference body", ra.Body)
	}
	if ra.ValueNode != nil && ra.Value != "" {
		parts, err := annot.KeyTemplate(ra.Value, s.Key.Fields)
		if err != "" {
			r.errorf(ra.ValueNode, so.op.ID, "reference value %s", err)
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
func (r *resolver) throughPath(so *specOp, ra *annot.ReferenceAnswer, ref *ir.Reference) *ir.Path {
	id, body := so.op.ID, so.op.Body
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
func (r *resolver) marker(so *specOp, ra *annot.ReferenceAnswer, ref *ir.Reference) {
	id := so.op.ID
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
func (r *resolver) sets(so *specOp, s *ir.Safety) {
	add := func(body *ir.Path, query string, v ir.SetValue, n ir.Pos) {
		for _, old := range s.Sets {
			same := body != nil && old.Body != nil && body.Pointer == old.Body.Pointer || query != "" && query == old.Query
			if !same {
				continue
			}
			if old.Value != v && s.Reference.Value != nil {
				r.errorAt(n, so.op.ID, "the reference is stored where the idempotency key goes: store it elsewhere, or leave out its value")
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

// idPath resolves a receipt's id pointer in the 2xx body, or in its object (response.object):
// it must end at a string or an integer.
func (r *resolver) idPath(so *specOp, s *ir.Safety, n *yaml.Node, ptr string) *ir.Path {
	resp := so.op.Response
	if resp.Type == nil || resp.ContentType != "" && isBytes(resp.Type) {
		r.errorf(n, so.op.ID, "receipt id %q: the %s response has no JSON body", ptr, statusText(resp.Status))
		return nil
	}
	root, where := resp.Type, "the "+statusText(resp.Status)+" response"
	if obj := s.Object; obj != nil {
		root, where = obj.Type, "the receipt's object at "+obj.Pointer+" ("+ir.DescribeRef(obj.Type)+")"
	}
	p, why := ir.ResolvePath(root, ptr, ir.ReadPath)
	if why != "" {
		r.errorf(n, so.op.ID, "receipt id %q does not resolve in %s: %s", ptr, where, why)
		return nil
	}
	if !ir.IsStringType(p.Type) && !ir.IsIntegerType(p.Type) {
		r.errorf(n, so.op.ID, "receipt id %q is %s in %s, not a string or an integer", ptr, ir.DescribeRef(p.Type), where)
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
func (r *resolver) envelope(so *specOp, e *annot.EnvelopeAnswer, s *ir.Safety) bool {
	id, resp := so.op.ID, so.op.Response
	at := e.ObjectNode
	for _, n := range []*yaml.Node{e.OKNode, e.ErrTextNode} {
		if at == nil {
			at = n
		}
	}
	if resp.Type == nil || isBytes(resp.Type) {
		r.errorf(at, id, "response: the %s response has no JSON body to find the receipt in", statusText(resp.Status))
		return false
	}
	where := "the " + statusText(resp.Status) + " response (" + ir.DescribeRef(resp.Type) + ")"
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

func isBytes(t *ir.TypeRef) bool { return t.Kind == ir.RefBuiltin && t.Builtin == "[]byte" }

func statusText(status int) string {
	if status == 0 {
		return "default"
	}
	return fmt.Sprint(status)
}

// readAttempts is how many times a read is attempted at most; a read_only write without a retry
// answer is retried like a read.
const readAttempts = 3

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

// lookup checks a lookup answer: the reference reaches the provider with the write, the lookup
// is called with it, and what it finds has the write's response type.
func (r *resolver) lookup(so *specOp, l *annot.LookupAnswer, s *ir.Safety) *ir.Lookup {
	id := so.op.ID
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
		out.Name, out.QueryName = so.op.Local+"Lookup", so.op.GoName+"Lookup"
		out.Values = r.funcValues(so, s)
		return out
	}
	resp := so.op.Response
	if resp.Type == nil || isBytes(resp.Type) {
		r.errorf(l.Node, id, "lookup operation %q: the write answers with no JSON body, so no response of the lookup has its type: write the lookup by hand (lookup: {func: ...})", l.Op)
		return nil
	}
	lo := r.lookupOp[so]
	if lo == nil {
		return nil // reported when the scope was decided
	}
	read := lo.op
	out.Operation = read
	out.Name = so.op.Local + "Lookup"
	before := len(r.errs)
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
	if l.Escape != "" && len(r.errs) == before && !r.escaped(so, l, out) {
		return nil
	}
	rr := read.Response
	if rr.Type == nil || isBytes(rr.Type) {
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
	if !passes && !slices.ContainsFunc(pathSteps(out.Found), func(st ir.Step) bool { return st.Kind == ir.StepEach }) && len(r.errs) == before {
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
func (r *resolver) sameObject(so *specOp, l *annot.LookupAnswer, s *ir.Safety, found *ir.Path, out *ir.Lookup) bool {
	id, resp := so.op.ID, so.op.Response
	want, what := resp.Type, so.op.ID+" answers with "+ir.DescribeRef(resp.Type)
	if s.Object != nil {
		want, what = s.Object.Type, "the receipt's object at "+s.Object.Pointer+" in the answer of "+so.op.ID+" is "+ir.DescribeRef(s.Object.Type)
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
func (r *resolver) copies(so *specOp, l *annot.LookupAnswer, s *ir.Safety, found *ir.Path, out *ir.Lookup, want *ir.TypeRef, what string) bool {
	id := so.op.ID
	if ir.SameType(found.Type, want) || ir.SameType(found.Type, so.op.Response.Type) {
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
func (r *resolver) escaped(so *specOp, l *annot.LookupAnswer, out *ir.Lookup) bool {
	id := so.op.ID
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

// walk checks how a lookup picks the write's effects out of a list and how far it walks it:
// match and since in the found element, pages through the read's response and parameters.
func (r *resolver) walk(so *specOp, l *annot.LookupAnswer, s *ir.Safety, out *ir.Lookup, found *ir.Path) bool {
	id, read := so.op.ID, out.Operation
	if l.MatchNode == nil && l.Pages == nil && l.SinceNode == nil {
		return true
	}
	if (l.Pages != nil || l.SinceNode != nil) && !slices.ContainsFunc(pathSteps(out.Found), func(st ir.Step) bool { return st.Kind == ir.StepEach }) {
		at := l.SinceNode
		if at == nil {
			at = pagesNode(l.Pages)
		}
		r.errorf(at, id, "pages and since walk a list, but found %q is not an element of one: point found at an element of a list (like /comments/0)", pointerOf(out.Found))
		return false
	}
	ok := true
	elem := found.Type
	// in resolves a pointer into the found element (or, for the cursor, the read's response) that
	// the generated code reads field by field.
	in := func(root *ir.TypeRef, ptr string, n *yaml.Node, what, where string) *ir.Path {
		p, why := ir.ResolvePath(root, ptr, ir.ReadPath)
		if why == "" && len(p.Steps) == 0 {
			why = "it is the whole " + where
		}
		if why == "" && slices.ContainsFunc(p.Steps, func(st ir.Step) bool { return st.Kind == ir.StepUnion || st.Kind == ir.StepEach }) {
			why = "it goes through a oneOf/anyOf, whose fields are known only once decoded: its As methods decode any variant leniently, so a match through it could adopt an object of another variant"
		}
		if why != "" {
			r.errorf(n, id, "lookup %s %q does not resolve in %s: %s", what, ptr, where, why)
			ok = false
			return nil
		}
		p.Pos = r.pos(n)
		return p
	}
	elemWhere := "the found element (" + ir.DescribeRef(elem) + ")"
	if l.MatchNode != nil {
		if p := in(elem, l.Match, l.MatchNode, "match", elemWhere); p != nil {
			if !ir.IsStringType(p.Type) {
				r.errorf(l.MatchNode, id, "lookup match %q is %s in the found element, not a string: the client compares it with the reference", l.Match, ir.DescribeRef(p.Type))
				ok = false
			} else {
				out.Match = p
			}
		}
	}
	if l.SinceNode != nil {
		if p := in(elem, l.Since, l.SinceNode, "since", elemWhere); p != nil {
			if u := ir.Under(p.Type); !ir.IsStringType(p.Type) && !ir.IsIntegerType(p.Type) && !(u.Kind == ir.RefBuiltin && u.Builtin == "time.Time") {
				r.errorf(l.SinceNode, id, "lookup since %q is %s in the found element: want when the element was created, a date-time string or an integer of Unix seconds", l.Since, ir.DescribeRef(p.Type))
				ok = false
			} else {
				out.Since = p
			}
		}
	}
	if pa := l.Pages; pa != nil && pa.ParamNode != nil && pa.Max >= 1 && (pa.CursorNode == nil || pa.Cursor != "") {
		pg := &ir.Pages{Max: pa.Max, Start: pa.Start, Pos: r.pos(pa.Node)}
		if pa.CursorNode == nil {
			// by page number
		} else if p := in(read.Response.Type, pa.Cursor, pa.CursorNode, "pages.cursor", "the response of "+strconv.Quote(read.ID)); p != nil {
			if !ir.IsStringType(p.Type) {
				r.errorf(pa.CursorNode, id, "lookup pages.cursor %q is %s in the response of %q, not a string cursor", pa.Cursor, ir.DescribeRef(p.Type), read.ID)
				ok = false
			}
			pg.Cursor = p
		}
		for _, q := range read.Params {
			if q.Name == pa.Param {
				pg.Param = q
			}
		}
		switch {
		case pg.Param == nil:
			r.errorf(pa.ParamNode, id, "lookup pages.param %q is not a parameter of %q: the cursor must be passed to the read as one of its parameters%s", pa.Param, read.ID, annot.Suggest(pa.Param, paramNames(read)))
			ok = false
		case pg.Param.In != ir.InQuery:
			r.errorf(pa.ParamNode, id, "lookup pages.param %q is a %s parameter of %q: the cursor goes into a query parameter", pa.Param, pg.Param.In, read.ID)
			ok = false
		case pg.Cursor == nil && pa.CursorNode == nil && !(ir.IsIntegerType(pg.Param.Type) && ir.Under(pg.Param.Type).Kind == ir.RefBuiltin):
			r.errorf(pa.ParamNode, id, "lookup pages.param %q is %s: without a cursor the walk goes by page number, and passes an integer (give pages.cursor for a walk by cursor)", pa.Param, ir.DescribeRef(pg.Param.Type))
			ok = false
		case pa.CursorNode != nil && !ir.IsStringType(pg.Param.Type):
			r.errorf(pa.ParamNode, id, "lookup pages.param %q is %s, not a string: the cursor is passed as it came", pa.Param, ir.DescribeRef(pg.Param.Type))
			ok = false
		case slices.ContainsFunc(l.Params, func(g annot.TemplateAnswer) bool { return g.Name == pa.Param }):
			r.errorf(pa.ParamNode, id, "lookup pages.param %q is also given in params: the walk sets it from the cursor", pa.Param)
			ok = false
		}
		out.Pages = pg
	} else if pa != nil {
		ok = false // refused where it is written
	}
	return ok
}

func pagesNode(p *annot.PagesAnswer) *yaml.Node {
	if p == nil {
		return nil
	}
	return p.Node
}

func pointerOf(p *ir.Path) string {
	if p == nil {
		return ""
	}
	return p.Pointer
}

func paramNames(op *ir.Operation) []string {
	var out []string
	for _, q := range op.Params {
		out = append(out, q.Name)
	}
	return out
}

// lookupTemplates resolves the parameters a lookup passes, each a template over the reference
// (the placeholder hole: {ref}, or {id} for a read that adopts) and the values of the write
// ({NAME}: a required path or query parameter of the write, or a field of its key), or a
// constant of the parameter's own type. It returns the values used, sorted by name, and whether
// a template holds the placeholder. With hole "" (and s nil) it resolves constants only, and
// needs no required parameter (newest_first).
func (r *resolver) lookupTemplates(so *specOp, s *ir.Safety, read *ir.Operation, given []annot.TemplateAnswer, at *yaml.Node, hole string) ([]*ir.Template, []*ir.LookupValue, bool) {
	id := so.op.ID
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
func (r *resolver) lookupValue(so *specOp, s *ir.Safety, name string, n *yaml.Node) (*ir.LookupValue, string) {
	v := &ir.LookupValue{Name: name, Pos: r.pos(n)}
	for _, q := range so.op.Params {
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
		return nil, fmt.Sprintf("{%s} is both a parameter of %s and a field of its key: name the key field otherwise", name, so.op.ID)
	case v.Field != nil:
		v.Integer = v.Field.Type == "int64"
	case v.Param != nil:
		switch u := ir.Under(v.Param.Type); {
		case !v.Param.Required:
			return nil, fmt.Sprintf("{%s} is an optional parameter of %s: a lookup value must be known to every call, so only a required one may travel with the reference", name, so.op.ID)
		case ir.IsIntegerType(v.Param.Type) && u.Kind == ir.RefBuiltin:
			v.Integer = true
		case !ir.IsStringType(v.Param.Type) || u.Kind != ir.RefBuiltin && u.Kind != ir.RefNamed:
			return nil, fmt.Sprintf("{%s} is %s, a parameter of %s that cannot travel with the reference: only a string or an integer can", name, ir.DescribeRef(v.Param.Type), so.op.ID)
		}
	default:
		names := paramNames(so.op)
		if s.Key != nil {
			for _, f := range s.Key.Fields {
				names = append(names, f.Name)
			}
		}
		return nil, fmt.Sprintf("{%s} is neither {ref} nor a path or query parameter of %s nor a field of its key%s", name, so.op.ID, annot.Suggest(name, names))
	}
	return v, ""
}

// templates resolves the parameters a lookup or a compensation passes, each a template with the
// placeholder hole. It reports whether one of them holds the placeholder.
func (r *resolver) templates(so *specOp, target *ir.Operation, given []annot.TemplateAnswer, at *yaml.Node, hole, what string) ([]*ir.Template, bool) {
	id := so.op.ID
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

// compensation checks a compensation: an idempotent write without a business key, called for
// each duplicate a lookup finds, with the duplicate's id where "{id}" is written.
func (r *resolver) compensation(so *specOp, c *annot.CompensateAnswer, s *ir.Safety) *ir.Compensation {
	id := so.op.ID
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
	out := &ir.Compensation{Operation: co.op, Name: so.op.Local + "Compensate", Pos: r.pos(c.Node)}
	effect, _ := r.from(co, "effect")
	key, _ := r.from(co, "key")
	if effect == nil || effect.Effect == 0 || effect.Bad["effect"] {
		return nil // the compensation's own entry is refused for it
	}
	if effect.Effect != runtime.EffectIdempotent || key != nil && key.Key != nil {
		r.errorf(c.OpNode, id, "compensation %q is called once for each duplicate and may be called again: it must be an idempotent write without a business key", co.op.ID)
		return nil
	}
	if co.op.Body != nil && co.op.Body.Required {
		r.errorf(c.OpNode, id, "compensation %q takes a request body: a compensation passes parameters only", co.op.ID)
		return nil
	}
	var holds bool
	out.Params, holds = r.templates(so, co.op, c.Params, c.OpNode, "{id}", "compensation")
	if holds && s.ID == nil {
		r.errorf(c.Node, id, "compensation params use {id}, the duplicate's durable id, but the write's answer is not a receipt with an id")
	}
	return out
}

func pathSteps(p *ir.Path) []ir.Step {
	if p == nil {
		return nil
	}
	return p.Steps
}

// inbox records the inbox a write declares; writes that name one source must declare it alike.
func (r *resolver) inbox(so *specOp, in *ir.Inbox) *ir.Inbox {
	prev := r.inboxes[in.Source]
	if prev == nil {
		c := *in
		r.inboxes[in.Source] = &c
		prev = &c
	} else if prev.Retention != in.Retention || prev.Order != in.Order {
		r.errorAt(in.Pos, so.op.ID, "inbox %q is declared with other answers at %s: one source has one inbox", in.Source, prev.Pos)
	}
	prev.Writes = append(prev.Writes, so.op)
	return prev
}

// dropKeyParam removes the parameter the idempotency key travels in: the generated code sets it
// from the provider key, so callers never pass it.
func (r *resolver) dropKeyParam(so *specOp) {
	idem := so.op.Safety.Idempotency
	if idem == nil {
		return
	}
	so.op.Params = slices.DeleteFunc(so.op.Params, func(p *ir.Param) bool {
		return idem.Header != "" && p.In == ir.InHeader && strings.EqualFold(p.Name, idem.Header) ||
			idem.Query != "" && p.In == ir.InQuery && p.Name == idem.Query
	})
}
