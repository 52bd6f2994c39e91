package build

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/naming"
)

// The Go shape of the types is decided here, once every type is known: which fields are held
// through pointers, the name of the map that keeps unknown keys, and the checks of what a Go
// declaration cannot spell.

// shape decides how every field and parameter is held, marks the properties no json tag can
// name, names the maps of additional properties, and refuses what no Go declaration can spell: a
// discriminator value that selects two variants.
func (b *Builder) shape(ops []*ir.Operation) ir.ErrorList {
	var errs ir.ErrorList
	cyclic := cyclicFields(b.Types)
	for _, t := range b.Types {
		for _, f := range t.Fields {
			f.Pointer, f.OmitEmpty = hold(f.Type, f.Required, f.Nullable, cyclic[f])
		}

		for _, f := range t.Fields {
			f.Untagged = !validTagName(f.Name)
		}
		if t.JSONMethods() {
			b.extraNames(t)
		}
		if t.Kind == ir.KindUnion {
			errs = append(errs, discriminatorDefects(t)...)
		}
	}
	for _, op := range ops {
		for _, p := range op.Params {
			p.Pointer, _ = hold(p.Type, p.Required || p.In == ir.InPath, false, false)
		}
		if op.Body != nil && op.Body.Encoding == ir.BodyMultipart {
			if u := ir.Under(op.Body.Type); u.Kind != ir.RefNamed || u.Named.Kind != ir.KindStruct {
				errs = append(errs, &ir.Error{Pos: op.Pos, Operation: op.ID, Msg: fmt.Sprintf("multipart request body is %s, not an object: writegen sends one part per property", ir.DescribeRef(op.Body.Type))})
			}
		}
	}
	return errs
}

// extraNames keeps the fields of a struct with JSON methods apart from them, and names the map
// of its additional properties (AdditionalProperties, with underscores added while a property
// has that name).
func (b *Builder) extraNames(t *ir.Type) {
	if slices.ContainsFunc(t.Fields, func(f *ir.Field) bool { return f.GoName == "MarshalJSON" || f.GoName == "UnmarshalJSON" }) {
		claims := []*naming.Claim{
			{Want: "MarshalJSON", Key: "method MarshalJSON", Fixed: true, Got: new(string)},
			{Want: "UnmarshalJSON", Key: "method UnmarshalJSON", Fixed: true, Got: new(string)},
		}
		for _, f := range t.Fields {
			claims = append(claims, &naming.Claim{Want: naming.GoName(f.Name), Literal: naming.GoLiteral(f.Name), Alt: "Field", Key: f.Name, Got: &f.GoName})
		}
		naming.Settle(claims)
	}
	if t.AdditionalProperties == nil {
		return
	}
	name := "AdditionalProperties"
	for slices.ContainsFunc(t.Fields, func(f *ir.Field) bool { return f.GoName == name }) {
		name += "_"
	}
	t.ExtraName = name
}

// discriminatorDefects checks that a discriminated union can be decoded by its property.
func discriminatorDefects(t *ir.Type) ir.ErrorList {
	if t.Discriminator == "" {
		return nil
	}
	if !validTagName(t.Discriminator) {
		return ir.ErrorList{{Pos: t.Pos, Msg: fmt.Sprintf("type %s: discriminator %q cannot be named in a Go json tag", t.Name, t.Discriminator)}}
	}
	var errs ir.ErrorList
	seen := map[string]*ir.Variant{}
	for _, v := range t.Variants {
		for _, tag := range v.Tags {
			if prev := seen[tag]; prev != nil && prev != v {
				errs = append(errs, &ir.Error{Pos: v.Pos, Msg: fmt.Sprintf("type %s: discriminator value %q selects two variants, %s and %s", t.Name, tag, prev.GoName, v.GoName)})
				continue
			}
			seen[tag] = v
		}
	}
	return errs
}

// hold decides how a field or parameter of type r is held:
//
//   - slices, maps, []byte, any and json.RawMessage (and named types over them) are held as
//     they are, since nil already means absent; omitempty when optional;
//   - anything else is a pointer when optional (so that a zero value can still be sent) or
//     nullable (so that null can be received), with omitempty when optional;
//   - a required struct that contains its holder by value is a pointer (cyclic).
func hold(r *ir.TypeRef, required, nullable, cyclic bool) (ptr, omitempty bool) {
	if ir.Nilable(r) {
		return false, !required
	}
	return !required || nullable || cyclic, !required
}

// cyclicFields finds the required, non-nullable struct fields whose struct type contains the
// struct holding them by value, directly or through other structs. Such a field must be a
// pointer, or the type would be infinitely large. Every such field of a cycle is made a
// pointer, so the choice does not depend on the order of declarations.
func cyclicFields(types []*ir.Type) map[*ir.Field]bool {
	edges := func(t *ir.Type) []*ir.Field {
		var out []*ir.Field
		for _, f := range t.Fields {
			if f.Required && !f.Nullable && f.Type.Kind == ir.RefNamed && f.Type.Named.Kind == ir.KindStruct {
				out = append(out, f)
			}
		}
		return out
	}
	// Tarjan's strongly connected components over the value edges.
	index := map[*ir.Type]int{}
	low := map[*ir.Type]int{}
	comp := map[*ir.Type]int{}
	onStack := map[*ir.Type]bool{}
	var stack []*ir.Type
	next, ncomp := 1, 0
	var visit func(t *ir.Type)
	visit = func(t *ir.Type) {
		index[t], low[t] = next, next
		next++
		stack = append(stack, t)
		onStack[t] = true
		for _, f := range edges(t) {
			u := f.Type.Named
			if index[u] == 0 {
				visit(u)
				low[t] = min(low[t], low[u])
			} else if onStack[u] {
				low[t] = min(low[t], index[u])
			}
		}
		if low[t] == index[t] {
			ncomp++
			for {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[u] = false
				comp[u] = ncomp
				if u == t {
					break
				}
			}
		}
	}
	cyclic := map[*ir.Field]bool{}
	for _, t := range types {
		if t.Kind == ir.KindStruct && index[t] == 0 {
			visit(t)
		}
	}
	for _, t := range types {
		for _, f := range edges(t) {
			if comp[f.Type.Named] == comp[t] {
				cyclic[f] = true
			}
		}
	}
	return cyclic
}

// validTagName reports whether encoding/json accepts name as the name in a json tag (its
// isValidTag): letters, digits and punctuation other than quotes, backslash and comma.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", r):
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			return false
		}
	}
	return true
}

// LowerFirst turns an exported name into an unexported one, lowering a leading initialism as a
// whole: CreateThread -> createThread, URLCreate -> urlCreate, ID -> id.
func LowerFirst(name string) string {
	rs := []rune(name)
	n := 0
	for n < len(rs) && unicode.IsUpper(rs[n]) {
		n++
	}
	if n > 1 && n < len(rs) && unicode.IsLetter(rs[n]) {
		n-- // the last capital starts the next word: URLCreate -> url + Create
	}
	for i := range max(n, 1) {
		rs[i] = unicode.ToLower(rs[i])
	}
	return string(rs)
}
