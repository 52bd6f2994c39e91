package templates

import (
	"slices"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec/ir"
)

// envelope emits the function that builds a write's 2xx body around an object its generated
// lookup found (response.object), with its success flag (response.ok) set: the receipt a lookup
// adopts decodes, and is stored, as the write's own answer would be.
//
//	func createTicketEnvelope(v *Ticket) *CreateTicketResponse {
//		return &CreateTicketResponse{Ticket: v}
//	}
func (g *generator) envelope(f *jen.File, op *ir.Operation) {
	s := op.Safety
	l := s.Lookup
	elem := l.Operation.Response.Type
	if l.Found != nil {
		elem = l.Found.Type
	}
	T := resultType(op)
	var stmts []jen.Code
	what := ""
	copied := func(t *ir.TypeRef) string {
		if l.Copies {
			return describe(t) + " with the fields of the same name of the " + describe(elem)
		}
		return describe(t) + " with the fields of the " + describe(elem) + " it extends"
	}
	if !l.Object { // the answer is the object, built from the element's fields
		stmts = []jen.Code{jen.Return(jen.Op("&").Add(T).Add(copyFields(op.Response.Type, elem)))}
		what = copied(op.Response.Type)
	} else {
		root := &envNode{}
		var v jen.Code = jen.Id("v")
		if l.Extends || l.Copies {
			v = jen.Op("&").Add(goType(s.Object.Type)).Add(copyFields(s.Object.Type, elem))
			what = copied(s.Object.Type) + ", "
		}
		root.add(s.Object.Steps, v, true)
		what += "put at " + strconv.Quote(s.Object.Pointer)
		if s.OK != nil {
			last := s.OK.Steps[len(s.OK.Steps)-1]
			value := jen.True()
			if last.Field.Pointer {
				stmts = append(stmts, jen.Id("ok").Op(":=").True())
				value = jen.Op("&").Id("ok")
			}
			root.add(s.OK.Steps, value, false)
			what += ", with " + strconv.Quote(s.OK.Pointer) + " true"
		}
		stmts = append(stmts, jen.Return(jen.Op("&").Add(T).Add(root.literal())))
	}
	f.Line()
	f.Comment(comment(op.EnvelopeName + " builds the answer of " + op.GoName + " from v, the " + describe(elem) + " its lookup found: " + what +
		"; the rest of the answer stays empty. The receipt a lookup adopts is this answer."))
	f.Func().Id(op.EnvelopeName).Params(jen.Id("v").Op("*").Add(goType(elem))).Op("*").Add(T).Block(stmts...)
}

// copyFields is the composite literal of the struct r that copies the fields of v, whose struct
// r extends (ir.Lookup.Extends) or shares properties with (ir.Lookup.Copies), by property
// name.
func copyFields(r, elem *ir.TypeRef) *jen.Statement {
	rt, et := ir.Under(r).Named, ir.Under(elem).Named
	var d []jen.Code
	for _, ef := range et.Fields {
		for _, rf := range rt.Fields {
			if rf.Name == ef.Name {
				d = append(d, jen.Id(rf.GoName).Op(":").Id("v").Dot(ef.GoName))
			}
		}
	}
	return jen.Custom(multiLine, d...)
}

// envNode is a struct literal under construction: the fields set, in the order added.
type envNode struct {
	fields []*ir.Field
	values map[*ir.Field]jen.Code
	nodes  map[*ir.Field]*envNode
}

// add sets the value at the end of steps (struct fields); v is a pointer when ptr.
func (n *envNode) add(steps []ir.Step, v jen.Code, ptr bool) {
	fl := steps[0].Field
	if n.values == nil {
		n.values, n.nodes = map[*ir.Field]jen.Code{}, map[*ir.Field]*envNode{}
	}
	if _, ok := n.values[fl]; !ok && n.nodes[fl] == nil {
		n.fields = append(n.fields, fl)
	}
	if len(steps) == 1 {
		if ptr && !fl.Pointer {
			v = jen.Op("*").Add(v)
		}
		n.values[fl] = v
		return
	}
	if n.nodes[fl] == nil {
		n.nodes[fl] = &envNode{}
	}
	n.nodes[fl].add(steps[1:], v, ptr)
}

// literal is the composite literal's braces with the fields set.
func (n *envNode) literal() *jen.Statement {
	var d []jen.Code
	for _, fl := range n.fields {
		if v, ok := n.values[fl]; ok {
			d = append(d, jen.Id(fl.GoName).Op(":").Add(v))
			continue
		}
		inner := goType(fl.Type).Add(n.nodes[fl].literal())
		if fl.Pointer {
			inner = jen.Op("&").Add(inner)
		}
		d = append(d, jen.Id(fl.GoName).Op(":").Add(inner))
	}
	return jen.Values(d...)
}

// refused emits the function the runtime calls on a write's decoded 2xx body to tell the
// provider's refusal (response.ok false) from a success:
//
//	func postMessageRefused(body any) string {
//		v, _ := body.(*PostMessageResponse)
//		if v == nil || v.OK {
//			return ""
//		}
//		why := "/ok is false"
//		if v.Error != nil && *v.Error != "" {
//			why += ": " + *v.Error
//		}
//		return why
//	}
func (g *generator) refused(f *jen.File, op *ir.Operation) {
	s := op.Safety
	T := resultType(op)
	ok := reach(func() *jen.Statement { return jen.Id("v") }, true, s.OK.Steps)
	cond := append([]jen.Code{jen.Id("v").Op("==").Nil()}, ok.missing...)
	cond = append(cond, value(ok))
	stmts := []jen.Code{
		jen.List(jen.Id("v"), jen.Id("_")).Op(":=").Id("body").Assert(jen.Op("*").Add(T)),
		jen.If(join(cond, "||")).Block(jen.Return(jen.Lit(""))),
	}
	why := strconv.Quote(s.OK.Pointer) + " is false"
	if s.ErrorText != nil {
		e := reach(func() *jen.Statement { return jen.Id("v") }, true, s.ErrorText.Steps)
		text := value(e)
		if s.ErrorText.Type.Kind != ir.RefBuiltin {
			text = jen.String().Call(text)
		}
		present := append(e.present, jen.Add(text).Op("!=").Lit(""))
		stmts = append(stmts,
			jen.Id("why").Op(":=").Lit(s.OK.Pointer+" is false"),
			jen.If(join(present, "&&")).Block(jen.Id("why").Op("+=").Lit(": ").Op("+").Add(text)),
			jen.Return(jen.Id("why")))
		why += " (with " + strconv.Quote(s.ErrorText.Pointer) + ")"
	} else {
		stmts = append(stmts, jen.Return(jen.Lit(s.OK.Pointer+" is false")))
	}
	f.Line()
	f.Comment(comment(op.RefusedName + " returns why the provider refused " + op.GoName + " in a 2xx body, whose " + why +
		"; \"\" when it did not. A refused write did not happen."))
	f.Func().Id(op.RefusedName).Params(jen.Id("body").Any()).String().Block(stmts...)
}

// lookupOK returns the statement that fails a lookup whose read answered with its success flag
// false (the write's response.ok, in the read's response), nil when the read has none:
//
//	if !res.OK {
//		return nil, errors.New(`writegen: lookup conversationsHistory: the provider answered "/ok" false`)
//	}
func lookupOK(l *ir.Lookup, res func() *jen.Statement, rootPtr bool, zero jen.Code) jen.Code {
	if l.OK == nil {
		return nil
	}
	r := reach(res, rootPtr, l.OK.Steps)
	cond := append(r.present, jen.Op("!").Add(value(r)))
	return jen.If(join(cond, "&&")).Block(jen.Return(zero, jen.Qual("errors", "New").Call(
		jen.Lit("writegen: lookup "+l.Operation.ID+": the provider answered "+strconv.Quote(l.OK.Pointer)+" false"))))
}

// variantDesc emits the description of the variant a write's reference goes through
// (reference.through), which writegenimpl.SetInVariant checks the union's JSON against:
//
//	var createUserVariant = &writegenimpl.Variant{
//		Name:       "UserForAdmin",
//		Properties: []string{"email", "external_id", "name", "role"},
//		Required:   []string{"name"},
//	}
func (g *generator) variantDesc(f *jen.File, op *ir.Operation) {
	v := op.Safety.Reference.Through
	var union *ir.Type
	for _, st := range op.Safety.Reference.Body.Steps {
		if st.Kind == ir.StepVariant {
			union = st.Union
		}
	}
	t := ir.Under(v.Type).Named
	d := []jen.Code{jen.Id("Name").Op(":").Lit(t.Name)}
	if union.Discriminator != "" {
		d = append(d, jen.Id("Discriminator").Op(":").Lit(union.Discriminator))
		var tags []jen.Code
		for _, tag := range v.Tags {
			tags = append(tags, jen.Lit(tag))
		}
		d = append(d, jen.Id("Tags").Op(":").Index().String().Values(tags...))
	}
	var props, required []jen.Code
	for _, fl := range t.Fields {
		props = append(props, jen.Lit(fl.Name))
		if fl.Required {
			required = append(required, jen.Lit(fl.Name))
		}
	}
	what := "every property it holds is one of " + t.Name + "'s"
	if t.AdditionalProperties == nil {
		d = append(d, jen.Id("Properties").Op(":").Index().String().Values(props...))
	} else {
		what = t.Name + " allows properties of any name"
	}
	if len(required) > 0 {
		d = append(d, jen.Id("Required").Op(":").Index().String().Values(required...))
		what += ", and it holds the required ones"
	}
	if union.Discriminator != "" {
		what = "its " + strconv.Quote(union.Discriminator) + " names " + t.Name + ", " + what
	}
	f.Line()
	f.Comment(comment(op.VariantName + " is the variant " + t.Name + " of " + union.Name + ", which " + op.GoName +
		" stores its reference in: the union holds it when " + what + ". A call that sends another variant stores no reference, and its lookup is not asked."))
	f.Var().Id(op.VariantName).Op("=").Op("&").Add(impl("Variant")).Custom(multiLine, d...)
}

// setInVariant returns the statements that set value at p, a reference pointer that goes
// through a variant (StepVariant), in the JSON of the union, only when it holds the variant;
// referenced records that it did. Nothing on the way is allocated when the caller left it out.
//
//	referenced := false
//	if body.User != nil {
//		raw, sent, err := writegenimpl.SetInVariant(body.User.RawMessage, createUserVariant, reference, "external_id")
//		if err != nil {
//			return nil, err
//		}
//		if sent {
//			body.User = &UserInput{RawMessage: raw}
//			referenced = true
//		}
//	}
func (g *generator) setInVariant(op *ir.Operation, p *ir.Path, value string, fail func() jen.Code) []jen.Code {
	vi := 0
	for i, st := range p.Steps {
		if st.Kind == ir.StepVariant {
			vi = i
		}
	}
	var props []jen.Code
	for _, st := range p.Steps[vi+1:] {
		props = append(props, jen.Lit(st.Field.Name))
	}
	// The fields to the union, each a pointer checked and, when set, copied.
	at := func(n int) *jen.Statement {
		s := jen.Id("body")
		for _, st := range p.Steps[:n] {
			s = s.Dot(st.Field.GoName)
		}
		return s
	}
	var cond, copies []jen.Code
	for i, st := range p.Steps[:vi] {
		if !st.Field.Pointer {
			continue
		}
		cond = append(cond, at(i+1).Op("!=").Nil())
		if i+1 < vi {
			name := "copy" + strconv.Itoa(len(copies)/2)
			copies = append(copies, jen.Id(name).Op(":=").Op("*").Add(at(i+1)), at(i+1).Op("=").Op("&").Id(name))
		}
	}
	union := at(vi)
	var set jen.Code = jen.Add(union).Dot("RawMessage").Op("=").Id("raw")
	if vi > 0 && p.Steps[vi-1].Field.Pointer {
		set = jen.Add(union).Op("=").Op("&").Id(p.Steps[vi].Union.Name).Values(jen.Id("RawMessage").Op(":").Id("raw"))
	}
	args := append([]jen.Code{jen.Add(union).Dot("RawMessage"), jen.Id(op.VariantName), jen.Id(value)}, props...)
	inner := []jen.Code{
		jen.List(jen.Id("raw"), jen.Id("sent"), jen.Err()).Op(":=").Add(impl("SetInVariant")).Call(args...),
		jen.If(jen.Err().Op("!=").Nil()).Block(fail()),
		jen.If(jen.Id("sent")).Block(append(copies, set, jen.Id("referenced").Op("=").True())...),
	}
	stmts := []jen.Code{jen.Id("referenced").Op(":=").False()}
	if len(cond) > 0 {
		return append(stmts, jen.If(join(cond, "&&")).Block(inner...))
	}
	return append(stmts, jen.Block(inner...))
}

// throughSet reports whether a body place goes through a variant (reference.through).
func throughSet(p *ir.Path) bool {
	return p != nil && slices.ContainsFunc(p.Steps, func(st ir.Step) bool { return st.Kind == ir.StepVariant })
}
