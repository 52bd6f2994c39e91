package ir

import (
	"fmt"
	"strconv"
)

// The JSON pointers of the annotation file are resolved here, once, against the Go types they go
// through, into Paths the emitters render as selectors and index expressions. A pointer that the
// generated code could not follow in a decoded value is refused at the pointer.

// PathMode says which steps a pointer may take.
type PathMode int

const (
	ReadPath PathMode = iota // read a value: fields, indexes, map keys
	EachPath                 // a lookup's found: an index 0 means every element (at most once)
	SetPath                  // fill in a string: fields and, last, a map key
)

// ResolvePath follows ptr from a value of type root. why says what stops it.
func ResolvePath(root *TypeRef, ptr string, mode PathMode) (p *Path, why string) {
	p = &Path{Pointer: ptr, Root: root, Type: root}
	if ptr == "" {
		return p, ""
	}
	if ptr[0] != '/' {
		return nil, "not a JSON pointer"
	}
	each := false
	segs := SplitPointer(ptr)
	for i, seg := range segs {
		last := i == len(segs)-1
		u := Under(p.Type)
		var s Step
		switch {
		case u.Kind == RefNamed && u.Named.Kind == KindStruct:
			st := u.Named
			var f *Field
			for _, x := range st.Fields {
				if x.Name == seg {
					f = x
					break
				}
			}
			switch {
			case f != nil:
				s = Step{Kind: StepField, Field: f, Struct: st, Type: f.Type}
			case st.AdditionalProperties != nil:
				s = Step{Kind: StepKey, Key: seg, Extra: true, Struct: st, Type: st.AdditionalProperties}
			default:
				return nil, fmt.Sprintf("%s has no property %q", st.Name, seg)
			}
		case u.Kind == RefMap:
			s = Step{Kind: StepKey, Key: seg, Type: u.Elem}
		case u.Kind == RefArray:
			if mode == SetPath {
				return nil, fmt.Sprintf("%s is a list: a value to fill in is reached through objects and maps only", DescribeRef(p.Type))
			}
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || strconv.Itoa(n) != seg {
				return nil, fmt.Sprintf("%q is not an array index", seg)
			}
			s = Step{Kind: StepIndex, Index: n, Type: u.Elem}
			if mode == EachPath {
				if n != 0 || each {
					return nil, fmt.Sprintf("index %s: in found, index 0 of one list stands for every element, each a found effect (write 0, once)", seg)
				}
				s.Kind, each = StepEach, true
			}
		case u.Kind == RefNamed && u.Named.Kind == KindUnion && mode == ReadPath:
			s, why := unionStep(u.Named, segs[i:])
			if why != "" {
				return nil, why
			}
			p.Steps = append(p.Steps, s)
			p.Type = s.Type
			return p, ""
		case u.Kind == RefNamed && u.Named.Kind == KindUnion:
			return nil, fmt.Sprintf("it goes through %s, a oneOf/anyOf, whose value is known only once decoded: point at objects, lists and maps only", u.Named.Name)
		default:
			return nil, fmt.Sprintf("cannot go into %s", DescribeRef(p.Type))
		}
		if mode == EachPath && s.Kind == StepKey {
			return nil, fmt.Sprintf("%s is a map: a found effect is reached through objects and lists only", DescribeRef(p.Type))
		}
		if mode == SetPath && s.Kind == StepKey && !last {
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
func unionStep(t *Type, rest []string) (Step, string) {
	kind, why := unionLeaf(&TypeRef{Kind: RefNamed, Named: t}, rest)
	if why != "" {
		return Step{}, why
	}
	return Step{Kind: StepUnion, Union: t, Rest: rest, Type: &TypeRef{Kind: RefBuiltin, Builtin: kind}}, ""
}

// unionLeaf returns the kind ("string" or "int64") of the value the properties rest reach from
// a value of type t, in every member of every union on the way.
func unionLeaf(t *TypeRef, rest []string) (kind, why string) {
	u := Under(t)
	switch {
	case len(rest) == 0 && IsIntegerType(t):
		return "int64", ""
	case len(rest) == 0 && IsStringType(t):
		return "string", ""
	case len(rest) == 0:
		return "", fmt.Sprintf("it is %s, not a string or an integer", DescribeRef(t))
	case u.Kind == RefNamed && u.Named.Kind == KindUnion:
		for _, v := range u.Named.Variants {
			k, why := unionLeaf(v.Type, rest)
			switch {
			case why != "":
				return "", fmt.Sprintf("%s is a oneOf/anyOf, and in its member %s %s", u.Named.Name, DescribeRef(v.Type), why)
			case kind != "" && k != kind:
				return "", fmt.Sprintf("%s is a oneOf/anyOf whose members disagree: a string in one, an integer in another", u.Named.Name)
			}
			kind = k
		}
		if kind == "" {
			return "", fmt.Sprintf("%s is a oneOf/anyOf without members", u.Named.Name)
		}
		return kind, ""
	case u.Kind == RefNamed && u.Named.Kind == KindStruct:
		for _, f := range u.Named.Fields {
			if f.Name == rest[0] {
				return unionLeaf(f.Type, rest[1:])
			}
		}
		if u.Named.AdditionalProperties != nil {
			return unionLeaf(u.Named.AdditionalProperties, rest[1:])
		}
		return "", fmt.Sprintf("%s has no property %q", u.Named.Name, rest[0])
	case u.Kind == RefMap:
		return unionLeaf(u.Elem, rest[1:])
	}
	return "", fmt.Sprintf("cannot go into %s", DescribeRef(t))
}

// Under returns the type a named alias stands for, following aliases, or r itself.
func Under(r *TypeRef) *TypeRef {
	for r.Kind == RefNamed && r.Named.Kind == KindAlias {
		r = r.Named.Elem
	}
	return r
}

// IsStringType reports whether values of r's Go type convert from a string: string, a string enum
// or a named type over string.
func IsStringType(r *TypeRef) bool {
	u := Under(r)
	if u.Kind == RefNamed {
		return u.Named.Kind == KindEnum && u.Named.Base == "string"
	}
	return u.Kind == RefBuiltin && u.Builtin == "string"
}

// IsIntegerType reports whether r's Go type is an integer (int64, int32, a named type over one,
// or an integer enum).
func IsIntegerType(r *TypeRef) bool {
	u := Under(r)
	if u.Kind == RefNamed {
		return u.Named.Kind == KindEnum && u.Named.Base == "int64"
	}
	return u.Kind == RefBuiltin && (u.Builtin == "int64" || u.Builtin == "int32")
}

// SameType reports whether a and b are the same Go type.
func SameType(a, b *TypeRef) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case RefNamed:
		return a.Named == b.Named
	case RefBuiltin:
		return a.Builtin == b.Builtin
	}
	return SameType(a.Elem, b.Elem)
}

// DescribeRef names the shape of r for a message: "Thread", "a list of Thread", "string".
func DescribeRef(r *TypeRef) string {
	switch r.Kind {
	case RefNamed:
		return r.Named.Name
	case RefArray:
		return "a list of " + DescribeRef(r.Elem)
	case RefMap:
		return "a map of " + DescribeRef(r.Elem)
	}
	return r.Builtin
}
