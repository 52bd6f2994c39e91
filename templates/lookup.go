package templates

import (
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

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
// When the found object is the whole response, a 404 means not found. A lookup whose params
// take values of the write splits them from the reference first (lookupValues); one that picks
// the write out of a list on the client walks it (walk).
func (g *generator) generatedLookup(f *jen.File, op *spec.Operation) {
	l := op.Safety.Lookup
	read := l.Operation
	T := resultType(op)
	var stmts []jen.Code
	hole := jen.Id("reference")
	var vals map[*spec.LookupValue]jen.Code
	if len(l.Values) > 0 {
		stmts, vals = lookupValues(l)
		hole = jen.Id("ref")
	}
	walk := l.Match != nil || l.Pages != nil || l.Since != nil
	args := []jen.Code{jen.Id("ctx")}
	raw := hole // the walk compares the reference as it is
	if l.Escape != "" {
		var pre []jen.Code
		pre, hole, vals = escapes(l, hole, vals)
		stmts = append(stmts, pre...)
	}
	if read.ParamsName != "" {
		values, pre := templateParams(l.Params, hole, vals)
		stmts = append(stmts, pre...)
		if walk {
			stmts = append(stmts, jen.Id("params").Op(":=").Id(read.ParamsName).Custom(multiLine, values...))
			args = append(args, jen.Id("params"))
		} else {
			args = append(args, jen.Id(read.ParamsName).Custom(multiLine, values...))
		}
	}
	if read.Body != nil {
		if l.Body != nil {
			stmts = append(stmts, g.bodyFromTemplate(read, l.Body, hole)...)
		} else {
			stmts = append(stmts, jen.Var().Id("search").Add(goType(read.Body.Type)))
		}
		args = append(args, bodyArg(read, jen.Id("search")))
	}
	if walk {
		g.walk(f, op, stmts, args, raw)
		return
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
	if ok := lookupOK(l, res, rootPtr); ok != nil {
		stmts = append(stmts, ok)
	}
	steps := pathSteps(l.Found)
	each := eachStep(steps)
	if each == len(steps) { // one effect at most
		r := reach(res, rootPtr, steps)
		if len(r.missing) > 0 {
			stmts = append(stmts, jen.If(join(r.missing, "||")).Block(jen.Return(jen.Nil(), jen.Nil())))
		}
		stmts = append(stmts,
			jen.Id("body").Op(":=").Add(envelopeOf(op, addr(r))),
			jen.Return(jen.Index().Add(rt("Found")).Types(jen.Op("*").Add(T)).Values(jen.Values(foundDict(op, jen.Id("body")))), jen.Nil()))
	} else { // every element of a list
		list, missing := listOf(res, rootPtr, steps[:each])
		if len(missing) > 0 {
			stmts = append(stmts, jen.If(join(missing, "||")).Block(jen.Return(jen.Nil(), jen.Nil())))
		}
		item := reach(func() *jen.Statement { return list().Index(jen.Id("i")) }, false, steps[each+1:])
		loop := []jen.Code{}
		if len(item.missing) > 0 {
			loop = append(loop, jen.If(join(item.missing, "||")).Block(jen.Continue()))
		}
		loop = append(loop,
			jen.Id("body").Op(":=").Add(envelopeOf(op, addr(item))),
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
	f.Comment(comment(l.Name + " finds " + what + ", with " + read.GoName + "." + escapeNote(l)))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Add(lookupSignature(op, l.Name)).Block(stmts...)
}

// escapeFuncs are the functions of writegenimpl that write a value as a literal of each query
// language.
var escapeFuncs = map[spec.Escape]string{
	spec.EscapeStripeSearch:  "StripeSearchString",
	spec.EscapeZendeskSearch: "ZendeskSearchValue",
	spec.EscapeJQL:           "JQLString",
	spec.EscapeLucene:        "LuceneTerm",
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
func escapes(l *spec.Lookup, hole *jen.Statement, vals map[*spec.LookupValue]jen.Code) ([]jen.Code, *jen.Statement, map[*spec.LookupValue]jen.Code) {
	usesRef := false
	var used []*spec.LookupValue
	see := func(parts []spec.TemplatePart) {
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
	out := make(map[*spec.LookupValue]jen.Code, len(vals))
	maps.Copy(out, vals)
	slices.SortFunc(used, func(a, b *spec.LookupValue) int { return strings.Compare(a.Name, b.Name) })
	for i, v := range used {
		name := "lit" + strconv.Itoa(i+1)
		stmts = append(stmts, jen.List(jen.Id(name), jen.Err()).Op(":=").Add(fn).Call(vals[v]), fail)
		out[v] = jen.Id(name)
	}
	return stmts, hole, out
}

func pathSteps(p *spec.Path) []spec.Step {
	if p == nil {
		return nil
	}
	return p.Steps
}

// eachStep is the index of the StepEach of steps, or len(steps) without one.
func eachStep(steps []spec.Step) int {
	for i, st := range steps {
		if st.Kind == spec.StepEach {
			return i
		}
	}
	return len(steps)
}

// listOf is the list that steps reach from res, and the conditions under which it is absent.
func listOf(res func() *jen.Statement, rootPtr bool, steps []spec.Step) (func() *jen.Statement, []jen.Code) {
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
func lookupValues(l *spec.Lookup) ([]jen.Code, map[*spec.LookupValue]jen.Code) {
	names := []jen.Code{jen.Id("reference")}
	for _, v := range l.Values {
		names = append(names, jen.Lit(v.Name))
	}
	fail := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
	stmts := []jen.Code{jen.List(jen.Id("ref"), jen.Id("values"), jen.Err()).Op(":=").Add(impl("SplitReference")).Call(names...), fail}
	vals := make(map[*spec.LookupValue]jen.Code, len(l.Values))
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
func localName(v *spec.LookupValue, taken map[string]bool) string {
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

// walk emits a lookup that picks the write's effects out of a list on the client: the
// elements whose match field equals the reference (or contains the write's marker), page by
// page up to the bound, stopping at the list's end or at the first element older than the
// write (since). stmts declare params and the search body; args are the read's arguments.
//
//	marker := " [ref:" + ref + "]"
//	older := false
//	var found []runtime.Found[*Comment]
//	for page := 1; ; page++ {
//		res, err := c.ListTicketComments(ctx, params)
//		if err != nil {
//			return nil, err
//		}
//		since, bounded := writegenimpl.LookupSince(ctx)
//		for i := range res.Comments {
//			body := &res.Comments[i]
//			if bounded && body.CreatedAt.Before(since) {
//				older = true
//				continue
//			}
//			if older {
//				// after one older than the write: the list is not newest first
//				return nil, &writegenimpl.OrderError{Operation: "listTicketComments"}
//			}
//			if strings.Contains(body.Body, marker) {
//				found = append(found, runtime.Found[*Comment]{ID: addCommentID(body), Body: body})
//			}
//		}
//		if older {
//			return found, nil // older than the write: so is the rest of the list
//		}
//		if res.Meta == nil || res.Meta.AfterCursor == nil || *res.Meta.AfterCursor == "" {
//			return found, nil // the end of the list
//		}
//		if page == 5 {
//			break
//		}
//		params.PageAfter = res.Meta.AfterCursor
//	}
//	if len(found) > 0 {
//		return found, nil
//	}
//	return nil, &writegenimpl.BoundError{Operation: "listTicketComments", Pages: 5}
func (g *generator) walk(f *jen.File, op *spec.Operation, stmts, args []jen.Code, hole jen.Code) {
	s := op.Safety
	l := s.Lookup
	read := l.Operation
	T := resultType(op)
	var marker []spec.TemplatePart
	if s.Reference != nil {
		marker = s.Reference.Marker
	}
	if l.Match != nil && marker != nil {
		stmts = append(stmts, jen.Id("marker").Op(":=").Add(templateExpr(marker, hole, nil)))
	}
	if l.Since != nil {
		stmts = append(stmts, jen.Id("older").Op(":=").False())
	}
	foundType := jen.Index().Add(rt("Found")).Types(jen.Op("*").Add(T))
	stmts = append(stmts, jen.Var().Id("found").Add(foundType))

	// One page: read it, and pick the write's effects out of its list.
	var page []jen.Code
	page = append(page,
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot(read.GoName).Call(args...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	if l.Since != nil {
		// After the read: the bound is counted in the provider's time, which its answer tells.
		page = append(page, jen.List(jen.Id("since"), jen.Id("bounded")).Op(":=").Add(impl("LookupSince")).Call(jen.Id("ctx")))
	}
	rootPtr := !nilable(read.Response.Type)
	res := func() *jen.Statement { return jen.Id("res") }
	if ok := lookupOK(l, res, rootPtr); ok != nil {
		page = append(page, ok)
	}
	steps := l.Found.Steps
	each := eachStep(steps)
	list, missing := listOf(res, rootPtr, steps[:each])
	end := []jen.Code{jen.Return(jen.Id("found"), jen.Nil())}
	if len(missing) > 0 {
		page = append(page, jen.If(join(missing, "||")).Block(append([]jen.Code{jen.Comment("no list: the end of it")}, end...)...))
	}
	item := reach(func() *jen.Statement { return list().Index(jen.Id("i")) }, false, steps[each+1:])
	var loop []jen.Code
	if len(item.missing) > 0 {
		loop = append(loop, jen.If(join(item.missing, "||")).Block(jen.Continue()))
	}
	loop = append(loop, jen.Id("body").Op(":=").Add(addr(item)))
	elem := func() *jen.Statement { return jen.Id("body") }
	if l.Since != nil {
		r := reach(elem, true, l.Since.Steps)
		cond := append([]jen.Code{jen.Id("bounded")}, r.present...)
		cond = append(cond, before(l.Since.Type, value(r)))
		loop = append(loop,
			jen.If(join(cond, "&&")).Block(jen.Id("older").Op("=").True(), jen.Continue()),
			jen.If(jen.Id("older")).Block(jen.Comment("after one older than the write: the list is not newest first"),
				jen.Return(jen.Nil(), jen.Op("&").Add(impl("OrderError")).Values(jen.Dict{jen.Id("Operation"): jen.Lit(read.ID)}))))
	}
	add := []jen.Code{jen.Id("found").Op("=").Append(jen.Id("found"), rt("Found").Types(jen.Op("*").Add(T)).Values(foundDict(op, jen.Id("body"))))}
	if op.EnvelopeName != "" { // the found element, in the write's answer
		add = []jen.Code{
			jen.Id("adopted").Op(":=").Id(op.EnvelopeName).Call(jen.Id("body")),
			jen.Id("found").Op("=").Append(jen.Id("found"), rt("Found").Types(jen.Op("*").Add(T)).Values(foundDict(op, jen.Id("adopted")))),
		}
	}
	if l.Match != nil {
		r := reach(elem, true, l.Match.Steps)
		text := value(r)
		if u := under(l.Match.Type); u.Kind != spec.RefBuiltin {
			text = jen.String().Call(text)
		}
		var is jen.Code = jen.Add(text).Op("==").Add(hole)
		if marker != nil {
			is = jen.Qual("strings", "Contains").Call(text, jen.Id("marker"))
		}
		loop = append(loop, jen.If(join(append(r.present, is), "&&")).Block(add...))
	} else {
		loop = append(loop, add...)
	}
	page = append(page, jen.For(jen.Id("i").Op(":=").Range().Add(list())).Block(loop...))
	if l.Since != nil {
		page = append(page, jen.If(jen.Id("older")).Block(jen.Return(jen.Id("found"), jen.Nil()).Comment("older than the write: so is the rest of the list")))
	}

	what := "every " + op.ID + " whose "
	switch {
	case l.Match != nil && marker != nil:
		what += l.Match.Pointer + " holds the marker " + strconv.Quote(oneLine(s.Reference.MarkerText))
	case l.Match != nil:
		what += l.Match.Pointer + " is the reference"
	default:
		what += "reference is reference"
	}
	what += ", in the provider's order, with " + read.GoName
	if p := l.Pages; p != nil && p.Cursor == nil {
		// by page number: start, start+1, ...; an empty page is the end of the list
		typ := goType(p.Param.Type)
		set := jen.Id("params").Dot(p.Param.GoName)
		first := jen.Id("number").Op(":=").Add(typ).Call(jen.Lit(p.Start))
		if p.Param.Pointer {
			stmts = append(stmts, first, set.Clone().Op("=").Op("&").Id("number"))
		} else {
			stmts = append(stmts, first, set.Clone().Op("=").Id("number"))
		}
		page = append(page,
			jen.If(jen.Len(list()).Op("==").Lit(0)).Block(jen.Return(jen.Id("found"), jen.Nil()).Comment("an empty page: the end of the list")),
			jen.If(jen.Id("page").Op("==").Lit(p.Max)).Block(jen.Break()),
			jen.Id("number").Op("++"))
		if !p.Param.Pointer {
			page = append(page, set.Clone().Op("=").Id("number"))
		}
		stmts = append(stmts,
			jen.For(jen.Id("page").Op(":=").Lit(1), jen.Empty(), jen.Id("page").Op("++")).Block(page...),
			jen.If(jen.Len(jen.Id("found")).Op(">").Lit(0)).Block(jen.Return(jen.Id("found"), jen.Nil())),
			jen.Return(jen.Nil(), jen.Op("&").Add(impl("BoundError")).Values(jen.Dict{
				jen.Id("Operation"): jen.Lit(read.ID),
				jen.Id("Pages"):     jen.Lit(p.Max),
			})))
		what += ", reading at most " + plural(p.Max, "page") + " by number from " + strconv.Itoa(p.Start) + " (not found within them is a *writegenimpl.BoundError)"
	} else if p := l.Pages; p != nil {
		r := reach(res, rootPtr, p.Cursor.Steps)
		cursor := value(r)
		last := append(slices.Clone(r.missing), jen.Add(cursor).Op("==").Lit(""))
		page = append(page,
			jen.If(join(last, "||")).Block(jen.Return(jen.Id("found"), jen.Nil()).Comment("the end of the list")),
			jen.If(jen.Id("page").Op("==").Lit(p.Max)).Block(jen.Break()))
		if u := under(p.Cursor.Type); u.Kind != spec.RefBuiltin {
			cursor = jen.String().Call(cursor)
		}
		next := cursor
		if u := under(p.Param.Type); u.Kind != spec.RefBuiltin {
			next = goType(p.Param.Type).Call(next)
		}
		set := jen.Id("params").Dot(p.Param.GoName)
		if p.Param.Pointer {
			if r.ptr && sameRef(p.Cursor.Type, p.Param.Type) {
				page = append(page, set.Op("=").Add(r.expr()))
			} else {
				page = append(page, jen.Id("next").Op(":=").Add(next), set.Op("=").Op("&").Id("next"))
			}
		} else {
			page = append(page, set.Op("=").Add(next))
		}
		stmts = append(stmts,
			jen.For(jen.Id("page").Op(":=").Lit(1), jen.Empty(), jen.Id("page").Op("++")).Block(page...),
			jen.If(jen.Len(jen.Id("found")).Op(">").Lit(0)).Block(jen.Return(jen.Id("found"), jen.Nil())),
			jen.Return(jen.Nil(), jen.Op("&").Add(impl("BoundError")).Values(jen.Dict{
				jen.Id("Operation"): jen.Lit(read.ID),
				jen.Id("Pages"):     jen.Lit(p.Max),
			})))
		what += ", reading at most " + plural(p.Max, "page") + " (not found within them is a *writegenimpl.BoundError)"
	} else {
		stmts = append(stmts, page...)
		stmts = append(stmts, jen.Return(jen.Id("found"), jen.Nil()))
	}
	if l.Since != nil {
		what += "; it stops at the page of the first element whose " + l.Since.Pointer + " is older than the write (writegenimpl.LookupSince), and fails with a *writegenimpl.OrderError when a newer one follows it there (the list is not newest first)"
	}
	f.Line()
	f.Comment(comment(l.Name + " finds " + what + "." + escapeNote(l)))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Add(lookupSignature(op, l.Name)).Block(stmts...)
}

// value is the value r reached, through its pointer.
func value(r reached) *jen.Statement {
	if r.ptr {
		return jen.Op("*").Add(r.expr())
	}
	return r.expr()
}

// before is the condition that v, a creation time of type t, is before since.
func before(t *spec.TypeRef, v *jen.Statement) jen.Code {
	u := under(t)
	switch {
	case u.Kind == spec.RefBuiltin && u.Builtin == "time.Time":
		return jen.Add(v).Dot("Before").Call(jen.Id("since"))
	case isString(t):
		if u.Kind != spec.RefBuiltin {
			v = jen.String().Call(v)
		}
		return impl("CreatedBefore").Call(v, jen.Id("since"))
	}
	if !(u.Kind == spec.RefBuiltin && u.Builtin == "int64") {
		v = jen.Int64().Call(v)
	}
	return jen.Qual("time", "Unix").Call(v, jen.Lit(0)).Dot("Before").Call(jen.Id("since"))
}

// sameRef reports whether a and b are the same builtin or named type.
func sameRef(a, b *spec.TypeRef) bool {
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
func envelopeOf(op *spec.Operation, found jen.Code) jen.Code {
	if op.EnvelopeName == "" {
		return found
	}
	return jen.Id(op.EnvelopeName).Call(found)
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
func (g *generator) bodyFromTemplate(read *spec.Operation, t *spec.BodyTemplate, hole jen.Code) []jen.Code {
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
func templateExpr(parts []spec.TemplatePart, hole jen.Code, vals map[*spec.LookupValue]jen.Code) *jen.Statement {
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
func templateParams(ts []*spec.Template, hole jen.Code, vals map[*spec.LookupValue]jen.Code) (values, pre []jen.Code) {
	for _, t := range ts {
		p := t.Param
		value := templateExpr(t.Parts, hole, vals)
		if len(t.Parts) == 1 && t.Parts[0].Value != nil && t.Parts[0].Value.Integer && !isString(p.Type) {
			// an integer parameter takes the integer value
			value = jen.Add(vals[t.Parts[0].Value])
			if u := under(p.Type); u.Builtin != "int64" {
				value = goType(p.Type).Call(value)
			}
		}
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
		values, pre := templateParams(c.Params, jen.Id("duplicate").Dot("ID"), nil)
		stmts = append(stmts, pre...)
		args = append(args, jen.Id(target.ParamsName).Custom(multiLine, values...))
	}
	switch {
	case optionalBody(target):
		args = append(args, jen.Nil()) // no body: the compensation sends none
	case target.Body != nil:
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
	present []jen.Code            // the conditions under which it is there: missing negated
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
				r.present = append(r.present, r.expr().Op("!=").Nil())
			}
		case spec.StepIndex:
			n := st.Index
			if n == 0 {
				r.missing = append(r.missing, jen.Len(deref()).Op("==").Lit(0))
			} else {
				r.missing = append(r.missing, jen.Len(deref()).Op("<=").Lit(n))
			}
			r.present = append(r.present, jen.Len(deref()).Op(">").Lit(n))
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

// escapeNote says, in a lookup's comment, how its substitutions reach the query.
func escapeNote(l *spec.Lookup) string {
	if l.Escape == "" {
		return ""
	}
	return " Each value substituted into the query is one " + string(l.Escape) + " literal (writegenimpl." + escapeFuncs[l.Escape] +
		"); a value the language cannot hold fails the lookup, and the call ends uncertain."
}
