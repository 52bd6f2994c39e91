package build

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/load"
	"github.com/writegen/writegen/spec/naming"
)

// Ranks of name claims: a lower rank keeps a contested name.
const (
	RankComponent = 1 // a components/schemas key: the name the spec gives
	RankInline    = 2 // a name made up from where a schema is written
	rankConst     = 3 // an enum constant: its type's name and its value
	rankInbox     = 0 // an inbox's constructor, named after its source, keeps its name over a type
)

// Builder converts the spec's schemas and operations into the IR.
type Builder struct {
	doc      *load.Document
	Types    []*ir.Type
	claims   []*naming.Claim
	byRef    map[string]*ir.TypeRef // by canonical reference; nil while being converted
	bySchema map[*openapi3.Schema]*ir.TypeRef
	unions   map[string]*ir.TypeRef // shared unions by signature
	// Overrides are the annotation file's names, by the pointer of the schema they rename; the
	// types defined inside a renamed schema are named after the new name.
	Overrides map[string]string
}

// claimType asks for the Go name a type wants, with what settles a collision: the literal
// spelling of its last pointer segment, and its kind as a suffix.
func (b *Builder) claimType(t *ir.Type, want, key string, rank int) {
	c := &naming.Claim{Want: want, Key: key, Rank: rank, Got: &t.Name}
	if i := strings.LastIndex(key, "/"); i >= 0 {
		last := ir.UnescapePointer(key[i+1:])
		if g := naming.GoName(last); strings.HasSuffix(want, g) {
			if prefix := want[:len(want)-len(g)]; prefix != "" {
				c.Literal = prefix + naming.Literal(last)
			} else {
				c.Literal = naming.GoLiteral(last)
			}
		}
	}
	switch t.Kind {
	case ir.KindStruct:
		c.Alt = "Object"
	case ir.KindEnum:
		c.Alt = "Enum"
	case ir.KindUnion:
		c.Alt = "Union"
	case ir.KindAlias:
		c.Alt = "Type"
	}
	b.claims = append(b.claims, c)
}

// Settle resolves every package-level name at once: the types (with the annotation file's
// overrides), the names the generated code reserves for the operations in scope, enum
// constants, union accessors and the constructors of the inboxes of sources. It then decides the
// Go shape of the types. It returns the constructors' names by source, and the defects found.
func (b *Builder) Settle(a *annot.File, inScope []*Op, sources []string) (inboxNames map[string]*string, errs ir.ErrorList) {
	byKey := make(map[string]*naming.Claim, len(b.claims))
	for _, c := range b.claims {
		byKey[c.Key] = c
	}
	for _, o := range a.Names {
		c := byKey[o.Ptr]
		if c == nil {
			if _, ok := b.doc.ResolvePointer(strings.TrimPrefix(o.Ptr, "#")); !ok {
				errs = append(errs, &ir.Error{Pos: ir.Pos{File: a.File, Line: o.Node.Line, Col: o.Node.Column},
					Msg: fmt.Sprintf("names: %q names nothing in the spec", o.Ptr)})
			}
			continue
		}
		c.Want, c.Fixed = o.Name, o.Name != ""
	}
	reserved := []string{"Client", "NewClient", "DefaultBaseURL", "Writes"}
	for _, so := range inScope {
		reserved = append(reserved, so.Op.GoName+"Key", so.Op.GoName+"Params")
	}
	claims := append([]*naming.Claim(nil), b.claims...)
	for _, name := range reserved {
		claims = append(claims, &naming.Claim{Want: name, Key: "reserved:" + name, Fixed: true, Got: new(string)})
	}
	// An inbox's constructor is named after its source, and keeps the name over a type.
	inboxNames = map[string]*string{}
	for _, source := range sources {
		if inboxNames[source] == nil {
			got := new(string)
			inboxNames[source] = got
			claims = append(claims, &naming.Claim{Want: "New" + naming.GoName(source) + "Inbox", Literal: "New" + naming.GoLiteral(source) + "Inbox",
				Key: "inbox:" + source, Rank: rankInbox, Got: got})
		}
	}
	fixed := make(map[string]*naming.Claim)
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
				errs = append(errs, &ir.Error{Pos: ir.Pos{File: a.File, Line: o.Node.Line, Col: o.Node.Column},
					Msg: fmt.Sprintf("names: %q is already the name of %s", c.Want, describeKey(other.Key))})
			}
			continue
		}
		fixed[c.Want] = c
	}
	naming.Settle(claims)

	// Enum constants share the package namespace with the types, which keep their names.
	taken := make([]*naming.Claim, 0, len(claims))
	for _, c := range claims {
		taken = append(taken, &naming.Claim{Want: *c.Got, Key: c.Key, Fixed: true, Got: new(string)})
	}
	for _, t := range b.Types {
		for i := range t.Enum {
			v := &t.Enum[i]
			taken = append(taken, &naming.Claim{Want: t.Name + ValueWord(v.Value), Literal: t.Name + naming.Literal(fmt.Sprint(v.Value)),
				Alt: "Value", Key: fmt.Sprintf("%s=%v", t.Name, v.Value), Rank: rankConst, Got: &v.GoName})
		}
		var vclaims []*naming.Claim
		for i, v := range t.Variants {
			if v.Type.Kind != ir.RefNamed || v.GoName == "" {
				v.GoName = builtinWord(v.Type)
			}
			vclaims = append(vclaims, &naming.Claim{Want: v.GoName, Key: fmt.Sprintf("%06d", i), Got: &v.GoName})
		}
		naming.Settle(vclaims)
		unionMethods(t)
	}
	naming.Settle(taken)

	ops := make([]*ir.Operation, len(inScope))
	for i, so := range inScope {
		ops[i] = so.Op
	}
	return inboxNames, append(errs, b.shape(ops)...)
}

// UnionMembers are the members of a union's method set other than its variants' accessors
// and setters: the embedded json.RawMessage, the methods it promotes, and the methods of a
// discriminated union.
var UnionMembers = []string{"RawMessage", "MarshalJSON", "UnmarshalJSON", "Discriminator", "Value"}

// unionMethods names the accessor (As<GoName>) and the setter (From<GoName>) of each variant of
// a union, apart from each other and from unionMembers.
func unionMethods(t *ir.Type) {
	if len(t.Variants) == 0 {
		return
	}
	var claims []*naming.Claim
	for _, m := range UnionMembers {
		claims = append(claims, &naming.Claim{Want: m, Key: "member " + m, Fixed: true, Got: new(string)})
	}
	for i, v := range t.Variants {
		claims = append(claims,
			&naming.Claim{Want: "As" + v.GoName, Alt: "Variant", Key: fmt.Sprintf("as %06d", i), Got: &v.AsName},
			&naming.Claim{Want: "From" + v.GoName, Alt: "Variant", Key: fmt.Sprintf("from %06d", i), Got: &v.FromName})
	}
	naming.Settle(claims)
}

// LookupOf returns the lookup of a write, or nil.
func LookupOf(op *ir.Operation) *ir.Lookup {
	if op.Safety == nil {
		return nil
	}
	return op.Safety.Lookup
}

// PathParts splits an operation's path template into literals and its path parameters. Every
// placeholder of a well-formed template has its parameter (params sees to it); a malformed one
// is refused by listOperations, and split here as far as it goes.
func PathParts(op *ir.Operation) []ir.PathPart {
	var out []ir.PathPart
	rest := op.Path
	for rest != "" {
		open := strings.IndexByte(rest, '{')
		closing := strings.IndexByte(rest[max(open, 0):], '}')
		if open < 0 || closing < 0 {
			out = append(out, ir.PathPart{Literal: rest})
			break
		}
		end := open + closing
		if open > 0 {
			out = append(out, ir.PathPart{Literal: rest[:open]})
		}
		name := rest[open+1 : end]
		rest = rest[end+1:]
		for _, p := range op.Params {
			if p.In == ir.InPath && p.Name == name {
				out = append(out, ir.PathPart{Param: p})
				break
			}
		}
	}
	return out
}

func overrideFor(a *annot.File, ptr string) *annot.NameOverride {
	for _, o := range a.Names {
		if o.Ptr == ptr {
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

// ValueWord names an enum value inside its constant: "in_progress" -> "InProgress", "" ->
// "Empty", -1 -> "Minus1", "Etc/GMT+1" -> "EtcGMTPlus1", "!=" -> "NotEq".
func ValueWord(v any) string {
	s := fmt.Sprint(v)
	switch {
	case s == "":
		return "Empty"
	case len(naming.Words(s)) == 0:
		return naming.Spell(s)
	}
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if (r == '+' || r == '-') && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) {
			b.WriteString(naming.SymbolWords[r])
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return naming.JoinWords(naming.Words(b.String()))
}

// New returns a Builder of the IR of the operations and types of d.
func New(d *load.Document) *Builder {
	return &Builder{doc: d, byRef: make(map[string]*ir.TypeRef), bySchema: make(map[*openapi3.Schema]*ir.TypeRef),
		unions: make(map[string]*ir.TypeRef), Overrides: make(map[string]string)}
}
