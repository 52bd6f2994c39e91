package templates

import (
	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec/ir"
)

// The generated code turns each parameter into its wire text with the formatter of its type
// (strconv, writegenimpl.TimeText, ...) and hands strings to the request: no reflection.

// shape is how a parameter's value travels to the request's encoders.
type shape int

const (
	shapeText  shape = iota // one string
	shapeList               // []string, one per element
	shapePairs              // []string of an object's keys and values: k1, v1, k2, v2
	shapeJSON               // json.RawMessage: a union's value, or one with no schema
)

// paramText returns the expression that writes v, a parameter's value of type t, and its
// shape:
//
//	strconv.FormatInt(params.Limit, 10)                     // text
//	writegenimpl.Texts(params.IDs, writegenimpl.TimeText)   // list
//	params.Created.RawMessage                               // JSON
func (g *generator) paramText(t *ir.TypeRef, v *jen.Statement) (*jen.Statement, shape) {
	u := ir.Under(t)
	switch {
	case isUnion(t):
		return v.Dot("RawMessage"), shapeJSON
	case u.Kind == ir.RefBuiltin && u.Builtin == "json.RawMessage":
		return v, shapeJSON
	case u.Kind == ir.RefBuiltin && u.Builtin == "any":
		return impl("JSONOf").Call(v), shapeJSON
	case u.Kind == ir.RefArray:
		return g.listText(u.Elem, v), shapeList
	case u.Kind == ir.RefMap:
		return impl("Pairs").Call(v, g.textFunc(u.Elem)), shapePairs
	case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindStruct:
		return g.structPairs(u.Named, v), shapePairs
	}
	return g.text(t, v), shapeText
}

// text returns the expression of the wire text of v, a scalar of type t: a string as it is, an
// enum or a named type by its base, a number in decimal, a time in RFC 3339. A value with
// no scalar text (an object inside an object) is written as its JSON.
func (g *generator) text(t *ir.TypeRef, v *jen.Statement) *jen.Statement {
	if t.Kind == ir.RefNamed && t.Named.Kind == ir.KindEnum {
		return builtinText(t.Named.Base, jen.Id(t.Named.Base).Call(v))
	}
	if t.Kind == ir.RefNamed && t.Named.Kind == ir.KindAlias && ir.Under(t).Kind == ir.RefBuiltin {
		u := ir.Under(t)
		return builtinText(u.Builtin, goType(u).Call(v))
	}
	if t.Kind == ir.RefBuiltin {
		if s := builtinText(t.Builtin, v); s != nil {
			return s
		}
	}
	return impl("JSONText").Call(v)
}

// builtinText writes v, of the builtin type b, as text; nil for a builtin without one.
func builtinText(b string, v *jen.Statement) *jen.Statement {
	switch b {
	case "string":
		return v
	case "int64":
		return jen.Qual("strconv", "FormatInt").Call(v, jen.Lit(10))
	case "int32":
		return jen.Qual("strconv", "FormatInt").Call(jen.Int64().Call(v), jen.Lit(10))
	case "float64":
		return impl("FloatText").Call(v, jen.Lit(64))
	case "float32":
		return impl("FloatText").Call(jen.Float64().Call(v), jen.Lit(32))
	case "bool":
		return jen.Qual("strconv", "FormatBool").Call(v)
	case "time.Time":
		return impl("TimeText").Call(v)
	case "[]byte":
		return jen.String().Call(v)
	}
	return nil
}

// listText returns the expression that writes v, a list of elements of type elem, as texts:
// v itself for strings, a runtime formatter for the common elements, else Texts with a
// function of the element.
func (g *generator) listText(elem *ir.TypeRef, v *jen.Statement) *jen.Statement {
	base := ""
	switch u := ir.Under(elem); {
	case u.Kind == ir.RefBuiltin:
		base = u.Builtin
	case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindEnum:
		base = u.Named.Base
	}
	switch {
	case base == "string" && elem.Kind == ir.RefBuiltin:
		return v
	case base == "string":
		return impl("StringTexts").Call(v)
	case base == "int64" || base == "int32":
		return impl("IntTexts").Call(v)
	case base == "float64":
		return impl("FloatTexts").Call(v)
	}
	return impl("Texts").Call(v, g.textFunc(elem))
}

// textFunc returns the function that writes one element of type t: a runtime formatter where
// one fits, else a literal function.
func (g *generator) textFunc(t *ir.TypeRef) jen.Code {
	if t.Kind == ir.RefBuiltin {
		switch t.Builtin {
		case "time.Time":
			return impl("TimeText")
		case "bool":
			return jen.Qual("strconv", "FormatBool")
		}
	}
	return jen.Func().Params(jen.Id("e").Add(goType(t))).String().Block(jen.Return(g.text(t, jen.Id("e"))))
}

// structPairs returns the expression of an object parameter's key-value pairs, its properties
// in spec order, an absent optional one left out:
//
//	func(v Filter) []string {
//		kv := []string{"status", string(v.Status)}
//		if v.Limit != nil {
//			kv = append(kv, "limit", strconv.FormatInt(*v.Limit, 10))
//		}
//		return kv
//	}(params.Filter)
func (g *generator) structPairs(t *ir.Type, v *jen.Statement) *jen.Statement {
	var body []jen.Code
	body = append(body, jen.Var().Id("kv").Index().String())
	for _, f := range t.Fields {
		fv := jen.Id("v").Dot(f.GoName)
		val := fv.Clone()
		if f.Pointer {
			val = jen.Op("*").Add(fv.Clone())
		}
		add := jen.Id("kv").Op("=").Append(jen.Id("kv"), jen.Lit(f.Name), g.fieldText(f.Type, val))
		switch {
		case f.Pointer:
			body = append(body, jen.If(fv.Clone().Op("!=").Nil()).Block(add))
		case ir.Nilable(f.Type):
			body = append(body, jen.If(jen.Len(fv.Clone()).Op(">").Lit(0)).Block(add))
		default:
			body = append(body, add)
		}
	}
	body = append(body, jen.Return(jen.Id("kv")))
	return jen.Func().Params(jen.Id("v").Add(jen.Id(t.Name))).Index().String().Block(body...).Call(v)
}

// fieldText writes one property of an object parameter: a scalar's text, a list's texts joined
// by commas, anything else as its JSON.
func (g *generator) fieldText(t *ir.TypeRef, v *jen.Statement) *jen.Statement {
	if u := ir.Under(t); u.Kind == ir.RefArray && u.Elem.Kind != ir.RefArray {
		return jen.Qual("strings", "Join").Call(g.listText(u.Elem, v), jen.Lit(","))
	}
	return g.text(t, v)
}

// pathParam returns the path segment of parameter p, in the simple style.
func (g *generator) pathParam(p *ir.Param) jen.Code {
	text, sh := g.paramText(p.Type, jen.Id("params").Dot(p.GoName))
	switch sh {
	case shapeList, shapePairs:
		return impl("PathList").Call(text)
	case shapeJSON:
		return impl("PathList").Call(impl("JSONTexts").Call(text))
	}
	return impl("PathSegment").Call(text)
}

// passParam returns the statement that adds parameter p to the request req, leaving out an
// absent optional value:
//
//	req.AddQuery("limit", strconv.FormatInt(params.Limit, 10))
//	if len(params.Expand) > 0 {
//		req.AddQueryList("expand", params.Expand, "")
//	}
//	if params.Since != nil {
//		req.AddQuery("since", writegenimpl.TimeText(*params.Since))
//	}
func (g *generator) passParam(p *ir.Param) jen.Code {
	field := func() *jen.Statement { return jen.Id("params").Dot(p.GoName) }
	v := field()
	if p.Pointer && !isUnion(p.Type) { // a union's RawMessage is selected through the pointer
		v = jen.Op("*").Add(field())
	}
	text, sh := g.paramText(p.Type, v)
	add := g.addParam(p, text, sh)
	switch {
	case p.Pointer:
		return jen.If(field().Op("!=").Nil()).Block(add)
	case ir.Nilable(p.Type) && !p.Required:
		return jen.If(jen.Len(field()).Op(">").Lit(0)).Block(add)
	case sh == shapeJSON && ir.Under(p.Type).Kind == ir.RefBuiltin && ir.Under(p.Type).Builtin == "any":
		return jen.If(field().Op("!=").Nil()).Block(add)
	}
	return add
}

// addParam returns the call that adds a parameter's text, of shape sh, where p travels.
func (g *generator) addParam(p *ir.Param, text jen.Code, sh shape) jen.Code {
	req := func(m string, args ...jen.Code) jen.Code {
		return jen.Id("req").Dot(m).Call(append([]jen.Code{jen.Lit(p.Name)}, args...)...)
	}
	if p.In == ir.InQuery {
		switch sh {
		case shapeList:
			return req("AddQueryList", text, jen.Lit(listSeparator(p)))
		case shapePairs:
			return req("AddQueryObject", text, jen.Lit(p.Style), jen.Lit(p.Explode))
		case shapeJSON:
			return req("AddQueryJSON", text, jen.Lit(p.Style), jen.Lit(p.Explode))
		}
		return req("AddQuery", text)
	}
	// Headers and cookies take the simple style: many values joined by commas.
	switch sh {
	case shapeList, shapePairs:
		text = jen.Qual("strings", "Join").Call(text, jen.Lit(","))
	case shapeJSON:
		text = jen.Qual("strings", "Join").Call(impl("JSONTexts").Call(text), jen.Lit(","))
	}
	if p.In == ir.InHeader {
		return req("SetHeader", text)
	}
	return req("AddCookie", text)
}

// listSeparator is how a query parameter's list is written: "" for one pair per element (form
// or deepObject, exploded), else the separator its values are joined by.
func listSeparator(p *ir.Param) string {
	switch p.Style {
	case "spaceDelimited":
		return " "
	case "pipeDelimited":
		return "|"
	}
	if p.Explode {
		return ""
	}
	return ","
}
