// Package toolschema writes the JSON Schemas (2020-12) of the agent tools' arguments and results
// (Input, Output) from the IR's types, never inferred from Go types at run time, so that a tool
// says what the OpenAPI document says and the emitter that prints them decides nothing. A named
// type is written in place where the schema uses it once; one used more than once, or reached
// from itself, is written once under $defs and referred to with $ref. The JSON is indented, in
// the IR's order, so that a change of the spec reads well in a diff of the generated code.
package toolschema

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/writegen/writegen/spec/ir"
)

// jobj is a JSON object whose members keep the order they were set in.
type jobj struct {
	keys []string
	vals []any // string, bool, int, []any, *jobj, json.RawMessage
}

func obj() *jobj { return &jobj{} }

// set sets key to v (replacing an earlier value) and returns o.
func (o *jobj) set(key string, v any) *jobj {
	if i := slices.Index(o.keys, key); i >= 0 {
		o.vals[i] = v
		return o
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	return o
}

// get returns the value of key, nil when absent.
func (o *jobj) get(key string) any {
	if i := slices.Index(o.keys, key); i >= 0 {
		return o.vals[i]
	}
	return nil
}

// del removes key.
func (o *jobj) del(key string) {
	if i := slices.Index(o.keys, key); i >= 0 {
		o.keys = slices.Delete(o.keys, i, i+1)
		o.vals = slices.Delete(o.vals, i, i+1)
	}
}

// describe sets the description of o when text is not empty.
func (o *jobj) describe(text string) *jobj {
	if t := ir.OneLine(text); t != "" {
		o.set("description", t)
	}
	return o
}

// Input is the JSON Schema of the arguments of op's tool: its business key fields (required),
// its parameters and its body, with the body fields the tool fills in left to the tool.
func Input(op *ir.Operation) string { return jsonText(inputSchema(op)) }

// Output is the JSON Schema of the structured content of op's tool results, "" when it has none.
func Output(op *ir.Operation) string {
	if s := outputSchema(op); s != nil {
		return jsonText(s)
	}
	return ""
}

// jsonText renders v as indented JSON (a tab a level). A backtick in a string is written as
// \u0060, so that the text fits in a Go raw string literal.
func jsonText(v any) string {
	var b strings.Builder
	writeJSON(&b, v, 0)
	return b.String()
}

func writeJSON(b *strings.Builder, v any, depth int) {
	indent := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteByte('\t')
		}
	}
	switch v := v.(type) {
	case *jobj:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			b.WriteString(Quote(k))
			b.WriteString(": ")
			writeJSON(b, v.vals[i], depth+1)
		}
		indent(depth)
		b.WriteByte('}')
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		// Arrays of scalars (enums, required, type lists) stay on one line.
		flat := !slices.ContainsFunc(v, func(e any) bool { _, ok := e.(*jobj); return ok })
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
				if flat {
					b.WriteByte(' ')
				}
			}
			if !flat {
				indent(depth + 1)
			}
			writeJSON(b, e, depth+1)
		}
		if !flat {
			indent(depth)
		}
		b.WriteByte(']')
	case string:
		b.WriteString(Quote(v))
	case json.RawMessage:
		b.Write(v)
	default:
		data, _ := json.Marshal(v) // bool, int, int64, float64
		b.Write(data)
	}
}

// Quote is s as a JSON string, with no HTML escaping and backticks escaped, so that the JSON it
// is written in fits in a Go raw string literal as the schemas do.
func Quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes (invalid UTF-8 becomes U+FFFD)
	return strings.ReplaceAll(strings.TrimSuffix(buf.String(), "\n"), "`", `\u0060`)
}

// strs converts names to a JSON array.
func strs(names []string) []any {
	a := make([]any, len(names))
	for i, n := range names {
		a[i] = n
	}
	return a
}

// schemaGen writes the schemas of one tool's input or output, with its $defs.
type schemaGen struct {
	input bool              // the input of a tool: read-only fields are not required
	defs  map[*ir.Type]bool // named types written under $defs
	used  []*ir.Type        // defs referred to so far
	types int               // the named types the schema reaches
	// limit, when above 0, writes every type in place (no $defs) down to limit levels of named
	// types, and every value below as {}: see limitedSchemaGen.
	limit, depth int
	// maxNodes, when above 0, is the most type uses written: past it, over is set and the rest
	// is {} (the schema is then thrown away).
	maxNodes, nodes int
	over            bool
}

// limitedSchemaGen writes schemas whose named types are written in place down to limit levels,
// and left undescribed ({}, any value) below. It bounds the output schemas of APIs whose
// responses reach most of their types (Stripe's expandable fields): such a schema says less
// than the spec, never something else.
func limitedSchemaGen(limit int) *schemaGen {
	return &schemaGen{defs: map[*ir.Type]bool{}, limit: limit}
}

// newSchemaGen plans the schema of the types roots: which named types go under $defs.
func newSchemaGen(input bool, roots ...*ir.TypeRef) *schemaGen {
	p := &planner{count: map[*ir.Type]int{}, onStack: map[*ir.Type]bool{}, recursive: map[*ir.Type]bool{}}
	for _, r := range roots {
		p.ref(r)
	}
	g := &schemaGen{input: input, defs: map[*ir.Type]bool{}, types: len(p.seen)}
	for _, t := range p.seen {
		shared := p.count[t] > 1 && (t.Kind == ir.KindStruct || t.Kind == ir.KindUnion || t.Kind == ir.KindAlias && ir.Under(t.Elem).Kind != ir.RefBuiltin)
		if shared || p.recursive[t] {
			g.defs[t] = true
		}
	}
	return g
}

// planner counts the uses of each named type in a schema written with every type in place, and
// finds the types reached from themselves.
type planner struct {
	seen      []*ir.Type // in the order first used
	count     map[*ir.Type]int
	onStack   map[*ir.Type]bool
	recursive map[*ir.Type]bool
}

func (p *planner) ref(r *ir.TypeRef) {
	switch r.Kind {
	case ir.RefNamed:
		p.named(r.Named)
	case ir.RefArray, ir.RefMap:
		p.ref(r.Elem)
	}
}

func (p *planner) named(t *ir.Type) {
	p.count[t]++
	if p.onStack[t] {
		p.recursive[t] = true
		return
	}
	if p.count[t] > 1 {
		return // its uses were counted at its first
	}
	p.seen = append(p.seen, t)
	p.onStack[t] = true
	for _, f := range t.Fields {
		p.ref(f.Type)
	}
	if t.AdditionalProperties != nil {
		p.ref(t.AdditionalProperties)
	}
	for _, v := range t.Variants {
		p.ref(v.Type)
	}
	if t.Elem != nil {
		p.ref(t.Elem)
	}
	p.onStack[t] = false
}

// use notes that the schema refers to the definition of t.
func (g *schemaGen) use(t *ir.Type) {
	if !slices.Contains(g.used, t) {
		g.used = append(g.used, t)
	}
}

// ref is the schema of a use of r.
func (g *schemaGen) ref(r *ir.TypeRef) *jobj {
	if g.nodes++; g.maxNodes > 0 && g.nodes > g.maxNodes {
		g.over = true
		return obj()
	}
	switch r.Kind {
	case ir.RefNamed:
		if g.defs[r.Named] {
			g.use(r.Named)
			return obj().set("$ref", "#/$defs/"+r.Named.Name)
		}
		if leaf := r.Named.Kind == ir.KindEnum || r.Named.Kind == ir.KindAlias && ir.Under(r.Named.Elem).Kind == ir.RefBuiltin; g.limit > 0 && !leaf {
			if g.depth >= g.limit {
				return obj()
			}
			g.depth++
			defer func() { g.depth-- }()
		}
		return g.named(r.Named, nil)
	case ir.RefArray:
		return g.check(obj().set("type", "array").set("items", g.ref(r.Elem)), r.Check)
	case ir.RefMap:
		return obj().set("type", "object").set("additionalProperties", g.ref(r.Elem))
	}
	switch r.Builtin {
	case "string":
		return g.check(obj().set("type", "string"), r.Check)
	case "int64", "int32":
		return g.check(obj().set("type", "integer"), r.Check)
	case "float64", "float32":
		return g.check(obj().set("type", "number"), r.Check)
	case "bool":
		return obj().set("type", "boolean")
	case "time.Time":
		return g.check(obj().set("type", "string").set("format", "date-time"), r.Check)
	case "[]byte":
		return obj().set("type", "string").set("contentEncoding", "base64")
	}
	return obj() // any, json.RawMessage: every value
}

// check adds to the schema o of a tool's input what the spec allows of the value beyond its
// type (c): its format, bounds and pattern, so that an agent that follows the schema sends what
// the provider takes, and the tool refuses what it would not. Output schemas say only types:
// what a provider answers is the provider's.
func (g *schemaGen) check(o *jobj, c *ir.Check) *jobj {
	if c == nil || !g.input {
		return o
	}
	if c.Format != "" && o.get("format") == nil {
		o.set("format", c.Format)
	}
	if c.Pattern != "" {
		o.set("pattern", c.Pattern)
	}
	for _, b := range []struct {
		name string
		v    *uint64
	}{{"minLength", c.MinLength}, {"maxLength", c.MaxLength}, {"minItems", c.MinItems}, {"maxItems", c.MaxItems}} {
		if b.v != nil {
			o.set(b.name, *b.v)
		}
	}
	if c.Minimum != nil {
		o.set(map[bool]string{false: "minimum", true: "exclusiveMinimum"}[c.ExclusiveMinimum], *c.Minimum)
	}
	if c.Maximum != nil {
		o.set(map[bool]string{false: "maximum", true: "exclusiveMaximum"}[c.ExclusiveMaximum], *c.Maximum)
	}
	if c.MultipleOf != nil {
		o.set("multipleOf", *c.MultipleOf)
	}
	return o
}

// sets is the tree of the body fields the generated code fills in (the provider key, the
// reference): a leaf is a field to leave out, an inner node a struct on the way to one.
type sets map[*ir.Field]sets

// named is the schema of named type t written in place; over marks the fields of a struct
// that the generated code fills in.
func (g *schemaGen) named(t *ir.Type, over sets) *jobj {
	var o *jobj
	switch t.Kind {
	case ir.KindStruct:
		o = obj().set("type", "object")
		o.describe(t.Doc)
		props := obj()
		var required []string
		for _, f := range t.Fields {
			sub, isSet := over[f]
			var fs *jobj
			switch {
			case isSet && len(sub) == 0:
				fs = g.ref(f.Type)
				fs.set("description", "Filled in by the tool (the write's provider key or reference): leave it out.")
				props.set(f.Name, fs)
				continue
			case isSet && f.Type.Kind == ir.RefNamed && f.Type.Named.Kind == ir.KindStruct:
				fs = g.named(f.Type.Named, sub)
			default:
				fs = g.ref(f.Type)
			}
			if f.Nullable {
				fs = nullable(fs)
			}
			if f.Doc != "" {
				fs.describe(f.Doc)
			}
			if f.ReadOnly {
				fs.set("readOnly", true)
			}
			props.set(f.Name, fs)
			if f.Required && !(g.input && f.ReadOnly) {
				required = append(required, f.Name)
			}
		}
		if len(props.keys) > 0 {
			o.set("properties", props)
		}
		if len(required) > 0 {
			o.set("required", strs(required))
		}
		if t.AdditionalProperties != nil {
			o.set("additionalProperties", g.ref(t.AdditionalProperties))
		}
		if g.input && len(t.Requires) > 0 && !requiresFilled(t, over) {
			alts := make([]any, len(t.Requires))
			for i, names := range t.Requires {
				alts[i] = obj().set("required", strs(names))
			}
			o.set(map[bool]string{false: "anyOf", true: "oneOf"}[t.RequiresOneOf], alts)
		}
	case ir.KindEnum:
		typ := map[string]string{"string": "string", "int64": "integer", "float64": "number"}[t.Base]
		values := make([]any, len(t.Enum))
		for i, v := range t.Enum {
			values[i] = v.Value
		}
		o = obj().set("type", typ).set("enum", values)
		o.describe(t.Doc)
	case ir.KindUnion:
		variants := make([]any, len(t.Variants))
		for i, v := range t.Variants {
			variants[i] = g.ref(v.Type)
			if g.input && t.Discriminator != "" && len(v.Tags) > 0 {
				// The discriminator chooses the variant, as the spec's does: the variants' own
				// schemas often admit every tag.
				variants[i] = obj().set("allOf", []any{variants[i], obj().
					set("properties", obj().set(t.Discriminator, obj().set("enum", strs(v.Tags)))).
					set("required", strs([]string{t.Discriminator}))})
			}
		}
		// An output schema says anyOf: variants that are objects open to more properties
		// often match the same value, which oneOf would refuse, and what a provider answers is
		// the provider's. A tool's input is held to the spec's oneOf.
		o = obj()
		o.describe(t.Doc)
		if g.input && t.OneOf {
			o.set("oneOf", variants)
		} else {
			o.set("anyOf", variants)
		}
	default: // KindAlias
		o = g.ref(t.Elem)
		o.describe(t.Doc)
	}
	return o
}

// requiresFilled reports whether one of the alternatives of struct t's required properties
// names a field the tool fills in (over): the arguments need not give it, so the alternatives
// are left to the provider.
func requiresFilled(t *ir.Type, over sets) bool {
	for f, sub := range over {
		if len(sub) == 0 && slices.ContainsFunc(t.Requires, func(names []string) bool { return slices.Contains(names, f.Name) }) {
			return true
		}
	}
	return false
}

// nullable returns the schema of s or null.
func nullable(s *jobj) *jobj {
	if typ, ok := s.get("type").(string); ok && s.get("enum") == nil {
		s.set("type", []any{typ, "null"})
		return s
	}
	desc := s.get("description")
	s.del("description")
	o := obj()
	if desc != nil {
		o.set("description", desc)
	}
	return o.set("anyOf", []any{s, obj().set("type", "null")})
}

// finish adds the $defs that root referred to, sorted by name, and returns root.
func (g *schemaGen) finish(root *jobj) *jobj {
	defs := map[*ir.Type]*jobj{}
	for i := 0; i < len(g.used); i++ { // writing a def may refer to more defs
		defs[g.used[i]] = g.named(g.used[i], nil)
	}
	if len(g.used) == 0 {
		return root
	}
	sorted := slices.Clone(g.used)
	slices.SortFunc(sorted, func(a, b *ir.Type) int { return strings.Compare(a.Name, b.Name) })
	d := obj()
	for _, t := range sorted {
		d.set(t.Name, defs[t])
	}
	return root.set("$defs", d)
}

// inputSchema is the schema of op's arguments: its business key fields (required), its
// parameters and its body, with the body fields the tool fills in left to the tool.
func inputSchema(op *ir.Operation) *jobj {
	var roots []*ir.TypeRef
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
			if a.Param.Required || a.Param.In == ir.InPath {
				required = append(required, a.Name)
			}
		default:
			over := bodySets(op)
			if t := op.Body.Type; len(over) > 0 && t.Kind == ir.RefNamed && t.Named.Kind == ir.KindStruct {
				s = g.named(t.Named, over)
			} else {
				s = g.ref(t)
			}
			if op.Body.Encoding == ir.BodyRaw {
				s.set("contentMediaType", op.Body.ContentType)
			}
			if !ir.OptionalBody(op) { // required by the spec, or carrying the write's key
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
func bodySets(op *ir.Operation) sets {
	if op.Call != ir.CallWrite && op.Call != ir.CallSubmit {
		return nil
	}
	tree := sets{}
	for _, set := range op.Safety.Sets {
		if set.Body == nil || len(set.Body.Steps) == 0 {
			continue
		}
		fields := true
		for _, st := range set.Body.Steps {
			fields = fields && st.Kind == ir.StepField
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
func outputSchema(op *ir.Operation) *jobj {
	var roots []*ir.TypeRef
	if ir.HasResult(op) {
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
func output(op *ir.Operation, g *schemaGen) *jobj {
	var res *ir.TypeRef
	if ir.HasResult(op) {
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
	undecoded := func() {
		if res != nil {
			prop("undecoded", obj().set("type", "string").set("description",
				"Set when the provider's answer did not match its spec: the write took effect, and body is the answer as it came."), false)
		}
	}
	switch op.Call {
	case ir.CallWrite:
		prop("id", obj().set("type", "string").set("description", "The durable id of the effect."), true)
		prop("source", sourceSchema(), true)
		bodyProp()
		undecoded()
	case ir.CallSubmit, ir.CallDo:
		prop("accepted", obj().set("type", "boolean").set("const", true), true)
		if op.Call == ir.CallSubmit {
			prop("status", obj().set("type", "integer").set("description", "The HTTP status of the acknowledgement."), false)
			prop("source", sourceSchema(), false)
		}
		prop("note", obj().set("type", "string").set("description", "What the answer means: whether the effect has happened or may come later."), true)
		bodyProp()
		if op.Call == ir.CallSubmit {
			undecoded()
		}
	default:
		switch {
		case res == nil:
			return obj().set("type", "object")
		case ir.IsObject(res) && res.Kind == ir.RefNamed && g.defs[res.Named]:
			// A recursive response: the root refers to its definition.
			g.use(res.Named)
			return g.finish(obj().set("type", "object").set("$ref", "#/$defs/"+res.Named.Name))
		case ir.IsObject(res) && res.Kind == ir.RefNamed:
			s := g.named(res.Named, nil)
			if note != "" {
				s.set("description", strings.TrimSpace(ir.OneLine(res.Named.Doc)+note))
			}
			return g.finish(s)
		case ir.IsObject(res):
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
