package templates

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec"
)

// setInBody returns the statements that store the provider key at the JSON pointer ptr of the
// request body, copying on the way every map and pointed-to struct it changes, so that the
// caller's values are never written to:
//
//	body.ExternalReference = &providerKey
//
//	body.Metadata = copyMap(body.Metadata)
//	body.Metadata["writegen_ref"] = providerKey
//
//	body.Options = ptrCopy(body.Options)
//	body.Options.Reference = providerKey
func (g *generator) setInBody(op *spec.Operation, ptr string) []jen.Code {
	fail := func(format string, args ...any) []jen.Code {
		g.fail(op.Safety.Pos, op.ID, "cannot store the provider key at body %s: "+format, append([]any{ptr}, args...)...)
		return nil
	}
	if op.Body == nil {
		return fail("the operation has no request body")
	}
	if op.Body.Encoding == spec.BodyRaw {
		return fail("the body is raw bytes of %s", op.Body.ContentType)
	}
	segs, ok := splitPointer(ptr)
	if !ok || len(segs) == 0 {
		return fail("not a JSON pointer to a property")
	}
	var path []string // selectors after body
	at := func(extra ...string) *jen.Statement {
		s := jen.Id("body")
		for _, p := range append(path, extra...) {
			s = s.Dot(p)
		}
		return s
	}
	var stmts []jen.Code
	t := op.Body.Type
	for i, seg := range segs {
		last := i == len(segs)-1
		u := under(t)
		var mapElem *spec.TypeRef
		switch {
		case u.Kind == spec.RefMap:
			mapElem = u.Elem
		case u.Kind == spec.RefNamed && u.Named.Kind == spec.KindStruct:
			st := u.Named
			var fl *spec.Field
			for _, x := range st.Fields {
				if x.Name == seg {
					fl = x
				}
			}
			if fl == nil {
				if st.AdditionalProperties == nil {
					return fail("%s has no property %q", st.Name, seg)
				}
				path = append(path, extraField(st))
				mapElem = st.AdditionalProperties
				break
			}
			h := g.fieldHolding(fl)
			if last {
				value, ok := keyValue(fl.Type, h.ptr)
				if !ok {
					return fail("property %q is not a string", seg)
				}
				return append(stmts, at(fl.GoName).Op("=").Add(value))
			}
			if h.ptr {
				g.needPtrCopy = true
				stmts = append(stmts, at(fl.GoName).Op("=").Id("ptrCopy").Call(at(fl.GoName)))
			}
			path = append(path, fl.GoName)
			t = fl.Type
			continue
		default:
			return fail("%s is neither an object nor a map", describe(t))
		}
		// A map: copy it, then set the key.
		if !last {
			return fail("only the last step may go through a map")
		}
		value, ok := keyValue(mapElem, false)
		if !ok {
			return fail("the values of the map are not strings")
		}
		g.needCopyMap = true
		return append(stmts,
			at().Op("=").Id("copyMap").Call(at()),
			at().Index(jen.Lit(seg)).Op("=").Add(value))
	}
	return stmts // unreachable: the last segment returns
}

// keyValue returns the provider key as a value of type r (a pointer to it when ptr).
func keyValue(r *spec.TypeRef, ptr bool) (*jen.Statement, bool) {
	switch {
	case r.Kind == spec.RefBuiltin && r.Builtin == "string":
		if ptr {
			return jen.Op("&").Id("providerKey"), true
		}
		return jen.Id("providerKey"), true
	case r.Kind == spec.RefBuiltin && r.Builtin == "any" && !ptr:
		return jen.Id("providerKey"), true
	case isString(r) && !ptr:
		return goType(r).Call(jen.Id("providerKey")), true
	}
	return nil, false
}

// pointerEscapes undoes the escapes of a JSON pointer's reference tokens.
var pointerEscapes = strings.NewReplacer("~1", "/", "~0", "~")

// splitPointer splits a JSON pointer into its unescaped reference tokens.
func splitPointer(ptr string) ([]string, bool) {
	if ptr == "" {
		return nil, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	segs := strings.Split(ptr[1:], "/")
	for i, s := range segs {
		segs[i] = pointerEscapes.Replace(s)
	}
	return segs, true
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
func (g *generator) encodeBody(op *spec.Operation, fail func() jen.Code) []jen.Code {
	var method string
	switch op.Body.Encoding {
	case spec.BodyJSON:
		method = "JSON"
	case spec.BodyForm:
		method = "Form"
	case spec.BodyMultipart:
		return g.multipartBody(op, fail)
	case spec.BodyRaw:
		return []jen.Code{jen.List(jen.Id("req").Dot("Body"), jen.Id("req").Dot("ContentType")).Op("=").List(jen.Id("body"), jen.Lit(op.Body.ContentType))}
	default:
		g.fail(op.Pos, op.ID, "request body: unknown encoding %q", op.Body.Encoding)
		return nil
	}
	return []jen.Code{jen.If(jen.Err().Op(":=").Id("req").Dot(method).Call(jen.Id("body")), jen.Err().Op("!=").Nil()).Block(fail())}
}

// multipartBody returns the statements that encode a multipart body, one part per property:
// []byte as a file, scalars as text, anything else as JSON.
//
//	parts := make([]runtime.Part, 0, 2)
//	parts = append(parts, runtime.Part{Name: "file", FileName: "file", Data: body.File})
//	if body.Purpose != nil {
//		parts = append(parts, runtime.Part{Name: "purpose", Data: []byte(*body.Purpose)})
//	}
//	if err := req.Multipart(parts); err != nil {
//		return nil, err
//	}
func (g *generator) multipartBody(op *spec.Operation, fail func() jen.Code) []jen.Code {
	u := under(op.Body.Type)
	if u.Kind != spec.RefNamed || u.Named.Kind != spec.KindStruct {
		g.fail(op.Pos, op.ID, "multipart request body: %s is not an object", describe(op.Body.Type))
		return nil
	}
	st := u.Named
	stmts := []jen.Code{jen.Id("parts").Op(":=").Make(jen.Index().Add(rt("Part")), jen.Lit(0), jen.Lit(len(st.Fields)))}
	declared := false
	for _, fl := range st.Fields {
		h := g.fieldHolding(fl)
		v := func() *jen.Statement { return jen.Id("body").Dot(fl.GoName) }
		var add jen.Code
		if data, file, ok := partData(fl.Type, v, h.ptr); ok {
			part := jen.Dict{jen.Id("Name"): jen.Lit(fl.Name), jen.Id("Data"): data}
			if file {
				part[jen.Id("FileName")] = jen.Lit(fl.Name)
				part[jen.Id("ContentType")] = jen.Lit("application/octet-stream")
			}
			add = jen.Id("parts").Op("=").Append(jen.Id("parts"), rt("Part").Values(part))
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
		case h.ptr:
			add = jen.If(jen.Id("body").Dot(fl.GoName).Op("!=").Nil()).Block(add)
		case !fl.Required && nilable(fl.Type):
			add = jen.If(jen.Len(jen.Id("body").Dot(fl.GoName)).Op(">").Lit(0)).Block(add)
		}
		stmts = append(stmts, add)
	}
	return append(stmts, jen.If(jen.Err().Op(":=").Id("req").Dot("Multipart").Call(jen.Id("parts")), jen.Err().Op("!=").Nil()).Block(fail()))
}

// partData returns the bytes of a multipart part holding the field at(), of type r (behind a
// pointer when ptr), and whether the part is a file; ok is false when it is sent as JSON.
func partData(r *spec.TypeRef, at func() *jen.Statement, ptr bool) (data *jen.Statement, file, ok bool) {
	v := at()
	if ptr {
		v = jen.Op("*").Add(at())
	}
	u := under(r)
	switch {
	case isString(r):
		return jen.Index().Byte().Call(v), false, true
	case u.Kind == spec.RefNamed && u.Named.Kind == spec.KindEnum:
		if u.Named.Base == "int64" {
			return itoa(jen.Int64().Call(v)), false, true
		}
		return float(jen.Float64().Call(v)), false, true
	case u.Kind != spec.RefBuiltin:
		return nil, false, false
	}
	switch u.Builtin {
	case "[]byte":
		return v, r.Kind == spec.RefBuiltin, true
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
		if r.Kind == spec.RefBuiltin {
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
	if g.needJSONValue {
		f.Line()
		f.Comment("// jsonValue decodes the JSON a union holds, so that the runtime can format it as a\n" +
			"// parameter: objects as maps, numbers exactly as written.")
		f.Func().Id("jsonValue").Params(jen.Id("raw").Qual("encoding/json", "RawMessage")).Any().Block(
			jen.Id("d").Op(":=").Qual("encoding/json", "NewDecoder").Call(jen.Qual("bytes", "NewReader").Call(jen.Id("raw"))),
			jen.Id("d").Dot("UseNumber").Call(),
			jen.Var().Id("v").Any(),
			jen.If(jen.Id("d").Dot("Decode").Call(jen.Op("&").Id("v")).Op("!=").Nil()).Block(jen.Return(jen.Nil())),
			jen.Return(jen.Id("v")),
		)
	}
	if g.needJSONPart {
		f.Line()
		f.Comment("// addJSONPart appends the JSON encoding of v to parts as the part name.")
		f.Func().Id("addJSONPart").Params(jen.Id("parts").Index().Add(rt("Part")), jen.Id("name").String(), jen.Id("v").Any()).Params(jen.Index().Add(rt("Part")), jen.Error()).Block(
			jen.List(jen.Id("data"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(jen.Id("v")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Append(jen.Id("parts"), rt("Part").Values(jen.Dict{
				jen.Id("Name"):        jen.Id("name"),
				jen.Id("ContentType"): jen.Lit("application/json"),
				jen.Id("Data"):        jen.Id("data"),
			})), jen.Nil()),
		)
	}
}
