package build

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/load"
	"github.com/writegen/writegen/spec/naming"
	"go.yaml.in/yaml/v4"
)

// site is where a schema is defined in the document. Every type takes its wanted Go name and its
// collision key from the place its schema is written, never from the path that reached it, so a
// schema shared by many operations gets the same name whichever is converted first.
type site struct {
	ptr  string     // JSON pointer of the definition: "#/components/schemas/pet/properties/tag"
	name string     // the Go name a type defined here wants
	key  *yaml.Node // the node heading the definition, for its position; nil when unknown
	node *yaml.Node // the schema's own node; nil when unknown
}

// sub descends into the mapping key seg; name is what a type defined there wants.
func (b *Builder) sub(at site, seg, name string) site {
	k, v := b.doc.Child(at.node, seg)
	if k == nil {
		k = at.key
	}
	return site{ptr: at.ptr + "/" + ir.EscapePointer(seg), name: name, key: k, node: v}
}

// item descends into element i of the sequence at key seg.
func (b *Builder) item(at site, seg string, i int, name string) site {
	s := b.sub(at, seg, name)
	s.ptr += "/" + strconv.Itoa(i)
	var n *yaml.Node
	if s.node != nil && s.node.Kind == yaml.SequenceNode && i < len(s.node.Content) {
		n = s.node.Content[i]
		s.key = n
	}
	s.node = n
	return s
}

// refSite is the site a local reference points at. A component schema wants its own key as a Go
// name; anything else is named from the last segment of the pointer.
func (b *Builder) refSite(ref string) site {
	frag := strings.TrimPrefix(ref, "#")
	segs := ir.SplitPointer(frag)
	named := segs // as the name is made from them
	if len(segs) >= 3 && segs[0] == "components" {
		if w, ok := b.doc.GraftNames[segs[1]+"/"+segs[2]]; ok {
			// A component of another file keyed apart from one of the same name.
			named = slices.Clone(segs)
			named[2] = w
		}
	}
	name := "Root"
	if len(named) > 0 {
		name = naming.GoName(named[len(named)-1])
	}
	if len(named) > 3 && named[0] == "components" && named[1] == "schemas" {
		name = nestedName(named[2:])
	}
	if len(segs) == 3 && segs[0] == "components" {
		switch segs[1] {
		case "parameters":
			name += "Param"
		case "requestBodies":
			name += "Request"
		case "responses":
			name += "Response"
		}
	}
	if o := b.Overrides[ref]; o != "" {
		name = o
	}
	at := site{ptr: ref, name: name}
	ptr := frag
	if b.doc.V2 && len(segs) == 3 && segs[0] == "components" {
		if sec, ok := v2Sections[segs[1]]; ok {
			ptr = "/" + sec + "/" + ir.EscapePointer(segs[2])
		}
	}
	if n, ok := b.doc.ResolvePointer(ptr); ok {
		at.node = n
		at.key = n
		if len(segs) > 0 {
			parent, _ := b.doc.ResolvePointer(ptr[:strings.LastIndex(ptr, "/")])
			if k, _ := b.doc.Child(parent, segs[len(segs)-1]); k != nil {
				at.key = k
			}
		}
		if len(b.doc.Files) > 1 && b.doc.FileAt(at.key.Line) != b.doc.FileAt(n.Line) {
			// A component of the root that another file's schema took the place of: the
			// schema is defined there.
			at.key = n
		}
	}
	return at
}

// v2Sections are the Swagger 2.0 maps the components kin-openapi's conversion refers to come
// from.
var v2Sections = map[string]string{"schemas": "definitions", "parameters": "parameters", "responses": "responses"}

// nestedName names a schema inside a component schema ("A", "properties", "b") the way
// descending from the component names it ("AB"), so a reference straight to it agrees.
func nestedName(segs []string) string {
	name := naming.GoName(segs[0])
	for i := 1; i < len(segs); i++ {
		switch segs[i] {
		case "properties":
			if i+1 < len(segs) {
				i++
				name += naming.GoName(segs[i])
			}
		case "items":
			name += "Item"
		case "additionalProperties":
			name += "Value"
		case "allOf", "oneOf", "anyOf":
			i++ // a member is named by its parent, or by its title, which the pointer does not show
		}
	}
	return name
}

// componentName returns the key of a component schema reference, or "".
func componentName(ref string) string {
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok || strings.Contains(name, "/") {
		return ""
	}
	return ir.UnescapePointer(name)
}

// schemaName returns the name of the component schema a reference names, or "": its key, or
// for a schema of another file keyed apart from one of the same name, the name it was given.
func (b *Builder) schemaName(ref string) string {
	name := componentName(ref)
	if w, ok := b.doc.GraftNames["schemas/"+name]; ok {
		return w
	}
	return name
}

// Builtin type references, shared: a TypeRef is never changed once built.
var (
	refAny     = &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "any"}
	refString  = &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "string"}
	refBool    = &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "bool"}
	refInt64   = &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "int64"}
	refInt32   = &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "int32"}
	refFloat64 = &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "float64"}
	refFloat32 = &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "float32"}
	refTime    = &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "time.Time"}
	refBytes   = &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "[]byte"}
	refAnyMap  = &ir.TypeRef{Kind: ir.RefMap, Elem: refAny}
)

// schemaRef converts a use of a schema: a reference goes to the referenced definition.
func (b *Builder) schemaRef(sr *openapi3.SchemaRef, at site) *ir.TypeRef {
	if sr == nil || sr.Value == nil {
		return refAny
	}
	if sr.Ref == "" {
		return b.schema(sr.Value, at, false)
	}
	ref := b.canonical(sr.Ref)
	if t, ok := b.byRef[ref]; ok {
		if t == nil { // being converted: its type, once made, is what a recursive use gets
			if t := b.bySchema[sr.Value]; t != nil {
				return t
			}
			return refAny // a cycle of references with no type between them
		}
		return t
	}
	b.byRef[ref] = nil
	t := b.schema(sr.Value, b.refSite(ref), true)
	b.byRef[ref] = t
	return t
}

// canonical follows a component schema that is only a reference to another one, so both
// references convert at the referenced definition.
func (b *Builder) canonical(ref string) string {
	for range 64 { // a longer chain is a cycle
		name := componentName(ref)
		if name == "" || b.doc.API.Components == nil {
			return ref
		}
		sr := b.doc.API.Components.Schemas[name]
		if sr == nil || sr.Ref == "" || sr.Ref == ref {
			return ref
		}
		ref = sr.Ref
	}
	return ref
}

// schema converts the schema s defined at site at; component says at is a referenced definition.
func (b *Builder) schema(s *openapi3.Schema, at site, component bool) *ir.TypeRef {
	if t, ok := b.bySchema[s]; ok {
		return t
	}
	switch {
	case len(s.AllOf) == 1 && len(s.Properties) == 0 && typeless(s) && len(s.Enum) == 0 && !hasExtra(s):
		return b.schemaRef(s.AllOf[0], b.item(at, "allOf", 0, at.name))
	case len(s.AllOf) > 0 && scalarAllOf(s):
		return b.scalar(s, at)
	case isUnion(s):
		return b.union(s, at, component)
	case hasEnum(s):
		return b.enum(s, at)
	case isObject(s):
		return b.object(s, at, component)
	case typeIs(s, "array") || typeless(s) && s.Items != nil:
		ref := &ir.TypeRef{Kind: ir.RefArray}
		ref.Check = checkOf(s, true)
		named := b.alias(s, at, ref, component)
		ref.Elem = b.schemaRef(s.Items, b.sub(at, "items", at.name+"Item"))
		return named
	}
	return checked(primitive(s), s)
}

// scalarAllOf reports whether s is one scalar written as an allOf: s has no properties, items
// or additional properties, nor does any member, and every member is a scalar schema (or a
// reference to one), or only adds constraints ({nullable: false}, {maxLength: 3}), with no two
// of them of different types. Specs write a string so: allOf [{type: string}, {nullable:
// false}], or type: string beside allOf [$ref to a string schema].
func scalarAllOf(s *openapi3.Schema) bool {
	seen := map[*openapi3.Schema]bool{}
	typ := ""
	var walk func(s *openapi3.Schema) bool
	walk = func(s *openapi3.Schema) bool {
		if s == nil {
			return false
		}
		if seen[s] {
			return true
		}
		seen[s] = true
		if len(s.Properties) > 0 || hasExtra(s) || s.Items != nil || len(s.OneOf) > 0 || len(s.AnyOf) > 0 || s.Not != nil {
			return false
		}
		switch types := nonNullTypes(s); {
		case len(types) > 1:
			return false
		case len(types) == 1:
			t := types[0]
			if t == "object" || t == "array" || typ != "" && typ != t {
				return false
			}
			typ = t
		}
		for _, m := range s.AllOf {
			if !walk(m.Value) {
				return false
			}
		}
		return true
	}
	return walk(s) && typ != ""
}

// scalar converts a scalar written as an allOf (scalarAllOf): the one member that carries a
// type, a format or an enum, when s and the other members only add constraints to it or
// restate its type (so that a named enum stays itself), with the bounds of them all; else the
// merged schema: its type, the first format and enum met, s's own first.
func (b *Builder) scalar(s *openapi3.Schema, at site) *ir.TypeRef {
	if s.Format == "" && len(s.Enum) == 0 {
		carrier := -1
		for i, m := range s.AllOf {
			if v := m.Value; !typeless(v) || len(v.Enum) > 0 || len(v.AllOf) > 0 || v.Format != "" {
				if carrier >= 0 {
					carrier = -2
					break
				}
				carrier = i
			}
		}
		if carrier >= 0 {
			return checked(b.schemaRef(s.AllOf[carrier], b.item(at, "allOf", carrier, at.name)), mergeScalar(s))
		}
	}
	m := mergeScalar(s)
	if hasEnum(m) {
		return b.enum(m, at)
	}
	return checked(primitive(m), m)
}

// mergeScalar merges a scalar written as an allOf into one schema without allOf.
func mergeScalar(s *openapi3.Schema) *openapi3.Schema {
	m := *s
	m.AllOf = nil
	seen := map[*openapi3.Schema]bool{s: true}
	var merge func(s *openapi3.Schema)
	merge = func(s *openapi3.Schema) {
		for _, sr := range s.AllOf {
			v := sr.Value
			if v == nil || seen[v] {
				continue
			}
			seen[v] = true
			if typeless(&m) {
				m.Type = v.Type
			}
			if m.Format == "" {
				m.Format = v.Format
			}
			if len(m.Enum) == 0 {
				m.Enum = v.Enum
			}
			if m.Description == "" {
				m.Description = v.Description
			}
			mergeConstraints(&m, v)
			merge(v)
		}
	}
	merge(s)
	return &m
}

// mergeConstraints adds to m the bounds of v it does not have.
func mergeConstraints(m, v *openapi3.Schema) {
	if m.Pattern == "" {
		m.Pattern = v.Pattern
	}
	if m.MinLength == 0 {
		m.MinLength = v.MinLength
	}
	if m.MaxLength == nil {
		m.MaxLength = v.MaxLength
	}
	if m.Min == nil {
		m.Min, m.ExclusiveMin = v.Min, v.ExclusiveMin
	}
	if m.Max == nil {
		m.Max, m.ExclusiveMax = v.Max, v.ExclusiveMax
	}
	if m.MultipleOf == nil {
		m.MultipleOf = v.MultipleOf
	}
}

// primitive maps a schema of a single scalar type, with its format, to a Go builtin.
func primitive(s *openapi3.Schema) *ir.TypeRef {
	types := nonNullTypes(s)
	if len(types) != 1 {
		return refAny
	}
	switch types[0] {
	case "string":
		switch s.Format {
		case "date-time":
			return refTime
		case "binary", "byte":
			return refBytes
		}
		return refString
	case "integer":
		if s.Format == "int32" {
			return refInt32
		}
		return refInt64
	case "number":
		switch s.Format {
		case "float":
			return refFloat32
		case "int32":
			return refInt32
		case "int64":
			return refInt64
		}
		return refFloat64
	case "boolean":
		return refBool
	case "object":
		return refAnyMap
	}
	return refAny
}

func nonNullTypes(s *openapi3.Schema) []string {
	types := s.Type.Slice()
	if !slices.Contains(types, "null") {
		return types
	}
	return slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
}

// nullable reports whether s admits null: nullable (3.0), a "null" type (3.1) or a null (or
// only-empty-string) member of a oneOf/anyOf.
func nullable(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	if s.Nullable || s.Type.Includes("null") {
		return true
	}
	for _, m := range slices.Concat(s.OneOf, s.AnyOf) {
		if m.Value != nil && (isNull(m.Value) || isEmptyString(m.Value)) {
			return true
		}
	}
	return false
}

// isEmptyString reports whether s only admits "": Stripe's way to clear a field ({enum: [""]}
// beside the field's real type), which is read as null.
func isEmptyString(s *openapi3.Schema) bool {
	return len(s.Enum) == 1 && s.Enum[0] == "" && (typeless(s) || typeIs(s, "string"))
}

func isNull(s *openapi3.Schema) bool {
	return s.Type.Is("null") || len(s.Enum) == 1 && s.Enum[0] == nil
}

// typeIs reports whether typ is the one type s has, null aside.
func typeIs(s *openapi3.Schema, typ string) bool {
	types := nonNullTypes(s)
	return len(types) == 1 && types[0] == typ
}

func typeless(s *openapi3.Schema) bool { return len(nonNullTypes(s)) == 0 }

// hasExtra reports whether s has an additionalProperties schema.
func hasExtra(s *openapi3.Schema) bool {
	return s.AdditionalProperties.Schema != nil && s.AdditionalProperties.Schema.Value != nil
}

func hasEnum(s *openapi3.Schema) bool {
	if typeIs(s, "boolean") {
		return false
	}
	for _, v := range s.Enum {
		if v != nil {
			return true
		}
	}
	return false
}

func isObject(s *openapi3.Schema) bool {
	return typeIs(s, "object") || len(s.Properties) > 0 || len(s.AllOf) > 0 || typeless(s) && hasExtra(s)
}

// members returns the oneOf (else anyOf) members that are not null and the keyword they are under.
func members(s *openapi3.Schema) (openapi3.SchemaRefs, string) {
	kw, list := "oneOf", s.OneOf
	if len(list) == 0 {
		kw, list = "anyOf", s.AnyOf
	}
	var out openapi3.SchemaRefs
	for _, m := range list {
		if m.Value == nil || !isNull(m.Value) && !isEmptyString(m.Value) {
			out = append(out, m)
		}
	}
	return out, kw
}

// isUnion reports whether s is a choice between types. A oneOf whose members only add
// constraints ("one of these properties is required") does not make s a union, and neither does
// one beside properties: the properties describe the object.
func isUnion(s *openapi3.Schema) bool {
	if len(s.Properties) > 0 || len(s.AllOf) > 0 {
		return false
	}
	ms, _ := members(s)
	for _, m := range ms {
		if m.Ref != "" || m.Value == nil || !constraintOnly(m.Value) {
			return true
		}
	}
	return false
}

func constraintOnly(s *openapi3.Schema) bool {
	return typeless(s) && len(s.Properties) == 0 && s.Items == nil && len(s.Enum) == 0 &&
		len(s.AllOf) == 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0 && !hasExtra(s)
}

// newType registers a named type defined at at, before its body is converted, so that a
// recursive reference to it finds it.
func (b *Builder) newType(s *openapi3.Schema, at site, kind ir.Kind) (*ir.Type, *ir.TypeRef) {
	t := &ir.Type{Kind: kind, Doc: s.Description, Pos: b.doc.Pos(at.key)}
	t.SchemaName = b.schemaName(at.ptr)
	ref := &ir.TypeRef{Kind: ir.RefNamed, Named: t}
	b.bySchema[s] = ref
	b.Types = append(b.Types, t)
	rank := RankInline
	if t.SchemaName != "" {
		rank = RankComponent
	}
	b.claimType(t, at.name, at.ptr, rank)
	return t, ref
}

// alias returns a named type over elem when the schema is a component (an array or a map the
// spec names), else elem itself. The type exists before elem is filled in, so elem may use it.
func (b *Builder) alias(s *openapi3.Schema, at site, elem *ir.TypeRef, component bool) *ir.TypeRef {
	if !component {
		return elem
	}
	t, ref := b.newType(s, at, ir.KindAlias)
	t.Elem = elem
	return ref
}

func (b *Builder) enum(s *openapi3.Schema, at site) *ir.TypeRef {
	t, ref := b.newType(s, at, ir.KindEnum)
	t.Base = enumBase(s)
	seen := make(map[any]bool)
	for _, v := range s.Enum {
		if v == nil {
			continue
		}
		val, ok := EnumValue(t.Base, v)
		if ok && !seen[val] {
			seen[val] = true
			t.Enum = append(t.Enum, ir.EnumValue{Value: val})
		}
	}
	return ref
}

// enumBase is the Go type of an enum's values: its schema type, or the type of its first value.
func enumBase(s *openapi3.Schema) string {
	typ := ""
	if types := nonNullTypes(s); len(types) > 0 {
		typ = types[0]
	} else {
		for _, v := range s.Enum {
			switch v.(type) {
			case int, int64, uint64:
				typ = "integer"
			case float64:
				typ = "number"
			}
			if v != nil {
				break
			}
		}
	}
	switch typ {
	case "integer":
		return "int64"
	case "number":
		return "float64"
	}
	return "string"
}

// EnumValue converts a decoded enum member to the enum's base type. It refuses a member the type
// cannot hold: a fraction or a number out of range for int64, an infinity or NaN (which no Go
// constant spells).
func EnumValue(base string, v any) (any, bool) {
	var f float64
	switch x := v.(type) {
	case string:
		if base == "string" {
			return x, true
		}
		if i, err := strconv.ParseInt(x, 10, 64); err == nil && base == "int64" {
			return i, true
		}
		var err error
		if f, err = strconv.ParseFloat(x, 64); err != nil {
			return nil, false
		}
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint64:
		f = float64(x)
	case float64:
		f = x
	case bool:
		if base != "string" {
			return nil, false
		}
		return strconv.FormatBool(x), true
	default:
		return nil, false
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	switch base {
	case "string":
		return strconv.FormatFloat(f, 'f', -1, 64), true
	case "int64":
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return nil, false
		}
		return int64(f), true
	}
	return f, true
}

// union converts a oneOf/anyOf. One member left after dropping null is that member. An inline
// union of a few references and scalars (Stripe's expandable fields: an id or the object) is
// shared by every place that spells the same members, and named after them.
func (b *Builder) union(s *openapi3.Schema, at site, component bool) *ir.TypeRef {
	ms, kw := members(s)
	if len(ms) == 1 {
		return b.schemaRef(ms[0], b.item(at, kw, 0, at.name))
	}
	if sig, name, ok := b.sharedUnion(s, ms); ok && !component {
		if ref, ok := b.unions[sig]; ok {
			if p := b.doc.Pos(at.key); before(p, ref.Named.Pos) {
				ref.Named.Pos = p
			}
			return ref
		}
		at = site{ptr: sig, name: name, key: at.key}
		t, ref := b.newType(s, at, ir.KindUnion)
		t.Doc = ""
		b.unions[sig] = ref
		b.fillUnion(t, s, ms, kw, at)
		return ref
	}
	t, ref := b.newType(s, at, ir.KindUnion)
	b.fillUnion(t, s, ms, kw, at)
	return ref
}

func (b *Builder) fillUnion(t *ir.Type, s *openapi3.Schema, ms openapi3.SchemaRefs, kw string, at site) {
	t.OneOf = kw == "oneOf"
	if s.Discriminator != nil {
		t.Discriminator = s.Discriminator.PropertyName
	}
	for i, m := range ms {
		word := "Variant" + strconv.Itoa(i+1)
		if m.Value != nil && m.Value.Title != "" {
			word = naming.GoName(m.Value.Title)
		}
		vat := b.item(at, kw, i, at.name+word)
		v := &ir.Variant{Type: b.schemaRef(m, vat), Pos: b.doc.Pos(vat.key)}
		if m.Ref == "" {
			v.GoName = word
		}
		if s.Discriminator != nil && m.Ref != "" {
			for tag, target := range s.Discriminator.Mapping {
				if target.Ref == m.Ref {
					v.Tags = append(v.Tags, tag)
				}
			}
			slices.Sort(v.Tags)
			if len(v.Tags) == 0 {
				if name := b.schemaName(m.Ref); name != "" {
					v.Tags = []string{name}
				}
			}
		}
		t.Variants = append(t.Variants, v)
	}
}

// sharedUnion returns the signature and wanted name of a union made only of references and
// scalar types, which is the same type wherever it is written.
func (b *Builder) sharedUnion(s *openapi3.Schema, ms openapi3.SchemaRefs) (sig, name string, ok bool) {
	const most = 3 // a longer list makes a name nobody wants to read: name it where it is
	if s.Discriminator != nil || len(ms) > most {
		return "", "", false
	}
	var parts, refs, words []string
	for _, m := range ms {
		switch {
		case m.Ref != "":
			ref := b.canonical(m.Ref)
			parts = append(parts, ref)
			refs = append(refs, b.refSite(ref).name)
			words = append(words, b.refSite(ref).name)
		case m.Value != nil && len(m.Value.Enum) == 0 && !isObject(m.Value) && !typeIs(m.Value, "array") && !isUnion(m.Value):
			p := primitive(m.Value)
			if p == refAny {
				return "", "", false
			}
			parts = append(parts, p.Builtin)
			words = append(words, builtinWord(p))
		default:
			return "", "", false
		}
	}
	name = strings.Join(words, "Or")
	if _, ok := s.Extensions["x-expansionResources"]; ok && len(refs) > 0 {
		name = "Expandable" + strings.Join(refs, "Or")
	}
	return "union(" + strings.Join(parts, "|") + ")", name, true
}

// builtinWord names a builtin in an identifier: "String", "Int64", "Time", "Bytes".
func builtinWord(r *ir.TypeRef) string {
	switch r.Kind {
	case ir.RefArray:
		return builtinWord(r.Elem) + "List"
	case ir.RefMap:
		return builtinWord(r.Elem) + "Map"
	case ir.RefNamed:
		return r.Named.Name
	}
	switch r.Builtin {
	case "time.Time":
		return "Time"
	case "[]byte":
		return "Bytes"
	case "json.RawMessage":
		return "Raw"
	}
	return naming.GoName(r.Builtin)
}

func before(a, b ir.Pos) bool {
	if a.Line != 0 && b.Line != 0 && a.File != b.File {
		return a.File < b.File
	}
	return a.Line != 0 && (b.Line == 0 || a.Line < b.Line || a.Line == b.Line && a.Col < b.Col)
}

// prop is one property collected for a struct, with the site it is defined at; or, in
// collector.undeclared, a member of a oneOf or anyOf and the names it requires.
type prop struct {
	name  string
	sr    *openapi3.SchemaRef
	at    site
	names []string
}

// collector gathers the properties of an object and of its allOf members.
type collector struct {
	props    []prop
	have     map[string]bool // property names in props
	required map[string]bool
	extra    *prop // the first additionalProperties schema met
	seen     map[*openapi3.Schema]bool
	// alts are the properties each member of the object's oneOf or anyOf requires (altsOneOf:
	// under oneOf), nil when it has none or a member requires nothing.
	alts      [][]string
	altsOneOf bool
	// undeclared are the members of the object's oneOf and anyOf, each with the names it
	// requires (prop.names), for the required properties no schema declares.
	undeclared []prop
}

// anyProp is the schema of a property required but declared nowhere: any value.
var anyProp = &openapi3.SchemaRef{Value: &openapi3.Schema{}}

// requireDeclared adds to c, as properties of any value, the properties the object or a member
// of its oneOf or anyOf requires that no schema declares: a value must carry them, so the
// struct has a field for each (required when the object requires it).
func (b *Builder) requireDeclared(c *collector, at site) {
	var own []string
	for name := range c.required {
		own = append(own, name)
	}
	slices.Sort(own)
	for _, u := range append([]prop{{at: at, names: own}}, c.undeclared...) {
		for _, name := range u.names {
			if !c.have[name] {
				c.have[name] = true
				c.props = append(c.props, prop{name: name, sr: anyProp, at: b.sub(u.at, "required", u.at.name+naming.GoName(name))})
			}
		}
	}
}

// object converts an object schema: a struct of its properties (allOf members flattened in,
// first to last, then its own), or a map when it only has additionalProperties.
func (b *Builder) object(s *openapi3.Schema, at site, component bool) *ir.TypeRef {
	c := &collector{have: make(map[string]bool), required: make(map[string]bool), seen: make(map[*openapi3.Schema]bool)}
	b.collect(c, s, at)
	b.requireDeclared(c, at)
	if len(c.props) == 0 {
		if c.extra == nil {
			return refAnyMap
		}
		ref := &ir.TypeRef{Kind: ir.RefMap}
		named := b.alias(s, at, ref, component)
		ref.Elem = b.schemaRef(c.extra.sr, c.extra.at)
		return named
	}
	t, ref := b.newType(s, at, ir.KindStruct)
	t.Requires, t.RequiresOneOf = c.alts, c.altsOneOf
	if c.extra != nil {
		t.AdditionalProperties = b.schemaRef(c.extra.sr, c.extra.at)
	}
	claims := make([]*naming.Claim, 0, len(c.props))
	for _, p := range c.props {
		f := &ir.Field{Name: p.name, Required: c.required[p.name], Type: b.schemaRef(p.sr, p.at), Pos: b.doc.Pos(p.at.key)}
		if v := p.sr.Value; v != nil {
			f.Nullable, f.Doc, f.ReadOnly = nullable(v), v.Description, v.ReadOnly
		}
		t.Fields = append(t.Fields, f)
		claims = append(claims, fieldClaim(p.name, &f.GoName))
	}
	naming.Settle(claims)
	return ref
}

// fieldClaim is the claim of the property name on a Go name of its struct. A name without a
// letter or a digit, which goName would make a bare "X" (the name of a property "x"), is
// spelled out instead ("" is Empty, "$" Dollar, "+" Plus), and yields to a property that is
// called so: it then takes the suffix Field (EmptyField).
func fieldClaim(name string, got *string) *naming.Claim {
	if name != "" && len(naming.Words(name)) > 0 {
		return &naming.Claim{Want: naming.GoName(name), Literal: naming.GoLiteral(name), Key: name, Got: got}
	}
	w := "Empty"
	if name != "" {
		w = naming.Spell(name)
	}
	return &naming.Claim{Want: w, Literal: w, Alt: "Field", Key: name, Rank: 1, Got: got}
}

// collect gathers the properties of s and of its allOf members, first to last and then its own,
// each property once (where it first appears), in document order; then those its oneOf and
// anyOf members declare, which only constrain the object (isUnion is false): a property one
// member requires is optional in the struct, but never dropped, and each member's required
// properties are kept as an alternative (Type.Requires).
func (b *Builder) collect(c *collector, s *openapi3.Schema, at site) {
	b.collectIn(c, s, at, false)
}

// collectIn is collect; branch says s is a member of a oneOf or anyOf, whose required
// properties are not required of the object.
func (b *Builder) collectIn(c *collector, s *openapi3.Schema, at site, branch bool) {
	if s == nil || c.seen[s] {
		return
	}
	c.seen[s] = true
	for i, m := range s.AllOf {
		mAt := b.item(at, "allOf", i, at.name)
		if m.Ref != "" {
			mAt = b.refSite(b.canonical(m.Ref))
		}
		b.collectIn(c, m.Value, mAt, branch)
	}
	if !branch {
		for _, name := range s.Required {
			c.required[name] = true
		}
	}
	if c.extra == nil && hasExtra(s) {
		c.extra = &prop{sr: s.AdditionalProperties.Schema, at: b.sub(at, "additionalProperties", at.name+"Value")}
	}
	if len(s.Properties) > 0 {
		psite := b.sub(at, "properties", at.name)
		names := load.Keys(psite.node)
		if len(names) != len(s.Properties) { // the tree does not show this schema: fall back to sorted
			names = make([]string, 0, len(s.Properties))
			for name := range s.Properties {
				names = append(names, name)
			}
			slices.Sort(names)
		}
		for _, name := range names {
			sr, ok := s.Properties[name]
			if !ok || c.have[name] {
				continue
			}
			c.have[name] = true
			c.props = append(c.props, prop{name: name, sr: sr, at: b.sub(psite, name, at.name+naming.GoName(name))})
		}
	}
	if branch {
		c.undeclared = append(c.undeclared, prop{at: at, names: s.Required})
	}
	if branch || isUnion(s) {
		return
	}
	ms, kw := members(s)
	if len(ms) < 2 {
		return
	}
	var alts [][]string
	for i, m := range ms {
		if m.Value == nil {
			return
		}
		mAt := b.item(at, kw, i, at.name)
		if m.Ref != "" {
			mAt = b.refSite(b.canonical(m.Ref))
		}
		b.collectIn(c, m.Value, mAt, true)
		alts = append(alts, requiredOf(m.Value))
	}
	if c.alts == nil && !slices.ContainsFunc(alts, func(a []string) bool { return len(a) == 0 }) {
		c.alts, c.altsOneOf = alts, kw == "oneOf"
	}
}

// requiredOf is what a oneOf or anyOf member of an object requires: its required properties and
// those of its allOf members, sorted.
func requiredOf(s *openapi3.Schema) []string {
	var out []string
	var walk func(s *openapi3.Schema, depth int)
	walk = func(s *openapi3.Schema, depth int) {
		if s == nil || depth > 16 {
			return
		}
		out = append(out, s.Required...)
		for _, m := range s.AllOf {
			walk(m.Value, depth+1)
		}
	}
	walk(s, 0)
	slices.Sort(out)
	return slices.Compact(out)
}
