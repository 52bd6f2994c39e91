package templates

import (
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
	"github.com/writegen/writegen/spec/ir"
)

// operations emits, per operation in the IR's order: its parameter struct, its key type, its
// retry set, its descriptor, its method, its receipt id accessor, its lookup and its
// compensation.
func (g *generator) operations(f *jen.File) {
	for _, op := range g.api.Operations {
		if op.ParamsName != "" {
			g.paramsStruct(f, op)
		}
		s := op.Safety
		if s != nil && s.Key != nil && s.Effect != runtime.EffectReadOnly {
			g.keyType(f, op)
		}
		if op.RetryName != "" {
			g.retrySet(f, op)
		}
		g.descriptor(f, op)
		g.method(f, op)
		if op.IDName != "" {
			g.idAccessor(f, op)
		}
		if op.RefusedName != "" {
			g.refused(f, op)
		}
		if op.VariantName != "" {
			g.variantDesc(f, op)
		}
		if op.EnvelopeName != "" {
			g.envelope(f, op)
		}
		if s == nil {
			continue
		}
		if l := s.Lookup; l != nil {
			if l.Operation != nil {
				g.generatedLookup(f, op)
				if l.Adopt != nil {
					g.readByID(f, op)
				}
			} else {
				g.funcLookup(f, op)
			}
		}
		if s.Compensate != nil {
			g.compensation(f, op)
		}
	}
	g.opHelpers(f)
}

// paramsStruct emits the parameters of an operation:
//
//	type GetThreadParams struct {
//		ID    string // path
//		Limit *int64 // query
//	}
func (g *generator) paramsStruct(f *jen.File, op *ir.Operation) {
	fields := make([]jen.Code, 0, 2*len(op.Params))
	for _, p := range op.Params {
		where := "In " + string(p.In) + " as " + strconv.Quote(ir.OneLine(p.Name))
		if p.Required || p.In == ir.InPath {
			where += ", required"
		}
		fields = append(fields,
			jen.Comment(comment(strings.TrimSpace(p.Doc+"\n\n"+where+"."))),
			jen.Id(p.GoName).Add(heldType(p.Type, p.Pointer)))
	}
	f.Line()
	f.Comment("// " + op.ParamsName + " holds the parameters of " + op.GoName + ".")
	f.Type().Id(op.ParamsName).Struct(fields...)
}

// keyType emits the business key of a write and its BusinessKey method:
//
//	type CreateThreadKey struct {
//		EscalationID string
//	}
//
//	func (k *CreateThreadKey) BusinessKey() (string, error) {
//		if k.EscalationID == "" {
//			return "", &runtime.EmptyKeyError{Operation: "createThread", Field: "escalation_id"}
//		}
//		return "escalation:" + k.EscalationID, nil
//	}
//
// BusinessKey has a pointer receiver, and the write methods pass &key: a value receiver would
// cost every key a wrapper method for its pointer's method set.
func (g *generator) keyType(f *jen.File, op *ir.Operation) {
	key := op.Safety.Key
	format := strconv.Quote(ir.OneLine(key.Format))
	fields := make([]jen.Code, 0, len(key.Fields))
	body := make([]jen.Code, 0, len(key.Fields)+1)
	for _, kf := range key.Fields {
		zero := jen.Lit(0)
		if kf.Type == "string" {
			zero = jen.Lit("")
		}
		fields = append(fields, jen.Id(kf.GoName).Id(kf.Type))
		body = append(body, jen.If(jen.Id("k").Dot(kf.GoName).Op("==").Add(zero)).Block(
			jen.Return(jen.Lit(""), jen.Op("&").Add(rt("EmptyKeyError")).Values(jen.Dict{
				jen.Id("Operation"): jen.Lit(op.ID),
				jen.Id("Field"):     jen.Lit(kf.Name),
			})),
		))
	}
	body = append(body, jen.Return(keyExpr(key.Parts, jen.Id("k")), jen.Nil()))

	f.Line()
	f.Comment(comment(key.TypeName + " identifies one logical " + op.ID + ": " + format + ", in the key scope " +
		strconv.Quote(key.Scope) + ". " + oneWrite(op.Safety)))
	f.Type().Id(key.TypeName).Struct(fields...)
	f.Line()
	f.Comment(comment("BusinessKey formats the key as " + format + "; it fails with a *runtime.EmptyKeyError when a field is empty or zero."))
	f.Func().Params(jen.Id("k").Op("*").Id(key.TypeName)).Id("BusinessKey").Params().Params(jen.String(), jen.Error()).Block(body...)
}

// oneWrite says what "one write" means for calls with equal keys of a keyed write.
func oneWrite(s *ir.Safety) string {
	window := "for a time nobody declared"
	if i := s.Idempotency; i != nil && i.Forever() {
		window = "for good"
	} else if i != nil && i.Window > 0 {
		window = "for " + ir.DurationText(i.Window)
	}
	switch {
	case s.Dedupe:
		return "Calls with equal keys are one write: the ledger claims the key before the call, and the provider key is derived from it."
	case s.Idempotency != nil:
		return "Calls with equal keys are one write only as far as the provider's idempotency key reaches: the key is not claimed in the ledger, so concurrent calls with one key are all sent, and the provider makes them one effect while it remembers the key (" + window + "); a later call is a new write."
	}
	return "The key is not claimed in the ledger and the provider takes no idempotency key: calls with equal keys are separate writes, which the key only names in errors, hooks and lookups."
}

// keyExpr is the Go expression of a template over the key's fields, read from k:
//
//	"escalation:" + strconv.FormatInt(k.EscalationID, 10)
func keyExpr(parts []ir.KeyPart, k *jen.Statement) *jen.Statement {
	var codes []jen.Code
	for _, p := range parts {
		switch {
		case p.Field == nil:
			codes = append(codes, jen.Lit(p.Literal))
		case p.Field.Type == "int64":
			codes = append(codes, jen.Qual("strconv", "FormatInt").Call(jen.Add(k).Dot(p.Field.GoName), jen.Lit(10)))
		default:
			codes = append(codes, jen.Add(k).Dot(p.Field.GoName))
		}
	}
	if len(codes) == 0 {
		return jen.Lit("")
	}
	return join(codes, "+")
}

// join joins codes with the binary operator op.
func join(codes []jen.Code, op string) *jen.Statement {
	s := jen.Add(codes[0])
	for _, c := range codes[1:] {
		s = s.Op(op).Add(c)
	}
	return s
}

// retryConst names the runtime constant of one retry kind, from its annotation name:
// not_sent is RetryNotSent, status_409 Retry409 (TestRetryConstants holds the rule to the
// runtime's constants).
func retryConst(k runtime.Retry) string {
	return "Retry" + camel(strings.TrimPrefix(k.String(), "status_"))
}

// effectConst names the runtime constant of an effect, from its annotation name: read_only is
// EffectReadOnly (TestEnumConstants holds the rule to the runtime's constants).
func effectConst(e runtime.Effect) string { return "Effect" + camel(e.String()) }

// consistencyConst names the runtime constant of a lookup's consistency, from its annotation
// name: strong is Strong (TestEnumConstants holds the rule to the runtime's constants).
func consistencyConst(c runtime.Consistency) string { return camel(c.String()) }

// camel joins the words of an annotation name, each capitalised: read_only is ReadOnly.
func camel(name string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(name, "_") {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// retrySet emits the compile-time retry set of a write:
//
//	const createThreadRetry = runtime.RetryNotSent | runtime.RetryAmbiguous | runtime.Retry429
func (g *generator) retrySet(f *jen.File, op *ir.Operation) {
	var kinds []jen.Code
	for _, k := range writegenimpl.RetryKinds() {
		if op.Safety.Retry.Has(k) {
			kinds = append(kinds, rt(retryConst(k)))
		}
	}
	value := rt("Retry").Call(jen.Lit(0))
	switch {
	case op.Safety.Retry == runtime.RetryReads: // a read_only write, retried like a read
		value = rt("RetryReads")
	case len(kinds) > 0:
		value = join(kinds, "|")
	}
	f.Line()
	f.Comment("// " + op.RetryName + " is the fixed set of failures after which " + op.GoName + " may be retried;\n" +
		"// client options can narrow it, never widen it.")
	f.Const().Id(op.RetryName).Op("=").Add(value)
}

// readAttempts is how many times a read is attempted at most.
const readAttempts = 3

// descriptor emits the operation descriptor the runtime reads:
//
//	var createThreadOp = &writegenimpl.Operation{
//		ID:     "createThread",
//		Scope:  "createthread",
//		Method: "POST",
//		Path:   "/threads",
//		Effect: runtime.EffectAmbiguous,
//		Retry:  createThreadRetry,
//		...
//	}
func (g *generator) descriptor(f *jen.File, op *ir.Operation) {
	type field struct {
		name  string
		value jen.Code
	}
	fields := []field{{"ID", jen.Lit(op.ID)}}
	s := op.Safety
	if s != nil && s.Key != nil && s.Effect != runtime.EffectReadOnly {
		fields = append(fields, field{"Scope", jen.Lit(s.Key.Scope)})
	}
	fields = append(fields, field{"Method", jen.Lit(op.Method)}, field{"Path", jen.Lit(op.Path)})
	if s == nil {
		fields = append(fields,
			field{"Effect", rt(effectConst(runtime.EffectReadOnly))},
			field{"Retry", rt("RetryReads")},
			field{"Attempts", jen.Lit(readAttempts)})
	} else {
		fields = append(fields,
			field{"Effect", rt(effectConst(s.Effect))},
			field{"Retry", jen.Id(op.RetryName)},
			field{"Attempts", jen.Lit(s.Attempts)})
		if idem := s.Idempotency; idem != nil {
			if idem.Header != "" {
				fields = append(fields, field{"KeyHeader", jen.Lit(idem.Header)})
			}
			fields = append(fields, field{"Keyed", jen.True()})
			if idem.MaxLength > 0 {
				fields = append(fields, field{"KeyMaxLength", jen.Lit(idem.MaxLength)})
			}
			switch {
			case idem.Forever():
				fields = append(fields, field{"KeyWindow", impl("KeyForever")})
			case idem.Window > 0:
				fields = append(fields, field{"KeyWindow", duration(idem.Window)})
			}
		}
		if s.Receipt {
			fields = append(fields, field{"Receipt", jen.True()})
			if s.ID != nil {
				fields = append(fields, field{"IDPointer", jen.Lit(s.ID.Pointer)})
			}
		}
		if l := s.Lookup; l != nil {
			fields = append(fields, field{"Lookup", rt(consistencyConst(l.Consistency))})
			if l.Lag > 0 {
				fields = append(fields, field{"LookupLag", duration(l.Lag)})
			}
			if r := s.Reference; r != nil && r.Marker != nil {
				fields = append(fields, field{"Marker", jen.Lit(r.MarkerText)})
			}
			if len(l.Values) > 0 {
				fields = append(fields, field{"Joined", jen.True()})
			}
		}
		if s.Dedupe {
			fields = append(fields, field{"Dedupe", jen.True()})
			switch day := 24 * time.Hour; {
			case s.Retention > 0 && s.Retention%day == 0:
				fields = append(fields, field{"Retention", jen.Lit(int(s.Retention/day)).Op("*").Lit(24).Op("*").Qual("time", "Hour")})
			case s.Retention > 0:
				fields = append(fields, field{"Retention", duration(s.Retention)})
			}
		}
		if s.Owner != "" {
			fields = append(fields, field{"Owner", jen.Lit(s.Owner)})
		}
		if c := s.Credentials; c != nil && !c.RotationInvalidates {
			fields = append(fields, field{"RotationSafe", jen.True()})
		}
		if op.RefusedName != "" {
			fields = append(fields, field{"Refused", jen.Id(op.RefusedName)})
		}
	}
	items := make([]jen.Code, len(fields))
	for i, fl := range fields {
		items[i] = jen.Id(fl.name).Op(":").Add(fl.value)
	}
	f.Line()
	f.Comment("// " + op.DescriptorName + " describes " + op.GoName + " to the runtime.")
	f.Var().Id(op.DescriptorName).Op("=").Op("&").Add(impl("Operation")).Custom(multiLine, items...)
}

// multiLine renders a composite literal one element per line.
var multiLine = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}

// duration renders d as Go: 24 * time.Hour, 90 * time.Second, time.Duration(1500).
func duration(d time.Duration) *jen.Statement {
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}} {
		if d%u.unit == 0 {
			return jen.Lit(int(d/u.unit)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Id(strconv.FormatInt(int64(d), 10)))
}

// idAccessor emits the accessor of a receipt's durable id, which the runtime calls on the
// decoded 2xx body and on what a lookup finds:
//
//	func createThreadID(v *Thread) string {
//		return v.ID
//	}
func (g *generator) idAccessor(f *jen.File, op *ir.Operation) {
	p := op.Safety.ID
	steps := p.Steps
	var union *ir.Step
	if n := len(steps); n > 0 && steps[n-1].Kind == ir.StepUnion {
		union, steps = &steps[n-1], steps[:n-1]
	}
	r := reach(func() *jen.Statement { return jen.Id("v") }, true, steps)
	var body []jen.Code
	if len(r.missing) > 0 {
		body = append(body, jen.If(join(r.missing, "||")).Block(jen.Return(jen.Lit(""))))
	}
	v := r.expr()
	if union != nil {
		// The union holds JSON: decode the properties that lead to the id.
		typ := jen.Id(union.Type.Builtin)
		sel := jen.Id("id")
		for i := len(union.Rest) - 1; i >= 0; i-- {
			typ = jen.Struct(jen.Id("V").Add(typ).Tag(map[string]string{"json": union.Rest[i]}))
		}
		for range union.Rest {
			sel = sel.Dot("V")
		}
		body = append(body,
			jen.Var().Id("id").Add(typ),
			jen.If(jen.Qual("encoding/json", "Unmarshal").Call(jen.Add(v).Dot("RawMessage"), jen.Op("&").Id("id")).Op("!=").Nil()).Block(jen.Return(jen.Lit(""))),
		)
		v = sel
	} else if r.ptr {
		v = jen.Op("*").Add(v)
	}
	body = append(body, jen.Return(idString(p.Type, v)))
	T := resultType(op)
	f.Line()
	f.Comment(comment(op.IDName + " returns the durable id of a " + describe(op.Response.Type) + " that " + op.GoName +
		" created: its " + strconv.Quote(p.Pointer) + ", \"\" when it has none."))
	f.Func().Id(op.IDName).Params(jen.Id("v").Op("*").Add(T)).String().Block(body...)
}

// idString converts v, a string or an integer of type r, to a string.
func idString(r *ir.TypeRef, v *jen.Statement) *jen.Statement {
	u := ir.Under(r)
	switch {
	case isString(r) && r.Kind == ir.RefBuiltin:
		return v
	case isString(r):
		return jen.String().Call(v)
	case u.Kind == ir.RefBuiltin && u.Builtin == "int64" && r.Kind == ir.RefBuiltin:
		return jen.Qual("strconv", "FormatInt").Call(v, jen.Lit(10))
	}
	return jen.Qual("strconv", "FormatInt").Call(jen.Int64().Call(v), jen.Lit(10))
}
