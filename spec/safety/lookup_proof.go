package safety

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// A lookup is evidence, never an oracle (promises 47-51). The checks below hold a generated
// lookup to what the runtime can prove with it: what it finds carries the write's reference
// (matchOf), a walk bounded by the write's time asks for the list newest first by params the
// spec has (newestFirst), and an object adopted by another read is read by the found element's
// id (adoptBy).

// matchOf sets the field of the found element that carries the write's reference: match as
// written, or else the field the write stores its reference in, found in the element by the same
// pointer or by the pointer without its first segment (the request's envelope: Zendesk sends
// {ticket: {external_id}} and finds tickets). A lookup whose element shows no such field is
// refused: a search matches loosely, and only the reference, compared on the client, tells the
// write's effect from another's.
func (r *Resolver) matchOf(so *build.Op, l *annot.LookupAnswer, s *ir.Safety, out *ir.Lookup, found *ir.Path) bool {
	if out.Match != nil || l.MatchNode != nil {
		return out.Match != nil
	}
	var ref *ir.Path
	switch {
	case s.Reference != nil && s.Reference.Body != nil:
		ref = s.Reference.Body
	case s.Reference == nil && s.Idempotency != nil && s.Idempotency.Body != nil:
		ref = s.Idempotency.Body
	}
	what := "the write stores its reference in a query parameter"
	if ref != nil {
		segs := ir.SplitPointer(ref.Pointer)
		for i := 0; i < len(segs) && i < 2; i++ {
			ptr := "/" + strings.Join(escapeSegments(segs[i:]), "/")
			p, why := ir.ResolvePath(found.Type, ptr, ir.ReadPath)
			if why == "" && len(p.Steps) > 0 && ir.IsStringType(p.Type) && !slices.ContainsFunc(p.Steps, func(st ir.Step) bool {
				return st.Kind == ir.StepUnion || st.Kind == ir.StepEach
			}) {
				p.Pos = out.Pos
				out.Match, out.MatchDerived = p, true
				return true
			}
		}
		what = "the write stores its reference at " + ref.Pointer + ", which is no string field of it"
	}
	at := l.FoundNode
	if at == nil {
		at = l.OpNode
	}
	r.errorf(at, so.Op.ID, "lookup %s finds %s, and %s: add match: with the pointer to the field of the found element that holds the reference, so that the client keeps only the write's own effects (a search matches loosely, and another write's effect must never be adopted)",
		out.Operation.ID, ir.DescribeRef(found.Type), what)
	return false
}

// newestFirst checks the read's params that ask for the list newest first: a walk that stops at
// the write's time (since) needs them, each a query parameter of the read that the spec lists
// the value of, so that what the lookup sends asks for that order; the runtime checks the order
// of every page it reads.
func (r *Resolver) newestFirst(so *build.Op, l *annot.LookupAnswer, out *ir.Lookup) bool {
	id, read := so.Op.ID, out.Operation
	if l.NewestNode == nil {
		if out.Since == nil {
			return true
		}
		if !slices.ContainsFunc(read.Params, func(q *ir.Param) bool {
			u := ir.Under(q.Type)
			return q.In == ir.InQuery && u.Kind == ir.RefNamed && u.Named.Kind == ir.KindEnum
		}) {
			r.errorf(l.SinceNode, id, "lookup since %q stops the walk at the write's time, which proves nothing unless the list is newest first, and %s has no query parameter whose values the spec lists to ask for that order: it cannot be walked back to the write's time; walk a read that can be asked for newest first (newest_first), walk this one to its end without since (pages), or write the lookup by hand (lookup.func)", l.Since, read.ID)
			return false
		}
		r.errorf(l.SinceNode, id, "lookup since %q stops the walk at the write's time, which proves nothing unless the list is newest first: give newest_first: with the params of %s that ask for that order (like {sort: created, direction: desc}); writegen checks them against the spec and the runtime checks the order of every page", l.Since, read.ID)
		return false
	}
	if out.Since == nil {
		r.errorf(l.NewestNode, id, "lookup newest_first asks for the list newest first, which only a walk bounded by the write's time needs: add since: with when each element was created, or leave newest_first out")
		return false
	}
	before := len(r.Errs)
	ts, _, _ := r.lookupTemplates(so, nil, read, l.NewestFirst, l.NewestNode, "")
	ok := len(r.Errs) == before
	for _, t := range ts {
		at := templateNode(l.NewestFirst, t.Param.Name, l.NewestNode)
		switch u := ir.Under(t.Param.Type); {
		case slices.ContainsFunc(l.Params, func(g annot.TemplateAnswer) bool { return g.Name == t.Param.Name }):
			r.errorf(at, id, "lookup newest_first %q is also given in params: give it once, in newest_first", t.Param.Name)
			ok = false
		case t.Param.In != ir.InQuery:
			r.errorf(at, id, "lookup newest_first %q is a %s parameter of %s: the order is asked for in a query parameter", t.Param.Name, t.Param.In, read.ID)
			ok = false
		case len(t.Parts) != 1 || t.Parts[0].Literal == "":
			r.errorf(at, id, "lookup newest_first %q: %q: the order is asked for with a value of the spec, not a template", t.Param.Name, t.Text)
			ok = false
		case u.Kind != ir.RefNamed || u.Named.Kind != ir.KindEnum:
			r.errorf(at, id, "lookup newest_first %q: the spec lists no values of %s's parameter %q, so writegen cannot check that %q asks for newest first: a walk bounded by the write's time needs a list the spec lets it order", t.Param.Name, read.ID, t.Param.Name, t.Text)
			ok = false
		case !slices.ContainsFunc(u.Named.Enum, func(v ir.EnumValue) bool { return fmt.Sprint(v.Value) == t.Text }):
			var values []string
			for _, v := range u.Named.Enum {
				values = append(values, fmt.Sprint(v.Value))
			}
			r.errorf(at, id, "lookup newest_first %q: %q is not one of the values the spec lists for it (%s)%s", t.Param.Name, t.Text, strings.Join(values, ", "), annot.Suggest(t.Text, values))
			ok = false
		}
	}
	out.NewestFirst = ts
	return ok
}

// adoptBy checks lookup.adopt as a read: the receipt's object is read by the id of the element
// the lookup found ({id}: the write's response.id pointer, resolved in the found element), and
// the read answers with the receipt's own schema.
func (r *Resolver) adoptBy(so *build.Op, l *annot.LookupAnswer, s *ir.Safety, out *ir.Lookup, found *ir.Path) bool {
	id, a := so.Op.ID, l.AdoptRead
	ao := r.adoptOp[so]
	if ao == nil {
		return false // reported when the scope was decided
	}
	read := ao.Op
	if s.ID == nil {
		r.errorf(a.Node, id, "lookup adopt reads the receipt by the found element's id, and the write declares no response.id")
		return false
	}
	idPtr := s.ID.Pointer
	if s.Object != nil {
		idPtr = strings.TrimPrefix(idPtr, s.Object.Pointer)
	}
	idPath, why := ir.ResolvePath(found.Type, idPtr, ir.ReadPath)
	if why != "" || len(idPath.Steps) == 0 || slices.ContainsFunc(idPath.Steps, func(st ir.Step) bool { return st.Kind == ir.StepUnion || st.Kind == ir.StepEach }) {
		if why == "" {
			why = "it reaches no field of it"
		}
		r.errorf(a.Node, id, "lookup adopt reads the receipt by {id}, the found element's %s (the write's response.id), which does not resolve in %s: %s", idPtr, ir.DescribeRef(found.Type), why)
		return false
	}
	if !ir.IsStringType(idPath.Type) && !ir.IsIntegerType(idPath.Type) {
		r.errorf(a.Node, id, "lookup adopt reads the receipt by {id}, the found element's %s, which is %s: want a string or an integer", idPtr, ir.DescribeRef(idPath.Type))
		return false
	}
	want := so.Op.Response.Type
	if !ir.SameType(read.Response.Type, want) {
		r.errorf(a.OpNode, id, "lookup adopt %s answers with %s, and %s answers with %s: the read that adopts must answer with the write's own schema", read.ID, ir.DescribeRef(read.Response.Type), id, ir.DescribeRef(want))
		return false
	}
	// The object read must show the reference too, where the found element shows it.
	matchPtr := out.Match.Pointer
	if s.Object != nil {
		matchPtr = s.Object.Pointer + matchPtr
	}
	match, why := ir.ResolvePath(read.Response.Type, matchPtr, ir.ReadPath)
	if why != "" || len(match.Steps) == 0 || !ir.IsStringType(match.Type) || slices.ContainsFunc(match.Steps, func(st ir.Step) bool { return st.Kind == ir.StepUnion || st.Kind == ir.StepEach }) {
		if why == "" {
			why = "it is no string field of it"
		}
		r.errorf(a.OpNode, id, "lookup adopt %s must answer with the reference where the found element holds it (%s), so that the object adopted is checked, not only the element found: %s", read.ID, matchPtr, why)
		return false
	}
	match.Pos = r.pos(a.Node)
	before := len(r.Errs)
	ts, _, holds := r.lookupTemplates(so, s, read, a.Params, a.OpNode, "id")
	if len(r.Errs) != before {
		return false
	}
	if !holds {
		r.errorf(a.Node, id, "lookup adopt %s must be given the found element's id: write {id} in one of its params", read.ID)
		return false
	}
	for _, t := range ts {
		for i, p := range t.Parts {
			if p.Value == nil {
				continue
			}
			// a value the lookup's params take too travels once with the reference
			if j := slices.IndexFunc(out.Values, func(v *ir.LookupValue) bool { return v.Name == p.Value.Name }); j >= 0 {
				t.Parts[i].Value = out.Values[j]
			} else {
				out.Values = append(out.Values, p.Value)
			}
		}
	}
	slices.SortFunc(out.Values, func(a, b *ir.LookupValue) int { return strings.Compare(a.Name, b.Name) })
	out.Adopt = &ir.AdoptRead{Operation: read, Params: ts, ID: idPath, Match: match, Pos: r.pos(a.Node)}
	out.Object, out.Extends, out.Copies = false, false, false
	return true
}

// funcValues are the values of the write a lookup written by hand is asked with, beside the
// reference: the write's required path and query parameters that can travel with the reference
// (a string or an integer), and its key's fields (a parameter wins over a key field of its name).
func (r *Resolver) funcValues(so *build.Op, s *ir.Safety) []*ir.LookupValue {
	var out []*ir.LookupValue
	for _, q := range so.Op.Params {
		if !q.Required || q.In != ir.InPath && q.In != ir.InQuery {
			continue
		}
		u := ir.Under(q.Type)
		v := &ir.LookupValue{Name: q.Name, Param: q, Pos: r.pos(nil)}
		switch {
		case ir.IsIntegerType(q.Type) && u.Kind == ir.RefBuiltin:
			v.Integer = true
		case !ir.IsStringType(q.Type) || u.Kind != ir.RefBuiltin && u.Kind != ir.RefNamed:
			continue
		}
		out = append(out, v)
	}
	if s.Key != nil {
		for i := range s.Key.Fields {
			f := &s.Key.Fields[i]
			if slices.ContainsFunc(out, func(v *ir.LookupValue) bool { return v.Name == f.Name }) {
				continue
			}
			out = append(out, &ir.LookupValue{Name: f.Name, Field: f, Integer: f.Type == "int64"})
		}
	}
	slices.SortFunc(out, func(a, b *ir.LookupValue) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// constantOf parses text as a constant of the parameter type t (an integer, a number or a
// boolean): a lookup param given a value of its own type (per_page: 100).
func constantOf(t *ir.TypeRef, text string) (any, bool) {
	u := ir.Under(t)
	if u.Kind == ir.RefNamed && u.Named.Kind == ir.KindEnum {
		for _, v := range u.Named.Enum {
			if fmt.Sprint(v.Value) == text {
				return v.Value, true
			}
		}
		return nil, false
	}
	if u.Kind != ir.RefBuiltin {
		return nil, false
	}
	switch u.Builtin {
	case "int64", "int32":
		n, err := strconv.ParseInt(text, 10, 64)
		return n, err == nil
	case "float64", "float32":
		f, err := strconv.ParseFloat(text, 64)
		return f, err == nil
	case "bool":
		b, err := strconv.ParseBool(text)
		return b, err == nil
	}
	return nil, false
}

// templateNode returns the node of the template named name among given, or at.
func templateNode(given []annot.TemplateAnswer, name string, at *yaml.Node) *yaml.Node {
	for _, g := range given {
		if g.Name == name {
			return g.ValueNode
		}
	}
	return at
}
