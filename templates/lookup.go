package templates

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec"
)

// lookupSignature is the signature every lookup of op has:
//
//	findThreadByReference(ctx context.Context, reference string) (*runtime.Found[Thread], error)
func (g *generator) lookupSignature(op *spec.Operation, name string) *jen.Statement {
	return jen.Id(name).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("reference").String()).
		Params(jen.Op("*").Add(rt("Found")).Types(g.resultType(op)), jen.Error())
}

// lookupCheck emits the compile-time check of a lookup the user writes by hand. A missing or
// mistyped method fails to compile with a message that shows this signature:
//
//	var _ interface {
//		findThreadByReference(ctx context.Context, reference string) (*runtime.Found[Thread], error)
//	} = (*Client)(nil)
func (g *generator) lookupCheck(f *jen.File, op *spec.Operation) {
	name := op.Safety.Lookup.Func
	f.Line()
	f.Comment(comment(op.GoName + " looks up what it committed with " + name + ", a method of Client written by hand in a file of this package. This declaration fails to compile until that method exists with this signature."))
	f.Var().Id("_").Interface(g.lookupSignature(op, name)).Op("=").Parens(jen.Op("*").Id("Client")).Call(jen.Nil())
}

// generatedLookup emits the lookup of a write that names a read of the spec: it calls the read
// with the reference in its parameters and takes the found object from the response.
//
//	func (c *Client) createThreadLookup(ctx context.Context, reference string) (*runtime.Found[Thread], error) {
//		res, err := c.SearchThreads(ctx, SearchThreadsParams{Query: "ref:" + reference})
//		if err != nil {
//			return nil, err
//		}
//		if len(res.Data) == 0 {
//			return nil, nil
//		}
//		body := &res.Data[0]
//		id := body.ID
//		return &runtime.Found[Thread]{Body: body, ID: id}, nil
//	}
//
// When the found object is the whole response, a 404 means not found.
func (g *generator) generatedLookup(f *jen.File, op *spec.Operation) {
	l := op.Safety.Lookup
	read := l.Operation
	fail := func(format string, args ...any) {
		g.fail(op.Safety.Pos, op.ID, "lookup %s: "+format, append([]any{read.ID}, args...)...)
	}
	if callOf(read) != callRead || !hasResult(read) {
		fail("not a read with a response body")
		return
	}
	if read.Body != nil {
		fail("takes a request body; a generated lookup fills in parameters only")
		return
	}
	var stmts []jen.Code
	args := []jen.Code{jen.Id("ctx")}
	if hasParams(read) {
		values, pre, ok := g.lookupParams(read, l, fail)
		if !ok {
			return
		}
		stmts = append(stmts, pre...)
		args = append(args, jen.Id(paramsName(read)).Custom(multiLine, values...))
	}
	stmts = append(stmts, jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot(read.GoName).Call(args...))
	onErr := []jen.Code{jen.Return(jen.Nil(), jen.Err())}
	if l.Found == "" {
		onErr = append([]jen.Code{
			jen.Var().Id("se").Op("*").Add(rt("StatusError")),
			jen.If(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("se")).Op("&&").Id("se").Dot("Status").Op("==").Qual("net/http", "StatusNotFound")).Block(
				jen.Return(jen.Nil(), jen.Nil()),
			),
		}, onErr...)
	}
	stmts = append(stmts, jen.If(jen.Err().Op("!=").Nil()).Block(onErr...))

	res := func() *jen.Statement { return jen.Id("res") }
	found, err := g.walk(res, read.Response.Type, !nilable(read.Response.Type), l.Found)
	if err != "" {
		fail("found %s: %s", l.Found, err)
		return
	}
	for _, c := range found.checks {
		stmts = append(stmts, jen.If(c.missing).Block(jen.Return(jen.Nil(), jen.Nil())))
	}
	T := op.Response.Type
	if T == nil {
		fail("the write %s has no response body to adopt", op.ID)
		return
	}
	switch {
	case sameType(found.typ, T) && found.ptr:
		stmts = append(stmts, jen.Id("body").Op(":=").Add(found.expr()))
	case sameType(found.typ, T):
		stmts = append(stmts, jen.Id("body").Op(":=").Op("&").Add(found.expr()))
	default: // another type: re-decode
		stmts = append(stmts,
			jen.List(jen.Id("data"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(found.expr()),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("body").Op(":=").New(goType(T)),
			jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Id("body")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err()),
			),
		)
	}
	idStmts, ok := g.foundID(op, fail)
	if !ok {
		return
	}
	stmts = append(stmts, idStmts...)
	stmts = append(stmts, jen.Return(jen.Op("&").Add(rt("Found")).Types(goType(T)).Values(jen.Dict{
		jen.Id("ID"):   jen.Id("id"),
		jen.Id("Body"): jen.Id("body"),
	}), jen.Nil()))

	f.Line()
	f.Comment(comment(g.local[op] + "Lookup finds the " + op.ID + " whose reference is reference, with " + read.GoName +
		". It returns nil when there is none."))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Add(g.lookupSignature(op, g.local[op]+"Lookup")).Block(stmts...)
}

// lookupParams returns the fields of the read's parameter struct, with "{ref}" in each
// template replaced by the reference, and the statements that declare the values held through
// pointers.
func (g *generator) lookupParams(read *spec.Operation, l *spec.Lookup, fail func(string, ...any)) (values, pre []jen.Code, ok bool) {
	given := map[string]string{}
	for _, lp := range l.Params {
		given[lp.Name] = lp.Template
	}
	for _, p := range read.Params {
		tmpl, ok := given[p.Name]
		if !ok {
			if p.Required || p.In == spec.InPath {
				fail("required parameter %q has no value in the lookup's params", p.Name)
				return nil, nil, false
			}
			continue
		}
		delete(given, p.Name)
		var parts []jen.Code
		for i, lit := range strings.Split(tmpl, "{ref}") {
			if i > 0 {
				parts = append(parts, jen.Id("reference"))
			}
			if lit != "" {
				parts = append(parts, jen.Lit(lit))
			}
		}
		value := join(parts, "+")
		h := paramHolding(p)
		if h.ptr && tmpl == "{ref}" && p.Type.Kind == spec.RefBuiltin {
			values = append(values, jen.Id(p.GoName).Op(":").Op("&").Id("reference"))
			continue
		}
		switch u := under(p.Type); {
		case isString(p.Type):
			if p.Type.Kind != spec.RefBuiltin {
				value = goType(p.Type).Call(value)
			}
		case u.Kind == spec.RefArray && isString(u.Elem):
			value = goType(p.Type).Values(value)
		default:
			fail("parameter %q is %s, not a string", p.Name, describe(p.Type))
			return nil, nil, false
		}
		if h.ptr {
			v := "arg" + strconv.Itoa(len(pre))
			pre = append(pre, jen.Id(v).Op(":=").Add(value))
			value = jen.Op("&").Id(v)
		}
		values = append(values, jen.Id(p.GoName).Op(":").Add(value))
	}
	for _, lp := range l.Params { // in order, for a stable message
		if _, left := given[lp.Name]; left {
			fail("has no parameter %q", lp.Name)
			return nil, nil, false
		}
	}
	return values, pre, true
}

// foundID returns the statements that set id to the durable id of body, the found object, at
// the write's id pointer ("" when body has none there, or the write has no id pointer).
//
//	id := body.ID
func (g *generator) foundID(op *spec.Operation, fail func(string, ...any)) ([]jen.Code, bool) {
	ptr := op.Safety.IDPointer
	if ptr == "" {
		return []jen.Code{jen.Id("id").Op(":=").Lit("")}, true
	}
	w, err := g.walk(func() *jen.Statement { return jen.Id("body") }, op.Response.Type, true, ptr)
	if err != "" {
		fail("id %s: %s", ptr, err)
		return nil, false
	}
	v := w.expr
	if w.ptr {
		v = func() *jen.Statement { return jen.Op("*").Add(w.expr()) }
		w.checks = append(w.checks, check{present: w.expr().Op("!=").Nil()})
	}
	var value jen.Code
	switch u := under(w.typ); {
	case isString(w.typ) && w.typ.Kind == spec.RefBuiltin:
		value = v()
	case isString(w.typ):
		value = jen.String().Call(v())
	case u.Kind == spec.RefBuiltin && (u.Builtin == "int64" || u.Builtin == "int32"):
		value = jen.Qual("strconv", "FormatInt").Call(jen.Int64().Call(v()), jen.Lit(10))
	default:
		fail("id %s is %s, not a string or an integer", ptr, describe(w.typ))
		return nil, false
	}
	if len(w.checks) == 0 {
		return []jen.Code{jen.Id("id").Op(":=").Add(value)}, true
	}
	set := jen.Id("id").Op("=").Add(value)
	for i := len(w.checks) - 1; i >= 0; i-- {
		set = jen.If(w.checks[i].present).Block(set)
	}
	return []jen.Code{jen.Var().Id("id").String(), set}, true
}

// check is one condition a walk needs: missing when the value is absent, present when not.
type check struct {
	missing, present jen.Code
}

// walked is where a walk along a JSON pointer ended.
type walked struct {
	expr   func() *jen.Statement // the value reached
	typ    *spec.TypeRef         // its type
	ptr    bool                  // expr is a pointer to typ
	checks []check               // the conditions on the way, in order
}

// walk follows the JSON pointer ptr from root, a value of type r (a pointer to it when ptr is
// true), through struct fields and array indexes. err says why it cannot.
func (g *generator) walk(root func() *jen.Statement, r *spec.TypeRef, isPtr bool, ptr string) (walked, string) {
	segs, ok := splitPointer(ptr)
	if !ok {
		return walked{}, "not a JSON pointer"
	}
	w := walked{expr: root, typ: r, ptr: isPtr}
	for _, seg := range segs {
		u := under(w.typ)
		prev := w.expr
		switch {
		case u.Kind == spec.RefNamed && u.Named.Kind == spec.KindStruct:
			var fl *spec.Field
			for _, x := range u.Named.Fields {
				if x.Name == seg {
					fl = x
				}
			}
			if fl == nil {
				return walked{}, fmt.Sprintf("%s has no property %q", u.Named.Name, seg)
			}
			h := g.fieldHolding(fl)
			w.expr = func() *jen.Statement { return prev().Dot(fl.GoName) }
			w.typ, w.ptr = fl.Type, h.ptr
			if h.ptr {
				w.checks = append(w.checks, check{missing: w.expr().Op("==").Nil(), present: w.expr().Op("!=").Nil()})
			}
		case u.Kind == spec.RefArray:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || strconv.Itoa(n) != seg {
				return walked{}, fmt.Sprintf("%q is not an array index", seg)
			}
			slice := prev
			if w.ptr {
				slice = func() *jen.Statement { return jen.Parens(jen.Op("*").Add(prev())) }
			}
			missing := jen.Len(slice()).Op("<=").Lit(n)
			if n == 0 {
				missing = jen.Len(slice()).Op("==").Lit(0)
			}
			w.checks = append(w.checks, check{missing: missing, present: jen.Len(slice()).Op(">").Lit(n)})
			w.expr = func() *jen.Statement { return slice().Index(jen.Lit(n)) }
			w.typ, w.ptr = u.Elem, false
		default:
			return walked{}, fmt.Sprintf("cannot go into %s", describe(w.typ))
		}
	}
	return w, ""
}

// sameType reports whether a and b are the same Go type.
func sameType(a, b *spec.TypeRef) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case spec.RefNamed:
		return a.Named == b.Named
	case spec.RefBuiltin:
		return a.Builtin == b.Builtin
	}
	return sameType(a.Elem, b.Elem)
}
