package build

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/writegen/writegen/spec/ir"
)

// SameTypes sets Type.Same on the types of api.
//
// Specs written by hand or by generators repeat inline objects: Stripe writes its address object
// inline in 65 places, its capability request in 132, 2,407 of its enums have the values of
// another, and 101 of its 262 unions the variants of another. Each copy declared as a type of its
// own costs the compiler a type descriptor, an equality function and its share of the export
// data, which is much of what a large client costs to build. A copy is declared as an alias of the type it repeats instead: every name the
// spec's places give stays, and values of the copies are interchangeable, as they are in JSON.
//
// Two types are the same when their declarations would be: structs with the same fields (Go
// names, JSON names and tags, docs, types, pointers) and no JSON methods, enums with the same
// base and values, unions with the same discriminator and variants (accessor names, types,
// discriminator values). A field or a variant of a named type compares by the class of that
// type, so that two objects holding copies of one object are copies too: the types are classed
// depth first, each after the types its fields and variants name. A type met again while its own fields are being classed (a
// recursive object) counts as a class of its own, which can only miss a copy, never merge two
// types that differ. An operation's request body and its response keep a declaration of their
// own, so that a method's signature reads as its operation. Of each class the type declared is
// the one the spec names in components/schemas, else the one with the shortest name, else the
// first by name: it changes only when a type joins or leaves the class.
func SameTypes(api *ir.API) {
	own := map[*ir.Type]bool{}
	for _, op := range api.Operations {
		if op.Body != nil && op.Body.Type != nil && op.Body.Type.Kind == ir.RefNamed {
			own[op.Body.Type.Named] = true
		}
		if op.Response != nil && op.Response.Type != nil && op.Response.Type.Kind == ir.RefNamed {
			own[op.Response.Type.Named] = true
		}
	}
	c := classer{class: map[*ir.Type]int{}, ids: map[string]int{}}
	for _, t := range api.Types {
		t.Same = nil
		if !own[t] && (t.Kind == ir.KindEnum || t.Kind == ir.KindUnion || t.Kind == ir.KindStruct && !t.JSONMethods()) {
			c.class[t] = unclassed
		}
	}
	for _, t := range api.Types {
		c.visit(t)
	}
	members := make([][]*ir.Type, len(c.ids))
	for _, t := range api.Types { // in order of name, so that the result is the same every run
		if id, ok := c.class[t]; ok {
			members[id] = append(members[id], t)
		}
	}
	for _, m := range members {
		decl := slices.MinFunc(m, preferDeclared)
		for _, t := range m {
			if t != decl {
				t.Same = decl
			}
		}
	}
}

// NoCompare sets Type.NoCompare on the structs of api that Go would let == compare although a
// field is a pointer. It runs after sameTypes: an alias is not declared, its type is.
func NoCompare(api *ir.API) {
	for _, t := range api.Types {
		t.NoCompare = t.Kind == ir.KindStruct && t.Same == nil && comparable(t, map[*ir.Type]bool{}) &&
			slices.ContainsFunc(t.Fields, func(f *ir.Field) bool { return f.Pointer })
	}
}

// classer classes the candidate types of sameTypes by their declarations.
type classer struct {
	class map[*ir.Type]int // the candidates: their class, or unclassed, or open
	ids   map[string]int   // the classes by signature
	buf   []byte
}

// The classes of candidates not classed yet.
const (
	unclassed = -1 // not visited
	open      = -2 // its fields are being classed
)

// visit classes t, after the types its fields name.
func (c *classer) visit(t *ir.Type) {
	if id, ok := c.class[t]; !ok || id != unclassed {
		return
	}
	c.class[t] = open
	for _, f := range t.Fields {
		c.visitRef(f.Type)
	}
	for _, v := range t.Variants {
		c.visitRef(v.Type)
	}
	c.buf = c.signature(c.buf[:0], t)
	id, ok := c.ids[string(c.buf)]
	if !ok {
		id = len(c.ids)
		c.ids[string(c.buf)] = id
	}
	c.class[t] = id
}

// visitRef classes the named type r uses, if any.
func (c *classer) visitRef(r *ir.TypeRef) {
	for r.Kind == ir.RefArray || r.Kind == ir.RefMap {
		r = r.Elem
	}
	if r.Kind == ir.RefNamed {
		c.visit(r.Named)
	}
}

// SentTypes sets Type.Sent on the types the parameters and the bodies of api's operations
// reach, through fields, elements, variants and the types the aliases repeat.
func SentTypes(api *ir.API) {
	for _, t := range api.Types {
		t.Sent = false
	}
	var send func(r *ir.TypeRef)
	send = func(r *ir.TypeRef) {
		for r != nil && (r.Kind == ir.RefArray || r.Kind == ir.RefMap) {
			r = r.Elem
		}
		if r == nil || r.Kind != ir.RefNamed || r.Named.Sent {
			return
		}
		t := r.Named
		t.Sent = true
		for _, f := range t.Fields {
			send(f.Type)
		}
		for _, v := range t.Variants {
			send(v.Type)
		}
		send(t.AdditionalProperties)
		send(t.Elem)
		if t.Same != nil {
			send(&ir.TypeRef{Kind: ir.RefNamed, Named: t.Same})
		}
	}
	for _, op := range api.Operations {
		for _, p := range op.Params {
			send(p.Type)
		}
		if op.Body != nil {
			send(op.Body.Type)
		}
	}
}

// preferDeclared orders the types of a class: the one declared comes first.
func preferDeclared(x, y *ir.Type) int {
	return cmp.Or(
		-cmp.Compare(boolInt(x.SchemaName != ""), boolInt(y.SchemaName != "")),
		cmp.Compare(len(x.Name), len(y.Name)),
		strings.Compare(x.Name, y.Name))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// signature appends to b what t declares, with the named types its fields use written as their
// classes.
func (c *classer) signature(b []byte, t *ir.Type) []byte {
	if t.Kind == ir.KindEnum {
		b = append(b, "enum "+t.Base...)
		for _, v := range t.Enum {
			switch x := v.Value.(type) {
			case string:
				b = strconv.AppendQuote(append(b, " s"...), x)
			case int64:
				b = strconv.AppendInt(append(b, " i"...), x, 10)
			case float64:
				b = strconv.AppendFloat(append(b, " f"...), x, 'g', -1, 64)
			default:
				b = fmt.Appendf(b, " %T:%v", x, x)
			}
		}
		return b
	}
	if t.Kind == ir.KindUnion {
		b = strconv.AppendQuote(append(b, "union "...), t.Discriminator)
		for _, v := range t.Variants {
			b = append(b, '\n')
			b = append(b, v.GoName...)
			b = c.ref(append(b, ' '), v.Type)
			for _, tag := range v.Tags {
				b = strconv.AppendQuote(append(b, ' '), tag)
			}
		}
		return b
	}
	b = append(b, "struct"...)
	for _, f := range t.Fields {
		b = append(b, '\n')
		b = append(b, f.GoName...)
		b = strconv.AppendQuote(append(b, ' '), f.Name)
		b = c.ref(append(b, ' '), f.Type)
		for _, flag := range [...]bool{f.Required, f.Nullable, f.ReadOnly, f.Pointer, f.OmitEmpty} {
			b = strconv.AppendBool(append(b, ' '), flag)
		}
		b = strconv.AppendQuote(append(b, ' '), f.Doc)
	}
	return b
}

// ref appends r to b: a named type as its class, or by its name when it has none (yet).
func (c *classer) ref(b []byte, r *ir.TypeRef) []byte {
	switch r.Kind {
	case ir.RefNamed:
		if id, ok := c.class[r.Named]; ok && id >= 0 {
			return strconv.AppendInt(append(b, '#'), int64(id), 10)
		}
		return strconv.AppendQuote(b, r.Named.Name)
	case ir.RefArray:
		return c.ref(append(b, "[]"...), r.Elem)
	case ir.RefMap:
		return c.ref(append(b, "map[string]"...), r.Elem)
	}
	return append(b, r.Builtin...)
}

// comparable reports whether Go lets == compare values of struct t.
func comparable(t *ir.Type, seen map[*ir.Type]bool) bool {
	if seen[t] {
		return true // a struct holding itself does so through a pointer
	}
	seen[t] = true
	if t.AdditionalProperties != nil {
		return false
	}
	for _, f := range t.Fields {
		if !f.Pointer && !refComparable(f.Type, seen) {
			return false
		}
	}
	return true
}

func refComparable(r *ir.TypeRef, seen map[*ir.Type]bool) bool {
	switch r.Kind {
	case ir.RefArray, ir.RefMap:
		return false
	case ir.RefBuiltin:
		return r.Builtin != "[]byte" && r.Builtin != "json.RawMessage"
	}
	switch t := r.Named; t.Kind {
	case ir.KindStruct:
		return comparable(t, seen)
	case ir.KindUnion:
		return false
	case ir.KindAlias:
		return refComparable(t.Elem, seen)
	}
	return true
}
