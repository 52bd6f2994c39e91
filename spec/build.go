package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/load"
	"github.com/writegen/writegen/spec/naming"
)

// Ranks of name claims: a lower rank keeps a contested name.
const (
	rankComponent = 1 // a components/schemas key: the name the spec gives
	rankInline    = 2 // a name made up from where a schema is written
	rankConst     = 3 // an enum constant: its type's name and its value
	rankInbox     = 0 // an inbox's constructor, named after its source, keeps its name over a type
)

// builder converts the spec's schemas and operations into the IR.
type builder struct {
	d        *load.Document
	types    []*ir.Type
	claims   []*naming.Claim
	byRef    map[string]*ir.TypeRef // by canonical reference; nil while being converted
	bySchema map[*openapi3.Schema]*ir.TypeRef
	unions   map[string]*ir.TypeRef // shared unions by signature
	// overrides are the annotation file's names, by the pointer of the schema they rename; the
	// types defined inside a renamed schema are named after the new name.
	overrides map[string]string
}

// claimType asks for the Go name a type wants, with what settles a collision: the literal
// spelling of its last pointer segment, and its kind as a suffix.
func (b *builder) claimType(t *ir.Type, want, key string, rank int) {
	c := &naming.Claim{Want: want, Key: key, Rank: rank, Got: &t.Name}
	if i := strings.LastIndex(key, "/"); i >= 0 {
		last := ir.UnescapePointer(key[i+1:])
		if g := naming.GoName(last); strings.HasSuffix(want, g) {
			if prefix := want[:len(want)-len(g)]; prefix != "" {
				c.Literal = prefix + naming.Literal(last)
			} else {
				c.Literal = naming.GoLiteral(last)
			}
		}
	}
	switch t.Kind {
	case ir.KindStruct:
		c.Alt = "Object"
	case ir.KindEnum:
		c.Alt = "Enum"
	case ir.KindUnion:
		c.Alt = "Union"
	case ir.KindAlias:
		c.Alt = "Type"
	}
	b.claims = append(b.claims, c)
}

// settle resolves every package-level name at once: the types (with the annotation file's
// overrides), the names the generated code reserves, enum constants, union accessors and inbox
// constructors. It then decides the Go shape of the types, names what each operation declares,
// and checks the answers of every write in scope (safety), so that each message names the types
// as the generated code does. It returns the defects found from here on.
func (b *builder) settle(r *resolver, a *annot.File) ir.ErrorList {
	start := len(r.errs)
	var errs ir.ErrorList
	byKey := make(map[string]*naming.Claim, len(b.claims))
	for _, c := range b.claims {
		byKey[c.Key] = c
	}
	for _, o := range a.Names {
		c := byKey[o.Ptr]
		if c == nil {
			if _, ok := b.d.ResolvePointer(strings.TrimPrefix(o.Ptr, "#")); !ok {
				errs = append(errs, &ir.Error{Pos: ir.Pos{File: a.File, Line: o.Node.Line, Col: o.Node.Column},
					Msg: fmt.Sprintf("names: %q names nothing in the spec", o.Ptr)})
			}
			continue
		}
		c.Want, c.Fixed = o.Name, o.Name != ""
	}
	reserved := []string{"Client", "NewClient", "DefaultBaseURL", "Writes"}
	var inScope []*specOp
	for _, so := range r.ops {
		if r.scope[so] {
			inScope = append(inScope, so)
			reserved = append(reserved, so.op.GoName+"Key", so.op.GoName+"Params")
		}
	}
	claims := append([]*naming.Claim(nil), b.claims...)
	for _, name := range reserved {
		claims = append(claims, &naming.Claim{Want: name, Key: "reserved:" + name, Fixed: true, Got: new(string)})
	}
	// An inbox's constructor is named after its source, and keeps the name over a type.
	inboxNames := map[string]*string{}
	for _, so := range inScope {
		if src, _ := r.from(so, "inbox"); so.op.Write && src != nil && src.Inbox != nil && inboxNames[src.Inbox.Source] == nil {
			got := new(string)
			inboxNames[src.Inbox.Source] = got
			source := src.Inbox.Source
			claims = append(claims, &naming.Claim{Want: "New" + naming.GoName(source) + "Inbox", Literal: "New" + naming.GoLiteral(source) + "Inbox",
				Key: "inbox:" + source, Rank: rankInbox, Got: got})
		}
	}
	fixed := make(map[string]*naming.Claim)
	for _, c := range claims {
		if !c.Fixed {
			continue
		}
		if prev := fixed[c.Want]; prev != nil {
			o, other := overrideFor(a, c.Key), prev
			if o == nil {
				o, other = overrideFor(a, prev.Key), c
			}
			if o != nil {
				errs = append(errs, &ir.Error{Pos: ir.Pos{File: a.File, Line: o.Node.Line, Col: o.Node.Column},
					Msg: fmt.Sprintf("names: %q is already the name of %s", c.Want, describeKey(other.Key))})
			}
			continue
		}
		fixed[c.Want] = c
	}
	naming.Settle(claims)

	// Enum constants share the package namespace with the types, which keep their names.
	taken := make([]*naming.Claim, 0, len(claims))
	for _, c := range claims {
		taken = append(taken, &naming.Claim{Want: *c.Got, Key: c.Key, Fixed: true, Got: new(string)})
	}
	for _, t := range b.types {
		for i := range t.Enum {
			v := &t.Enum[i]
			taken = append(taken, &naming.Claim{Want: t.Name + valueWord(v.Value), Literal: t.Name + naming.Literal(fmt.Sprint(v.Value)),
				Alt: "Value", Key: fmt.Sprintf("%s=%v", t.Name, v.Value), Rank: rankConst, Got: &v.GoName})
		}
		var vclaims []*naming.Claim
		for i, v := range t.Variants {
			if v.Type.Kind != ir.RefNamed || v.GoName == "" {
				v.GoName = builtinWord(v.Type)
			}
			vclaims = append(vclaims, &naming.Claim{Want: v.GoName, Key: fmt.Sprintf("%06d", i), Got: &v.GoName})
		}
		naming.Settle(vclaims)
		unionMethods(t)
	}
	naming.Settle(taken)

	ops := make([]*ir.Operation, len(inScope))
	for i, so := range inScope {
		ops[i] = so.op
	}
	errs = append(errs, b.shape(ops)...)
	r.stems(ops)
	for _, so := range inScope {
		if so.op.Write {
			r.safety(so)
		}
	}
	for source, got := range inboxNames {
		if in := r.inboxes[source]; in != nil {
			in.GoName = *got
		}
	}
	r.declare(ops)
	return append(errs, r.errs[start:]...)
}

// unionMembers are the members of a union's method set other than its variants' accessors
// and setters: the embedded json.RawMessage, the methods it promotes, and the methods of a
// discriminated union.
var unionMembers = []string{"RawMessage", "MarshalJSON", "UnmarshalJSON", "Discriminator", "Value"}

// unionMethods names the accessor (As<GoName>) and the setter (From<GoName>) of each variant of
// a union, apart from each other and from unionMembers.
func unionMethods(t *ir.Type) {
	if len(t.Variants) == 0 {
		return
	}
	var claims []*naming.Claim
	for _, m := range unionMembers {
		claims = append(claims, &naming.Claim{Want: m, Key: "member " + m, Fixed: true, Got: new(string)})
	}
	for i, v := range t.Variants {
		claims = append(claims,
			&naming.Claim{Want: "As" + v.GoName, Alt: "Variant", Key: fmt.Sprintf("as %06d", i), Got: &v.AsName},
			&naming.Claim{Want: "From" + v.GoName, Alt: "Variant", Key: fmt.Sprintf("from %06d", i), Got: &v.FromName})
	}
	naming.Settle(claims)
}

// stems gives every operation in scope the unexported stem of the names it declares
// (createThread for CreateThread), unique among the operations.
func (r *resolver) stems(ops []*ir.Operation) {
	claims := make([]*naming.Claim, len(ops))
	for i, op := range ops {
		claims[i] = &naming.Claim{Want: lowerFirst(op.GoName), Key: op.ID, Got: &op.Local}
	}
	naming.Settle(claims)
}

// declare names what each operation declares, decides how it is called, and checks the methods
// of Client: a lookup written by hand must not take a name the generated code declares.
func (r *resolver) declare(ops []*ir.Operation) {
	methods := map[string]string{"Resume": "the method Resume", "impl": "the field impl of Client"}
	for _, op := range ops {
		methods[op.GoName] = "the method of " + strconv.Quote(op.ID)
		op.DescriptorName = op.Local + "Op"
		op.ParamsName = ""
		if len(op.Params) > 0 {
			op.ParamsName = op.GoName + "Params"
		}
		op.PathParts = pathParts(op)
		op.Call = ir.CallRead
		s := op.Safety
		if !op.Write {
			continue
		}
		op.RetryName = op.Local + "Retry"
		switch {
		case s == nil || s.Effect == runtime.EffectReadOnly:
		case s.Key != nil && s.Receipt:
			op.Call = ir.CallWrite
		case s.Key != nil:
			op.Call = ir.CallSubmit
		default:
			op.Call = ir.CallDo
		}
		if s == nil {
			continue
		}
		if s.ID != nil {
			op.IDName = op.Local + "ID"
		}
		if l := s.Lookup; l != nil && l.Operation != nil && (l.Object || l.Extends || l.Copies) {
			op.EnvelopeName = op.Local + "Envelope"
		}
		if s.OK != nil {
			op.RefusedName = op.Local + "Refused"
		}
		if s.Reference != nil && s.Reference.Through != nil {
			op.VariantName = op.Local + "Variant"
		}
		if l := s.Lookup; l != nil && l.Operation != nil {
			methods[l.Name] = "the generated lookup of " + strconv.Quote(op.ID)
		}
		if c := s.Compensate; c != nil {
			methods[c.Name] = "the generated compensation of " + strconv.Quote(op.ID)
		}
	}
	funcs := map[string]*ir.Operation{}
	for _, op := range ops {
		l := lookupOf(op)
		if l == nil || l.Func == "" {
			continue
		}
		if what, ok := methods[l.Func]; ok {
			r.errorAt(l.Pos, op.ID, "lookup func %s is %s: name the method written by hand otherwise", l.Func, what)
			continue
		}
		if prev := funcs[l.Func]; prev != nil && !ir.SameType(prev.Response.Type, op.Response.Type) {
			r.errorAt(l.Pos, op.ID, "lookup func %s is also the lookup of %q, which finds %s, not %s: give each its own func",
				l.Func, prev.ID, ir.DescribeRef(prev.Response.Type), ir.DescribeRef(op.Response.Type))
			continue
		}
		funcs[l.Func] = op
	}
}

// lookupOf returns the lookup of a write, or nil.
func lookupOf(op *ir.Operation) *ir.Lookup {
	if op.Safety == nil {
		return nil
	}
	return op.Safety.Lookup
}

// pathParts splits an operation's path template into literals and its path parameters. Every
// placeholder of a well-formed template has its parameter (params sees to it); a malformed one
// is refused by listOperations, and split here as far as it goes.
func pathParts(op *ir.Operation) []ir.PathPart {
	var out []ir.PathPart
	rest := op.Path
	for rest != "" {
		open := strings.IndexByte(rest, '{')
		closing := strings.IndexByte(rest[max(open, 0):], '}')
		if open < 0 || closing < 0 {
			out = append(out, ir.PathPart{Literal: rest})
			break
		}
		end := open + closing
		if open > 0 {
			out = append(out, ir.PathPart{Literal: rest[:open]})
		}
		name := rest[open+1 : end]
		rest = rest[end+1:]
		for _, p := range op.Params {
			if p.In == ir.InPath && p.Name == name {
				out = append(out, ir.PathPart{Param: p})
				break
			}
		}
	}
	return out
}

// assemble fills in api from the resolved operations, once every defect is reported.
func (r *resolver) assemble(api *ir.API) {
	api.Scope = r.a.Scope
	api.ScopePos = r.pos(r.a.ScopeNode)
	api.PerAccount, api.PerAccountPos = r.a.Tenancy.PerAccount, r.pos(r.a.Tenancy.Node)
	for _, so := range r.ops {
		if r.scope[so] {
			op := so.op
			api.Operations = append(api.Operations, op)
			if s := op.Safety; s != nil && s.Dedupe {
				api.NeedsLedger = true
			}
			if op.Call == ir.CallWrite || op.Call == ir.CallSubmit {
				api.Resumable = append(api.Resumable, op)
			}
		}
		if x := r.exclude[so]; x != nil {
			api.Excluded = append(api.Excluded, ir.Excluded{ID: so.op.ID, Reason: x.Reason, Pos: r.pos(x.Node)})
		}
	}
	byGoName := func(x, y *ir.Operation) int { return strings.Compare(x.GoName, y.GoName) }
	slices.SortFunc(api.Operations, byGoName)
	slices.SortFunc(api.Resumable, byGoName)
	slices.SortFunc(api.Excluded, func(x, y ir.Excluded) int { return strings.Compare(x.ID, y.ID) })
	for _, in := range r.inboxes {
		slices.SortFunc(in.Writes, byGoName)
		api.Inboxes = append(api.Inboxes, in)
	}
	slices.SortFunc(api.Inboxes, func(x, y *ir.Inbox) int { return strings.Compare(x.Source, y.Source) })
	api.Types = r.b.types
	slices.SortFunc(api.Types, func(x, y *ir.Type) int { return strings.Compare(x.Name, y.Name) })
}

func overrideFor(a *annot.File, ptr string) *annot.NameOverride {
	for _, o := range a.Names {
		if o.Ptr == ptr {
			return o
		}
	}
	return nil
}

func describeKey(key string) string {
	if name, ok := strings.CutPrefix(key, "reserved:"); ok {
		return "generated " + name
	}
	return key
}

// valueWord names an enum value inside its constant: "in_progress" -> "InProgress", "" ->
// "Empty", -1 -> "Minus1", "Etc/GMT+1" -> "EtcGMTPlus1", "!=" -> "NotEq".
func valueWord(v any) string {
	s := fmt.Sprint(v)
	switch {
	case s == "":
		return "Empty"
	case len(naming.Words(s)) == 0:
		return naming.Spell(s)
	}
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if (r == '+' || r == '-') && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) {
			b.WriteString(naming.SymbolWords[r])
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return naming.JoinWords(naming.Words(b.String()))
}
