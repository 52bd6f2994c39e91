package spec

import (
	"fmt"
	"strings"

	"github.com/writegen/writegen/spec/ir"
)

// dumpAPI renders the IR as text, one line per node, for tests to compare.
func dumpAPI(api *ir.API) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s (%s %s) from %s and %s ledger=%v\n", api.Package, api.Title, api.Version, api.SpecFile, api.AnnotFile, api.NeedsLedger)
	for _, t := range api.Types {
		b.WriteString(dumpType(t))
	}
	for _, op := range api.Operations {
		fmt.Fprintf(&b, "op %s = %s %s %s write=%v at %v\n", op.GoName, op.ID, op.Method, op.Path, op.Write, op.Pos)
		for _, p := range op.Params {
			fmt.Fprintf(&b, "  param %s %s %q %s required=%v style=%s explode=%v\n", p.GoName, p.In, p.Name, p.Type, p.Required, p.Style, p.Explode)
		}
		if op.Body != nil {
			fmt.Fprintf(&b, "  body %s %s %s required=%v\n", op.Body.Encoding, op.Body.ContentType, op.Body.Type, op.Body.Required)
		}
		if r := op.Response; r != nil {
			fmt.Fprintf(&b, "  response %d %q %v\n", r.Status, r.ContentType, r.Type)
		}
		if s := op.Safety; s != nil {
			b.WriteString(dumpSafety(s))
		}
	}
	for _, x := range api.Excluded {
		fmt.Fprintf(&b, "excluded %s: %s at %v\n", x.ID, x.Reason, x.Pos)
	}
	return b.String()
}

func dumpType(t *ir.Type) string {
	var b strings.Builder
	fmt.Fprintf(&b, "type %s kind=%d schema=%q at %v\n", t.Name, t.Kind, t.SchemaName, t.Pos)
	for _, f := range t.Fields {
		fmt.Fprintf(&b, "  field %s %q %s required=%v nullable=%v readonly=%v\n", f.GoName, f.Name, f.Type, f.Required, f.Nullable, f.ReadOnly)
	}
	if t.AdditionalProperties != nil {
		fmt.Fprintf(&b, "  extra %s\n", t.AdditionalProperties)
	}
	for _, v := range t.Enum {
		fmt.Fprintf(&b, "  const %s = %#v (%s)\n", v.GoName, v.Value, t.Base)
	}
	for _, v := range t.Variants {
		fmt.Fprintf(&b, "  variant %s %s tags=%v\n", v.GoName, v.Type, v.Tags)
	}
	if t.Discriminator != "" {
		fmt.Fprintf(&b, "  discriminator %s\n", t.Discriminator)
	}
	if t.Elem != nil {
		fmt.Fprintf(&b, "  elem %s\n", t.Elem)
	}
	return b.String()
}

func dumpSafety(s *ir.Safety) string {
	var b strings.Builder
	id := ""
	if s.ID != nil {
		id = s.ID.Pointer
	}
	fmt.Fprintf(&b, "  safety at %v effect=%s destructive=%v receipt=%v id=%q retry=%v attempts=%d dedupe=%v uncertain=%s owner=%q inherited=%v\n",
		s.Pos, s.Effect, s.Destructive, s.Receipt, id, s.Retry, s.Attempts, s.Dedupe, s.Uncertain, s.Owner, s.Inherited)
	if k := s.Key; k != nil {
		fmt.Fprintf(&b, "  key %s scope=%s at %v %q fields=", k.TypeName, k.Scope, k.ScopePos, k.Format)
		for _, f := range k.Fields {
			fmt.Fprintf(&b, "{%s %s %s}", f.Name, f.GoName, f.Type)
		}
		b.WriteString(" parts=" + dumpParts(k.Parts) + "\n")
	}
	if i := s.Idempotency; i != nil {
		fmt.Fprintf(&b, "  idempotency %s max=%d window=%v\n", i.Place(), i.MaxLength, i.Window)
	}
	if r := s.Reference; r != nil {
		fmt.Fprintf(&b, "  reference body=%s query=%q value=%s\n", dumpPath(r.Body), r.Query, dumpParts(r.Value))
	}
	for _, set := range s.Sets {
		fmt.Fprintf(&b, "  set body=%s query=%q value=%d\n", dumpPath(set.Body), set.Query, set.Value)
	}
	if l := s.Lookup; l != nil {
		op := ""
		if l.Operation != nil {
			op = l.Operation.GoName
		}
		var params []string
		for _, p := range l.Params {
			params = append(params, p.Param.GoName+"="+p.Text)
		}
		fmt.Fprintf(&b, "  lookup %s func=%q op=%q params=%v found=%s consistency=%s\n", l.Name, l.Func, op, params, dumpPath(l.Found), l.Consistency)
	}
	if c := s.Compensate; c != nil {
		fmt.Fprintf(&b, "  compensate %s with %s\n", c.Name, c.Operation.GoName)
	}
	if s.Credentials != nil {
		fmt.Fprintf(&b, "  credentials %+v\n", *s.Credentials)
	}
	if in := s.Inbox; in != nil {
		fmt.Fprintf(&b, "  inbox %s %s source=%s retention=%v order=%s\n", in.GoName, in.Pos, in.Source, in.Retention, in.Order)
	}
	return b.String()
}

func dumpParts(parts []ir.KeyPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Field != nil {
			fmt.Fprintf(&b, "{%s}", p.Field.GoName)
		} else {
			fmt.Fprintf(&b, "%q", p.Literal)
		}
	}
	return b.String()
}

// dumpPath renders a typed path as its Go selectors: .Items[*].ID.
func dumpPath(p *ir.Path) string {
	if p == nil {
		return "-"
	}
	var b strings.Builder
	b.WriteString(p.Pointer + "=")
	for _, st := range p.Steps {
		switch st.Kind {
		case ir.StepField:
			b.WriteString("." + st.Field.GoName)
			if st.Field.Pointer {
				b.WriteString("*")
			}
		case ir.StepIndex:
			fmt.Fprintf(&b, "[%d]", st.Index)
		case ir.StepEach:
			b.WriteString("[*]")
		case ir.StepKey:
			fmt.Fprintf(&b, "[%q]", st.Key)
		}
	}
	b.WriteString(":" + p.Type.String())
	return b.String()
}
