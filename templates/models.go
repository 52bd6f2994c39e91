package templates

import (
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec/ir"
)

// models emits the named types, in the IR's order.
func (g *generator) models(f *jen.File, types []*ir.Type) {
	for _, t := range types {
		switch {
		case t.Same != nil:
			sameType(f, t)
		case t.Kind == ir.KindStruct:
			g.structType(f, t)
		case t.Kind == ir.KindEnum:
			g.enumType(f, t)
		case t.Kind == ir.KindUnion:
			g.unionType(f, t)
		case t.Kind == ir.KindAlias: // type Tags []string
			typeDoc(f, t, "is "+describe(t.Elem)+".")
			f.Type().Id(t.Name).Add(goType(t.Elem))
		}
	}
}

// modelHelpers emits the helpers the models used.
func (g *generator) modelHelpers(f *jen.File) {
	if g.needUnionSet {
		unionHelpers(f)
	}
	if g.needExtra {
		extraHelpers(f)
	}
	if g.needNoCompare {
		f.Line()
		f.Comment("// noCompare makes a struct not comparable: == would compare its pointer fields by address,")
		f.Comment("// not what they point to. It takes no space.")
		f.Type().Id("noCompare").Index(jen.Lit(0)).Func().Params()
	}
	if g.needField {
		f.Line()
		f.Comment("// unmarshalField decodes the member name of the JSON object data into v, when it has one.")
		f.Func().Id("unmarshalField").Params(jen.Id("data").Index().Byte(), jen.Id("name").String(), jen.Id("v").Any()).Error().Block(
			jen.Var().Id("fields").Map(jen.String()).Qual("encoding/json", "RawMessage"),
			jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("fields")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.List(jen.Id("raw"), jen.Id("ok")).Op(":=").Id("fields").Index(jen.Id("name")),
			jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil())),
			jen.Return(jen.Qual("encoding/json", "Unmarshal").Call(jen.Id("raw"), jen.Id("v"))),
		)
	}
}

// typeDoc emits the doc comment of a named type: its description, or fallback.
func typeDoc(f *jen.File, t *ir.Type, fallback string) {
	f.Line()
	f.Comment(docComment(t.Name, t.Doc, fallback))
}

// describe names the shape of r for a comment: "a list of Thread", "a map of string".
func describe(r *ir.TypeRef) string {
	switch r.Kind {
	case ir.RefNamed:
		return r.Named.Name
	case ir.RefArray:
		return "a list of " + describe(r.Elem)
	case ir.RefMap:
		return "a map of " + describe(r.Elem)
	}
	return r.Builtin
}

// structType emits a struct with JSON tags and, when it keeps unknown keys, its JSON methods:
//
//	type Thread struct {
//		ID    string  `json:"id"`
//		Title *string `json:"title,omitempty"`
//	}
func (g *generator) structType(f *jen.File, t *ir.Type) {
	what := "is an inline object."
	if t.SchemaName != "" {
		what = "is the " + strconv.Quote(ir.OneLine(t.SchemaName)) + " object."
	}
	typeDoc(f, t, what)
	fields := make([]jen.Code, 0, 2*len(t.Fields)+3)
	if t.NoCompare {
		g.needNoCompare = true
		fields = append(fields, jen.Id("_").Id("noCompare"))
	}
	for _, fl := range t.Fields {
		tag := fl.Name
		switch {
		case fl.Untagged: // read and written by the JSON methods
			tag = "-"
		case fl.OmitEmpty:
			tag += ",omitempty"
		}
		doc := fl.Doc
		if fl.ReadOnly {
			doc = strings.TrimSpace(doc + "\n\nRead-only: the provider sets it.")
		}
		if fl.Untagged {
			doc = strings.TrimSpace(doc + "\n\nIn JSON as " + strconv.Quote(ir.OneLine(fl.Name)) + ", which no json tag can name: the JSON methods of " + t.Name + " read and write it.")
		}
		var c jen.Code = jen.Null()
		if text := comment(doc); text != "" {
			c = jen.Comment(text)
		}
		fields = append(fields, c, jen.Id(fl.GoName).Add(heldType(fl.Type, fl.Pointer)).Tag(map[string]string{"json": tag}))
	}
	if t.AdditionalProperties != nil {
		fields = append(fields,
			jen.Comment("// "+t.ExtraName+" holds the keys that are not fields of "+t.Name+"."),
			jen.Id(t.ExtraName).Map(jen.String()).Add(goType(t.AdditionalProperties)).Tag(map[string]string{"json": "-"}))
	}
	f.Type().Id(t.Name).Struct(fields...)
	if t.JSONMethods() {
		g.jsonMethods(f, t)
	}
}

// sameType emits a type whose declaration would repeat another's (ir.Type.Same) as an alias of
// it, with its own doc and, for an enum, its own constants:
//
//	// ShippingAddress is an inline object.
//	//
//	// It is an alias of BillingAddress: the spec repeats that object here.
//	type ShippingAddress = BillingAddress
func sameType(f *jen.File, t *ir.Type) {
	what, kind := "is an inline object.", "that object"
	switch {
	case t.Kind == ir.KindEnum:
		what, kind = "is one of the values below.", "its values"
	case t.Kind == ir.KindUnion:
		what, kind = unionDoc(t), "that union"
	case t.SchemaName != "":
		what = "is the " + strconv.Quote(ir.OneLine(t.SchemaName)) + " object."
	}
	typeDoc(f, t, what)
	f.Comment("//")
	f.Comment("// It is an alias of " + t.Same.Name + ": the spec repeats " + kind + " here.")
	f.Type().Id(t.Name).Op("=").Id(t.Same.Name)
	if t.Kind == ir.KindEnum {
		enumValues(f, t)
	}
}

// jsonMethods emits the JSON methods of a struct that keeps unknown keys (in its map field
// extra) or has fields no json tag can name:
//
//	func (v Thread) MarshalJSON() ([]byte, error) {
//		type plain Thread
//		return marshalExtra(plain(v), v.AdditionalProperties)
//	}
//
//	func (v *Thread) UnmarshalJSON(data []byte) error {
//		type plain Thread
//		if err := json.Unmarshal(data, (*plain)(v)); err != nil {
//			return err
//		}
//		extra, err := unmarshalExtra[string](data, "id", "title")
//		...
//	}
func (g *generator) jsonMethods(f *jen.File, t *ir.Type) {
	g.needExtra = true
	var untagged []*ir.Field
	for _, fl := range t.Fields {
		if fl.Untagged {
			untagged = append(untagged, fl)
		}
	}
	extra := t.ExtraName
	// MarshalJSON: the tagged fields, then the untagged ones and the extra keys the others lack.
	what := "the keys of " + extra
	var marshal []jen.Code
	if len(untagged) == 0 {
		marshal = []jen.Code{jen.Return(jen.Id("marshalExtra").Call(jen.Id("plain").Call(jen.Id("v")), jen.Id("v").Dot(extra)))}
	} else {
		what = "the properties no json tag can name"
		if extra != "" {
			what += ", then the keys of " + extra
		}
		marshal = append(marshal, jen.Id("more").Op(":=").Map(jen.String()).Any().Values())
		for _, fl := range untagged {
			set := jen.Id("more").Index(jen.Lit(fl.Name)).Op("=").Id("v").Dot(fl.GoName)
			switch {
			case fl.Pointer:
				marshal = append(marshal, jen.If(jen.Id("v").Dot(fl.GoName).Op("!=").Nil()).Block(set))
			case fl.OmitEmpty && ir.Nilable(fl.Type):
				marshal = append(marshal, jen.If(jen.Len(jen.Id("v").Dot(fl.GoName)).Op(">").Lit(0)).Block(set))
			default:
				marshal = append(marshal, set)
			}
		}
		if extra != "" {
			marshal = append(marshal, jen.For(jen.List(jen.Id("k"), jen.Id("x")).Op(":=").Range().Id("v").Dot(extra)).Block(
				jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("more").Index(jen.Id("k")), jen.Op("!").Id("ok")).Block(
					jen.Id("more").Index(jen.Id("k")).Op("=").Id("x"))))
		}
		marshal = append(marshal, jen.Return(jen.Id("marshalExtra").Call(jen.Id("plain").Call(jen.Id("v")), jen.Id("more"))))
	}
	f.Line()
	f.Comment(comment("MarshalJSON encodes the fields of " + t.Name + " and then " + what + "."))
	f.Func().Params(jen.Id("v").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		append([]jen.Code{jen.Type().Id("plain").Id(t.Name)}, marshal...)...,
	)

	unmarshal := []jen.Code{
		jen.Type().Id("plain").Id(t.Name),
		jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("data"), jen.Parens(jen.Op("*").Id("plain")).Call(jen.Id("v"))), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Err()),
		),
	}
	for _, fl := range untagged {
		g.needField = true
		unmarshal = append(unmarshal, jen.If(
			jen.Err().Op(":=").Id("unmarshalField").Call(jen.Id("data"), jen.Lit(fl.Name), jen.Op("&").Id("v").Dot(fl.GoName)),
			jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
	}
	what = "keeps the other keys in " + extra
	if extra != "" {
		names := make([]jen.Code, 0, len(t.Fields)+1)
		names = append(names, jen.Id("data"))
		for _, fl := range t.Fields {
			names = append(names, jen.Lit(fl.Name))
		}
		unmarshal = append(unmarshal,
			jen.List(jen.Id("extra"), jen.Err()).Op(":=").Id("unmarshalExtra").Types(goType(t.AdditionalProperties)).Call(names...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Id("v").Dot(extra).Op("=").Id("extra"))
	} else {
		what = "the properties no json tag can name"
	}
	unmarshal = append(unmarshal, jen.Return(jen.Nil()))
	f.Line()
	if extra != "" {
		f.Comment(comment("UnmarshalJSON decodes the fields of " + t.Name + " and " + what + "."))
	} else {
		f.Comment(comment("UnmarshalJSON decodes the fields of " + t.Name + ", " + what + " included."))
	}
	f.Func().Params(jen.Id("v").Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(unmarshal...)
}

// extraHelpers emits the two helpers of structs that keep unknown keys.
func extraHelpers(f *jen.File) {
	json := func(name string) *jen.Statement { return jen.Qual("encoding/json", name) }
	ifErr := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
	f.Line()
	f.Comment("// marshalExtra encodes known, then adds the keys of extra that known does not have.")
	f.Func().Id("marshalExtra").Types(jen.Id("T").Any()).Params(jen.Id("known").Any(), jen.Id("extra").Map(jen.String()).Id("T")).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.List(jen.Id("data"), jen.Err()).Op(":=").Add(json("Marshal")).Call(jen.Id("known")),
		jen.If(jen.Err().Op("!=").Nil().Op("||").Len(jen.Id("extra")).Op("==").Lit(0)).Block(jen.Return(jen.Id("data"), jen.Err())),
		jen.Var().Id("fields").Map(jen.String()).Add(json("RawMessage")),
		jen.If(jen.Err().Op(":=").Add(json("Unmarshal")).Call(jen.Id("data"), jen.Op("&").Id("fields")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.For(jen.List(jen.Id("k"), jen.Id("v")).Op(":=").Range().Id("extra")).Block(
			jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("fields").Index(jen.Id("k")), jen.Id("ok")).Block(jen.Continue()),
			jen.List(jen.Id("b"), jen.Err()).Op(":=").Add(json("Marshal")).Call(jen.Id("v")),
			ifErr,
			jen.Id("fields").Index(jen.Id("k")).Op("=").Id("b"),
		),
		jen.Return(json("Marshal").Call(jen.Id("fields"))),
	)
	f.Line()
	f.Comment("// unmarshalExtra decodes the keys of the JSON object data that are not in known.")
	f.Func().Id("unmarshalExtra").Types(jen.Id("T").Any()).Params(jen.Id("data").Index().Byte(), jen.Id("known").Op("...").String()).Params(jen.Map(jen.String()).Id("T"), jen.Error()).Block(
		jen.Var().Id("fields").Map(jen.String()).Add(json("RawMessage")),
		jen.If(jen.Err().Op(":=").Add(json("Unmarshal")).Call(jen.Id("data"), jen.Op("&").Id("fields")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("known")).Block(
			jen.Delete(jen.Id("fields"), jen.Id("k")),
		),
		jen.If(jen.Len(jen.Id("fields")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		jen.Id("extra").Op(":=").Make(jen.Map(jen.String()).Id("T"), jen.Len(jen.Id("fields"))),
		jen.For(jen.List(jen.Id("k"), jen.Id("raw")).Op(":=").Range().Id("fields")).Block(
			jen.Var().Id("v").Id("T"),
			jen.If(jen.Err().Op(":=").Add(json("Unmarshal")).Call(jen.Id("raw"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("extra").Index(jen.Id("k")).Op("=").Id("v"),
		),
		jen.Return(jen.Id("extra"), jen.Nil()),
	)
}

// enumType emits a defined type and one constant per value:
//
//	type ThreadStatus string
//
//	const (
//		ThreadStatusOpen   ThreadStatus = "open"
//		ThreadStatusClosed ThreadStatus = "closed"
//	)
func (g *generator) enumType(f *jen.File, t *ir.Type) {
	typeDoc(f, t, "is one of the values below.")
	f.Type().Id(t.Name).Id(t.Base)
	enumValues(f, t)
}

// enumValues emits the constants of an enum.
func enumValues(f *jen.File, t *ir.Type) {
	if len(t.Enum) == 0 {
		return
	}
	values := make([]jen.Code, 0, len(t.Enum))
	for _, v := range t.Enum {
		var lit jen.Code
		switch x := v.Value.(type) {
		case string:
			lit = jen.Lit(x)
		case int64:
			lit = jen.Id(strconv.FormatInt(x, 10))
		case float64:
			lit = jen.Id(strconv.FormatFloat(x, 'g', -1, 64))
		}
		values = append(values, jen.Id(v.GoName).Id(t.Name).Op("=").Add(lit))
	}
	f.Line()
	f.Comment("// The values of " + t.Name + ".")
	f.Const().Defs(values...)
}
