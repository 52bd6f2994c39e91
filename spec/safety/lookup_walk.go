package safety

import (
	"slices"
	"strconv"

	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// walk checks how a lookup picks the write's effects out of a list and how far it walks it:
// match and since in the found element, pages through the read's response and parameters.
func (r *Resolver) walk(so *build.Op, l *annot.LookupAnswer, s *ir.Safety, out *ir.Lookup, found *ir.Path) bool {
	id, read := so.Op.ID, out.Operation
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
