package safety

import (
	"slices"
	"strconv"
	"strings"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/naming"
)

// stems gives every operation in scope the unexported stem of the names it declares
// (createThread for CreateThread), unique among the operations.
func (r *Resolver) stems(ops []*ir.Operation) {
	claims := make([]*naming.Claim, len(ops))
	for i, op := range ops {
		claims[i] = &naming.Claim{Want: build.LowerFirst(op.GoName), Key: op.ID, Got: &op.Local}
	}
	naming.Settle(claims)
}

// declare names what each operation declares, decides how it is called, and checks the methods
// of Client: a lookup written by hand must not take a name the generated code declares.
func (r *Resolver) declare(ops []*ir.Operation) {
	methods := map[string]string{"Resume": "the method Resume", "impl": "the field impl of Client"}
	for _, op := range ops {
		methods[op.GoName] = "the method of " + strconv.Quote(op.ID)
		op.DescriptorName = op.Local + "Op"
		op.ParamsName = ""
		if len(op.Params) > 0 {
			op.ParamsName = op.GoName + "Params"
		}
		op.PathParts = build.PathParts(op)
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
		l := build.LookupOf(op)
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

// Assemble fills in api from the resolved operations, once every defect is reported.
func (r *Resolver) Assemble(api *ir.API) {
	api.Scope = r.a.Scope
	api.ScopePos = r.pos(r.a.ScopeNode)
	api.PerAccount, api.PerAccountPos = r.a.Tenancy.PerAccount, r.pos(r.a.Tenancy.Node)
	for _, so := range r.ops {
		if r.Scope[so] {
			op := so.Op
			api.Operations = append(api.Operations, op)
			if s := op.Safety; s != nil && s.Dedupe {
				api.NeedsLedger = true
			}
			if op.Call == ir.CallWrite || op.Call == ir.CallSubmit {
				api.Resumable = append(api.Resumable, op)
			}
		}
		if x := r.exclude[so]; x != nil {
			api.Excluded = append(api.Excluded, ir.Excluded{ID: so.Op.ID, Reason: x.Reason, Pos: r.pos(x.Node)})
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
	api.Types = r.b.Types
	slices.SortFunc(api.Types, func(x, y *ir.Type) int { return strings.Compare(x.Name, y.Name) })
}
