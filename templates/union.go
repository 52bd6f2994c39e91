package templates

import (
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec/ir"
)

// unionType emits a union (oneOf, anyOf) as a struct embedding json.RawMessage, which holds the
// JSON it was given (and gives it MarshalJSON and UnmarshalJSON), with an accessor and a setter
// per variant:
//
//	type PaymentSource struct {
//		json.RawMessage
//	}
//
//	func (u *PaymentSource) AsCard() (*Card, error) {
//		v := new(Card)
//		if err := json.Unmarshal(u.RawMessage, v); err != nil {
//			return nil, err
//		}
//		return v, nil
//	}
//
//	func (u *PaymentSource) FromCard(v Card) error {
//		return unionSet(&u.RawMessage, v)
//	}
//
// Only a union a request can carry (ir.Type.Sent) has the From methods: one a response alone
// holds is decoded, never set, and its setters would cost the compiler a function each.
//
// Every method has a pointer receiver and nothing is generic, so that a union costs the compiler
// the two methods it promotes, one wrapper, and one function per accessor: a value receiver would
// add a wrapper per method for the pointer's method set, a method promoted from an embedded type
// of ours a wrapper per method and union, and a generic helper a wrapper and a dictionary per
// variant type.
//
// A discriminated union also gets Discriminator() (string, error) and Value() (any, error),
// which decodes the variant the discriminator names.
func (g *generator) unionType(f *jen.File, t *ir.Type) {
	typeDoc(f, t, unionDoc(t))
	f.Comment("//")
	if t.Sent {
		f.Comment("// It holds the JSON it was given; the As methods decode it, the From methods set it.")
	} else {
		f.Comment("// It holds the JSON it was given, which the As methods decode; no request carries it.")
	}
	f.Type().Id(t.Name).Struct(jen.Qual("encoding/json", "RawMessage"))
	for _, v := range t.Variants {
		vt := describe(v.Type)
		f.Line()
		f.Comment("// " + v.AsName + " decodes the union as " + vt + ".")
		f.Func().Params(jen.Id("u").Op("*").Id(t.Name)).Id(v.AsName).Params().Params(jen.Op("*").Add(goType(v.Type)), jen.Error()).Block(
			jen.Id("v").Op(":=").New(goType(v.Type)),
			jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("u").Dot("RawMessage"), jen.Id("v")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err()),
			),
			jen.Return(jen.Id("v"), jen.Nil()),
		)
		if !t.Sent {
			continue
		}
		g.needUnionSet = true
		f.Line()
		f.Comment("// " + v.FromName + " sets the union to v.")
		f.Func().Params(jen.Id("u").Op("*").Id(t.Name)).Id(v.FromName).Params(jen.Id("v").Add(goType(v.Type))).Error().Block(
			jen.Return(jen.Id("unionSet").Call(jen.Op("&").Id("u").Dot("RawMessage"), jen.Id("v"))),
		)
	}
	if t.Discriminator != "" {
		g.discriminated(f, t)
	}
}

// unionDoc says what a union is: "is one of: string, Card."
func unionDoc(t *ir.Type) string {
	names := make([]string, len(t.Variants))
	for i, v := range t.Variants {
		names[i] = describe(v.Type)
	}
	return "is one of: " + strings.Join(names, ", ") + "."
}

// unionHelpers emits the helper of the From methods of the union types.
func unionHelpers(f *jen.File) {
	json := func(name string) *jen.Statement { return jen.Qual("encoding/json", name) }
	f.Line()
	f.Comment("// unionSet sets the JSON a union holds to the encoding of v.")
	f.Func().Id("unionSet").Params(jen.Id("raw").Op("*").Add(json("RawMessage")), jen.Id("v").Any()).Error().Block(
		jen.List(jen.Id("data"), jen.Err()).Op(":=").Add(json("Marshal")).Call(jen.Id("v")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("raw").Op("=").Id("data"),
		jen.Return(jen.Nil()),
	)
}

// discriminated emits the methods of a union that names its variant in a property:
//
//	func (u *Pet) Discriminator() (string, error) {
//		var v struct {
//			Tag string `json:"petType"`
//		}
//		...
//	}
//
//	func (u *Pet) Value() (any, error) {
//		tag, err := u.Discriminator()
//		...
//		switch tag {
//		case "cat":
//			return u.AsCat()
//		}
//		return nil, fmt.Errorf("%s: unknown %s %q", "Pet", "petType", tag)
//	}
func (g *generator) discriminated(f *jen.File, t *ir.Type) {
	prop := strconv.Quote(ir.OneLine(t.Discriminator))
	f.Line()
	f.Comment("// Discriminator returns the " + prop + " property of the JSON the union holds.")
	f.Func().Params(jen.Id("u").Op("*").Id(t.Name)).Id("Discriminator").Params().Params(jen.String(), jen.Error()).Block(
		jen.Var().Id("v").Struct(jen.Id("Tag").String().Tag(map[string]string{"json": t.Discriminator})),
		jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("u").Dot("RawMessage"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Lit(""), jen.Err()),
		),
		jen.Return(jen.Id("v").Dot("Tag"), jen.Nil()),
	)
	seen := map[string]bool{}
	var cases []jen.Code
	var kinds []string
	for _, v := range t.Variants {
		var tags []jen.Code
		for _, tag := range v.Tags {
			if seen[tag] { // a value one variant lists twice
				continue
			}
			seen[tag] = true
			tags = append(tags, jen.Lit(tag))
		}
		if len(tags) == 0 {
			continue
		}
		kinds = append(kinds, "*"+describe(v.Type))
		cases = append(cases, jen.Case(tags...).Block(jen.Return(jen.Id("u").Dot(v.AsName).Call())))
	}
	f.Line()
	f.Comment(comment("Value decodes the union as the variant its " + prop + " property names: " + strings.Join(kinds, ", ") + "."))
	f.Func().Params(jen.Id("u").Op("*").Id(t.Name)).Id("Value").Params().Params(jen.Any(), jen.Error()).Block(
		jen.List(jen.Id("tag"), jen.Err()).Op(":=").Id("u").Dot("Discriminator").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Switch(jen.Id("tag")).Block(cases...),
		jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: unknown %s %q"), jen.Lit(t.Name), jen.Lit(t.Discriminator), jen.Id("tag"))),
	)
}
