package templates

import (
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec/ir"
)

// resultType is the Go type of op's response body, struct{} when it has none.
func resultType(op *ir.Operation) *jen.Statement {
	if !ir.HasResult(op) {
		return jen.Struct()
	}
	return goType(op.Response.Type)
}

// resultPtr is a pointer to resultType, the type parameter of the runtime's Call and Found: the
// type of a receipt's Body.
func resultPtr(op *ir.Operation) *jen.Statement { return jen.Op("*").Add(resultType(op)) }

// method emits the method of an operation. Each calls the executor once and hands it the new
// value to fill in (a receipt, an acknowledgement, a response body): a keyed write's type
// parameters are then pointers, whose instantiations share one body, and a read's pointer is an
// any, so that the compiler instantiates nothing per read. A keyed write (an acknowledged one
// calls writegenimpl.SubmitInto with a new runtime.Ack) builds its request and hands it over:
//
//	func (c *Client) PostMessage(ctx context.Context, key PostMessageKey, params PostMessageParams, body NewMessage) (*runtime.Receipt[Message], error) {
//		req := writegenimpl.NewRequest("POST", "/threads/"+writegenimpl.PathSegment(params.ThreadID)+"/messages")
//		if err := req.JSON(body); err != nil {
//			return nil, err
//		}
//		return writegenimpl.WriteInto(ctx, c.impl, postMessageOp, &key, new(runtime.Receipt[Message]), writegenimpl.Call[*Message]{
//			Request: req,
//			ID:      postMessageID,
//		})
//	}
//
// unless the request carries the provider key or the reference, which only the executor knows:
// then the Call's Build function builds it, once, from them:
//
//	func (c *Client) CreateThread(ctx context.Context, key CreateThreadKey, body CreateThreadRequest) (*runtime.Receipt[Thread], error) {
//		return writegenimpl.WriteInto(ctx, c.impl, createThreadOp, &key, new(runtime.Receipt[Thread]), writegenimpl.Call[*Thread]{
//			Build: func(_, reference string) (*writegenimpl.Request, error) {
//				body.ExternalReference = &reference
//				req := writegenimpl.NewRequest("POST", "/threads")
//				if err := req.JSON(body); err != nil {
//					return nil, err
//				}
//				return req, nil
//			},
//			ID:     createThreadID,
//			Lookup: c.createThreadLookup,
//		})
//	}
//
// A read (an unkeyed write calls writegenimpl.Do instead; a slice or a map is returned as it
// is, not through a pointer; without a response body only the error is returned):
//
//	func (c *Client) GetThread(ctx context.Context, params GetThreadParams) (*Thread, error) {
//		req := writegenimpl.NewRequest("GET", "/threads/"+writegenimpl.PathSegment(params.ID))
//		res := new(Thread)
//		if err := writegenimpl.Read(ctx, c.impl, getThreadOp, req, res); err != nil {
//			return nil, err
//		}
//		return res, nil
//	}
func (g *generator) method(f *jen.File, op *ir.Operation) {
	args := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	keyed := op.Call == ir.CallWrite || op.Call == ir.CallSubmit
	if keyed {
		args = append(args, jen.Id("key").Id(op.Safety.Key.TypeName))
	}
	if op.ParamsName != "" {
		args = append(args, jen.Id("params").Id(op.ParamsName))
	}
	if op.Body != nil {
		args = append(args, jen.Id("body").Add(bodyArgType(op)))
	}

	var results []jen.Code
	var body []jen.Code
	T := resultType(op)
	if keyed {
		fn, res := "WriteInto", "Receipt"
		if op.Call == ir.CallSubmit {
			fn, res = "SubmitInto", "Ack"
		}
		results = []jen.Code{jen.Op("*").Add(rt(res)).Types(T), jen.Error()}
		stmts, uses := g.request(op, func() jen.Code { return jen.Return(jen.Nil(), jen.Err()) })
		var request jen.Code // the Call's Request or Build
		if uses[0] || uses[1] {
			names := []string{"_", "_"}
			for i, name := range []string{"providerKey", "reference"} {
				if uses[i] {
					names[i] = name
				}
			}
			stmts = append(stmts, jen.Return(jen.Id("req"), jen.Nil()))
			build := jen.Func().Params(jen.Id(names[0]), jen.Id(names[1]).String()).Params(jen.Op("*").Add(impl("Request")), jen.Error()).Block(stmts...)
			request = jen.Id("Build").Op(":").Add(build)
		} else {
			body = stmts
			request = jen.Id("Request").Op(":").Id("req")
		}
		body = append(body, jen.Return(impl(fn).Call(
			jen.Id("ctx"), jen.Id("c").Dot("impl"), jen.Id(op.DescriptorName), jen.Op("&").Id("key"), jen.New(rt(res).Types(T)),
			impl("Call").Types(jen.Op("*").Add(T)).Custom(multiLine, g.callItems(op, request)...),
		)))
	} else {
		fn := "Read"
		if op.Call == ir.CallDo {
			fn = "Do"
		}
		fail := func() jen.Code { return jen.Return(jen.Nil(), jen.Err()) }
		if !ir.HasResult(op) {
			fail = func() jen.Code { return jen.Return(jen.Err()) }
		}
		body, _ = g.request(op, fail)
		run := func(into jen.Code) *jen.Statement {
			return impl(fn).Call(jen.Id("ctx"), jen.Id("c").Dot("impl"), jen.Id(op.DescriptorName), jen.Id("req"), into)
		}
		// readInto declares res, reads into it and returns it.
		readInto := func(decl, into jen.Code) []jen.Code {
			return []jen.Code{decl,
				jen.If(jen.Err().Op(":=").Add(run(into)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Id("res"), jen.Nil())}
		}
		switch {
		case ir.HasResult(op) && ir.Nilable(op.Response.Type): // a slice or a map: returned as it is
			results = []jen.Code{T, jen.Error()}
			body = append(body, readInto(jen.Var().Id("res").Add(T), jen.Op("&").Id("res"))...)
		case ir.HasResult(op):
			results = []jen.Code{jen.Op("*").Add(T), jen.Error()}
			body = append(body, readInto(jen.Id("res").Op(":=").New(T), jen.Id("res"))...)
		default:
			results = []jen.Code{jen.Error()}
			body = append(body, jen.Return(run(jen.Nil())))
		}
	}
	f.Line()
	f.Comment(g.methodDoc(op))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(op.GoName).Params(args...).Params(results...).Block(body...)
}

// callItems are the fields of the writegenimpl.Call of a keyed write; request is its Request or
// Build field, or nil (Resume sends the stored request).
func (g *generator) callItems(op *ir.Operation, request jen.Code) []jen.Code {
	s := op.Safety
	var items []jen.Code
	if request != nil {
		items = append(items, request)
		if ref := s.Reference; ref != nil && ref.Value != nil {
			items = append(items, jen.Id("Reference").Op(":").Add(keyExpr(ref.Value, jen.Id("key"))))
		}
		if l := s.Lookup; l != nil && len(l.Values) > 0 {
			items = append(items, jen.Id("LookupValues").Op(":").Add(lookupValuesOf(l)))
		}
	}
	if op.IDName != "" {
		items = append(items, jen.Id("ID").Op(":").Id(op.IDName))
	}
	if l := s.Lookup; l != nil {
		items = append(items, jen.Id("Lookup").Op(":").Id("c").Dot(l.Name))
	}
	if c := s.Compensate; c != nil {
		items = append(items, jen.Id("Compensate").Op(":").Id("c").Dot(c.Name))
	}
	if l := s.Lookup; request != nil && l != nil && l.Adopt != nil {
		items = append(items, jen.Id("Read").Op(":").Id("c").Dot(readName(op)))
	}
	return items
}

// lookupValuesOf is the list of the values a write's lookup takes from it, name and value, that
// travel with its reference:
//
//	[]string{"ticket_id", strconv.FormatInt(params.TicketID, 10)}
func lookupValuesOf(l *ir.Lookup) jen.Code {
	var items []jen.Code
	for _, v := range l.Values {
		var x, t = jen.Id("key"), "string"
		if v.Field != nil {
			x = x.Dot(v.Field.GoName)
			t = v.Field.Type
		} else {
			x = jen.Id("params").Dot(v.Param.GoName)
			if u := ir.Under(v.Param.Type); u.Kind != ir.RefBuiltin {
				t = "named"
			} else {
				t = u.Builtin
			}
		}
		switch t {
		case "int64":
			x = jen.Qual("strconv", "FormatInt").Call(x, jen.Lit(10))
		case "int32":
			x = jen.Qual("strconv", "FormatInt").Call(jen.Int64().Call(x), jen.Lit(10))
		case "named":
			x = jen.String().Call(x)
		}
		items = append(items, jen.Lit(v.Name), x)
	}
	return jen.Index().String().Values(items...)
}

// methodDoc is the doc comment of op's method: what it calls, the spec's words, and for a write
// a summary of its annotation.
func (g *generator) methodDoc(op *ir.Operation) string {
	lead := op.GoName + " calls " + op.Method + " " + op.Path
	if op.SpecPath != op.Path {
		var what []string
		if strings.Contains(op.SpecPath, "?") {
			what = append(what, "its query is sent with every call")
		}
		if strings.Contains(op.SpecPath, "#") {
			what = append(what, "its fragment is never sent")
		}
		lead += " (the spec's path " + strconv.Quote(op.SpecPath) + ": " + strings.Join(what, ", ") + ")"
	}
	if s := ir.OneLine(op.Summary); s != "" {
		lead += ": " + s
	}
	paras := []string{comment(strings.TrimSuffix(lead, ".") + ".")}
	if d := comment(op.Doc); d != "" && ir.OneLine(op.Doc) != ir.OneLine(op.Summary) {
		paras = append(paras, d)
	}
	if s := op.Safety; s != nil {
		paras = append(paras, comment(safetySummary(op)))
		if w := overwrites(s); w != "" {
			paras = append(paras, comment(w))
		}
	}
	if op.Deprecated {
		paras = append(paras, "// Deprecated: the API description marks this operation deprecated.")
	}
	return strings.Join(paras, "\n//\n")
}

// overwrites says which places of the request the method fills in, overwriting what the caller
// put there, and where it appends a reference marker.
func overwrites(s *ir.Safety) string {
	var parts []string
	var marker string
	for _, set := range s.Sets {
		if set.Value == ir.SetReference && s.Reference.Marker != nil && set.Body != nil {
			ref := "the provider key"
			if s.Reference.Value != nil {
				ref = "the reference " + strconv.Quote(ir.OneLine(s.Reference.ValueFormat)) + " (from the key)"
			}
			marker = "It appends the marker " + strconv.Quote(s.Reference.MarkerText) + " to body field " +
				strconv.Quote(ir.OneLine(set.Body.Pointer)) + ", with " + ref + " for {ref}, for the lookup to match."
			continue
		}
		what := "the provider key"
		if set.Value == ir.SetReference && s.Reference.Value != nil {
			what = "the reference " + strconv.Quote(ir.OneLine(s.Reference.ValueFormat)) + " (from the key)"
		} else if set.Value == ir.SetReference {
			what = "the provider key, as the reference the lookup searches for"
		}
		where := "query parameter " + strconv.Quote(ir.OneLine(set.Query))
		if set.Body != nil {
			where = "body field " + strconv.Quote(ir.OneLine(set.Body.Pointer))
		}
		if throughSet(set.Body) {
			what += ", when the body holds the variant " + describe(s.Reference.Through.Type) +
				" (else the call stores no reference, and its lookup is not asked)"
		}
		parts = append(parts, where+" with "+what)
	}
	if len(parts) == 0 {
		return marker
	}
	return strings.TrimSpace("It overwrites " + strings.Join(parts, ", and ") + ". " + marker)
}

// safetySummary says in one sentence what op's annotation declares.
func safetySummary(op *ir.Operation) string {
	s := op.Safety
	var b strings.Builder
	b.WriteString("Write safety (see " + SafetyReport + "): effect " + s.Effect.String())
	if s.Key != nil {
		b.WriteString(", business key " + strconv.Quote(ir.OneLine(s.Key.Format)) + " in key scope " + strconv.Quote(s.Key.Scope))
	}
	if s.Retry == 0 {
		b.WriteString(", never retried")
	} else {
		b.WriteString(", retried on " + strings.ReplaceAll(s.Retry.String(), "|", ", ") + " within " + strconv.Itoa(s.Attempts) + " attempts")
	}
	if l := s.Lookup; l != nil {
		name := l.Func
		if l.Operation != nil {
			name = l.Operation.ID
		}
		b.WriteString(", looked up with " + name + " (" + l.Consistency.String() + ")")
	}
	if c := s.Compensate; c != nil {
		b.WriteString(", duplicates compensated with " + c.Operation.ID)
	}
	if s.Dedupe {
		b.WriteString(", deduplicated in the ledger")
	}
	if s.Owner != "" {
		b.WriteString("; uncertain outcomes go to " + ir.OneLine(s.Owner))
	}
	return b.String() + "."
}

// request returns the statements that build req, the request of op, and whether they use the
// provider key and the reference (providerKey and reference, in scope in a keyed write's
// Request). fail returns from the enclosing function after an error err.
func (g *generator) request(op *ir.Operation, fail func() jen.Code) (stmts []jen.Code, uses [2]bool) {
	var sets []ir.Set
	if op.Call == ir.CallWrite || op.Call == ir.CallSubmit {
		sets = op.Safety.Sets
	}
	value := func(v ir.SetValue) string {
		if v == ir.SetProviderKey {
			uses[0] = true
			return "providerKey"
		}
		uses[1] = true
		return "reference"
	}
	// The key and the reference go into the body before the body is encoded.
	through := false
	for i, set := range sets {
		if throughSet(set.Body) {
			stmts = append(stmts, g.setInVariant(op, set.Body, value(set.Value), fail)...)
			through = true
			continue
		}
		if set.Body != nil {
			var marker []ir.TemplatePart
			if set.Value == ir.SetReference {
				marker = op.Safety.Reference.Marker
			}
			stmts = append(stmts, g.setInBody(set.Body, value(set.Value), marker, i, fail)...)
		}
	}
	stmts = append(stmts, jen.Id("req").Op(":=").Add(impl("NewRequest")).Call(jen.Lit(op.Method), g.path(op)))
	if through {
		stmts = append(stmts, jen.Id("req").Dot("NoReference").Op("=").Op("!").Id("referenced"))
	}
	// The query a spec writes into its path key ("/responses/compact?beta=true") goes with every call.
	for _, q := range op.FixedQuery {
		stmts = append(stmts, jen.Id("req").Dot("AddQuery").Call(jen.Lit(q.Name), jen.Lit(q.Value)))
	}
	for _, p := range op.Params {
		if p.In != ir.InPath { // a path parameter is in the path
			stmts = append(stmts, g.passParam(p))
		}
	}
	for _, set := range sets {
		if set.Query != "" {
			stmts = append(stmts, jen.Id("req").Dot("AddQuery").Call(jen.Lit(set.Query), jen.Id(value(set.Value))))
		}
	}
	if op.Body != nil {
		stmts = append(stmts, g.encodeBody(op, fail)...)
	}
	return stmts, uses
}

// path returns the expression of op's path with its parameters expanded:
//
//	"/threads/" + writegenimpl.PathSegment(params.ID) + "/messages"
func (g *generator) path(op *ir.Operation) jen.Code {
	var parts []jen.Code
	for _, pp := range op.PathParts {
		if pp.Param == nil {
			parts = append(parts, jen.Lit(pp.Literal))
			continue
		}
		parts = append(parts, g.pathParam(pp.Param))
	}
	if len(parts) == 0 {
		return jen.Lit("")
	}
	return join(parts, "+")
}
