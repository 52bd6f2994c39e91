package templates

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/writegen/writegen/spec/ir"
)

// The MCP tools' input and output schemas are JSON Schema 2020-12, written by the emitter from
// the IR's types (never inferred from Go types at run time), so that a tool says what the
// OpenAPI document says. A named type is written in place where the schema uses it once; one
// used more than once, or reached from itself, is written once under $defs and referred to with
// $ref. The JSON is indented, in the IR's order, so that a change of the spec reads well in a
// diff of the generated code.

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
	if t := oneLine(text); t != "" {
		o.set("description", t)
	}
	return o
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
			b.WriteString(jsonString(k))
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
		b.WriteString(jsonString(v))
	case json.RawMessage:
		b.Write(v)
	default:
		data, _ := json.Marshal(v) // bool, int, int64, float64
		b.Write(data)
	}
}

// jsonString is s as a JSON string, with no HTML escaping and backticks escaped.
func jsonString(s string) string {
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
		shared := p.count[t] > 1 && (t.Kind == ir.KindStruct || t.Kind == ir.KindUnion || t.Kind == ir.KindAlias && under(t.Elem).Kind != ir.RefBuiltin)
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
		if leaf := r.Named.Kind == ir.KindEnum || r.Named.Kind == ir.KindAlias && under(r.Named.Elem).Kind == ir.RefBuiltin; g.limit > 0 && !leaf {
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
