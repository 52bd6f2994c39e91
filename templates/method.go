package templates

import (
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec"
)

// call says which runtime function carries out an operation.
type call int

const (
	callRead   call = iota // runtime.Read: a read, or a write declared read-only without a key
	callDo                 // runtime.Do: an unkeyed write, idempotent by declaration
	callWrite              // runtime.Write: a keyed write whose 2xx is a receipt
	callSubmit             // runtime.Submit: a keyed write whose 2xx is an acknowledgement
)

// callOf returns how op is carried out.
func callOf(op *spec.Operation) call {
	s := op.Safety
	switch {
	case s == nil:
		return callRead
	case s.Key != nil && s.Receipt:
		return callWrite
	case s.Key != nil:
		return callSubmit
	case s.Effect == spec.EffectReadOnly:
		return callRead
	}
	return callDo
}

// resultType is the Go type of op's response body, runtime.Empty when it has none.
func (g *generator) resultType(op *spec.Operation) *jen.Statement {
	if op.Response == nil || op.Response.Type == nil {
		return rt("Empty")
	}
	return goType(op.Response.Type)
}

// hasResult reports whether op's response has a body.
func hasResult(op *spec.Operation) bool { return op.Response != nil && op.Response.Type != nil }

// method emits the method of an operation. A keyed write:
//
//	func (c *Client) CreateThread(ctx context.Context, key CreateThreadKey, body CreateThreadRequest) (*runtime.Receipt[Thread], error) {
//		return runtime.Write(ctx, c.rt, createThreadOp, key, runtime.Call[Thread]{
//			Request: func(providerKey string) (*runtime.Request, error) {
//				body.ExternalReference = &providerKey
//				req := runtime.NewRequest("POST", "/threads")
//				if err := req.JSON(body); err != nil {
//					return nil, err
//				}
//				return req, nil
//			},
//			Lookup: c.findThreadByReference,
//		})
//	}
//
// A read (an unkeyed write calls runtime.Do instead; a slice or a map is returned as it is, not
// through a pointer; without a response body only the error is returned):
//
//	func (c *Client) GetThread(ctx context.Context, params GetThreadParams) (*Thread, error) {
//		req := runtime.NewRequest("GET", "/threads/"+runtime.PathParam("id", params.ID))
//		return runtime.Read[Thread](ctx, c.rt, getThreadOp, req)
//	}
func (g *generator) method(f *jen.File, op *spec.Operation) {
	kind := callOf(op)
	args := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	if kind == callWrite || kind == callSubmit {
		args = append(args, jen.Id("key").Id(op.Safety.Key.TypeName))
	}
	if hasParams(op) {
		args = append(args, jen.Id("params").Id(paramsName(op)))
	}
	if op.Body != nil {
		args = append(args, jen.Id("body").Add(goType(op.Body.Type)))
	}

	var results []jen.Code
	var body []jen.Code
	T := g.resultType(op)
	switch kind {
	case callWrite, callSubmit:
		fn, res := "Write", "Receipt"
		if kind == callSubmit {
			fn, res = "Submit", "Ack"
		}
		results = []jen.Code{jen.Op("*").Add(rt(res)).Types(T), jen.Error()}
		stmts, usesKey := g.request(op, true, func() jen.Code { return jen.Return(jen.Nil(), jen.Err()) })
		keyParam := jen.String()
		if usesKey {
			keyParam = jen.Id("providerKey").String()
		}
		stmts = append(stmts, jen.Return(jen.Id("req"), jen.Nil()))
		items := []jen.Code{
			jen.Id("Request").Op(":").Func().Params(keyParam).Params(jen.Op("*").Add(rt("Request")), jen.Error()).Block(stmts...),
		}
		if lookup := g.lookupFunc(op); lookup != nil {
			items = append(items, jen.Id("Lookup").Op(":").Add(lookup))
		}
		body = []jen.Code{jen.Return(rt(fn).Call(
			jen.Id("ctx"), jen.Id("c").Dot("rt"), jen.Id(g.local[op]+"Op"), jen.Id("key"),
			rt("Call").Types(g.resultType(op)).Custom(multiLine, items...),
		))}
	default:
		fn := "Read"
		if kind == callDo {
			fn = "Do"
		}
		fail := func() jen.Code { return jen.Return(jen.Nil(), jen.Err()) }
		if !hasResult(op) {
			fail = func() jen.Code { return jen.Return(jen.Err()) }
		}
		body, _ = g.request(op, false, fail)
		run := rt(fn).Types(T).Call(jen.Id("ctx"), jen.Id("c").Dot("rt"), jen.Id(g.local[op]+"Op"), jen.Id("req"))
		switch {
		case hasResult(op) && nilable(op.Response.Type): // a slice or a map: returned as it is
			results = []jen.Code{T, jen.Error()}
			body = append(body,
				jen.List(jen.Id("res"), jen.Err()).Op(":=").Add(run),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Op("*").Id("res"), jen.Nil()))
		case hasResult(op):
			results = []jen.Code{jen.Op("*").Add(T), jen.Error()}
			body = append(body, jen.Return(run))
		default:
			results = []jen.Code{jen.Error()}
			body = append(body, jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(run), jen.Return(jen.Err()))
		}
	}
	f.Line()
	f.Comment(g.methodDoc(op))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(op.GoName).Params(args...).Params(results...).Block(body...)
}

// methodDoc is the doc comment of op's method: what it calls, the spec's words, and for a write
// a summary of its annotation.
func (g *generator) methodDoc(op *spec.Operation) string {
	lead := op.GoName + " calls " + op.Method + " " + op.Path
	if s := oneLine(op.Summary); s != "" {
		lead += ": " + s
	}
	paras := []string{comment(strings.TrimSuffix(lead, ".") + ".")}
	if d := comment(op.Doc); d != "" && oneLine(op.Doc) != oneLine(op.Summary) {
		paras = append(paras, d)
	}
	if s := op.Safety; s != nil {
		paras = append(paras, comment(safetySummary(op)))
	}
	if op.Deprecated {
		paras = append(paras, "// Deprecated: the API description marks this operation deprecated.")
	}
	return strings.Join(paras, "\n//\n")
}

// safetySummary says in one sentence what op's annotation declares.
func safetySummary(op *spec.Operation) string {
	s := op.Safety
	var b strings.Builder
	b.WriteString("Write safety (see " + SafetyReport + "): effect " + string(s.Effect))
	if s.Key != nil {
		b.WriteString(", business key " + strconv.Quote(oneLine(s.Key.Format)))
	}
	if len(s.Retry) == 0 {
		b.WriteString(", never retried")
	} else {
		b.WriteString(", retried on " + strings.Join(s.Retry, ", ") + " within " + strconv.Itoa(s.Attempts) + " attempts")
	}
	if l := s.Lookup; l != nil {
		name := l.Func
		if l.Operation != nil {
			name = l.Operation.ID
		}
		b.WriteString(", looked up with " + name + " (" + string(l.Consistency) + ")")
	}
	if s.Dedupe == "ledger" {
		b.WriteString(", deduplicated in the ledger")
	}
	if s.Owner != "" {
		b.WriteString("; uncertain outcomes go to " + oneLine(s.Owner))
	}
	return b.String() + "."
}

// request returns the statements that build req, the request of op. keyed says that the
// provider key is in scope as providerKey; usesKey reports whether the statements use it.
// fail returns from the enclosing function after an error err.
func (g *generator) request(op *spec.Operation, keyed bool, fail func() jen.Code) (stmts []jen.Code, usesKey bool) {
	var bodies, queries []string
	if keyed {
		bodies, queries = keyPlaces(op.Safety)
	}
	// The provider key goes into the body before the body is encoded.
	for _, ptr := range bodies {
		stmts = append(stmts, g.setInBody(op, ptr)...)
	}
	stmts = append(stmts, jen.Id("req").Op(":=").Add(rt("NewRequest")).Call(jen.Lit(op.Method), g.path(op)))
	for _, p := range op.Params {
		var add func(v jen.Code) jen.Code
		switch p.In {
		case spec.InPath:
			continue
		case spec.InQuery:
			add = func(v jen.Code) jen.Code {
				return jen.Id("req").Dot("AddQuery").Call(jen.Lit(p.Name), v, jen.Lit(p.Style), jen.Lit(p.Explode))
			}
		case spec.InHeader:
			add = func(v jen.Code) jen.Code { return jen.Id("req").Dot("SetHeader").Call(jen.Lit(p.Name), v) }
		case spec.InCookie:
			add = func(v jen.Code) jen.Code { return jen.Id("req").Dot("AddCookie").Call(jen.Lit(p.Name), v) }
		default:
			g.fail(op.Pos, op.ID, "parameter %s: unknown location %q", p.Name, p.In)
			continue
		}
		stmts = append(stmts, g.passParam(p, add))
	}
	for _, name := range queries {
		stmts = append(stmts, jen.Id("req").Dot("AddQuery").Call(jen.Lit(name), jen.Id("providerKey"), jen.Lit("form"), jen.True()))
	}
	if op.Body != nil {
		stmts = append(stmts, g.encodeBody(op, fail)...)
	}
	return stmts, len(bodies)+len(queries) > 0
}

// keyPlaces lists where a keyed write carries its provider key besides the header the runtime
// sets: JSON pointers in the body and query parameters, for the idempotency key and then for
// the reference, each place once.
func keyPlaces(s *spec.Safety) (bodies, queries []string) {
	add := func(list []string, place string) []string {
		if place == "" || slices.Contains(list, place) {
			return list
		}
		return append(list, place)
	}
	if i := s.Idempotency; i != nil {
		bodies, queries = add(bodies, i.Body), add(queries, i.Query)
	}
	if r := s.Reference; r != nil {
		bodies, queries = add(bodies, r.Body), add(queries, r.Query)
	}
	return bodies, queries
}

// path returns the expression of op's path with its parameters expanded:
//
//	"/threads/" + runtime.PathParam("id", params.ID) + "/messages"
func (g *generator) path(op *spec.Operation) jen.Code {
	var parts []jen.Code
	rest := op.Path
	for rest != "" {
		open := strings.IndexByte(rest, '{')
		end := strings.IndexByte(rest[max(open, 0):], '}') + max(open, 0)
		if open < 0 || end < open {
			parts = append(parts, jen.Lit(rest))
			break
		}
		if open > 0 {
			parts = append(parts, jen.Lit(rest[:open]))
		}
		name := rest[open+1 : end]
		rest = rest[end+1:]
		var param *spec.Param
		for _, p := range op.Params {
			if p.In == spec.InPath && p.Name == name {
				param = p
			}
		}
		if param == nil {
			g.fail(op.Pos, op.ID, "path %s: no path parameter %q", op.Path, name)
			continue
		}
		if isUnion(param.Type) {
			g.needJSONValue = true
		}
		value, _ := paramValue(param.Type, jen.Id("params").Dot(param.GoName))
		parts = append(parts, rt("PathParam").Call(jen.Lit(name), value))
	}
	if len(parts) == 0 {
		return jen.Lit("")
	}
	return join(parts, "+")
}

// passParam returns the statement that passes parameter p to add, leaving out an absent
// optional value:
//
//	req.AddQuery("limit", params.Limit, "form", true)
//	if len(params.Expand) > 0 {
//		req.AddQuery("expand", params.Expand, "deepObject", true)
//	}
//	if params.Since != nil {
//		req.AddQuery("since", params.Since.Format(time.RFC3339Nano), "form", true)
//	}
func (g *generator) passParam(p *spec.Param, add func(v jen.Code) jen.Code) jen.Code {
	v := func() *jen.Statement { return jen.Id("params").Dot(p.GoName) }
	h := paramHolding(p)
	value, conv := paramValue(p.Type, v())
	if isUnion(p.Type) {
		g.needJSONValue = true
	}
	switch {
	case h.ptr && conv:
		return jen.If(v().Op("!=").Nil()).Block(add(value))
	case h.ptr:
		return add(v()) // the runtime adds nothing for a nil pointer
	case nilable(p.Type) && !p.Required && under(p.Type).Builtin != "any":
		return jen.If(jen.Len(v()).Op(">").Lit(0)).Block(add(v()))
	}
	return add(value)
}

// paramValue returns the value the runtime formats for a parameter held in v: v itself, or
// (conv) a time formatted as RFC 3339 or the JSON value a union holds.
func paramValue(r *spec.TypeRef, v *jen.Statement) (value *jen.Statement, conv bool) {
	switch {
	case r.Kind == spec.RefBuiltin && r.Builtin == "time.Time":
		return v.Dot("Format").Call(jen.Qual("time", "RFC3339Nano")), true
	case isUnion(r):
		return jen.Id("jsonValue").Call(v.Dot("Raw").Call()), true
	}
	return v, false
}
