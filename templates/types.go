package templates

import (
	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec/ir"
)

// goType returns the Go type of r: Thread, []Thread, map[string]int64, time.Time, []byte ...
func goType(r *ir.TypeRef) *jen.Statement {
	switch r.Kind {
	case ir.RefNamed:
		return jen.Id(r.Named.Name)
	case ir.RefArray:
		return jen.Index().Add(goType(r.Elem))
	case ir.RefMap:
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

// heldType is goType(r), behind a pointer when ptr.
func heldType(r *ir.TypeRef, ptr bool) *jen.Statement {
	if ptr {
		return jen.Op("*").Add(goType(r))
	}
	return goType(r)
}

// isString reports whether values of r's Go type convert from a string: string, a string enum
// or a named type over string.
func isString(r *ir.TypeRef) bool {
	u := ir.Under(r)
	if u.Kind == ir.RefNamed {
		return u.Named.Kind == ir.KindEnum && u.Named.Base == "string"
	}
	return u.Kind == ir.RefBuiltin && u.Builtin == "string"
}

// isUnion reports whether r names a union (a named type over one would not have its methods).
func isUnion(r *ir.TypeRef) bool {
	return r.Kind == ir.RefNamed && r.Named.Kind == ir.KindUnion
}
