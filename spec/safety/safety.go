package safety

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// Resolver matches the annotation file to the spec's operations, decides the scope and turns
// the answers into validated Safety.
type Resolver struct {
	b       *build.Builder
	a       *annot.File
	rule    string // the safety check's rule running, for the defects it finds (Error.Rule)
	ops     []*build.Op
	byName  map[string]*build.Op // operationId and "METHOD /path"
	entries map[*build.Op]*annot.Answers
	exclude map[*build.Op]*annot.Exclusion
	// Scope holds the operations in scope, once DecideScope has run.
	Scope map[*build.Op]bool
	// The operations the answers of a write name, found when the scope is decided.
	lookupOp, adoptOp, compensateOp map[*build.Op]*build.Op
	keyScopes                       map[string]*ir.Operation
	// Defective names the operations a defect of the spec is reported for: the checks of
	// answers that depend on their types are not made. Load marks them.
	Defective map[string]bool
	// meant holds the operations an entry that names no operation looks like a misspelling of.
	meant   map[*build.Op]bool
	inboxes map[string]*ir.Inbox
	// Errs are the refusals found by Bind, DecideScope and Resolve; Settle returns its own.
	Errs ir.ErrorList
}

// New returns a Resolver of the answers a gives for the operations ops that b listed. Load runs
// its stages in order: Bind, DecideScope, Resolve, Settle, Assemble.
func New(b *build.Builder, a *annot.File, ops []*build.Op) *Resolver {
	r := &Resolver{b: b, a: a, ops: ops, byName: make(map[string]*build.Op),
		entries: make(map[*build.Op]*annot.Answers), exclude: make(map[*build.Op]*annot.Exclusion), Scope: make(map[*build.Op]bool),
		lookupOp: make(map[*build.Op]*build.Op), adoptOp: make(map[*build.Op]*build.Op), compensateOp: make(map[*build.Op]*build.Op),
		keyScopes: make(map[string]*ir.Operation), inboxes: make(map[string]*ir.Inbox), Defective: make(map[string]bool)}
	for _, so := range ops {
		r.byName[so.Op.ID] = so
		r.byName[so.Op.Method+" "+so.Op.SpecPath] = so
	}
	return r
}

// pos is the position of node n of the annotation file.
func (r *Resolver) pos(n *yaml.Node) ir.Pos {
	if n == nil {
		return ir.Pos{File: r.a.File}
	}
	return ir.Pos{File: r.a.File, Line: n.Line, Col: n.Column}
}

// errorf records a defect of the annotation file at node n.
func (r *Resolver) errorf(n *yaml.Node, op, format string, args ...any) {
	r.errorAt(r.pos(n), op, format, args...)
}

func (r *Resolver) errorAt(pos ir.Pos, op, format string, args ...any) {
	r.Errs = append(r.Errs, &ir.Error{Pos: pos, Operation: op, Msg: fmt.Sprintf(format, args...), Rule: r.rule})
}

// find returns the operation an annotation names: an operationId or "METHOD /path".
func (r *Resolver) find(name string) *build.Op {
	if so := r.byName[name]; so != nil {
		return so
	}
	if method, path, ok := strings.Cut(name, " "); ok {
		return r.byName[strings.ToUpper(method)+" "+strings.TrimSpace(path)]
	}
	return nil
}

// closestOp returns the operation whose operationId name looks like a misspelling of, or nil.
func (r *Resolver) closestOp(name string) *build.Op {
	ids := make([]string, len(r.ops))
	for i, so := range r.ops {
		ids[i] = so.Op.ID
	}
	if like := annot.Closest(name, ids); like != "" {
		return r.byName[like]
	}
	return nil
}

// suggestOp returns Suggest's answer for an operation name, "" when none is close.
func (r *Resolver) suggestOp(name string) string {
	if so := r.closestOp(name); so != nil {
		return " (did you mean " + strconv.Quote(so.Op.ID) + "?)"
	}
	return ""
}

// Bind matches entries and exclusions to operations.
func (r *Resolver) Bind() {
	named := make(map[*build.Op]*yaml.Node)
	claim := func(so *build.Op, n *yaml.Node, id string) bool {
		prev, dup := named[so]
		if !dup {
			named[so] = n
			return true
		}
		r.errorf(n, id, "%s %s is already named at line %d (as %q)", so.Op.Method, so.Op.SpecPath, prev.Line, prev.Value)
		return false
	}
	for _, e := range r.a.Entries {
		so := r.find(e.ID)
		switch {
		case e.ID == "":
		case so == nil:
			like := r.closestOp(e.ID)
			if like == nil {
				r.errorf(e.At, e.ID, "no such operation in the spec (name it by operationId or as \"POST /path\")")
				break
			}
			r.errorf(e.At, e.ID, "no such operation in the spec (did you mean %q?)", like.Op.ID)
			if r.meant == nil {
				r.meant = map[*build.Op]bool{}
			}
			r.meant[like] = true // its missing answers are this entry's misspelling, not a defect of their own
		case !so.Op.Write:
			r.errorf(e.At, e.ID, "%s is a read: only writes take write-safety answers", so.Op.Method)
		case claim(so, e.At, e.ID):
			r.entries[so] = e
		}
	}
	for _, x := range r.a.Excludes {
		so := r.find(x.ID)
		switch {
		case x.ID == "":
		case so == nil:
			r.errorf(x.Node, x.ID, "excluded operation is not in the spec%s", r.suggestOp(x.ID))
		case r.entries[so] != nil:
			r.errorf(x.Node, x.ID, "%s %s is answered at line %d and excluded here: keep one", so.Op.Method, so.Op.SpecPath, r.entries[so].At.Line)
		case claim(so, x.Node, x.ID):
			r.exclude[so] = x
		}
	}
}

// DecideScope puts in scope every operation the include filter selects (all, without one) that is
// not excluded. Entries outside the filter need no answers: their placeholders do not block.
func (r *Resolver) DecideScope() {
	in := r.a.Include
	pick := make(map[*build.Op]bool)
	tags := make(map[string]bool)
	if in != nil {
		known := make(map[string]bool)
		for _, so := range r.ops {
			for _, t := range so.Op.Tags {
				known[t] = true
			}
		}
		for _, n := range in.Operations {
			if so := r.find(n.Value); so != nil {
				pick[so] = true
			} else {
				r.errorf(n, n.Value, "included operation is not in the spec%s", r.suggestOp(n.Value))
			}
		}
		for _, n := range in.Tags {
			if !known[n.Value] {
				r.errorf(n, "", "included tag %q is not used by any operation", n.Value)
			}
			tags[n.Value] = true
		}
	}
	for _, so := range r.ops {
		if r.exclude[so] != nil {
			continue
		}
		if in == nil || pick[so] || slices.ContainsFunc(so.Op.Tags, func(t string) bool { return tags[t] }) {
			r.Scope[so] = true
		}
	}
}

// Resolve converts every operation in scope and finds the operations their answers name:
// lookups and compensations pull them into scope. The answers themselves are checked once every
// name is settled (safety).
func (r *Resolver) Resolve() {
	queue := make([]*build.Op, 0, len(r.Scope))
	for _, so := range r.ops {
		if r.Scope[so] {
			queue = append(queue, so)
		}
	}
	for len(queue) > 0 {
		so := queue[0]
		queue = queue[1:]
		r.b.Convert(so)
		if !so.Op.Write {
			continue
		}
		for _, dep := range r.deps(so) {
			if !r.Scope[dep] {
				r.Scope[dep] = true
				queue = append(queue, dep)
				r.b.Convert(dep)
			}
		}
	}
}

// UnscopedLookups warns of every lookup written in the entry of an operation outside the scope
// (include): it is neither generated nor checked, and says so rather than vanish.
func (r *Resolver) UnscopedLookups() ir.ErrorList {
	var out ir.ErrorList
	for _, so := range r.ops {
		e := r.entries[so]
		if r.Scope[so] || e == nil || e.Set["lookup"] == nil {
			continue
		}
		out = append(out, &ir.Error{Pos: r.pos(e.Set["lookup"]), Operation: so.Op.ID,
			Msg: "the lookup of an operation outside the scope (include) is neither generated nor checked: include the operation, or leave the lookup out"})
	}
	return out
}

// annotated reports whether a write has answers: an entry, or defaults.
func (r *Resolver) annotated(so *build.Op) bool {
	return r.entries[so] != nil || r.a.Defaults != nil && r.exclude[so] == nil
}

// from returns the answers of a write that a key is taken from: its entry's, else the
// defaults'. inherited reports the second.
func (r *Resolver) from(so *build.Op, k string) (a *annot.Answers, inherited bool) {
	if e := r.entries[so]; e != nil && e.Set[k] != nil {
		return e, false
	}
	if d := r.a.Defaults; d != nil && d.Set[k] != nil {
		return d, true
	}
	return nil, false
}

// deps finds the operations a write's lookup and compensation name, and reports its
// placeholders: the write is in scope.
func (r *Resolver) deps(so *build.Op) []*build.Op {
	op := so.Op
	if e := r.entries[so]; e != nil {
		r.Errs = append(r.Errs, e.Todos...)
	}
	var deps []*build.Op
	if src, _ := r.from(so, "lookup"); src != nil && src.Lookup != nil && src.Lookup.Op != "" {
		l := src.Lookup
		if lo := r.readOf(so, l.Op, l.OpNode, "lookup operation"); lo != nil {
			r.lookupOp[so] = lo
			deps = append(deps, lo)
		}
		if a := l.AdoptRead; a != nil && a.Op != "" {
			if ao := r.readOf(so, a.Op, a.OpNode, "lookup adopt"); ao != nil {
				r.adoptOp[so] = ao
				deps = append(deps, ao)
			}
		}
	}
	if src, _ := r.from(so, "compensate"); src != nil && src.Compensate != nil && src.Compensate.Op != "" {
		c := src.Compensate
		co := r.find(c.Op)
		switch {
		case co == nil:
			r.errorf(c.OpNode, op.ID, "compensation %q is not in the spec%s", c.Op, r.suggestOp(c.Op))
		case co == so:
			r.errorf(c.OpNode, op.ID, "an operation cannot compensate itself")
		case !co.Op.Write:
			r.errorf(c.OpNode, op.ID, "compensation %q is a read (%s), not a write", c.Op, co.Op.Method)
		case r.exclude[co] != nil:
			r.errorf(c.OpNode, op.ID, "compensation %q is excluded", c.Op)
		case !r.annotated(co):
			r.errorf(c.OpNode, op.ID, "compensation %q has no write-safety annotation", c.Op)
		default:
			r.compensateOp[so] = co
			deps = append(deps, co)
		}
	}
	return deps
}

// readOf finds the read an answer of so names (what, for messages: "lookup operation"), or
// reports why it is none: not in the spec, so itself, a write (unless its entry says read_only),
// or excluded.
func (r *Resolver) readOf(so *build.Op, name string, n *yaml.Node, what string) *build.Op {
	ro := r.find(name)
	switch {
	case ro == nil:
		r.errorf(n, so.Op.ID, "%s %q is not in the spec%s", what, name, r.suggestOp(name))
	case ro == so:
		r.errorf(n, so.Op.ID, "an operation cannot be its own lookup")
	case ro.Op.Write && !(r.entries[ro] != nil && r.entries[ro].Effect == runtime.EffectReadOnly):
		r.errorf(n, so.Op.ID, "%s %q is not a read (%s): a search sent as %s is a lookup once its entry says effect: read_only", what, name, ro.Op.Method, ro.Op.Method)
	case r.exclude[ro] != nil:
		r.errorf(n, so.Op.ID, "%s %q is excluded", what, name)
	default:
		return ro
	}
	return nil
}

func src0(from func(string) *annot.Answers, k string) *yaml.Node {
	if a := from(k); a != nil {
		return a.Set[k]
	}
	return nil
}

// entryNode is the key naming a write's entry, or the defaults key when it has none.
func (r *Resolver) entryNode(so *build.Op) *yaml.Node {
	if e := r.entries[so]; e != nil {
		return e.At
	}
	return r.a.Defaults.At
}

// bodyPath resolves a pointer to a string of the request body that the generated code fills in.
func (r *Resolver) bodyPath(so *build.Op, n *yaml.Node, what, ptr string) *ir.Path {
	body := so.Op.Body
	switch {
	case body == nil:
		r.errorf(n, so.Op.ID, "%s %q: the operation has no request body", what, ptr)
		return nil
	case body.Encoding == ir.BodyRaw:
		r.errorf(n, so.Op.ID, "%s %q: the request body is raw bytes of %s, which writegen does not fill in", what, ptr, body.ContentType)
		return nil
	}
	p, why := ir.ResolvePath(body.Type, ptr, ir.SetPath)
	if why != "" {
		r.errorf(n, so.Op.ID, "%s %q does not resolve in the request body: %s", what, ptr, why)
		return nil
	}
	if len(p.Steps) == 0 {
		r.errorf(n, so.Op.ID, "%s %q is the whole body: point at a string field", what, ptr)
		return nil
	}
	last := p.Steps[len(p.Steps)-1]
	u := ir.Under(p.Type)
	ok := false
	switch {
	case ir.StringVariant(p.Type) != nil: // a oneOf/anyOf with a string member, set to that member
		ok = true
	case last.Kind == ir.StepField && last.Field.Pointer:
		ok = p.Type.Kind == ir.RefBuiltin && p.Type.Builtin == "string"
	default:
		ok = ir.IsStringType(p.Type) || u.Kind == ir.RefBuiltin && u.Builtin == "any"
	}
	if !ok {
		r.errorf(n, so.Op.ID, "%s %q is %s, not a string: writegen stores a string there", what, ptr, ir.DescribeRef(p.Type))
		return nil
	}
	p.Pos = r.pos(n)
	return p
}

// readAttempts is how many times a read is attempted at most; a read_only write without a retry
// answer is retried like a read.
const readAttempts = 3

func pointerOf(p *ir.Path) string {
	if p == nil {
		return ""
	}
	return p.Pointer
}

func paramNames(op *ir.Operation) []string {
	var out []string
	for _, q := range op.Params {
		out = append(out, q.Name)
	}
	return out
}

func pathSteps(p *ir.Path) []ir.Step {
	if p == nil {
		return nil
	}
	return p.Steps
}

// dropKeyParam removes the parameter the idempotency key travels in: the generated code sets it
// from the provider key, so callers never pass it.
func (r *Resolver) dropKeyParam(so *build.Op) {
	idem := so.Op.Safety.Idempotency
	if idem == nil {
		return
	}
	so.Op.Params = slices.DeleteFunc(so.Op.Params, func(p *ir.Param) bool {
		return idem.Header != "" && p.In == ir.InHeader && strings.EqualFold(p.Name, idem.Header) ||
			idem.Query != "" && p.In == ir.InQuery && p.Name == idem.Query
	})
}

// Settle settles the package's names (builder.settle) and then checks the answers of every
// write in scope (safety), so that each message names the types as the generated code does, and
// names what each operation declares. It returns the defects found from here on.
func (r *Resolver) Settle(a *annot.File) ir.ErrorList {
	start := len(r.Errs)
	var inScope []*build.Op
	var sources []string
	for _, so := range r.ops {
		if !r.Scope[so] {
			continue
		}
		inScope = append(inScope, so)
		if src, _ := r.from(so, "inbox"); so.Op.Write && src != nil && src.Inbox != nil {
			sources = append(sources, src.Inbox.Source)
		}
	}
	inboxNames, errs := r.b.Settle(a, inScope, sources)
	ops := make([]*ir.Operation, len(inScope))
	for i, so := range inScope {
		ops[i] = so.Op
	}
	r.stems(ops)
	for _, so := range inScope {
		if so.Op.Write {
			r.safety(so)
		}
	}
	for source, got := range inboxNames {
		if in := r.inboxes[source]; in != nil {
			in.GoName = *got
		}
	}
	r.declare(ops)
	return append(errs, r.Errs[start:]...)
}
