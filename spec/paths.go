package spec

import (
	"fmt"
	"strconv"

	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/load"
)

// The JSON pointers of the annotation file are resolved here, once, against the Go types they go
// through, into Paths the emitters render as selectors and index expressions. A pointer that the
// generated code could not follow in a decoded value is refused at the pointer.

// pathMode says which steps a pointer may take.
type pathMode int

const (
	readPath pathMode = iota // read a value: fields, indexes, map keys
	eachPath                 // a lookup's found: an index 0 means every element (at most once)
	setPath                  // fill in a string: fields and, last, a map key
)

// resolvePath follows ptr from a value of type root. why says what stops it.
func resolvePath(root *ir.TypeRef, ptr string, mode pathMode) (p *ir.Path, why string) {
	p = &ir.Path{Pointer: ptr, Root: root, Type: root}
	if ptr == "" {
		return p, ""
	}
	if ptr[0] != '/' {
		return nil, "not a JSON pointer"
	}
	each := false
	segs := load.SplitPointer(ptr)
	for i, seg := range segs {
		last := i == len(segs)-1
		u := under(p.Type)
		var s ir.Step
		switch {
		case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindStruct:
			st := u.Named
			var f *ir.Field
			for _, x := range st.Fields {
				if x.Name == seg {
					f = x
					break
				}
			}
			switch {
			case f != nil:
				s = ir.Step{Kind: ir.StepField, Field: f, Struct: st, Type: f.Type}
			case st.AdditionalProperties != nil:
				s = ir.Step{Kind: ir.StepKey, Key: seg, Extra: true, Struct: st, Type: st.AdditionalProperties}
			default:
				return nil, fmt.Sprintf("%s has no property %q", st.Name, seg)
			}
		case u.Kind == ir.RefMap:
			s = ir.Step{Kind: ir.StepKey, Key: seg, Type: u.Elem}
		case u.Kind == ir.RefArray:
			if mode == setPath {
				return nil, fmt.Sprintf("%s is a list: a value to fill in is reached through objects and maps only", describeRef(p.Type))
			}
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || strconv.Itoa(n) != seg {
				return nil, fmt.Sprintf("%q is not an array index", seg)
			}
			s = ir.Step{Kind: ir.StepIndex, Index: n, Type: u.Elem}
			if mode == eachPath {
				if n != 0 || each {
					return nil, fmt.Sprintf("index %s: in found, index 0 of one list stands for every element, each a found effect (write 0, once)", seg)
				}
				s.Kind, each = ir.StepEach, true
			}
		case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindUnion && mode == readPath:
			s, why := unionStep(u.Named, segs[i:])
			if why != "" {
				return nil, why
			}
			p.Steps = append(p.Steps, s)
			p.Type = s.Type
			return p, ""
		case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindUnion:
			return nil, fmt.Sprintf("it goes through %s, a oneOf/anyOf, whose value is known only once decoded: point at objects, lists and maps only", u.Named.Name)
		default:
			return nil, fmt.Sprintf("cannot go into %s", describeRef(p.Type))
		}
		if mode == eachPath && s.Kind == ir.StepKey {
			return nil, fmt.Sprintf("%s is a map: a found effect is reached through objects and lists only", describeRef(p.Type))
		}
		if mode == setPath && s.Kind == ir.StepKey && !last {
			return nil, "only the last step may go through a map"
		}
		p.Steps = append(p.Steps, s)
		p.Type = s.Type
	}
	return p, ""
}

// unionStep reads the properties rest of a union's value, which must lead in every variant
// (through nested unions too) to a string, or in every variant to an integer: a receipt's id
// (Stripe's external accounts are a card or a bank account, each with its id).
func unionStep(t *ir.Type, rest []string) (ir.Step, string) {
	kind, why := unionLeaf(&ir.TypeRef{Kind: ir.RefNamed, Named: t}, rest)
	if why != "" {
		return ir.Step{}, why
	}
	return ir.Step{Kind: ir.StepUnion, Union: t, Rest: rest, Type: &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: kind}}, ""
}

// unionLeaf returns the kind ("string" or "int64") of the value the properties rest reach from
// a value of type t, in every member of every union on the way.
func unionLeaf(t *ir.TypeRef, rest []string) (kind, why string) {
	u := under(t)
	switch {
	case len(rest) == 0 && isIntegerType(t):
		return "int64", ""
	case len(rest) == 0 && isStringType(t):
		return "string", ""
	case len(rest) == 0:
		return "", fmt.Sprintf("it is %s, not a string or an integer", describeRef(t))
	case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindUnion:
		for _, v := range u.Named.Variants {
			k, why := unionLeaf(v.Type, rest)
			switch {
			case why != "":
				return "", fmt.Sprintf("%s is a oneOf/anyOf, and in its member %s %s", u.Named.Name, describeRef(v.Type), why)
			case kind != "" && k != kind:
				return "", fmt.Sprintf("%s is a oneOf/anyOf whose members disagree: a string in one, an integer in another", u.Named.Name)
			}
			kind = k
		}
		if kind == "" {
			return "", fmt.Sprintf("%s is a oneOf/anyOf without members", u.Named.Name)
		}
		return kind, ""
	case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindStruct:
		for _, f := range u.Named.Fields {
			if f.Name == rest[0] {
				return unionLeaf(f.Type, rest[1:])
			}
		}
		if u.Named.AdditionalProperties != nil {
			return unionLeaf(u.Named.AdditionalProperties, rest[1:])
		}
		return "", fmt.Sprintf("%s has no property %q", u.Named.Name, rest[0])
	case u.Kind == ir.RefMap:
		return unionLeaf(u.Elem, rest[1:])
	}
	return "", fmt.Sprintf("cannot go into %s", describeRef(t))
}

// under returns the type a named alias stands for, following aliases, or r itself.
func under(r *ir.TypeRef) *ir.TypeRef {
	for r.Kind == ir.RefNamed && r.Named.Kind == ir.KindAlias {
		r = r.Named.Elem
	}
	return r
}

// isStringType reports whether values of r's Go type convert from a string: string, a string enum
// or a named type over string.
func isStringType(r *ir.TypeRef) bool {
	u := under(r)
	if u.Kind == ir.RefNamed {
		return u.Named.Kind == ir.KindEnum && u.Named.Base == "string"
	}
	return u.Kind == ir.RefBuiltin && u.Builtin == "string"
}

// isIntegerType reports whether r's Go type is an integer (int64, int32, a named type over one,
// or an integer enum).
func isIntegerType(r *ir.TypeRef) bool {
	u := under(r)
	if u.Kind == ir.RefNamed {
		return u.Named.Kind == ir.KindEnum && u.Named.Base == "int64"
	}
	return u.Kind == ir.RefBuiltin && (u.Builtin == "int64" || u.Builtin == "int32")
}

// sameType reports whether a and b are the same Go type.
func sameType(a, b *ir.TypeRef) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case ir.RefNamed:
		return a.Named == b.Named
	case ir.RefBuiltin:
		return a.Builtin == b.Builtin
	}
	return sameType(a.Elem, b.Elem)
}

// describeRef names the shape of r for a message: "Thread", "a list of Thread", "string".
func describeRef(r *ir.TypeRef) string {
	switch r.Kind {
	case ir.RefNamed:
		return r.Named.Name
	case ir.RefArray:
		return "a list of " + describeRef(r.Elem)
	case ir.RefMap:
		return "a map of " + describeRef(r.Elem)
	}
	return r.Builtin
}
