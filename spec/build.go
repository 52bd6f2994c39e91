package spec

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
)

// Ranks of name claims: a lower rank keeps a contested name.
const (
	rankComponent = 1 // a components/schemas key: the name the spec gives
	rankInline    = 2 // a name made up from where a schema is written
	rankConst     = 3 // an enum constant: its type's name and its value
)

// builder converts the spec's schemas and operations into the IR.
type builder struct {
	d        *document
	types    []*Type
	claims   []*nameClaim
	byRef    map[string]*TypeRef // by canonical reference; nil while being converted
	bySchema map[*openapi3.Schema]*TypeRef
	unions   map[string]*TypeRef // shared unions by signature
	// overrides are the annotation file's names, by the pointer of the schema they rename; the
	// types defined inside a renamed schema are named after the new name.
	overrides map[string]string
}

// claimType asks for the Go name a type wants, with what settles a collision: the literal
// spelling of its last pointer segment, and its kind as a suffix.
func (b *builder) claimType(t *Type, want, key string, rank int) {
	c := &nameClaim{Want: want, Key: key, Rank: rank, Got: &t.Name}
	if i := strings.LastIndex(key, "/"); i >= 0 {
		last := unescapePointer(key[i+1:])
		if g := goName(last); strings.HasSuffix(want, g) {
			if prefix := want[:len(want)-len(g)]; prefix != "" {
				c.Literal = prefix + literal(last)
			} else {
				c.Literal = goLiteral(last)
			}
		}
	}
	switch t.Kind {
	case KindStruct:
		c.Alt = "Object"
	case KindEnum:
		c.Alt = "Enum"
	case KindUnion:
		c.Alt = "Union"
	case KindAlias:
		c.Alt = "Type"
	}
	b.claims = append(b.claims, c)
}

// settle resolves every package-level name at once: the types (with the annotation file's
// overrides), the names the generated code reserves, then enum constants and union accessors.
func (b *builder) settle(r *resolver, a *annotations) ErrorList {
	var errs ErrorList
	byKey := make(map[string]*nameClaim, len(b.claims))
	for _, c := range b.claims {
		byKey[c.Key] = c
	}
	for _, o := range a.names {
		c := byKey[o.ptr]
		if c == nil {
			if _, ok := b.d.resolvePointer(strings.TrimPrefix(o.ptr, "#")); !ok {
				errs = append(errs, &Error{Pos: Pos{File: a.file, Line: o.node.Line, Col: o.node.Column},
					Msg: fmt.Sprintf("names: %q names nothing in the spec", o.ptr)})
			}
			continue
		}
		c.Want, c.Fixed = o.name, o.name != ""
	}
	reserved := []string{"Client", "NewClient"}
	for _, so := range r.ops {
		if r.scope[so] {
			reserved = append(reserved, so.op.GoName+"Key", so.op.GoName+"Params")
		}
	}
	claims := append([]*nameClaim(nil), b.claims...)
	for _, name := range reserved {
		claims = append(claims, &nameClaim{Want: name, Key: "reserved:" + name, Fixed: true, Got: new(string)})
	}
	fixed := make(map[string]*nameClaim)
	for _, c := range claims {
		if !c.Fixed {
			continue
		}
		if prev := fixed[c.Want]; prev != nil {
			o, other := overrideFor(a, c.Key), prev
			if o == nil {
				o, other = overrideFor(a, prev.Key), c
			}
			if o != nil {
				errs = append(errs, &Error{Pos: Pos{File: a.file, Line: o.node.Line, Col: o.node.Column},
					Msg: fmt.Sprintf("names: %q is already the name of %s", c.Want, describeKey(other.Key))})
			}
			continue
		}
		fixed[c.Want] = c
	}
	settleNames(claims)

	// Enum constants share the package namespace with the types, which keep their names.
	taken := make([]*nameClaim, 0, len(claims))
	for _, c := range claims {
		taken = append(taken, &nameClaim{Want: *c.Got, Key: c.Key, Fixed: true, Got: new(string)})
	}
	for _, t := range b.types {
		for i := range t.Enum {
			v := &t.Enum[i]
			taken = append(taken, &nameClaim{Want: t.Name + valueWord(v.Value), Literal: t.Name + literal(fmt.Sprint(v.Value)),
				Alt: "Value", Key: fmt.Sprintf("%s=%v", t.Name, v.Value), Rank: rankConst, Got: &v.GoName})
		}
		var vclaims []*nameClaim
		for i, v := range t.Variants {
			if v.Type.Kind != RefNamed || v.GoName == "" {
				v.GoName = builtinWord(v.Type)
			}
			vclaims = append(vclaims, &nameClaim{Want: v.GoName, Key: fmt.Sprintf("%06d", i), Got: &v.GoName})
		}
		settleNames(vclaims)
	}
	settleNames(taken)
	return errs
}

func overrideFor(a *annotations, ptr string) *nameOverride {
	for _, o := range a.names {
		if o.ptr == ptr {
			return o
		}
	}
	return nil
}

func describeKey(key string) string {
	if name, ok := strings.CutPrefix(key, "reserved:"); ok {
		return "generated " + name
	}
	return key
}

// valueWord names an enum value inside its constant: "in_progress" -> "InProgress", "" ->
// "Empty", -1 -> "Minus1", "Etc/GMT+1" -> "EtcGMTPlus1", "!=" -> "NotEq".
func valueWord(v any) string {
	s := fmt.Sprint(v)
	switch {
	case s == "":
		return "Empty"
	case len(words(s)) == 0:
		return spell(s)
	}
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if (r == '+' || r == '-') && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) {
			b.WriteString(symbolWords[r])
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return joinWords(words(b.String()))
}
