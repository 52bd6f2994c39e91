package spec

import (
	"fmt"
	"strings"
)

// dumpAPI renders the IR as text, one line per node, for tests to compare.
func dumpAPI(api *API) string {
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

func dumpType(t *Type) string {
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

func dumpSafety(s *Safety) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  safety at %v effect=%s receipt=%v id=%q retry=%v attempts=%d dedupe=%q uncertain=%s owner=%q inherited=%v\n",
		s.Pos, s.Effect, s.Receipt, s.IDPointer, s.Retry, s.Attempts, s.Dedupe, s.Uncertain, s.Owner, s.Inherited)
	if k := s.Key; k != nil {
		fmt.Fprintf(&b, "  key %s %q fields=%v parts=", k.TypeName, k.Format, k.Fields)
		for _, p := range k.Parts {
			if p.Field != nil {
				fmt.Fprintf(&b, "{%s}", p.Field.GoName)
			} else {
				fmt.Fprintf(&b, "%q", p.Literal)
			}
		}
		b.WriteString("\n")
	}
	if i := s.Idempotency; i != nil {
		fmt.Fprintf(&b, "  idempotency %+v\n", *i)
	}
	if r := s.Reference; r != nil {
		fmt.Fprintf(&b, "  reference %+v\n", *r)
	}
	if l := s.Lookup; l != nil {
		op := ""
		if l.Operation != nil {
			op = l.Operation.GoName
		}
		fmt.Fprintf(&b, "  lookup func=%q op=%q params=%v found=%q consistency=%s\n", l.Func, op, l.Params, l.Found, l.Consistency)
	}
	if s.Compensate != nil {
		fmt.Fprintf(&b, "  compensate %s\n", s.Compensate.GoName)
	}
	if s.Credentials != nil {
		fmt.Fprintf(&b, "  credentials %+v\n", *s.Credentials)
	}
	if s.Inbox != nil {
		fmt.Fprintf(&b, "  inbox %+v\n", *s.Inbox)
	}
	return b.String()
}
