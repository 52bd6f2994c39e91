package templates

import (
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec/ir"
)

// lookupSignature is the signature every lookup of op has:
//
//	createThreadLookup(ctx context.Context, reference string) ([]runtime.Found[*Thread], error)
func lookupSignature(op *ir.Operation, name string) *jen.Statement {
	return jen.Id(name).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("reference").String()).
		Params(foundList(op), jen.Error())
}

// foundList is []runtime.Found[*T] of op's result type.
func foundList(op *ir.Operation) *jen.Statement {
	return jen.Index().Add(rt("Found")).Types(resultPtr(op))
}

// funcLookup emits what a lookup written by hand (lookup.func) is asked with, the lookup the
// runtime calls, which asks it, and the compile-time check of its signature: a missing or
// mistyped method fails to compile with a message that shows it.
//
//	type AddCommentLookup struct {
//		Reference string
//		IssueNumber int64
//	}
//
//	func (c *Client) addCommentLookup(ctx context.Context, reference string) ([]runtime.Found[*Comment], error) {
//		ref, values, err := writegenimpl.SplitReference(reference, "issue_number")
//		...
//		return c.findComment(ctx, AddCommentLookup{IssueNumber: issueNumber, Reference: ref})
//	}
//
//	var _ interface {
//		findComment(ctx context.Context, q AddCommentLookup) ([]runtime.Found[*Comment], error)
//	} = (*Client)(nil)
func (g *generator) funcLookup(f *jen.File, op *ir.Operation) {
	l := op.Safety.Lookup
	fields := []jen.Code{
		jen.Comment("Reference is the write's reference, as the provider keeps it: the lookup returns the"),
		jen.Comment("effects whose text carries it (runtime.Found.Ref), which the runtime compares."),
		jen.Id("Reference").String(),
	}
	d := jen.Dict{}
	hole := jen.Id("reference")
	var stmts []jen.Code
	if len(l.Values) > 0 {
		var vals map[*ir.LookupValue]jen.Code
		stmts, vals = lookupValues(l, true)
		hole = jen.Id("ref")
		for _, v := range l.Values {
			name, typ, what := queryField(v)
			fields = append(fields, jen.Id(name).Add(typ).Comment(what))
			val := vals[v]
			if v.Param != nil && !v.Integer && ir.Under(v.Param.Type).Kind != ir.RefBuiltin {
				val = goType(v.Param.Type).Call(val)
			}
			d[jen.Id(name)] = val
		}
	}
	d[jen.Id("Reference")] = hole
	stmts = append(stmts, jen.Return(jen.Id("c").Dot(l.Func).Call(jen.Id("ctx"), jen.Id(l.QueryName).Values(d))))
	f.Line()
	f.Comment(comment(l.QueryName + " is what " + l.Func + ", the lookup of " + op.GoName + " written by hand, is asked: the write's reference and values of the write it may need, which travel with the reference to the ledger row, so that Resume asks the same."))
	f.Type().Id(l.QueryName).Struct(fields...)
	f.Line()
	f.Comment(comment(l.Name + " asks " + l.Func + ", written by hand, for the effects of " + op.ID + " whose reference is reference."))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Add(lookupSignature(op, l.Name)).Block(stmts...)
	f.Line()
	f.Comment(comment(op.GoName + " looks up what it committed with " + l.Func + ", a method of Client written by hand in a file of this package: it returns every effect that carries the reference, in the provider's order, each with the text that carries it as Ref (runtime.WalkList walks a list so that its not found is proof). This declaration fails to compile until that method exists with this signature."))
	f.Var().Id("_").Interface(jen.Id(l.Func).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("q").Id(l.QueryName)).
		Params(foundList(op), jen.Error())).Op("=").Parens(jen.Op("*").Id("Client")).Call(jen.Nil())
}

// queryField is the field of a lookup's query struct that holds value v: its name, its type and
// what it is.
func queryField(v *ir.LookupValue) (string, *jen.Statement, string) {
	if v.Field != nil {
		name := v.Field.GoName
		if name == "Reference" {
			name = "KeyReference"
		}
		if v.Integer {
			return name, jen.Int64(), "the key's field " + strconv.Quote(v.Name)
		}
		return name, jen.String(), "the key's field " + strconv.Quote(v.Name)
	}
	name := v.Param.GoName
	if name == "Reference" {
		name = "ParamReference"
	}
	typ := goType(v.Param.Type)
	if v.Integer {
		typ = jen.Int64()
	}
	return name, typ, "the write's " + string(v.Param.In) + " parameter " + strconv.Quote(v.Name)
}

// generatedLookup emits the lookup of a write that names a read of the spec: it calls the read
// with the reference in its parameters (or its JSON body) and returns what it finds, each with
// the text that carries the write's reference (runtime.Found.Ref), which the runtime compares.
// A lookup whose params take values of the write splits them from the reference first
// (lookupValues). What it finds in a list is found by a walk (walk); a single object is found
// as it is, a 404 meaning not found:
//
//	func (c *Client) createThreadLookup(ctx context.Context, reference string) ([]runtime.Found[*Thread], error) {
//		res, err := c.GetThread(ctx, GetThreadParams{ThreadID: reference})
//		var se *runtime.StatusError
//		if errors.As(err, &se) && se.Status == http.StatusNotFound {
//			return nil, nil
//		}
//		if err != nil {
//			return nil, err
//		}
//		return []runtime.Found[*Thread]{{Body: res, ID: createThreadID(res), Ref: res.ExternalReference}}, nil
//	}
func (g *generator) generatedLookup(f *jen.File, op *ir.Operation) {
	l := op.Safety.Lookup
	read := l.Operation
	stmts, args, raw := g.lookupArgs(op)
	steps := pathSteps(l.Found)
	what := "the " + op.ID + " whose reference is reference"
	if eachStep(steps) < len(steps) {
		stmts = append(stmts, g.walk(op, args, raw)...)
		what = "every " + op.ID + " " + walkText(op)
	} else {
		stmts = append(stmts, g.single(op, args)...)
	}
	f.Line()
	f.Comment(comment(l.Name + " finds " + what + ", with " + read.GoName + "." + adoptNote(l) + escapeNote(l)))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Add(lookupSignature(op, l.Name)).Block(stmts...)
}

// lookupArgs returns the statements that make the arguments of a lookup's read (its params and
// search body, with the reference and the values of the write in them), the arguments, and the
// locals that hold the values of the write as they are (not escaped for the query language:
// the read that adopts takes them as parameters of its own).
func (g *generator) lookupArgs(op *ir.Operation) (stmts, args []jen.Code, raw map[*ir.LookupValue]jen.Code) {
	l := op.Safety.Lookup
	read := l.Operation
	hole := jen.Id("reference")
	var vals map[*ir.LookupValue]jen.Code
	if len(l.Values) > 0 {
		stmts, vals = lookupValues(l, usesHole(l))
		hole = jen.Id("ref")
	}
	raw = vals
	if l.Escape != "" {
		var pre []jen.Code
		pre, hole, vals = escapes(l, hole, vals)
		stmts = append(stmts, pre...)
	}
	args = []jen.Code{jen.Id("ctx")}
	if read.ParamsName != "" {
		ts := slices.Concat(l.Params, l.NewestFirst)
		slices.SortFunc(ts, func(a, b *ir.Template) int { return strings.Compare(a.Param.Name, b.Param.Name) })
		values, pre := templateParams(ts, hole, vals)
		stmts = append(stmts, pre...)
		stmts = append(stmts, jen.Id("params").Op(":=").Id(read.ParamsName).Custom(multiLine, values...))
		args = append(args, jen.Id("params"))
	}
	if read.Body != nil {
		if l.Body != nil {
			stmts = append(stmts, g.bodyFromTemplate(read, l.Body, hole)...)
		} else {
			stmts = append(stmts, jen.Var().Id("search").Add(goType(read.Body.Type)))
		}
		args = append(args, bodyArg(read, jen.Id("search")))
	}
	return stmts, args, raw
}

// usesHole reports whether a lookup's params or body use the reference.
func usesHole(l *ir.Lookup) bool {
	for _, t := range l.Params {
		if slices.ContainsFunc(t.Parts, func(p ir.TemplatePart) bool { return p.Hole }) {
			return true
		}
	}
	if l.Body != nil {
		for _, p := range l.Body.Parts {
			if slices.ContainsFunc(p.String, func(p ir.TemplatePart) bool { return p.Hole }) {
				return true
			}
		}
	}
	return false
}

// single returns the statements of a lookup that finds one object, not a list: the object,
// when it is there and carries the reference field (the runtime compares its text).
func (g *generator) single(op *ir.Operation, args []jen.Code) []jen.Code {
	l := op.Safety.Lookup
	read := l.Operation
	stmts := []jen.Code{jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot(read.GoName).Call(args...)}
	if l.Found == nil {
		stmts = append(stmts,
			jen.Var().Id("se").Op("*").Add(rt("StatusError")),
			jen.If(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("se")).Op("&&").Id("se").Dot("Status").Op("==").Qual("net/http", "StatusNotFound")).Block(
				jen.Return(jen.Nil(), jen.Nil()),
			))
	}
	stmts = append(stmts, jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	rootPtr := !ir.Nilable(read.Response.Type)
	res := func() *jen.Statement { return jen.Id("res") }
	if ok := lookupOK(l, res, rootPtr, jen.Nil()); ok != nil {
		stmts = append(stmts, ok)
	}
	r := reach(res, rootPtr, pathSteps(l.Found))
	if len(r.missing) > 0 {
		stmts = append(stmts, jen.If(join(r.missing, "||")).Block(jen.Return(jen.Nil(), jen.Nil())))
	}
	elem := func() *jen.Statement { return addr(r) }
	if len(r.missing) > 0 || !r.ptr && len(pathSteps(l.Found)) > 0 {
		// the element, named once for the match and the body
		stmts = append(stmts, jen.Id("elem").Op(":=").Add(addr(r)))
		elem = func() *jen.Statement { return jen.Id("elem") }
	}
	m := reach(elem, true, l.Match.Steps)
	if len(m.missing) > 0 {
		// without the field that carries the reference, it is not the write's
		stmts = append(stmts, jen.If(join(m.missing, "||")).Block(jen.Return(jen.Nil(), jen.Nil())))
	}
	stmts = append(stmts, jen.Id("body").Op(":=").Add(envelopeOf(op, elem())))
	d := foundDict(op, jen.Id("body"))
	d[jen.Id("Ref")] = stringOf(l.Match.Type, value(m))
	return append(stmts, jen.Return(foundList(op).Values(jen.Values(d)), jen.Nil()))
}

// walk returns the statements of a lookup that picks the write's effects out of a list, with
// runtime.WalkList: page by page up to the bound, asking for each next page by the response's
// cursor or by number, each element with the text that carries the reference (Ref) and, for a
// walk bounded by the write's time, when it was created. A lookup that adopts by another read
// then reads each effect found by its id (adoptBy).
//
//	walk := runtime.Walk{Read: "listTicketComments", MaxPages: 5, Since: true}
//	return runtime.WalkList(ctx, walk, func(ctx context.Context, n int) (runtime.Page[*Comment], error) {
//		var page runtime.Page[*Comment]
//		res, err := c.ListTicketComments(ctx, params)
//		if err != nil {
//			return page, err
//		}
//		for i := range res.Comments {
//			body := &res.Comments[i]
//			page.Items = append(page.Items, runtime.Found[*Comment]{Body: body, Created: body.CreatedAt, ID: addTicketCommentID(body), Ref: body.Body})
//		}
//		if res.Meta != nil && res.Meta.AfterCursor != nil && *res.Meta.AfterCursor != "" {
//			params.PageAfter, page.More = res.Meta.AfterCursor, true
//		}
//		return page, nil
//	})
func (g *generator) walk(op *ir.Operation, args []jen.Code, vals map[*ir.LookupValue]jen.Code) []jen.Code {
	l := op.Safety.Lookup
	read := l.Operation
	T := resultPtr(op) // the walk's elements
	if l.Adopt != nil {
		T = jen.Op("*").Add(goType(l.Found.Type))
	}
	pageType := func() *jen.Statement { return rt("Page").Types(T.Clone()) }
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Id("page"), err) }
	body := []jen.Code{jen.Var().Id("page").Add(pageType())}
	p := l.Pages
	if p != nil && p.Cursor == nil {
		body = append(body, pageNumber(p)...)
	}
	body = append(body,
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot(read.GoName).Call(args...),
		jen.If(jen.Err().Op("!=").Nil()).Block(fail(jen.Err())))
	rootPtr := !ir.Nilable(read.Response.Type)
	res := func() *jen.Statement { return jen.Id("res") }
	if ok := lookupOK(l, res, rootPtr, jen.Id("page")); ok != nil {
		body = append(body, ok)
	}
	steps := l.Found.Steps
	each := eachStep(steps)
	list, missing := listOf(res, rootPtr, steps[:each])
	if len(missing) > 0 {
		body = append(body, jen.If(join(missing, "||")).Block(jen.Return(jen.Id("page"), jen.Nil()).Comment("no list: the end of it")))
	}
	item := reach(func() *jen.Statement { return list().Index(jen.Id("i")) }, false, steps[each+1:])
	var loop []jen.Code
	if len(item.missing) > 0 {
		loop = append(loop, jen.If(join(item.missing, "||")).Block(jen.Continue()))
	}
	loop = append(loop, jen.Id("body").Op(":=").Add(addr(item)))
	elem := func() *jen.Statement { return jen.Id("body") }
	d := jen.Dict{jen.Id("Body"): jen.Id("body")}
	if l.Adopt != nil {
		d[jen.Id("ID")] = idText(reach(elem, true, l.Adopt.ID.Steps), l.Adopt.ID.Type)
	} else {
		if op.EnvelopeName != "" { // the found element, in the write's answer
			loop = append(loop, jen.Id("adopted").Op(":=").Id(op.EnvelopeName).Call(jen.Id("body")))
			d = foundDict(op, jen.Id("adopted"))
		} else {
			d = foundDict(op, jen.Id("body"))
		}
	}
	var set []jen.Code // fields set only when present
	setField := func(name string, path *ir.Path, conv func(*ir.TypeRef, jen.Code) jen.Code) {
		r := reach(elem, true, path.Steps)
		v := conv(path.Type, value(r))
		if len(r.present) == 0 {
			d[jen.Id(name)] = v
			return
		}
		set = append(set, jen.If(join(r.present, "&&")).Block(jen.Id("f").Dot(name).Op("=").Add(v)))
	}
	setField("Ref", l.Match, stringOf)
	if l.Since != nil {
		setField("Created", l.Since, timeOf)
	}
	foundT := rt("Found").Types(T.Clone())
	if len(set) == 0 {
		loop = append(loop, jen.Id("page").Dot("Items").Op("=").Append(jen.Id("page").Dot("Items"), foundT.Values(d)))
	} else {
		loop = append(loop, jen.Id("f").Op(":=").Add(foundT.Values(d)))
		loop = append(loop, set...)
		loop = append(loop, jen.Id("page").Dot("Items").Op("=").Append(jen.Id("page").Dot("Items"), jen.Id("f")))
	}
	body = append(body, jen.For(jen.Id("i").Op(":=").Range().Add(list())).Block(loop...))
	switch {
	case p != nil && p.Cursor != nil:
		r := reach(res, rootPtr, p.Cursor.Steps)
		cursor := value(r)
		more := append(slices.Clone(r.present), jen.Add(cursor).Op("!=").Lit(""))
		var next []jen.Code
		if u := ir.Under(p.Cursor.Type); u.Kind != ir.RefBuiltin {
			cursor = jen.String().Call(cursor)
		}
		nextV := cursor
		if u := ir.Under(p.Param.Type); u.Kind != ir.RefBuiltin {
			nextV = goType(p.Param.Type).Call(nextV)
		}
		param := jen.Id("params").Dot(p.Param.GoName)
		switch {
		case p.Param.Pointer && r.ptr && sameRef(p.Cursor.Type, p.Param.Type):
			next = append(next, jen.List(param, jen.Id("page").Dot("More")).Op("=").List(r.expr(), jen.True()))
		case p.Param.Pointer:
			next = append(next, jen.Id("next").Op(":=").Add(nextV), jen.List(param, jen.Id("page").Dot("More")).Op("=").List(jen.Op("&").Id("next"), jen.True()))
		default:
			next = append(next, jen.List(param, jen.Id("page").Dot("More")).Op("=").List(nextV, jen.True()))
		}
		body = append(body, jen.If(join(more, "&&")).Block(next...))
	default:
		// by number, or one page: a page with elements may have more after it; an empty one is
		// the end of the list
		body = append(body, jen.Id("page").Dot("More").Op("=").Len(list()).Op(">").Lit(0))
	}
	body = append(body, jen.Return(jen.Id("page"), jen.Nil()))

	w := jen.Dict{jen.Id("Read"): jen.Lit(read.ID)}
	if p != nil {
		w[jen.Id("MaxPages")] = jen.Lit(p.Max)
		if p.Cursor == nil {
			w[jen.Id("ByNumber")] = jen.True()
		}
	}
	if l.Since != nil {
		w[jen.Id("Since")] = jen.True()
	}
	walk := rt("WalkList").Call(jen.Id("ctx"), rt("Walk").Values(w),
		jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("n").Int()).Params(pageType(), jen.Error()).Block(body...))
	if l.Adopt == nil {
		return []jen.Code{jen.Return(walk)}
	}
	return g.adoptBy(op, walk, vals)
}

// pageNumber returns the statements that ask a walk by number for page n:
//
//	number := int64(1 + n - 1)
//	params.Page = &number
func pageNumber(p *ir.Pages) []jen.Code {
	typ := goType(p.Param.Type)
	n := jen.Id("n")
	if p.Start != 1 {
		n = jen.Lit(p.Start - 1).Op("+").Id("n")
	}
	set := jen.Id("params").Dot(p.Param.GoName)
	if p.Param.Pointer {
		return []jen.Code{jen.Id("number").Op(":=").Add(typ).Call(n), set.Op("=").Op("&").Id("number")}
	}
	return []jen.Code{set.Op("=").Add(typ).Call(n)}
}

// adoptBy returns the statements that read each effect a walk found by its id, with the read
// lookup.adopt names, so that the receipt is the object itself:
//
//	found, err := runtime.WalkList(...)
//	if err != nil || len(found) == 0 {
//		return nil, err
//	}
//	out := make([]runtime.Found[*Issue], 0, len(found))
//	for _, f := range found {
//		res, err := c.IssuesGet(ctx, IssuesGetParams{IssueNumber: ...})
//		if err != nil {
//			return nil, err
//		}
//		adopted := runtime.Found[*Issue]{Body: res, Created: f.Created, ID: createIssueID(res)}
//		if res.Body != nil {
//			adopted.Ref = *res.Body // the object read carries the reference, or is not adopted
//		}
//		out = append(out, adopted)
//	}
//	return out, nil
func (g *generator) adoptBy(op *ir.Operation, walk jen.Code, vals map[*ir.LookupValue]jen.Code) []jen.Code {
	a := op.Safety.Lookup.Adopt
	read := a.Operation
	values, pre := templateParams(a.Params, jen.Id("f").Dot("ID"), vals)
	call := []jen.Code{jen.Id("ctx")}
	var loop []jen.Code
	if intHole(a.Params) {
		loop = append(loop, jen.List(jen.Id("id"), jen.Err()).Op(":=").Add(impl("SplitInt")).Call(jen.Lit("id"), jen.Id("f").Dot("ID")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	loop = append(loop, pre...)
	if read.ParamsName != "" {
		call = append(call, jen.Id(read.ParamsName).Custom(multiLine, values...))
	}
	if read.Body != nil {
		loop = append(loop, jen.Var().Id("search").Add(goType(read.Body.Type)))
		call = append(call, jen.Id("search"))
	}
	d := foundDict(op, jen.Id("res"))
	d[jen.Id("Created")] = jen.Id("f").Dot("Created")
	loop = append(loop,
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot(read.GoName).Call(call...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	// Ref is the object's own: the runtime compares what is adopted, not what was found
	m := reach(func() *jen.Statement { return jen.Id("res") }, !ir.Nilable(read.Response.Type), a.Match.Steps)
	foundT := rt("Found").Types(resultPtr(op))
	if len(m.present) == 0 {
		d[jen.Id("Ref")] = stringOf(a.Match.Type, value(m))
		loop = append(loop, jen.Id("out").Op("=").Append(jen.Id("out"), foundT.Values(d)))
	} else {
		loop = append(loop,
			jen.Id("adopted").Op(":=").Add(foundT.Values(d)),
			jen.If(join(m.present, "&&")).Block(jen.Id("adopted").Dot("Ref").Op("=").Add(stringOf(a.Match.Type, value(m)))),
			jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("adopted")))
	}
	return []jen.Code{
		jen.List(jen.Id("found"), jen.Err()).Op(":=").Add(walk),
		jen.If(jen.Err().Op("!=").Nil().Op("||").Len(jen.Id("found")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("out").Op(":=").Make(foundList(op), jen.Lit(0), jen.Len(jen.Id("found"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("f")).Op(":=").Range().Id("found")).Block(loop...),
		jen.Return(jen.Id("out"), jen.Nil()),
	}
}

// readName is the name of the method that reads a write's object by its durable id.
func readName(op *ir.Operation) string { return op.Local + "Read" }

// readByID emits the method that reads a write's object by its durable id, with the read its
// lookup adopts by (lookup.adopt): a receipt a person recorded in the ledger holds the id alone,
// and the runtime reads the object with it (writegenimpl.Call.Read). The values of the write
// travel in reference, as a lookup is given them:
//
//	func (c *Client) createIssueRead(ctx context.Context, reference, durableID string) (*Issue, error) {
//		_, values, err := writegenimpl.SplitReference(reference, "owner", "repo")
//		...
//		id, err := writegenimpl.SplitInt("id", durableID)
//		...
//		return c.IssuesGet(ctx, IssuesGetParams{IssueNumber: id, Owner: values[0], Repo: values[1]})
//	}
func (g *generator) readByID(f *jen.File, op *ir.Operation) {
	l := op.Safety.Lookup
	a := l.Adopt
	read := a.Operation
	var stmts []jen.Code
	var vals map[*ir.LookupValue]jen.Code
	if len(l.Values) > 0 {
		stmts, vals = lookupValues(l, false)
	}
	fail := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
	if intHole(a.Params) {
		stmts = append(stmts, jen.List(jen.Id("id"), jen.Err()).Op(":=").Add(impl("SplitInt")).Call(jen.Lit("id"), jen.Id("durableID")), fail)
	}
	values, pre := templateParams(a.Params, jen.Id("durableID"), vals)
	stmts = append(stmts, pre...)
	call := []jen.Code{jen.Id("ctx")}
	if read.ParamsName != "" {
		call = append(call, jen.Id(read.ParamsName).Custom(multiLine, values...))
	}
	if read.Body != nil {
		stmts = append(stmts, jen.Var().Id("search").Add(goType(read.Body.Type)))
		call = append(call, jen.Id("search"))
	}
	stmts = append(stmts, jen.Return(jen.Id("c").Dot(read.GoName).Call(call...)))
	f.Line()
	f.Comment(comment(readName(op) + " reads the object of " + op.ID + " whose durable id is durableID, with " + read.GoName +
		": a receipt a person recorded in the ledger holds the id alone, and the runtime reads the object with it. reference carries the values of the write, as the lookup is given them."))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(readName(op)).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.List(jen.Id("reference"), jen.Id("durableID")).String()).
		Params(resultPtr(op), jen.Error()).Block(stmts...)
}

// stringOf is v, a value of type t that converts from a string, as a string.
func stringOf(t *ir.TypeRef, v jen.Code) jen.Code {
	if ir.Under(t).Kind != ir.RefBuiltin {
		return jen.String().Call(v)
	}
	return v
}

// timeOf is v, a creation time of type t (a time.Time, an RFC 3339 string or Unix seconds), as
// a time.Time.
func timeOf(t *ir.TypeRef, v jen.Code) jen.Code {
	u := ir.Under(t)
	switch {
	case u.Kind == ir.RefBuiltin && u.Builtin == "time.Time":
		return v
	case isString(t):
		return impl("CreatedAt").Call(stringOf(t, v))
	case u.Kind == ir.RefBuiltin && u.Builtin == "int64":
		return jen.Qual("time", "Unix").Call(v, jen.Lit(0))
	}
	return jen.Qual("time", "Unix").Call(jen.Int64().Call(v), jen.Lit(0))
}

// idText is the id r reached in a found element, of type t (a string or an integer), as a
// string.
func idText(r reached, t *ir.TypeRef) jen.Code {
	v := value(r)
	if isString(t) {
		return stringOf(t, v)
	}
	if u := ir.Under(t); !(u.Kind == ir.RefBuiltin && u.Builtin == "int64") {
		v = jen.Int64().Call(v)
	}
	return jen.Qual("strconv", "FormatInt").Call(v, jen.Lit(10))
}

// walkText says, in a lookup's comment, what its walk keeps and how far it goes.
func walkText(op *ir.Operation) string {
	l := op.Safety.Lookup
	s := op.Safety
	what := "whose " + l.Match.Pointer + " is the reference"
	if s.Reference != nil && s.Reference.Marker != nil {
		what = "whose " + l.Match.Pointer + " holds the marker " + strconv.Quote(s.Reference.MarkerText)
	}
	what += " (runtime.WalkList keeps those), in the provider's order"
	switch p := l.Pages; {
	case p == nil:
		what += ", reading one page (not found there is proof only when the page is empty)"
	case p.Cursor == nil:
		what += ", reading at most " + plural(p.Max, "page") + " by number from " + strconv.Itoa(p.Start) + " (twice, when not found, to see that the list did not move)"
	default:
		what += ", reading at most " + plural(p.Max, "page")
	}
	if l.Since != nil {
		what += "; it stops after the page of the first element whose " + l.Since.Pointer + " is older than the write, in a list shown newest first"
	}
	return what
}

// adoptNote says, in a lookup's comment, how the receipt is read.
func adoptNote(l *ir.Lookup) string {
	if l.Adopt == nil {
		return ""
	}
	return " Each effect found is read by its id with " + l.Adopt.Operation.GoName + ", and adopted as it reads."
}

// escapeFuncs are the functions of writegenimpl that write a value as a literal of each query
// language.
var escapeFuncs = map[ir.Escape]string{
	ir.EscapeStripeSearch:  "StripeSearchString",
	ir.EscapeZendeskSearch: "ZendeskSearchValue",
	ir.EscapeGitHubSearch:  "GitHubSearchValue",
	ir.EscapeJQL:           "JQLString",
	ir.EscapeLucene:        "LuceneTerm",
}

// escapes returns the statements that write the reference and the string values of the write
// that the lookup's params and body substitute as literals of its query language, and the
// locals that hold them in place of hole and vals. A value the language cannot hold ends the
// lookup with the error: the call is then uncertain, never re-sent on a guess.
//
//	lit, err := writegenimpl.JQLString(reference)
//	if err != nil {
//		return nil, err
//	}
func escapes(l *ir.Lookup, hole *jen.Statement, vals map[*ir.LookupValue]jen.Code) ([]jen.Code, *jen.Statement, map[*ir.LookupValue]jen.Code) {
	usesRef := false
	var used []*ir.LookupValue
	see := func(parts []ir.TemplatePart) {
		for _, p := range parts {
			switch {
			case p.Hole:
				usesRef = true
			case p.Value != nil && !p.Value.Integer && !slices.Contains(used, p.Value):
				used = append(used, p.Value)
			}
		}
	}
	for _, t := range l.Params {
		see(t.Parts)
	}
	if l.Body != nil {
		for _, p := range l.Body.Parts {
			see(p.String)
		}
	}
	fn := impl(escapeFuncs[l.Escape])
	fail := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
	var stmts []jen.Code
	if usesRef {
		stmts = append(stmts, jen.List(jen.Id("lit"), jen.Err()).Op(":=").Add(fn).Call(hole), fail)
		hole = jen.Id("lit")
	}
	out := make(map[*ir.LookupValue]jen.Code, len(vals))
	maps.Copy(out, vals)
	slices.SortFunc(used, func(a, b *ir.LookupValue) int { return strings.Compare(a.Name, b.Name) })
	for i, v := range used {
		name := "lit" + strconv.Itoa(i+1)
		stmts = append(stmts, jen.List(jen.Id(name), jen.Err()).Op(":=").Add(fn).Call(vals[v]), fail)
		out[v] = jen.Id(name)
	}
	return stmts, hole, out
}

func pathSteps(p *ir.Path) []ir.Step {
	if p == nil {
		return nil
	}
	return p.Steps
}

// eachStep is the index of the StepEach of steps, or len(steps) without one.
func eachStep(steps []ir.Step) int {
	for i, st := range steps {
		if st.Kind == ir.StepEach {
			return i
		}
	}
	return len(steps)
}

// listOf is the list that steps reach from res, and the conditions under which it is absent.
func listOf(res func() *jen.Statement, rootPtr bool, steps []ir.Step) (func() *jen.Statement, []jen.Code) {
	r := reach(res, rootPtr, steps)
	list := r.expr
	if r.ptr {
		list = func() *jen.Statement { return jen.Parens(jen.Op("*").Add(r.expr())) }
	}
	return list, r.missing
}

// lookupValues returns the statements that split the values a lookup takes from the write off
// its reference, and the local each value is held in:
//
//	ref, values, err := writegenimpl.SplitReference(reference, "ticket_id")
//	if err != nil {
//		return nil, err
//	}
//	ticketID, err := writegenimpl.SplitInt("ticket_id", values[0])
//	if err != nil {
//		return nil, err
//	}
func lookupValues(l *ir.Lookup, refUsed bool) ([]jen.Code, map[*ir.LookupValue]jen.Code) {
	names := []jen.Code{jen.Id("reference")}
	for _, v := range l.Values {
		names = append(names, jen.Lit(v.Name))
	}
	fail := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
	ref := jen.Id("_")
	if refUsed {
		ref = jen.Id("ref")
	}
	stmts := []jen.Code{jen.List(ref, jen.Id("values"), jen.Err()).Op(":=").Add(impl("SplitReference")).Call(names...), fail}
	vals := make(map[*ir.LookupValue]jen.Code, len(l.Values))
	taken := map[string]bool{"c": true, "ctx": true, "reference": true, "ref": true, "values": true, "err": true, "res": true,
		"found": true, "params": true, "page": true, "body": true, "i": true, "since": true, "bounded": true, "marker": true, "search": true,
		"lit": true, "lit1": true, "lit2": true, "lit3": true, "number": true, "older": true}
	for i, v := range l.Values {
		at := jen.Id("values").Index(jen.Lit(i))
		if !v.Integer {
			vals[v] = at
			continue
		}
		name := localName(v, taken)
		stmts = append(stmts, jen.List(jen.Id(name), jen.Err()).Op(":=").Add(impl("SplitInt")).Call(jen.Lit(v.Name), at), fail)
		vals[v] = jen.Id(name)
	}
	return stmts, vals
}

// localName is a Go local for a lookup value, apart from the names the lookup declares.
func localName(v *ir.LookupValue, taken map[string]bool) string {
	gn := "value"
	if v.Param != nil {
		gn = v.Param.GoName
	} else if v.Field != nil {
		gn = v.Field.GoName
	}
	// TicketID -> ticketID, ID -> id, URLPath -> urlPath
	r := []rune(gn)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) {
		n--
	}
	name := strings.ToLower(string(r[:n])) + string(r[n:])
	if !token.IsIdentifier(name) || token.IsKeyword(name) {
		name = "value"
	}
	for base, i := name, 2; taken[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	taken[name] = true
	return name
}

// value is the value r reached, through its pointer.
func value(r reached) *jen.Statement {
	if r.ptr {
		return jen.Op("*").Add(r.expr())
	}
	return r.expr()
}

// sameRef reports whether a and b are the same builtin or named type.
func sameRef(a, b *ir.TypeRef) bool {
	return a.Kind == b.Kind && a.Builtin == b.Builtin && a.Named == b.Named
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// envelopeOf is the write's answer around found, an object a lookup found (response.object),
// or found itself.
func envelopeOf(op *ir.Operation, found jen.Code) jen.Code {
	if op.EnvelopeName == "" {
		return found
	}
	return jen.Id(op.EnvelopeName).Call(found)
}

// foundDict is the fields of the runtime.Found of body.
func foundDict(op *ir.Operation, body jen.Code) jen.Dict {
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
func (g *generator) bodyFromTemplate(read *ir.Operation, t *ir.BodyTemplate, hole jen.Code) []jen.Code {
	var parts []jen.Code
	for _, p := range t.Parts {
		if p.String == nil {
			parts = append(parts, rawLit(p.Literal))
			continue
		}
		g.needJSONString = true
		parts = append(parts, jen.Id("jsonString").Call(templateExpr(p.String, hole, nil)))
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

// templateExpr is the string expression of a template whose hole is hole, and whose values of
// the write are held in vals (a string, or an int64 formatted in base 10).
func templateExpr(parts []ir.TemplatePart, hole jen.Code, vals map[*ir.LookupValue]jen.Code) *jen.Statement {
	var codes []jen.Code
	for _, p := range parts {
		switch {
		case p.Hole:
			codes = append(codes, hole)
		case p.Value != nil && p.Value.Integer:
			codes = append(codes, jen.Qual("strconv", "FormatInt").Call(vals[p.Value], jen.Lit(10)))
		case p.Value != nil:
			codes = append(codes, vals[p.Value])
		default:
			codes = append(codes, jen.Lit(p.Literal))
		}
	}
	if len(codes) == 0 {
		return jen.Lit("")
	}
	return join(codes, "+")
}

// templateParams returns the fields of a parameter struct given by templates, with the hole
// filled by hole (an addressable string) and the values of the write by vals, and the
// statements that declare the values held through pointers.
func templateParams(ts []*ir.Template, hole jen.Code, vals map[*ir.LookupValue]jen.Code) (values, pre []jen.Code) {
	for _, t := range ts {
		p := t.Param
		value := templateExpr(t.Parts, hole, vals)
		switch {
		case t.Const != nil:
			value = typedConst(p.Type, t.Const)
		case len(t.Parts) == 1 && t.Parts[0].Value != nil && t.Parts[0].Value.Integer && !isString(p.Type):
			// an integer parameter takes the integer value
			value = jen.Add(vals[t.Parts[0].Value])
			if u := ir.Under(p.Type); u.Builtin != "int64" {
				value = goType(p.Type).Call(value)
			}
		case len(t.Parts) == 1 && t.Parts[0].Hole && !isString(p.Type):
			// an integer parameter takes the id, parsed (intHole)
			value = jen.Id("id")
			if u := ir.Under(p.Type); u.Builtin != "int64" {
				value = goType(p.Type).Call(value)
			}
		}
		simple := len(t.Parts) == 1 && t.Parts[0].Hole
		if p.Pointer && simple && p.Type.Kind == ir.RefBuiltin { // the hole is addressable
			values = append(values, jen.Id(p.GoName).Op(":").Op("&").Add(hole))
			continue
		}
		switch u := ir.Under(p.Type); {
		case isString(p.Type):
			if p.Type.Kind != ir.RefBuiltin {
				value = goType(p.Type).Call(value)
			}
		case u.Kind == ir.RefArray:
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

// intHole reports whether a template of ts passes the placeholder to an integer parameter: the
// caller parses it into the local id first.
func intHole(ts []*ir.Template) bool {
	return slices.ContainsFunc(ts, func(t *ir.Template) bool {
		return t.Const == nil && len(t.Parts) == 1 && t.Parts[0].Hole && !isString(t.Param.Type)
	})
}

// typedConst is v, a constant of the parameter type t (an int64, a float64, a bool, or an enum's
// value), as Go writes it: 100, int32(100), ListThreadsOrder("desc").
func typedConst(t *ir.TypeRef, v any) *jen.Statement {
	c := jen.Lit(v)
	if u := ir.Under(t); u.Kind != ir.RefBuiltin || !(u.Builtin == "int64" || u.Builtin == "float64" || u.Builtin == "bool" || u.Builtin == "string") {
		return goType(t).Call(c)
	}
	return c
}

// compensation emits the method that undoes one duplicate effect a lookup found:
//
//	func (c *Client) createThreadCompensate(ctx context.Context, duplicate runtime.Found[*Thread]) error {
//		return c.DeleteThread(ctx, DeleteThreadParams{ThreadID: duplicate.ID})
//	}
func (g *generator) compensation(f *jen.File, op *ir.Operation) {
	c := op.Safety.Compensate
	target := c.Operation
	var stmts []jen.Code
	args := []jen.Code{jen.Id("ctx")}
	if target.ParamsName != "" {
		values, pre := templateParams(c.Params, jen.Id("duplicate").Dot("ID"), nil)
		stmts = append(stmts, pre...)
		args = append(args, jen.Id(target.ParamsName).Custom(multiLine, values...))
	}
	switch {
	case ir.OptionalBody(target):
		args = append(args, jen.Nil()) // no body: the compensation sends none
	case target.Body != nil:
		stmts = append(stmts, jen.Var().Id("body").Add(goType(target.Body.Type)))
		args = append(args, jen.Id("body"))
	}
	call := jen.Id("c").Dot(target.GoName).Call(args...)
	if ir.HasResult(target) {
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
	present []jen.Code            // the conditions under which it is there: missing negated
	expr    func() *jen.Statement // the value reached
	ptr     bool                  // expr is a pointer to the value
}

// reach follows steps (no StepEach) from root, a value (a pointer to one when rootPtr), through
// struct fields, array elements and map keys, collecting the conditions under which the value
// is absent: a nil pointer on the way, a list too short.
func reach(root func() *jen.Statement, rootPtr bool, steps []ir.Step) reached {
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
		case ir.StepField:
			fl := st.Field
			r.expr = func() *jen.Statement { return prev().Dot(fl.GoName) }
			r.ptr = fl.Pointer
			if fl.Pointer {
				r.missing = append(r.missing, r.expr().Op("==").Nil())
				r.present = append(r.present, r.expr().Op("!=").Nil())
			}
		case ir.StepIndex:
			n := st.Index
			if n == 0 {
				r.missing = append(r.missing, jen.Len(deref()).Op("==").Lit(0))
			} else {
				r.missing = append(r.missing, jen.Len(deref()).Op("<=").Lit(n))
			}
			r.present = append(r.present, jen.Len(deref()).Op(">").Lit(n))
			r.expr = func() *jen.Statement { return deref().Index(jen.Lit(n)) }
			r.ptr = false
		case ir.StepKey:
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

// escapeNote says, in a lookup's comment, how its substitutions reach the query.
func escapeNote(l *ir.Lookup) string {
	if l.Escape == "" {
		return ""
	}
	return " Each value substituted into the query is one " + string(l.Escape) + " literal (writegenimpl." + escapeFuncs[l.Escape] +
		"); a value the language cannot hold fails the lookup, and the call ends uncertain."
}
