package templates

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec/ir"
)

// setInBody returns the statements that store value (providerKey or reference) at the path p
// of the request body, copying on the way every map and pointed-to struct it changes, so that
// the caller's values are never written to:
//
//	body.ExternalReference = &reference
//
//	body.Metadata = copyMap(body.Metadata)
//	body.Metadata["writegen_ref"] = reference
//
//	body.Options = ptrCopy(body.Options)
//	body.Options.Reference = providerKey
//
// A oneOf/anyOf with a string member is set to that member first:
//
//	var set0 TicketAttribute
//	if err := set0.FromString(reference); err != nil {
//		return nil, err
//	}
//
// A marker (a template over the reference) is appended to the text there instead:
//
//	body.Body += " [ref:" + reference + "]"
func (g *generator) setInBody(p *ir.Path, value string, marker []ir.TemplatePart, n int, fail func() jen.Code) []jen.Code {
	var path []string // selectors after body
	at := func(extra ...string) *jen.Statement {
		s := jen.Id("body")
		for _, sel := range append(path, extra...) {
			s = s.Dot(sel)
		}
		return s
	}
	var stmts []jen.Code
	if v := ir.StringVariant(p.Type); v != nil {
		union := "set" + strconv.Itoa(n)
		stmts = append(stmts,
			jen.Var().Id(union).Add(goType(p.Type)),
			jen.If(jen.Err().Op(":=").Id(union).Dot(v.FromName).Call(jen.Id(value)), jen.Err().Op("!=").Nil()).Block(fail()))
		value = union
	}
	for i, st := range p.Steps {
		last := i == len(p.Steps)-1
		if st.Kind == ir.StepKey { // the last step: copy the map, then set the key
			m := at()
			if st.Extra {
				m = at(st.Struct.ExtraName)
			}
			g.needCopyMap = true
			return append(stmts,
				jen.Add(m).Op("=").Id("copyMap").Call(jen.Add(m)),
				jen.Add(m).Index(jen.Lit(st.Key)).Op("=").Add(keyValue(st.Type, false, value)))
		}
		fl := st.Field
		if last && marker != nil { // a string field, the IR says
			text := templateExpr(marker, jen.Id(value), nil)
			if !fl.Pointer {
				return append(stmts, at(fl.GoName).Op("+=").Add(text))
			}
			return append(stmts,
				jen.Id("text").Op(":=").Add(text),
				jen.If(at(fl.GoName).Op("!=").Nil()).Block(jen.Id("text").Op("=").Op("*").Add(at(fl.GoName)).Op("+").Id("text")),
				at(fl.GoName).Op("=").Op("&").Id("text"))
		}
		if last {
			return append(stmts, at(fl.GoName).Op("=").Add(keyValue(fl.Type, fl.Pointer, value)))
		}
		if fl.Pointer {
			g.needPtrCopy = true
			stmts = append(stmts, at(fl.GoName).Op("=").Id("ptrCopy").Call(at(fl.GoName)))
		}
		path = append(path, fl.GoName)
	}
	return stmts
}

// keyValue returns the string value named v as a value of type r (a pointer to it when ptr):
// the IR allows a string, a named string type, any, or a union already set from v.
func keyValue(r *ir.TypeRef, ptr bool, v string) *jen.Statement {
	switch {
	case ptr:
		return jen.Op("&").Id(v)
	case r.Kind == ir.RefBuiltin || isUnion(r):
		return jen.Id(v)
	}
	return goType(r).Call(jen.Id(v))
}

// bodyByPointer reports whether op's method takes its body through a pointer: it is optional
// and its type has no nil of its own.
func bodyByPointer(op *ir.Operation) bool {
	return ir.OptionalBody(op) && !ir.Nilable(op.Body.Type)
}

// bodyArgType is the type of op's body argument.
func bodyArgType(op *ir.Operation) *jen.Statement {
	return heldType(op.Body.Type, bodyByPointer(op))
}

// bodyArg is the value e, of op's body type, as op's method takes it.
func bodyArg(op *ir.Operation, e *jen.Statement) *jen.Statement {
	if bodyByPointer(op) {
		return jen.Op("&").Add(e)
	}
	return e
}

// encodeBody returns the statements that encode body into req:
//
//	if err := req.JSON(body); err != nil {
//		return nil, err
//	}
//
// or, for a body of another media type, sent as it is:
//
//	req.Body, req.ContentType = body, "application/pdf"
//
// An optional body is encoded only when given:
//
//	if body != nil {
//		if err := req.JSON(body); err != nil {
//			return nil, err
//		}
//	}
func (g *generator) encodeBody(op *ir.Operation, fail func() jen.Code) []jen.Code {
	stmts := g.encodeGiven(op, fail)
	if !ir.OptionalBody(op) {
		return stmts
	}
	return []jen.Code{jen.If(jen.Id("body").Op("!=").Nil()).Block(stmts...)}
}

// encodeGiven returns the statements of encodeBody that encode a body given.
func (g *generator) encodeGiven(op *ir.Operation, fail func() jen.Code) []jen.Code {
	var method string
	switch op.Body.Encoding {
	case ir.BodyJSON:
		method = "JSON"
	case ir.BodyForm:
		method = "Form"
	case ir.BodyMultipart:
		return g.multipartBody(op, fail)
	default: // raw bytes
		return []jen.Code{jen.List(jen.Id("req").Dot("Body"), jen.Id("req").Dot("ContentType")).Op("=").List(jen.Id("body"), jen.Lit(op.Body.ContentType))}
	}
	return []jen.Code{jen.If(jen.Err().Op(":=").Id("req").Dot(method).Call(jen.Id("body")), jen.Err().Op("!=").Nil()).Block(fail())}
}

// multipartBody returns the statements that encode a multipart body, one part per property:
// []byte as a file, scalars as text, anything else as JSON.
//
//	parts := make([]writegenimpl.Part, 0, 2)
//	parts = append(parts, writegenimpl.Part{Name: "file", FileName: "file", Data: body.File})
//	if body.Purpose != nil {
//		parts = append(parts, writegenimpl.Part{Name: "purpose", Data: []byte(*body.Purpose)})
//	}
//	if err := req.Multipart(parts); err != nil {
//		return nil, err
//	}
func (g *generator) multipartBody(op *ir.Operation, fail func() jen.Code) []jen.Code {
	st := ir.Under(op.Body.Type).Named // a struct: the IR sees to it
	stmts := []jen.Code{jen.Id("parts").Op(":=").Make(jen.Index().Add(impl("Part")), jen.Lit(0), jen.Lit(len(st.Fields)))}
	declared := false
	for _, fl := range st.Fields {
		v := func() *jen.Statement { return jen.Id("body").Dot(fl.GoName) }
		var add jen.Code
		if data, file, ok := partData(fl.Type, v, fl.Pointer); ok {
			part := jen.Dict{jen.Id("Name"): jen.Lit(fl.Name), jen.Id("Data"): data}
			if file {
				part[jen.Id("FileName")] = jen.Lit(fl.Name)
				part[jen.Id("ContentType")] = jen.Lit("application/octet-stream")
			}
			add = jen.Id("parts").Op("=").Append(jen.Id("parts"), impl("Part").Values(part))
		} else {
			if !declared {
				stmts = append(stmts, jen.Var().Err().Error())
				declared = true
			}
			g.needJSONPart = true
			add = jen.If(
				jen.List(jen.Id("parts"), jen.Err()).Op("=").Id("addJSONPart").Call(jen.Id("parts"), jen.Lit(fl.Name), v()),
				jen.Err().Op("!=").Nil(),
			).Block(fail())
		}
		switch {
		case fl.Pointer:
			add = jen.If(jen.Id("body").Dot(fl.GoName).Op("!=").Nil()).Block(add)
		case !fl.Required && ir.Nilable(fl.Type):
			add = jen.If(jen.Len(jen.Id("body").Dot(fl.GoName)).Op(">").Lit(0)).Block(add)
		}
		stmts = append(stmts, add)
	}
	return append(stmts, jen.If(jen.Err().Op(":=").Id("req").Dot("Multipart").Call(jen.Id("parts")), jen.Err().Op("!=").Nil()).Block(fail()))
}

// partData returns the bytes of a multipart part holding the field at(), of type r (behind a
// pointer when ptr), and whether the part is a file; ok is false when it is sent as JSON.
func partData(r *ir.TypeRef, at func() *jen.Statement, ptr bool) (data *jen.Statement, file, ok bool) {
	v := at()
	if ptr {
		v = jen.Op("*").Add(at())
	}
	u := ir.Under(r)
	switch {
	case isString(r):
		return jen.Index().Byte().Call(v), false, true
	case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindEnum:
		if u.Named.Base == "int64" {
			return itoa(jen.Int64().Call(v)), false, true
		}
		return float(jen.Float64().Call(v)), false, true
	case u.Kind != ir.RefBuiltin:
		return nil, false, false
	}
	switch u.Builtin {
	case "[]byte":
		return v, r.Kind == ir.RefBuiltin, true
	case "int64":
		return itoa(v), false, true
	case "int32":
		return itoa(jen.Int64().Call(v)), false, true
	case "float64":
		return float(v), false, true
	case "float32":
		return float(jen.Float64().Call(v)), false, true
	case "bool":
		return jen.Index().Byte().Call(jen.Qual("strconv", "FormatBool").Call(v)), false, true
	case "time.Time":
		if r.Kind == ir.RefBuiltin {
			return jen.Index().Byte().Call(at().Dot("Format").Call(jen.Qual("time", "RFC3339Nano"))), false, true
		}
	}
	return nil, false, false
}

// itoa is []byte(strconv.FormatInt(v, 10)), v an int64.
func itoa(v jen.Code) *jen.Statement {
	return jen.Index().Byte().Call(jen.Qual("strconv", "FormatInt").Call(v, jen.Lit(10)))
}

// float is []byte(strconv.FormatFloat(v, 'g', -1, 64)), v a float64.
func float(v jen.Code) *jen.Statement {
	return jen.Index().Byte().Call(jen.Qual("strconv", "FormatFloat").Call(v, jen.LitRune('g'), jen.Lit(-1), jen.Lit(64)))
}

// opHelpers emits the helpers the operations used.
func (g *generator) opHelpers(f *jen.File) {
	if g.needPtrCopy {
		f.Line()
		f.Comment("// ptrCopy returns a pointer to a copy of *p, or to a zero T when p is nil.")
		f.Func().Id("ptrCopy").Types(jen.Id("T").Any()).Params(jen.Id("p").Op("*").Id("T")).Op("*").Id("T").Block(
			jen.Var().Id("v").Id("T"),
			jen.If(jen.Id("p").Op("!=").Nil()).Block(jen.Id("v").Op("=").Op("*").Id("p")),
			jen.Return(jen.Op("&").Id("v")),
		)
	}
	if g.needCopyMap {
		f.Line()
		f.Comment("// copyMap returns a copy of m with room for one more key; m is not changed.")
		f.Func().Id("copyMap").Types(jen.Id("M").Op("~").Map(jen.String()).Id("V"), jen.Id("V").Any()).Params(jen.Id("m").Id("M")).Id("M").Block(
			jen.Id("c").Op(":=").Make(jen.Id("M"), jen.Len(jen.Id("m")).Op("+").Lit(1)),
			jen.Qual("maps", "Copy").Call(jen.Id("c"), jen.Id("m")),
			jen.Return(jen.Id("c")),
		)
	}
	if g.needJSONString {
		f.Line()
		f.Comment("// jsonString is s as a JSON string, for the body template of a lookup.")
		f.Func().Id("jsonString").Params(jen.Id("s").String()).String().Block(
			jen.List(jen.Id("b"), jen.Id("_")).Op(":=").Qual("encoding/json", "Marshal").Call(jen.Id("s")),
			jen.Return(jen.String().Call(jen.Id("b"))),
		)
	}
	if g.needJSONPart {
		f.Line()
		f.Comment("// addJSONPart appends the JSON encoding of v to parts as the part name.")
		f.Func().Id("addJSONPart").Params(jen.Id("parts").Index().Add(impl("Part")), jen.Id("name").String(), jen.Id("v").Any()).Params(jen.Index().Add(impl("Part")), jen.Error()).Block(
			jen.List(jen.Id("data"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(jen.Id("v")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Append(jen.Id("parts"), impl("Part").Values(jen.Dict{
				jen.Id("Name"):        jen.Id("name"),
				jen.Id("ContentType"): jen.Lit("application/json"),
				jen.Id("Data"):        jen.Id("data"),
			})), jen.Nil()),
		)
	}
}
