package templates

import (
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/spec"
)

// operations emits, per operation in the IR's order: its parameter struct, its key type, its
// retry set, its descriptor, its method and its lookup.
func (g *generator) operations(f *jen.File) {
	for _, op := range g.api.Operations {
		if hasParams(op) {
			g.paramsStruct(f, op)
		}
		s := op.Safety
		if s != nil && s.Key != nil {
			g.keyType(f, op)
		}
		if op.Write {
			g.retrySet(f, op)
		}
		g.descriptor(f, op)
		g.method(f, op)
		if l := lookupOf(op); l != nil {
			if l.Func != "" {
				g.lookupCheck(f, op)
			} else {
				g.generatedLookup(f, op)
			}
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
func (g *generator) paramsStruct(f *jen.File, op *spec.Operation) {
	fields := make([]jen.Code, 0, 2*len(op.Params))
	for _, p := range op.Params {
		where := "In " + string(p.In) + " as " + strconv.Quote(oneLine(p.Name))
		if p.Required || p.In == spec.InPath {
			where += ", required"
		}
		fields = append(fields,
			jen.Comment(comment(strings.TrimSpace(p.Doc+"\n\n"+where+"."))),
			jen.Id(p.GoName).Add(heldType(p.Type, paramHolding(p))))
	}
	f.Line()
	f.Comment("// " + paramsName(op) + " holds the parameters of " + op.GoName + ".")
	f.Type().Id(paramsName(op)).Struct(fields...)
}

// keyType emits the business key of a write and its BusinessKey method:
//
//	type CreateThreadKey struct {
//		EscalationID string
//	}
//
//	func (k CreateThreadKey) BusinessKey() (string, error) {
//		if k.EscalationID == "" {
//			return "", &runtime.EmptyKeyError{Operation: "createThread", Field: "escalation_id"}
//		}
//		return "escalation:" + k.EscalationID, nil
//	}
func (g *generator) keyType(f *jen.File, op *spec.Operation) {
	key := op.Safety.Key
	format := strconv.Quote(oneLine(key.Format))
	fields := make([]jen.Code, 0, len(key.Fields))
	body := make([]jen.Code, 0, len(key.Fields)+1)
	for _, kf := range key.Fields {
		var zero jen.Code
		switch kf.Type {
		case "string":
			zero = jen.Lit("")
		case "int64":
			zero = jen.Lit(0)
		default:
			g.fail(op.Safety.Pos, op.ID, "key field %s: type %q is neither string nor int64", kf.Name, kf.Type)
			continue
		}
		fields = append(fields, jen.Id(kf.GoName).Id(kf.Type))
		body = append(body, jen.If(jen.Id("k").Dot(kf.GoName).Op("==").Add(zero)).Block(
			jen.Return(jen.Lit(""), jen.Op("&").Add(rt("EmptyKeyError")).Values(jen.Dict{
				jen.Id("Operation"): jen.Lit(op.ID),
				jen.Id("Field"):     jen.Lit(kf.Name),
			})),
		))
	}
	var parts []jen.Code
	for _, p := range key.Parts {
		switch {
		case p.Field == nil:
			parts = append(parts, jen.Lit(p.Literal))
		case p.Field.Type == "int64":
			parts = append(parts, jen.Qual("strconv", "FormatInt").Call(jen.Id("k").Dot(p.Field.GoName), jen.Lit(10)))
		default:
			parts = append(parts, jen.Id("k").Dot(p.Field.GoName))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, jen.Lit(""))
	}
	body = append(body, jen.Return(join(parts, "+"), jen.Nil()))

	f.Line()
	f.Comment(comment(key.TypeName + " identifies one logical " + op.ID + ": " + format +
		". Calls with equal keys are one write: the provider's idempotency key and the ledger's claim are derived from it."))
	f.Type().Id(key.TypeName).Struct(fields...)
	f.Line()
	f.Comment(comment("BusinessKey formats the key as " + format + "; it fails with a *runtime.EmptyKeyError when a field is empty or zero."))
	f.Func().Params(jen.Id("k").Id(key.TypeName)).Id("BusinessKey").Params().Params(jen.String(), jen.Error()).Block(body...)
}

// join joins codes with the binary operator op.
func join(codes []jen.Code, op string) *jen.Statement {
	s := jen.Add(codes[0])
	for _, c := range codes[1:] {
		s = s.Op(op).Add(c)
	}
	return s
}

// retryKinds lists the annotation's retry names in the order of the runtime's bits, with the
// runtime constant of each.
var retryKinds = []struct{ name, id string }{
	{"not_sent", "RetryNotSent"},
	{"ambiguous", "RetryAmbiguous"},
	{"status_408", "Retry408"},
	{"status_409", "Retry409"},
	{"status_425", "Retry425"},
	{"status_429", "Retry429"},
	{"status_500", "Retry500"},
	{"status_502", "Retry502"},
	{"status_503", "Retry503"},
	{"status_504", "Retry504"},
	{"status_5xx", "Retry5xx"},
}

// retrySet emits the compile-time retry set of a write:
//
//	const createThreadRetry = runtime.RetryNotSent | runtime.RetryAmbiguous | runtime.Retry429
func (g *generator) retrySet(f *jen.File, op *spec.Operation) {
	want := map[string]bool{}
	for _, name := range op.Safety.Retry {
		want[name] = true
	}
	var kinds []jen.Code
	for _, k := range retryKinds {
		if want[k.name] {
			kinds = append(kinds, rt(k.id))
			delete(want, k.name)
		}
	}
	for _, name := range op.Safety.Retry {
		if want[name] {
			g.fail(op.Safety.Pos, op.ID, "unknown retry kind %q", name)
		}
	}
	value := rt("Retry").Call(jen.Lit(0))
	if len(kinds) > 0 {
		value = join(kinds, "|")
	}
	f.Line()
	f.Comment("// " + g.local[op] + "Retry is the fixed set of failures after which " + op.GoName + " may be retried;\n" +
		"// client options can narrow it, never widen it.")
	f.Const().Id(g.local[op] + "Retry").Op("=").Add(value)
}

// readAttempts is how many times a read is attempted at most.
const readAttempts = 3

// effects maps the annotation's effects to the runtime's.
var effects = map[spec.Effect]string{
	spec.EffectReadOnly:      "EffectReadOnly",
	spec.EffectIdempotent:    "EffectIdempotent",
	spec.EffectReversible:    "EffectReversible",
	spec.EffectCompensatable: "EffectCompensatable",
	spec.EffectAmbiguous:     "EffectAmbiguous",
}

// descriptor emits the operation descriptor the runtime reads:
//
//	var createThreadOp = &runtime.Operation{
//		Name:   "createThread",
//		Method: "POST",
//		Path:   "/threads",
//		Effect: runtime.EffectAmbiguous,
//		Retry:  createThreadRetry,
//		...
//	}
func (g *generator) descriptor(f *jen.File, op *spec.Operation) {
	type field struct {
		name  string
		value jen.Code
	}
	fields := []field{
		{"Name", jen.Lit(op.ID)},
		{"Method", jen.Lit(op.Method)},
		{"Path", jen.Lit(op.Path)},
	}
	if s := op.Safety; s == nil {
		fields = append(fields,
			field{"Effect", rt("EffectReadOnly")},
			field{"Retry", rt("RetryReads")},
			field{"Attempts", jen.Lit(readAttempts)})
	} else {
		effect, ok := effects[s.Effect]
		if !ok {
			g.fail(s.Pos, op.ID, "unknown effect %q", s.Effect)
		}
		fields = append(fields,
			field{"Effect", rt(effect)},
			field{"Retry", jen.Id(g.local[op] + "Retry")},
			field{"Attempts", jen.Lit(s.Attempts)})
		if idem := s.Idempotency; idem != nil {
			if idem.Header != "" {
				fields = append(fields, field{"KeyHeader", jen.Lit(idem.Header)})
			}
			fields = append(fields, field{"Keyed", jen.True()})
			if idem.MaxLength > 0 {
				fields = append(fields, field{"KeyMaxLength", jen.Lit(idem.MaxLength)})
			}
			if idem.Window > 0 {
				fields = append(fields, field{"KeyWindow", duration(idem.Window)})
			}
		}
		if s.Receipt {
			fields = append(fields, field{"Receipt", jen.True()}, field{"IDPointer", jen.Lit(s.IDPointer)})
		}
		if l := s.Lookup; l != nil {
			c := "Strong"
			if l.Consistency == spec.Eventual {
				c = "Eventual"
			}
			fields = append(fields, field{"Lookup", rt(c)})
		}
		if s.Dedupe == "ledger" {
			fields = append(fields, field{"Dedupe", jen.True()})
		}
		if s.Owner != "" {
			fields = append(fields, field{"Owner", jen.Lit(s.Owner)})
		}
		if c := s.Credentials; c != nil && !c.RotationInvalidates {
			fields = append(fields, field{"RotationSafe", jen.True()})
		}
	}
	items := make([]jen.Code, len(fields))
	for i, fl := range fields {
		items[i] = jen.Id(fl.name).Op(":").Add(fl.value)
	}
	f.Line()
	f.Comment("// " + g.local[op] + "Op describes " + op.GoName + " to the runtime.")
	f.Var().Id(g.local[op]+"Op").Op("=").Op("&").Add(rt("Operation")).Custom(multiLine, items...)
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
