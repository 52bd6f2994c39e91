package templates

import (
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec"
)

// lookupSignature is the signature every lookup of op has:
//
//	findThreadByReference(ctx context.Context, reference string) ([]runtime.Found[*Thread], error)
func lookupSignature(op *spec.Operation, name string) *jen.Statement {
	return jen.Id(name).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("reference").String()).
		Params(jen.Index().Add(rt("Found")).Types(resultPtr(op)), jen.Error())
}

// lookupCheck emits the compile-time check of a lookup the user writes by hand. A missing or
// mistyped method fails to compile with a message that shows this signature:
//
//	var _ interface {
//		findThreadByReference(ctx context.Context, reference string) ([]runtime.Found[*Thread], error)
//	} = (*Client)(nil)
func (g *generator) lookupCheck(f *jen.File, op *spec.Operation) {
	name := op.Safety.Lookup.Func
	f.Line()
	f.Comment(comment(op.GoName + " looks up what it committed with " + name + ", a method of Client written by hand in a file of this package: it returns every effect it finds for the reference, in the provider's order. This declaration fails to compile until that method exists with this signature."))
	f.Var().Id("_").Interface(lookupSignature(op, name)).Op("=").Parens(jen.Op("*").Id("Client")).Call(jen.Nil())
}

// generatedLookup emits the lookup of a write that names a read of the spec: it calls the read
// with the reference in its parameters (or its JSON body) and returns what it finds.
//
//	func (c *Client) createThreadLookup(ctx context.Context, reference string) ([]runtime.Found[*Thread], error) {
//		res, err := c.SearchThreads(ctx, SearchThreadsParams{Query: "ref:" + reference})
//		if err != nil {
//			return nil, err
//		}
//		found := make([]runtime.Found[*Thread], 0, len(res.Data))
//		for i := range res.Data {
//			body := &res.Data[i]
//			found = append(found, runtime.Found[*Thread]{ID: createThreadID(body), Body: body})
//		}
//		return found, nil
//	}
//
// When the found object is the whole response, a 404 means not found.
func (g *generator) generatedLookup(f *jen.File, op *spec.Operation) {
	l := op.Safety.Lookup
	read := l.Operation
	T := resultType(op)
	var stmts []jen.Code
	args := []jen.Code{jen.Id("ctx")}
	if read.ParamsName != "" {
		values, pre := templateParams(l.Params, jen.Id("reference"))
		stmts = append(stmts, pre...)
		args = append(args, jen.Id(read.ParamsName).Custom(multiLine, values...))
	}
	if read.Body != nil {
		if l.Body != nil {
			stmts = append(stmts, g.bodyFromTemplate(read, l.Body)...)
		} else {
			stmts = append(stmts, jen.Var().Id("search").Add(goType(read.Body.Type)))
		}
		args = append(args, jen.Id("search"))
	}
	stmts = append(stmts, jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot(read.GoName).Call(args...))
	onErr := []jen.Code{jen.Return(jen.Nil(), jen.Err())}
	if l.Found == nil {
		onErr = append([]jen.Code{
			jen.Var().Id("se").Op("*").Add(rt("StatusError")),
			jen.If(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("se")).Op("&&").Id("se").Dot("Status").Op("==").Qual("net/http", "StatusNotFound")).Block(
				jen.Return(jen.Nil(), jen.Nil()),
			),
		}, onErr...)
	}
	stmts = append(stmts, jen.If(jen.Err().Op("!=").Nil()).Block(onErr...))

	found := func(body jen.Code) jen.Code { return rt("Found").Types(jen.Op("*").Add(T)).Values(foundDict(op, body)) }
	// The read returns a slice or a map as it is, anything else through a pointer.
	rootPtr := !nilable(read.Response.Type)
	res := func() *jen.Statement { return jen.Id("res") }
	var steps []spec.Step
	if l.Found != nil {
		steps = l.Found.Steps
	}
	each := len(steps)
	for i, st := range steps {
		if st.Kind == spec.StepEach {
			each = i
		}
	}
	if each == len(steps) { // one effect at most
		r := reach(res, rootPtr, steps)
		if len(r.missing) > 0 {
			stmts = append(stmts, jen.If(join(r.missing, "||")).Block(jen.Return(jen.Nil(), jen.Nil())))
		}
		stmts = append(stmts,
			jen.Id("body").Op(":=").Add(addr(r)),
			jen.Return(jen.Index().Add(rt("Found")).Types(jen.Op("*").Add(T)).Values(jen.Values(foundDict(op, jen.Id("body")))), jen.Nil()))
	} else { // every element of a list
		r := reach(res, rootPtr, steps[:each])
		if len(r.missing) > 0 {
			stmts = append(stmts, jen.If(join(r.missing, "||")).Block(jen.Return(jen.Nil(), jen.Nil())))
		}
		list := r.expr
		if r.ptr {
			list = func() *jen.Statement { return jen.Parens(jen.Op("*").Add(r.expr())) }
		}
		item := reach(func() *jen.Statement { return list().Index(jen.Id("i")) }, false, steps[each+1:])
		loop := []jen.Code{}
		if len(item.missing) > 0 {
			loop = append(loop, jen.If(join(item.missing, "||")).Block(jen.Continue()))
		}
		loop = append(loop,
			jen.Id("body").Op(":=").Add(addr(item)),
			jen.Id("found").Op("=").Append(jen.Id("found"), found(jen.Id("body"))))
		stmts = append(stmts,
			jen.Id("found").Op(":=").Make(jen.Index().Add(rt("Found")).Types(jen.Op("*").Add(T)), jen.Lit(0), jen.Len(list())),
			jen.For(jen.Id("i").Op(":=").Range().Add(list())).Block(loop...),
			jen.Return(jen.Id("found"), jen.Nil()))
	}

	what := "the " + op.ID + " whose reference is reference"
	if l.Found != nil && each < len(steps) {
		what = "every " + op.ID + " whose reference is reference, in the provider's order"
	}
	f.Line()
	f.Comment(comment(l.Name + " finds " + what + ", with " + read.GoName + "."))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Add(lookupSignature(op, l.Name)).Block(stmts...)
}

// foundDict is the fields of the runtime.Found of body.
func foundDict(op *spec.Operation, body jen.Code) jen.Dict {
	d := jen.Dict{jen.Id("Body"): body}
	if op.IDName != "" {
		d[jen.Id("ID")] = jen.Id(op.IDName).Call(body)
	}
	return d
}

// addr is a pointer to the value r reached.
func addr(r reached) *jen.Statement {
	if r.ptr {
		return r.expr()
	}
	return jen.Op("&").Add(r.expr())
}

// bodyFromTemplate returns the statements that decode the lookup's JSON body template, with the
// reference in its string values, into search:
//
//	var search SearchRequest
//	if err := json.Unmarshal([]byte(`{"query":{"field":"external_id","value":`+jsonString(reference)+`}}`), &search); err != nil {
//		return nil, err
//	}
func (g *generator) bodyFromTemplate(read *spec.Operation, t *spec.BodyTemplate) []jen.Code {
	var parts []jen.Code
	for _, p := range t.Parts {
		if p.String == nil {
			parts = append(parts, rawLit(p.Literal))
			continue
		}
		g.needJSONString = true
		parts = append(parts, jen.Id("jsonString").Call(templateExpr(p.String, jen.Id("reference"))))
	}
	return []jen.Code{
		jen.Var().Id("search").Add(goType(read.Body.Type)),
		jen.If(
			jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Index().Byte().Call(join(parts, "+")), jen.Op("&").Id("search")),
			jen.Err().Op("!=").Nil(),
		).Block(jen.Return(jen.Nil(), jen.Err())),
	}
}

// rawLit is s as a raw string literal, or an interpreted one when s holds a backquote.
func rawLit(s string) jen.Code {
	if strings.ContainsAny(s, "`\r") {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}

// templateExpr is the string expression of a template whose hole is hole.
func templateExpr(parts []spec.TemplatePart, hole jen.Code) *jen.Statement {
	var codes []jen.Code
	for _, p := range parts {
		if p.Hole {
			codes = append(codes, hole)
		} else {
			codes = append(codes, jen.Lit(p.Literal))
		}
	}
	if len(codes) == 0 {
		return jen.Lit("")
	}
	return join(codes, "+")
}

// templateParams returns the fields of a parameter struct given by templates, with the hole
// filled by hole (an addressable string), and the statements that declare the values held
// through pointers.
func templateParams(ts []*spec.Template, hole jen.Code) (values, pre []jen.Code) {
	for _, t := range ts {
		p := t.Param
		value := templateExpr(t.Parts, hole)
		simple := len(t.Parts) == 1 && t.Parts[0].Hole
		if p.Pointer && simple && p.Type.Kind == spec.RefBuiltin { // the hole is addressable
			values = append(values, jen.Id(p.GoName).Op(":").Op("&").Add(hole))
			continue
		}
		switch u := under(p.Type); {
		case isString(p.Type):
			if p.Type.Kind != spec.RefBuiltin {
				value = goType(p.Type).Call(value)
			}
		case u.Kind == spec.RefArray:
			value = goType(p.Type).Values(value)
		}
		if p.Pointer {
			v := "arg" + strconv.Itoa(len(pre))
			pre = append(pre, jen.Id(v).Op(":=").Add(value))
			value = jen.Op("&").Id(v)
		}
		values = append(values, jen.Id(p.GoName).Op(":").Add(value))
	}
	return values, pre
}

// compensation emits the method that undoes one duplicate effect a lookup found:
//
//	func (c *Client) createThreadCompensate(ctx context.Context, duplicate runtime.Found[*Thread]) error {
//		return c.DeleteThread(ctx, DeleteThreadParams{ThreadID: duplicate.ID})
//	}
func (g *generator) compensation(f *jen.File, op *spec.Operation) {
	c := op.Safety.Compensate
	target := c.Operation
	var stmts []jen.Code
	args := []jen.Code{jen.Id("ctx")}
	if target.ParamsName != "" {
		values, pre := templateParams(c.Params, jen.Id("duplicate").Dot("ID"))
		stmts = append(stmts, pre...)
		args = append(args, jen.Id(target.ParamsName).Custom(multiLine, values...))
	}
	if target.Body != nil {
		stmts = append(stmts, jen.Var().Id("body").Add(goType(target.Body.Type)))
		args = append(args, jen.Id("body"))
	}
	call := jen.Id("c").Dot(target.GoName).Call(args...)
	if hasResult(target) {
		stmts = append(stmts, jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(call), jen.Return(jen.Err()))
	} else {
		stmts = append(stmts, jen.Return(call))
	}
	f.Line()
	f.Comment(comment(c.Name + " undoes a duplicate " + op.ID + " that " + op.Safety.Lookup.Name + " found beyond the first, with " + target.GoName + "."))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(c.Name).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("duplicate").Add(rt("Found")).Types(resultPtr(op))).
		Error().Block(stmts...)
}

// reached is where the steps of a Path lead from a root expression.
type reached struct {
	missing []jen.Code            // the conditions under which the value is absent, in order
	expr    func() *jen.Statement // the value reached
	ptr     bool                  // expr is a pointer to the value
}

// reach follows steps (no StepEach) from root, a value (a pointer to one when rootPtr), through
// struct fields, array elements and map keys, collecting the conditions under which the value
// is absent: a nil pointer on the way, a list too short.
func reach(root func() *jen.Statement, rootPtr bool, steps []spec.Step) reached {
	r := reached{expr: root, ptr: rootPtr}
	for _, st := range steps {
		prev, prevPtr := r.expr, r.ptr
		deref := func() *jen.Statement {
			if prevPtr {
				return jen.Parens(jen.Op("*").Add(prev()))
			}
			return prev()
		}
		switch st.Kind {
		case spec.StepField:
			fl := st.Field
			r.expr = func() *jen.Statement { return prev().Dot(fl.GoName) }
			r.ptr = fl.Pointer
			if fl.Pointer {
				r.missing = append(r.missing, r.expr().Op("==").Nil())
			}
		case spec.StepIndex:
			n := st.Index
			if n == 0 {
				r.missing = append(r.missing, jen.Len(deref()).Op("==").Lit(0))
			} else {
				r.missing = append(r.missing, jen.Len(deref()).Op("<=").Lit(n))
			}
			r.expr = func() *jen.Statement { return deref().Index(jen.Lit(n)) }
			r.ptr = false
		case spec.StepKey:
			key := st.Key
			if st.Extra {
				extra := st.Struct.ExtraName
				r.expr = func() *jen.Statement { return prev().Dot(extra).Index(jen.Lit(key)) }
			} else {
				r.expr = func() *jen.Statement { return deref().Index(jen.Lit(key)) }
			}
			r.ptr = false
		}
	}
	return r
}
