package spec

import (
	"fmt"
	"strings"

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
}

func (b *builder) claimType(t *Type, want, key string, rank int) {
	b.claims = append(b.claims, &nameClaim{Want: want, Key: key, Rank: rank, Got: &t.Name})
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
			if o := overrideFor(a, c.Key); o != nil {
				errs = append(errs, &Error{Pos: Pos{File: a.file, Line: o.node.Line, Col: o.node.Column},
					Msg: fmt.Sprintf("names: %q is already the name of %s", c.Want, describeKey(prev.Key))})
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
			taken = append(taken, &nameClaim{Want: t.Name + valueWord(v.Value), Key: fmt.Sprintf("%s=%v", t.Name, v.Value), Rank: rankConst, Got: &v.GoName})
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
// "Empty", -1 -> "Minus1".
func valueWord(v any) string {
	s := fmt.Sprint(v)
	var b strings.Builder
	if strings.HasPrefix(s, "-") {
		b.WriteString("Minus")
	}
	b.WriteString(joinWords(words(s)))
	if b.Len() == 0 {
		return "Empty"
	}
	return b.String()
}
