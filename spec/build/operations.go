package build

import (
	"cmp"
	"fmt"
	"mime"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/load"
	"github.com/writegen/writegen/spec/naming"
)

// Op is an operation of the spec before conversion: what scope and annotations need.
type Op struct {
	Op     *ir.Operation
	Raw    *openapi3.Operation
	Item   *openapi3.PathItem
	at     site // the operation's node
	pathAt site // the path item's node
	// schemas of the chosen request body and success response, once converted
	BodySchema, respSchema *openapi3.SchemaRef
	Converted              bool
	// errs and warnings are the defects its conversion found: errors only the operation has
	// (it cannot be generated), and what it is generated without.
	Errs, Warnings ir.ErrorList
}

// ListOperations returns every operation of the spec, in path order then method order, with its
// ID and Go name resolved. Two operations with one operationId are an error. A malformed path
// template is a defect of its path: an error when an operation of it is in scope.
func (b *Builder) ListOperations() ([]*Op, ir.ErrorList) {
	var errs ir.ErrorList
	var ops []*Op
	paths := b.doc.API.Paths
	if paths == nil {
		return nil, nil
	}
	_, pathsNode := b.doc.Child(b.doc.Root, "paths")
	byID := make(map[string]*Op)
	for _, path := range sortedKeys(paths.Map()) {
		item := paths.Value(path)
		pk, pn := b.doc.Child(pathsNode, path)
		if msg := templateDefect(path); msg != "" {
			e := b.doc.Errorf(pk, "", "path %q: %s", path, msg)
			b.doc.Defects = append(b.doc.Defects, &load.Defect{Err: e, Holder: pn})
		}
		pathAt := site{ptr: "#/paths/" + ir.EscapePointer(path), key: pk, node: pn}
		for _, m := range load.Methods {
			raw := item.GetOperation(m)
			if raw == nil {
				continue
			}
			at := b.sub(pathAt, strings.ToLower(m), "")
			tmpl, fixed, notes := splitSpecPath(path)
			op := &ir.Operation{
				ID: raw.OperationID, Method: m, Path: tmpl, SpecPath: path, FixedQuery: fixed, Tags: slices.Clone(raw.Tags),
				Summary: raw.Summary, Doc: raw.Description, Pos: b.doc.Pos(at.key), Deprecated: raw.Deprecated,
				Write: m == "POST" || m == "PUT" || m == "PATCH" || m == "DELETE",
			}
			if op.ID == "" {
				op.ID = m + " " + path
			}
			so := &Op{Op: op, Raw: raw, Item: item, at: at, pathAt: pathAt}
			for _, n := range notes {
				so.Warnings = append(so.Warnings, &ir.Error{Pos: b.doc.Pos(pk), Operation: op.ID, Msg: n})
			}
			if prev, dup := byID[op.ID]; dup {
				errs = append(errs, &ir.Error{Pos: op.Pos, Operation: op.ID,
					Msg: "operationId is also used by " + prev.Op.Method + " " + prev.Op.Path + " at " + prev.Op.Pos.String()})
				continue
			}
			byID[op.ID] = so
			ops = append(ops, so)
		}
	}
	claims := []*naming.Claim{
		// Methods the generated Client has besides the operations.
		{Want: "Runtime", Key: "Runtime", Fixed: true, Got: new(string)},
		{Want: "Resume", Key: "Resume", Fixed: true, Got: new(string)},
	}
	for _, so := range ops {
		want := so.Op.ID
		if so.Raw.OperationID == "" {
			want = strings.ToLower(so.Op.Method) + " " + so.Op.SpecPath
		}
		claims = append(claims, &naming.Claim{Want: naming.GoName(want), Literal: naming.GoLiteral(want), Key: so.Op.ID, Got: &so.Op.GoName})
	}
	naming.Settle(claims)
	return ops, errs
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Convert fills in an operation's parameters, body and response.
func (b *Builder) Convert(so *Op) {
	if so.Converted {
		return
	}
	so.Converted = true
	op := so.Op
	op.Params = b.params(so)
	op.Body = b.body(so)
	op.Response = b.response(so)
}

var PathParam = regexp.MustCompile(`\{([^{}]+)\}`)

// templateDefect says what is wrong with a path template, or "" when every { is closed by a }
// before the next { and the braces enclose a name.
func templateDefect(path string) string {
	for rest := path; ; {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			return ""
		}
		if rest[open] == '}' {
			return "a } without {"
		}
		end := strings.IndexAny(rest[open+1:], "{}")
		switch {
		case end < 0 || rest[open+1+end] == '{':
			return "a { without }"
		case end == 0:
			return "{} names no parameter"
		}
		rest = rest[open+1+end+1:]
	}
}

// params merges the path item's and the operation's parameters (the operation's win) and orders
// them: path parameters in template order, then query, header and cookie, each by name. A
// parameter the template names but nobody declares is added as a required string.
func (b *Builder) params(so *Op) []*ir.Param {
	type entry struct {
		p   *openapi3.Parameter
		at  site
		pos ir.Pos // of its entry in the list
	}
	byKey := make(map[string]entry)
	add := func(list openapi3.Parameters, owner site) {
		for i, pr := range list {
			if pr == nil || pr.Value == nil {
				continue
			}
			p := pr.Value
			at := b.item(owner, "parameters", i, so.Op.GoName+naming.GoName(p.Name))
			pos := b.doc.Pos(at.key)
			if pr.Ref != "" {
				at = b.refSite(pr.Ref)
			}
			byKey[p.In+"\x00"+p.Name] = entry{p, at, pos}
		}
	}
	add(so.Item.Parameters, so.pathAt)
	add(so.Raw.Parameters, so.at)

	var out []*ir.Param
	for _, m := range PathParam.FindAllStringSubmatch(so.Op.Path, -1) {
		e, ok := byKey[string(ir.InPath)+"\x00"+m[1]]
		if !ok {
			out = append(out, &ir.Param{Name: m[1], In: ir.InPath, Type: refString, Required: true, Style: "simple", Pos: so.Op.Pos})
			continue
		}
		delete(byKey, string(ir.InPath)+"\x00"+m[1])
		out = append(out, b.param(e.p, e.at))
	}
	var rest []*ir.Param
	for _, e := range byKey {
		if e.p.In == string(ir.InPath) { // declared but not in the template: nothing to fill
			so.Warnings = append(so.Warnings, &ir.Error{Pos: e.pos, Operation: so.Op.ID,
				Msg: fmt.Sprintf("path parameter %q is not in the path %q, so nothing can carry it: it is left out", e.p.Name, so.Op.Path)})
			continue
		}
		rest = append(rest, b.param(e.p, e.at))
	}
	order := map[ir.ParamIn]int{ir.InQuery: 1, ir.InHeader: 2, ir.InCookie: 3}
	slices.SortFunc(rest, func(x, y *ir.Param) int {
		return cmp.Or(cmp.Compare(order[x.In], order[y.In]), strings.Compare(x.Name, y.Name))
	})
	out = append(out, rest...)
	claims := make([]*naming.Claim, len(out))
	for i, p := range out {
		claims[i] = &naming.Claim{Want: naming.GoName(p.Name), Literal: naming.GoLiteral(p.Name), Alt: naming.GoName(string(p.In)), Key: string(p.In) + " " + p.Name, Got: &p.GoName}
	}
	naming.Settle(claims)
	return out
}

func (b *Builder) param(p *openapi3.Parameter, at site) *ir.Param {
	out := &ir.Param{Name: p.Name, In: ir.ParamIn(p.In), Required: p.Required || p.In == "path", Doc: p.Description, Style: p.Style, Pos: b.doc.Pos(at.key)}
	switch {
	case p.Schema != nil:
		out.Type = b.schemaRef(p.Schema, b.sub(at, "schema", at.name))
	case len(p.Content) > 0:
		ct := sortedKeys(p.Content)[0]
		out.Type = b.schemaRef(mediaSchema(p.Content, ct), b.sub(b.sub(b.sub(at, "content", at.name), ct, at.name), "schema", at.name))
	default:
		out.Type = refString
	}
	if out.Style == "" {
		out.Style = "simple"
		if out.In == ir.InQuery || out.In == ir.InCookie {
			out.Style = "form"
		}
	}
	out.Explode = out.Style == "form"
	if p.Explode != nil {
		out.Explode = *p.Explode
	}
	return out
}

// mediaKind classifies a media type: the encodings writegen speaks, in order of preference.
func mediaKind(ct string) (ir.BodyEncoding, int) {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(ct)
	}
	switch {
	case mt == "application/json":
		return ir.BodyJSON, 0
	case strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "/json"):
		return ir.BodyJSON, 1
	case mt == "application/x-www-form-urlencoded":
		return ir.BodyForm, 2
	case mt == "multipart/form-data":
		return ir.BodyMultipart, 3
	}
	return ir.BodyRaw, 4
}

// pickMedia chooses the preferred media type of a content map: JSON, then form, then multipart,
// then anything (sent or returned as raw bytes); ties go to the lower name.
func pickMedia(content openapi3.Content) (string, ir.BodyEncoding) {
	best, bestEnc, bestRank := "", ir.BodyRaw, 99
	for _, ct := range sortedKeys(content) {
		if enc, rank := mediaKind(ct); rank < bestRank {
			best, bestEnc, bestRank = ct, enc, rank
		}
	}
	return best, bestEnc
}

// mediaSchema returns the schema of media type ct in content: nil when the media type declares
// none, or is written as null.
func mediaSchema(content openapi3.Content, ct string) *openapi3.SchemaRef {
	if m := content[ct]; m != nil {
		return m.Schema
	}
	return nil
}

// body converts the request body, in the first media type the emitters can express, in this
// order: JSON (application/json, then the other JSON types), a form when its schema is an
// object (or says nothing), multipart when its schema is an object with properties (one part
// each), then any other media type as raw bytes; ties go to the lower name. A form or multipart
// media type passed over for its schema is a warning; when none is left, an error.
func (b *Builder) body(so *Op) *ir.Body {
	rb := so.Raw.RequestBody
	if rb == nil || rb.Value == nil || len(rb.Value.Content) == 0 {
		return nil
	}
	at := b.sub(so.at, "requestBody", so.Op.GoName+"Request")
	if rb.Ref != "" {
		at = b.refSite(rb.Ref)
	}
	content := rb.Value.Content
	schemaSite := func(ct string) site {
		return b.sub(b.sub(b.sub(at, "content", at.name), ct, at.name), "schema", at.name)
	}
	var ct string
	var enc ir.BodyEncoding
	var passed []string
	for _, c := range mediaOrder(content) {
		e, _ := mediaKind(c)
		if why := inexpressible(e, mediaSchema(content, c)); why != "" {
			passed = append(passed, c)
			continue
		}
		ct, enc = c, e
		break
	}
	for _, c := range passed {
		e, _ := mediaKind(c)
		pos := b.doc.Pos(schemaSite(c).key)
		if ct == "" {
			so.Errs = append(so.Errs, &ir.Error{Pos: pos, Operation: so.Op.ID,
				Msg: fmt.Sprintf("request body %s: %s, and the operation offers no other media type: declare an object schema whose properties are the fields", c, inexpressible(e, mediaSchema(content, c)))})
			continue
		}
		so.Warnings = append(so.Warnings, &ir.Error{Pos: pos, Operation: so.Op.ID,
			Msg: fmt.Sprintf("request body %s: %s: the body is sent as %s instead", c, inexpressible(e, mediaSchema(content, c)), ct)})
	}
	if ct == "" {
		return nil
	}
	if !rb.Value.Required && holdsNothing(mediaSchema(content, ct)) {
		return nil // Stripe declares such a body on every GET and DELETE: it carries nothing
	}
	body := &ir.Body{Encoding: enc, ContentType: ct, Required: rb.Value.Required}
	if enc == ir.BodyRaw {
		body.Type = refBytes
		return body
	}
	so.BodySchema = mediaSchema(content, ct)
	body.Type = b.schemaRef(so.BodySchema, schemaSite(ct))
	return body
}

// mediaOrder lists the media types of content in the order of preference of mediaKind, ties
// by name.
func mediaOrder(content openapi3.Content) []string {
	cts := sortedKeys(content)
	slices.SortStableFunc(cts, func(x, y string) int {
		_, rx := mediaKind(x)
		_, ry := mediaKind(y)
		return cmp.Compare(rx, ry)
	})
	return cts
}

// inexpressible says why a request body of encoding enc and schema sr cannot be sent, or "":
// a form needs an object (its fields are name=value pairs), multipart an object with
// properties (its parts). A schema that is a union, or says nothing, may be an object.
func inexpressible(enc ir.BodyEncoding, sr *openapi3.SchemaRef) string {
	var s *openapi3.Schema
	if sr != nil {
		s = unwrapAllOf(sr.Value)
	}
	switch enc {
	case ir.BodyForm:
		if s == nil || isUnion(s) || isObject(s) && !hasEnum(s) || typeless(s) && s.Items == nil && !hasEnum(s) {
			return ""
		}
		return "the schema is not an object, so it has no fields to send"
	case ir.BodyMultipart:
		if s != nil && !isUnion(s) && !hasEnum(s) && isObject(s) && hasProperties(s, make(map[*openapi3.Schema]bool)) {
			return ""
		}
		return "the schema is not an object with properties, so it has no parts to send"
	}
	return ""
}

// unwrapAllOf follows a schema that is only an allOf of one member, as the conversion does.
func unwrapAllOf(s *openapi3.Schema) *openapi3.Schema {
	for range 64 {
		if s == nil || !(len(s.AllOf) == 1 && len(s.Properties) == 0 && typeless(s) && len(s.Enum) == 0 && !hasExtra(s)) {
			return s
		}
		s = s.AllOf[0].Value
	}
	return s
}

// hasProperties reports whether s or one of its allOf members has a property.
func hasProperties(s *openapi3.Schema, seen map[*openapi3.Schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	if len(s.Properties) > 0 {
		return true
	}
	for _, m := range s.AllOf {
		if hasProperties(m.Value, seen) {
			return true
		}
	}
	return false
}

// holdsNothing reports whether a body schema is an object that admits no property at all.
func holdsNothing(s *openapi3.SchemaRef) bool {
	if s == nil || s.Value == nil {
		return false
	}
	v := s.Value
	ap := v.AdditionalProperties
	return v.Type.Is(openapi3.TypeObject) && len(v.Properties) == 0 && ap.Has != nil && !*ap.Has && ap.Schema == nil &&
		len(v.AllOf) == 0 && len(v.OneOf) == 0 && len(v.AnyOf) == 0
}

// response picks the success response: the lowest 2xx with JSON content, else the lowest 2xx;
// with no 2xx, "default" stands in (Status 0).
func (b *Builder) response(so *Op) *ir.Response {
	type cand struct {
		code   string
		status int
	}
	var cands []cand
	for code := range so.Raw.Responses.Map() {
		switch {
		case strings.EqualFold(code, "2XX"):
			cands = append(cands, cand{code, 200})
		case len(code) == 3 && code[0] == '2':
			if n, err := strconv.Atoi(code); err == nil {
				cands = append(cands, cand{code, n})
			}
		}
	}
	slices.SortFunc(cands, func(x, y cand) int { return cmp.Or(cmp.Compare(x.status, y.status), strings.Compare(x.code, y.code)) })
	if len(cands) == 0 {
		if so.Raw.Responses.Default() == nil {
			return &ir.Response{}
		}
		cands = []cand{{"default", 0}}
	}
	chosen := cands[0]
	for _, c := range cands {
		if r := so.Raw.Responses.Value(c.code); r != nil && r.Value != nil {
			if _, enc := pickMedia(r.Value.Content); enc == ir.BodyJSON {
				chosen = c
				break
			}
		}
	}
	out := &ir.Response{Status: chosen.status}
	rr := so.Raw.Responses.Value(chosen.code)
	if rr == nil || rr.Value == nil || len(rr.Value.Content) == 0 {
		return out
	}
	at := b.sub(b.sub(so.at, "responses", so.Op.GoName+"Response"), chosen.code, so.Op.GoName+"Response")
	if rr.Ref != "" {
		at = b.refSite(rr.Ref)
	}
	ct, enc := pickMedia(rr.Value.Content)
	out.ContentType = ct
	if enc != ir.BodyJSON {
		out.Type = refBytes
		return out
	}
	so.respSchema = mediaSchema(rr.Value.Content, ct)
	out.Type = b.schemaRef(so.respSchema, b.sub(b.sub(b.sub(at, "content", at.name), ct, at.name), "schema", at.name))
	return out
}

// MaxLength is the maxLength the spec declares for parameter p of the operation (0 when none);
// the operation's own parameters come before its path item's.
func (so *Op) MaxLength(p *ir.Param) int {
	for _, list := range []openapi3.Parameters{so.Raw.Parameters, so.Item.Parameters} {
		for _, pr := range list {
			if pr == nil || pr.Value == nil || pr.Value.In != string(p.In) || pr.Value.Name != p.Name {
				continue
			}
			if s := pr.Value.Schema; s != nil && s.Value != nil && s.Value.MaxLength != nil {
				return int(*s.Value.MaxLength)
			}
			return 0
		}
	}
	return 0
}
