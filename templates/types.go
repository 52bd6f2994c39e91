package templates

import (
	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec"
)

// goType returns the Go type of r: Thread, []Thread, map[string]int64, time.Time, []byte ...
func goType(r *spec.TypeRef) *jen.Statement {
	switch r.Kind {
	case spec.RefNamed:
		return jen.Id(r.Named.Name)
	case spec.RefArray:
		return jen.Index().Add(goType(r.Elem))
	case spec.RefMap:
		return jen.Map(jen.String()).Add(goType(r.Elem))
	}
	switch r.Builtin {
	case "time.Time":
		return jen.Qual("time", "Time")
	case "[]byte":
		return jen.Index().Byte()
	case "json.RawMessage":
		return jen.Qual("encoding/json", "RawMessage")
	}
	return jen.Id(r.Builtin) // string, int64, int32, float64, float32, bool, any
}

// nilable reports whether the zero value of r's Go type is nil.
func nilable(r *spec.TypeRef) bool {
	switch r.Kind {
	case spec.RefArray, spec.RefMap:
		return true
	case spec.RefNamed:
		return r.Named.Kind == spec.KindAlias && nilable(r.Named.Elem)
	}
	switch r.Builtin {
	case "[]byte", "any", "json.RawMessage":
		return true
	}
	return false
}

// heldType is goType(r), behind a pointer when ptr.
func heldType(r *spec.TypeRef, ptr bool) *jen.Statement {
	if ptr {
		return jen.Op("*").Add(goType(r))
	}
	return goType(r)
}

// under returns the type a named alias stands for, following aliases, or r itself.
func under(r *spec.TypeRef) *spec.TypeRef {
	for r.Kind == spec.RefNamed && r.Named.Kind == spec.KindAlias {
		r = r.Named.Elem
	}
	return r
}

// isString reports whether values of r's Go type convert from a string: string, a string enum
// or a named type over string.
func isString(r *spec.TypeRef) bool {
	u := under(r)
	if u.Kind == spec.RefNamed {
		return u.Named.Kind == spec.KindEnum && u.Named.Base == "string"
	}
	return u.Kind == spec.RefBuiltin && u.Builtin == "string"
}

// isUnion reports whether r names a union (a named type over one would not have its methods).
func isUnion(r *spec.TypeRef) bool {
	return r.Kind == spec.RefNamed && r.Named.Kind == spec.KindUnion
}
