package templates

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec"
)

// The import paths of the MCP tools (Options.MCP): the official Go SDK, and the support the
// generated tools call.
const (
	mcpPath      = "github.com/modelcontextprotocol/go-sdk/mcp"
	mcptoolsPath = "github.com/writegen/writegen/runtime/mcptools"
)

// ToolsFile is the name of the generated file of MCP tools.
const ToolsFile = "tools.go"

// mcpGen emits the tools of one API.
type mcpGen struct {
	*generator
}

// tools emits tools.go: AddTools, and for each operation in scope its tool and the method that
// serves it.
func (g *generator) tools(f *jen.File) {
	f.ImportName(mcpPath, "mcp")
	f.ImportName(mcptoolsPath, "mcptools")
	m := &mcpGen{generator: g}
	m.addTools(f)
	for _, op := range g.api.Operations {
		m.tool(f, op)
		m.serve(f, op)
	}
}

// addTools emits the entry point:
//
//	func (c *Client) AddTools(s *mcp.Server) {
//		mcptools.Add(s, createThreadTool, c.serveCreateThread)
//		mcptools.Add(s, getThreadTool, c.serveGetThread)
//	}
func (m *mcpGen) addTools(f *jen.File) {
	ops := m.api.Operations
	var names []string
	for _, op := range ops {
		names = append(names, op.ToolName)
	}
	which := "the " + strconv.Itoa(len(ops)) + " operations in scope"
	if len(ops) <= 12 {
		which = list(names)
	}
	doc := "AddTools adds the operations of c to s as MCP tools: " + which + ". " +
		"Their hints are derived from the answers in " + m.api.AnnotFile + " (see " + SafetyReport + "), never set by hand: " +
		"readOnlyHint for reads, idempotentHint only where repeating a call with the same arguments cannot make a second effect, " +
		"destructiveHint for writes that overwrite or delete, and openWorldHint for every tool, as each calls the provider. " +
		"Excluded operations are not tools.\n\n" +
		"A tool's result is its receipt, acknowledgement or response; any other outcome is a tool error that says whether calling again helps " +
		"(an uncertain write: never; it names who was told and the read tool that can check)."
	var body []jen.Code
	for _, op := range ops {
		body = append(body, jen.Qual(mcptoolsPath, "Add").Call(jen.Id("s"), jen.Id(op.Local+"Tool"), jen.Id("c").Dot("serve"+op.GoName)))
	}
	f.Line()
	f.Comment(comment(doc))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id("AddTools").Params(jen.Id("s").Op("*").Qual(mcpPath, "Server")).Block(body...)
}

// callLines writes the arguments of a call one a line.
var callLines = jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}

// list joins names as "a, b and c".
func list(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// tool emits the tool of an operation:
//
//	var createThreadTool = &mcp.Tool{
//		Name:        "createThread",
//		Title:       "Open a thread for a conversation",
//		Description: "Open a thread for a conversation. It only adds: ...",
//		Annotations: &mcp.ToolAnnotations{
//			ReadOnlyHint:    false,
//			DestructiveHint: new(false),
//			IdempotentHint:  true,
//			OpenWorldHint:   new(true),
//		},
//		InputSchema: json.RawMessage(`{
//		"type": "object",
//		...
//	}`),
//		OutputSchema: json.RawMessage(`{...}`),
//	}
func (m *mcpGen) tool(f *jen.File, op *spec.Operation) {
	h := op.Hints
	title := oneLine(op.Summary)
	if title == "" {
		title = op.ToolName
	}
	annotations := jen.Op("&").Qual(mcpPath, "ToolAnnotations").Custom(multiLine,
		jen.Id("ReadOnlyHint").Op(":").Lit(h.ReadOnly),
		jen.Id("DestructiveHint").Op(":").Id("new").Call(jen.Lit(h.Destructive)),
		jen.Id("IdempotentHint").Op(":").Lit(h.Idempotent),
		jen.Id("OpenWorldHint").Op(":").Id("new").Call(jen.True()),
	)
	items := []jen.Code{
		jen.Id("Name").Op(":").Lit(op.ToolName),
		jen.Id("Title").Op(":").Lit(title),
		jen.Id("Description").Op(":").Lit(m.description(op)),
		jen.Id("Annotations").Op(":").Add(annotations),
		jen.Id("InputSchema").Op(":").Add(rawJSON(m.inputSchema(op))),
	}
	if out := m.outputSchema(op); out != nil {
		items = append(items, jen.Id("OutputSchema").Op(":").Add(rawJSON(out)))
	}
	f.Line()
	f.Comment("// " + op.Local + "Tool is the MCP tool of " + op.GoName + ".")
	f.Var().Id(op.Local+"Tool").Op("=").Op("&").Qual(mcpPath, "Tool").Custom(multiLine, items...)
}

// rawJSON is a schema as json.RawMessage(`...`): a raw string, which jsonText's escaping of
// backticks keeps whole.
func rawJSON(schema *jobj) *jen.Statement {
	return jen.Qual("encoding/json", "RawMessage").Call(jen.Op("`" + jsonText(schema) + "`"))
}

// serve emits the method that serves an operation's tool:
//
//	func (c *Client) serveCreateThread(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
//		var key CreateThreadKey
//		var body NewThread
//		err := mcptools.Decode(req,
//			mcptools.Arg("escalation_id", &key.EscalationID),
//			mcptools.Arg("body", &body),
//		)
//		if err != nil {
//			return mcptools.Invalid(err), nil
//		}
//		r, err := c.CreateThread(ctx, key, body)
//		return mcptools.Receipt(r, err, mcptools.Check{Tool: "searchThreads", Args: `{"external_reference":"{ref}"}`}), nil
//	}
func (m *mcpGen) serve(f *jen.File, op *spec.Operation) {
	keyed := op.Call == spec.CallWrite || op.Call == spec.CallSubmit
	var stmts, decode, call []jen.Code
	call = append(call, jen.Id("ctx"))
	if keyed {
		stmts = append(stmts, jen.Var().Id("key").Id(op.Safety.Key.TypeName))
		call = append(call, jen.Id("key"))
	}
	if op.ParamsName != "" {
		stmts = append(stmts, jen.Var().Id("params").Id(op.ParamsName))
		call = append(call, jen.Id("params"))
	}
	if op.Body != nil {
		stmts = append(stmts, jen.Var().Id("body").Add(goType(op.Body.Type)))
		call = append(call, jen.Id("body"))
	}
	decode = append(decode, jen.Id("req"))
	for _, a := range op.ToolArgs {
		var to *jen.Statement
		switch {
		case a.Key != nil:
			to = jen.Op("&").Id("key").Dot(a.Key.GoName)
		case a.Param != nil:
			to = jen.Op("&").Id("params").Dot(a.Param.GoName)
		default:
			to = jen.Op("&").Id("body")
		}
		decode = append(decode, jen.Qual(mcptoolsPath, "Arg").Call(jen.Lit(a.Name), to))
	}
	reqName := "_"
	if len(decode) > 1 {
		reqName = "req"
		stmts = append(stmts,
			jen.Err().Op(":=").Qual(mcptoolsPath, "Decode").Custom(callLines, decode...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Qual(mcptoolsPath, "Invalid").Call(jen.Err()), jen.Nil())))
	}
	method := jen.Id("c").Dot(op.GoName).Call(call...)
	define := ":="
	if len(decode) > 1 {
		define = "=" // err is declared
	}
	result := func(fn string, args ...jen.Code) jen.Code {
		return jen.Return(jen.Qual(mcptoolsPath, fn).Call(args...), jen.Nil())
	}
	switch op.Call {
	case spec.CallWrite, spec.CallSubmit:
		fn, v := "Receipt", "r"
		if op.Call == spec.CallSubmit {
			fn, v = "Ack", "a"
		}
		stmts = append(stmts, jen.List(jen.Id(v), jen.Err()).Op(":=").Add(method), result(fn, jen.Id(v), jen.Err(), m.check(op)))
	default:
		fn := "Read"
		var extra []jen.Code
		if op.Call == spec.CallDo {
			fn = "Done"
			extra = []jen.Code{jen.Lit(doneNote(op))}
		} else if hasResult(op) && !isObject(op.Response.Type) {
			fn = "Wrap"
		}
		if hasResult(op) {
			stmts = append(stmts, jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(method), result(fn, append([]jen.Code{jen.Id("v"), jen.Err()}, extra...)...))
		} else {
			stmts = append(stmts, jen.Err().Op(define).Add(method), result(fn, append([]jen.Code{jen.Struct().Values(), jen.Err()}, extra...)...))
		}
	}
	f.Line()
	f.Comment(comment("serve" + op.GoName + " serves the tool " + op.ToolName + ": it decodes the arguments, calls " + op.GoName + " and says its outcome."))
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id("serve"+op.GoName).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id(reqName).Op("*").Qual(mcpPath, "CallToolRequest")).
		Params(jen.Op("*").Qual(mcpPath, "CallToolResult"), jen.Error()).Block(stmts...)
}

// check is the mcptools.Check of a keyed write: the read tool of its lookup and the arguments
// that find the write by its reference.
//
//	mcptools.Check{Tool: "searchThreads", Args: `{"external_reference":"{ref}"}`}
func (m *mcpGen) check(op *spec.Operation) jen.Code {
	s := op.Safety
	l := s.Lookup
	if !toolChecks(l) {
		return jen.Qual(mcptoolsPath, "Check").Values()
	}
	var args []string
	for _, a := range l.Operation.ToolArgs {
		for _, t := range l.Params {
			if a.Param == t.Param {
				args = append(args, jsonString(a.Name)+":"+templateValue(t))
			}
		}
		if a.Body && l.Body != nil {
			args = append(args, jsonString(a.Name)+":"+l.Body.JSON)
		}
	}
	text := "{" + strings.Join(args, ",") + "}"
	fields := []jen.Code{jen.Id("Tool").Op(":").Lit(l.Operation.ToolName), jen.Id("Args").Op(":").Add(rawString(text))}
	if ref := s.Reference; ref != nil && ref.Value != nil {
		fields = append(fields, jen.Id("Ref").Op(":").Add(keyExpr(ref.Value, jen.Id("key"))))
	}
	return jen.Qual(mcptoolsPath, "Check").Values(fields...)
}

// toolChecks reports whether the read tool of lookup l alone can check a write: it is a read
// of the spec called with the reference only, as it is (not escaped for a query language),
// whose answer needs no matching on the client.
func toolChecks(l *spec.Lookup) bool {
	return l != nil && l.Operation != nil && l.Match == nil && l.Pages == nil && l.Since == nil && len(l.Values) == 0 && l.Escape == ""
}

// rawString is s as a Go raw string literal when it can be one (no backtick, no carriage
// return), else as an interpreted one.
func rawString(s string) *jen.Statement {
	if strings.ContainsAny(s, "`\r") || !utf8.ValidString(s) {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}

// templateValue is a lookup parameter's template as a JSON value in which {ref} stands for the
// reference: a string, or the bare placeholder for a number that is the reference alone.
func templateValue(t *spec.Template) string {
	if len(t.Parts) == 1 && t.Parts[0].Hole && !isString(t.Param.Type) {
		return "{ref}"
	}
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Hole {
			b.WriteString("{ref}")
		} else {
			b.WriteString(p.Literal)
		}
	}
	return jsonString(b.String())
}

// isObject reports whether values of r are JSON objects: a struct or a map.
func isObject(r *spec.TypeRef) bool {
	u := under(r)
	return u.Kind == spec.RefMap || u.Kind == spec.RefNamed && u.Named.Kind == spec.KindStruct
}

// inputSchema is the schema of op's arguments: its business key fields (required), its
// parameters and its body, with the body fields the tool fills in left to the tool.
func (m *mcpGen) inputSchema(op *spec.Operation) *jobj {
	var roots []*spec.TypeRef
	for _, p := range op.Params {
		roots = append(roots, p.Type)
	}
	if op.Body != nil {
		roots = append(roots, op.Body.Type)
	}
	g := newSchemaGen(true, roots...)
	props := obj()
	var required []string
	for _, a := range op.ToolArgs {
		var s *jobj
		switch {
		case a.Key != nil:
			k := op.Safety.Key
			if a.Key.Type == "int64" {
				s = obj().set("type", "integer")
			} else {
				s = obj().set("type", "string").set("minLength", 1)
			}
			s.set("description", "Business key: calls with the same key ("+strconv.Quote(k.Format)+") are one write.")
			required = append(required, a.Name)
		case a.Param != nil:
			s = g.ref(a.Param.Type).describe(a.Param.Doc)
			if a.Param.Required || a.Param.In == spec.InPath {
				required = append(required, a.Name)
			}
		default:
			over := bodySets(op)
			if t := op.Body.Type; len(over) > 0 && t.Kind == spec.RefNamed && t.Named.Kind == spec.KindStruct {
				s = g.named(t.Named, over)
			} else {
				s = g.ref(t)
			}
			if op.Body.Encoding == spec.BodyRaw {
				s.set("contentMediaType", op.Body.ContentType)
			}
			if op.Body.Required {
				required = append(required, a.Name)
			}
		}
		props.set(a.Name, s)
	}
	root := obj().set("type", "object")
	if len(props.keys) > 0 {
		root.set("properties", props)
	}
	if len(required) > 0 {
		root.set("required", strs(required))
	}
	root.set("additionalProperties", false)
	return g.finish(root)
}

// bodySets is the tree of the body fields a keyed write fills in: those reached through struct
// fields only (a place behind an array or a map stays in the schema as the spec has it).
func bodySets(op *spec.Operation) sets {
	if op.Call != spec.CallWrite && op.Call != spec.CallSubmit {
		return nil
	}
	tree := sets{}
	for _, set := range op.Safety.Sets {
		if set.Body == nil || len(set.Body.Steps) == 0 {
			continue
		}
		fields := true
		for _, st := range set.Body.Steps {
			fields = fields && st.Kind == spec.StepField
		}
		if !fields {
			continue
		}
		node := tree
		for _, st := range set.Body.Steps {
			next, ok := node[st.Field]
			if !ok {
				next = sets{}
				node[st.Field] = next
			}
			node = next
		}
	}
	return tree
}

// sourceSchema is the schema of a receipt's or an acknowledgement's source.
func sourceSchema() *jobj {
	return obj().set("type", "string").set("enum", strs([]string{"created", "adopted_lookup", "adopted_ledger"})).
		set("description", "created: the write took effect during this call; adopted_lookup: a lookup found the effect of an earlier attempt; "+
			"adopted_ledger: an earlier call with the same business key took effect, and the ledger returned its outcome without calling the provider.")
}

// Output schemas are bounded: one whose response reaches more than maxOutputTypes named types,
// or that would take more than maxOutputNodes type uses or outputBudget bytes, writes its types
// down to fewer levels (see limitedSchemaGen): three or two, the most that fits, else one.
const (
	maxOutputTypes = 64
	maxOutputNodes = 2000
	outputBudget   = 32 << 10
)

// outputSchema is the schema of the structured content of op's results: a receipt {id,
// source, body}, an acknowledgement {accepted, status, source, note, body}, or a read's
// response (in {"result": ...} when it is not an object).
func (m *mcpGen) outputSchema(op *spec.Operation) *jobj {
	var roots []*spec.TypeRef
	if hasResult(op) {
		roots = append(roots, op.Response.Type)
	}
	fits := func(g *schemaGen) *jobj {
		g.maxNodes = maxOutputNodes
		if s := output(op, g); !g.over && len(jsonText(s)) <= outputBudget {
			return s
		}
		return nil
	}
	if g := newSchemaGen(false, roots...); g.types <= maxOutputTypes {
		if s := fits(g); s != nil {
			return s
		}
	}
	for limit := 3; limit > 1; limit-- {
		if s := fits(limitedSchemaGen(limit)); s != nil {
			return s
		}
	}
	return output(op, limitedSchemaGen(1))
}

// output is the output schema of op written by g.
func output(op *spec.Operation, g *schemaGen) *jobj {
	var res *spec.TypeRef
	if hasResult(op) {
		res = op.Response.Type
	}
	props := obj()
	var required []string
	prop := func(name string, s *jobj, req bool) {
		props.set(name, s)
		if req {
			required = append(required, name)
		}
	}
	note := ""
	if g.limit > 0 {
		note = " Objects nested more than " + strconv.Itoa(g.limit) + " levels deep are not described here."
	}
	bodyProp := func() {
		if res != nil {
			prop("body", g.ref(res).describe("The provider's answer."+note), false)
		}
	}
	switch op.Call {
	case spec.CallWrite:
		prop("id", obj().set("type", "string").set("description", "The durable id of the effect."), true)
		prop("source", sourceSchema(), true)
		bodyProp()
	case spec.CallSubmit, spec.CallDo:
		prop("accepted", obj().set("type", "boolean").set("const", true), true)
		if op.Call == spec.CallSubmit {
			prop("status", obj().set("type", "integer").set("description", "The HTTP status of the acknowledgement."), false)
			prop("source", sourceSchema(), false)
		}
		prop("note", obj().set("type", "string").set("description", "What the answer means: whether the effect has happened or may come later."), true)
		bodyProp()
	default:
		switch {
		case res == nil:
			return obj().set("type", "object")
		case isObject(res) && res.Kind == spec.RefNamed && g.defs[res.Named]:
			// A recursive response: the root refers to its definition.
			g.use(res.Named)
			return g.finish(obj().set("type", "object").set("$ref", "#/$defs/"+res.Named.Name))
		case isObject(res) && res.Kind == spec.RefNamed:
			s := g.named(res.Named, nil)
			if note != "" {
				s.set("description", strings.TrimSpace(oneLine(res.Named.Doc)+note))
			}
			return g.finish(s)
		case isObject(res):
			return g.finish(g.ref(res))
		}
		prop("result", g.ref(res).describe(strings.TrimSpace(note)), true)
	}
	root := obj().set("type", "object").set("properties", props)
	if len(required) > 0 {
		root.set("required", strs(required))
	}
	return g.finish(root)
}

// doneNote is what the 2xx of an idempotent write without a business key means.
func doneNote(op *spec.Operation) string {
	if op.Safety.Receipt {
		return "The provider carried it out; repeating it is harmless."
	}
	return "The provider accepted the request: its effect may come later; repeating it is harmless."
}

// keyMeans ends the sentence that names a tool's business key with what the key does: it makes
// calls one write only where the ledger claims it or the provider honours a key; with neither
// (dedupe: none, no idempotency) it only names the write, and the description must not promise
// what the next sentence ("calling it again makes a second effect") takes back.
func keyMeans(s *spec.Safety) string {
	switch i := s.Idempotency; {
	case s.Dedupe || s.Effect == spec.EffectIdempotent || i != nil && i.Forever():
		return ": calls with the same key are one write."
	case i != nil:
		return ": calls with the same key are one write while the provider remembers it."
	}
	return ": it names the write in what is recorded and reported, and does not make two calls one write."
}

// description is a tool's description: the operation's summary and description, then what its
// answers say one call does, what repeating it does, and what an uncertain outcome means.
func (m *mcpGen) description(op *spec.Operation) string {
	var parts []string
	sentence := func(s string) {
		if s = oneLine(s); s != "" {
			if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
				s += "."
			}
			parts = append(parts, s)
		}
	}
	sentence(op.Summary)
	if oneLine(op.Doc) != oneLine(op.Summary) {
		sentence(op.Doc)
	}
	if op.Deprecated {
		parts = append(parts, "Deprecated.")
	}
	s := op.Safety
	if op.Call == spec.CallRead {
		parts = append(parts, "It only reads: calling it changes nothing.")
		return strings.Join(parts, " ")
	}
	if s.Destructive {
		parts = append(parts, "It overwrites or deletes.")
	} else {
		parts = append(parts, "It only adds: it neither overwrites nor deletes.")
	}
	keyed := op.Call == spec.CallWrite || op.Call == spec.CallSubmit
	if keyed {
		var fields []string
		for _, a := range op.ToolArgs {
			if a.Key != nil {
				fields = append(fields, a.Name)
			}
		}
		parts = append(parts, "Its business key is "+list(fields)+keyMeans(s))
	}
	switch i := s.Idempotency; {
	case s.Effect == spec.EffectIdempotent:
		parts = append(parts, "Repeating it is harmless: its effect is idempotent.")
	case s.Dedupe:
		parts = append(parts, "Calling it again with the same arguments makes no second effect: the ledger returns the first call's outcome without calling the provider; the same key with other arguments is refused.")
	case i != nil && i.Forever():
		parts = append(parts, "Calling it again with the same arguments makes no second effect: the provider recognises the key.")
	case i != nil && i.Window > 0:
		parts = append(parts, "The provider recognises a repeat with the same key for "+span(i.Window)+" only: calling it again after that makes a second effect.")
	case i != nil:
		parts = append(parts, "The provider recognises a repeat with the same key for a time it does not document: calling it again may make a second effect.")
	default:
		parts = append(parts, "Calling it again makes a second effect.")
	}
	if op.Call == spec.CallSubmit {
		parts = append(parts, "Its answer is an acknowledgement: the effect may come later.")
	}
	who := "it is recorded for a person"
	if s.Owner != "" {
		who = oneLine(s.Owner) + " is told"
	}
	u := "If its outcome is uncertain the result says so: do not call it again; " + who
	if l := s.Lookup; keyed && toolChecks(l) {
		u += ", and the read tool " + l.Operation.ToolName + " can check whether it took effect"
	}
	parts = append(parts, u+".")
	return strings.Join(parts, " ")
}
