package spec

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

// resolver matches the annotation file to the spec's operations, decides the scope and turns
// the answers into validated Safety.
type resolver struct {
	b       *builder
	a       *annotations
	ops     []*specOp
	byName  map[string]*specOp // operationId and "METHOD /path"
	entries map[*specOp]*answers
	exclude map[*specOp]*exclusion
	scope   map[*specOp]bool
	errs    ErrorList
}

func newResolver(b *builder, a *annotations, ops []*specOp) *resolver {
	r := &resolver{b: b, a: a, ops: ops, byName: make(map[string]*specOp),
		entries: make(map[*specOp]*answers), exclude: make(map[*specOp]*exclusion), scope: make(map[*specOp]bool)}
	for _, so := range ops {
		r.byName[so.op.ID] = so
		r.byName[so.op.Method+" "+so.op.Path] = so
	}
	return r
}

// errorf records a defect of the annotation file at node n.
func (r *resolver) errorf(n *yaml.Node, op, format string, args ...any) {
	e := &Error{Pos: Pos{File: r.a.file}, Operation: op, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Pos.Line, e.Pos.Col = n.Line, n.Column
	}
	r.errs = append(r.errs, e)
}

// find returns the operation an annotation names: an operationId or "METHOD /path".
func (r *resolver) find(name string) *specOp {
	if so := r.byName[name]; so != nil {
		return so
	}
	if method, path, ok := strings.Cut(name, " "); ok {
		return r.byName[strings.ToUpper(method)+" "+strings.TrimSpace(path)]
	}
	return nil
}

// bind matches entries and exclusions to operations.
func (r *resolver) bind() {
	named := make(map[*specOp]*yaml.Node)
	claim := func(so *specOp, n *yaml.Node, id string) bool {
		prev, dup := named[so]
		if !dup {
			named[so] = n
			return true
		}
		r.errorf(n, id, "%s %s is already named at line %d (as %q)", so.op.Method, so.op.Path, prev.Line, prev.Value)
		return false
	}
	for _, e := range r.a.entries {
		so := r.find(e.id)
		switch {
		case e.id == "":
		case so == nil:
			r.errorf(e.at, e.id, "no such operation in the spec (name it by operationId or as \"POST /path\")")
		case !so.op.Write:
			r.errorf(e.at, e.id, "%s is a read: only writes take write-safety answers", so.op.Method)
		case claim(so, e.at, e.id):
			r.entries[so] = e
		}
	}
	for _, x := range r.a.excludes {
		so := r.find(x.id)
		switch {
		case x.id == "":
		case so == nil:
			r.errorf(x.node, x.id, "excluded operation is not in the spec")
		case r.entries[so] != nil:
			r.errorf(x.node, x.id, "%s %s is answered at line %d and excluded here: keep one", so.op.Method, so.op.Path, r.entries[so].at.Line)
		case claim(so, x.node, x.id):
			r.exclude[so] = x
		}
	}
}

// decideScope puts in scope every operation the include filter selects (all, without one) that is
// not excluded.
func (r *resolver) decideScope() {
	in := r.a.include
	pick := make(map[*specOp]bool)
	tags := make(map[string]bool)
	if in != nil {
		known := make(map[string]bool)
		for _, so := range r.ops {
			for _, t := range so.op.Tags {
				known[t] = true
			}
		}
		for _, n := range in.operations {
			if so := r.find(n.Value); so != nil {
				pick[so] = true
			} else {
				r.errorf(n, n.Value, "included operation is not in the spec")
			}
		}
		for _, n := range in.tags {
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
		if in == nil || pick[so] || slices.ContainsFunc(so.op.Tags, func(t string) bool { return tags[t] }) {
			r.scope[so] = true
		}
	}
}

// resolve converts every operation in scope and answers the safety questions of its writes.
// Lookups and compensations pull the operations they name into scope.
func (r *resolver) resolve() {
	queue := make([]*specOp, 0, len(r.scope))
	for _, so := range r.ops {
		if r.scope[so] {
			queue = append(queue, so)
		}
	}
	for len(queue) > 0 {
		so := queue[0]
		queue = queue[1:]
		r.b.convert(so)
		if !so.op.Write {
			continue
		}
		for _, dep := range r.safety(so) {
			if !r.scope[dep] {
				r.scope[dep] = true
				queue = append(queue, dep)
				r.b.convert(dep)
			}
		}
	}
}

// annotated reports whether a write has answers: an entry, or defaults.
func (r *resolver) annotated(so *specOp) bool {
	return r.entries[so] != nil || r.a.defaults != nil && r.exclude[so] == nil
}

// safety builds and checks the Safety of one write and returns the operations it depends on.
func (r *resolver) safety(so *specOp) []*specOp {
	op := so.op
	entry, def := r.entries[so], r.a.defaults
	if entry == nil && def == nil {
		r.errs = append(r.errs, &Error{Pos: op.Pos, Operation: op.ID,
			Msg: op.Method + " has no write-safety annotation: answer it under operations, or list it under exclude"})
		return nil
	}
	s := &Safety{Uncertain: "reconcile", Attempts: 1}
	at := def
	if entry != nil {
		at = entry
	}
	s.Pos = Pos{File: r.a.file, Line: at.at.Line, Col: at.at.Column}
	// from returns the answers a key is taken from, recording what came from the defaults.
	from := func(k string) *answers {
		if entry != nil && entry.set[k] != nil {
			return entry
		}
		if def != nil && def.set[k] != nil {
			s.Inherited = append(s.Inherited, k)
			return def
		}
		return nil
	}
	fail := func(n *yaml.Node, format string, args ...any) { r.errorf(n, op.ID, format, args...) }

	src := from("effect")
	if src == nil {
		fail(at.at, "effect is required: read_only, idempotent, reversible, compensatable or ambiguous")
		return nil
	}
	s.Effect = src.effect
	effectNode := src.set["effect"]
	if src := from("key"); src != nil && src.key != nil {
		s.Key = cloneKey(src.key, op.GoName+"Key")
	} else if (src == nil || src.none["key"]) && s.Effect != EffectIdempotent && s.Effect != EffectReadOnly && s.Effect != "" {
		fail(at.at, "effect %s needs a key: the business key callers pass (key: {fields: ..., format: ...})", s.Effect)
	}
	if src := from("idempotency"); src != nil && src.idempotency != nil {
		idem := *src.idempotency
		s.Idempotency = &idem
		if idem.Body != "" {
			r.checkBodyPointer(so, src.idemBodyNode, "idempotency body", idem.Body)
		}
	}
	if src := from("reference"); src != nil && src.reference != nil {
		ref := *src.reference
		s.Reference = &ref
		if ref.Body != "" {
			r.checkBodyPointer(so, src.refBodyNode, "reference body", ref.Body)
		}
	}
	if s.Effect == EffectReadOnly {
		// A read answers with its body: it has no receipt, and a receipt of the defaults does not apply.
		if entry != nil && entry.set["response"] != nil {
			fail(entry.set["response"], "a read_only operation answers like a read: leave response out")
		}
	} else if src := from("response"); src != nil {
		s.Receipt = src.respIs == "receipt"
		s.IDPointer = src.respID
		if s.Receipt && s.IDPointer != "" {
			r.checkIDPointer(so, src.respIDNode, s.IDPointer)
		}
	} else {
		fail(at.at, "response is required: is the 2xx a receipt (response: {is: receipt, id: /id}) or an acknowledgement?")
	}
	var deps []*specOp
	if src := from("lookup"); src != nil && src.lookup != nil {
		var dep *specOp
		s.Lookup, dep = r.lookup(so, src.lookup)
		if dep != nil {
			deps = append(deps, dep)
		}
	}
	if src := from("retry"); src != nil {
		s.Attempts = src.attempts
		for _, rn := range src.retry {
			s.Retry = append(s.Retry, rn.name)
			switch {
			case rn.name == "ambiguous" && s.Idempotency == nil && s.Effect != EffectIdempotent && s.Effect != EffectReadOnly &&
				(s.Lookup == nil || s.Lookup.Consistency != Strong):
				fail(rn.node, "retry on ambiguous can duplicate the effect: the operation has no idempotency key, no strongly consistent lookup, and is not idempotent")
			case rn.name == "status_409" && s.Idempotency == nil:
				fail(rn.node, "retry on status_409 needs an idempotency key: without one a retry races the first attempt")
			}
		}
		slices.Sort(s.Retry)
	}
	if src := from("compensate"); src != nil && src.compensate != "" {
		c := r.find(src.compensate)
		switch {
		case c == nil:
			fail(src.compensateNode, "compensation %q is not in the spec", src.compensate)
		case c == so:
			fail(src.compensateNode, "an operation cannot compensate itself")
		case !c.op.Write:
			fail(src.compensateNode, "compensation %q is a read (%s), not a write", src.compensate, c.op.Method)
		case r.exclude[c] != nil:
			fail(src.compensateNode, "compensation %q is excluded", src.compensate)
		case !r.annotated(c):
			fail(src.compensateNode, "compensation %q has no write-safety annotation", src.compensate)
		default:
			s.Compensate = c.op
			deps = append(deps, c)
		}
	} else if s.Effect == EffectCompensatable {
		fail(effectNode, "effect compensatable needs compensate: the operation that undoes it")
	}
	if src := from("dedupe"); src != nil {
		s.Dedupe = src.dedupe
		if s.Dedupe == "ledger" && s.Key == nil {
			fail(src.set["dedupe"], "dedupe: ledger claims the business key, but the operation has no key")
		}
	}
	if src := from("uncertain"); src != nil && src.uncertain != "" {
		s.Uncertain = src.uncertain
	}
	if src := from("owner"); src != nil {
		s.Owner = src.owner
	}
	if src := from("credentials"); src != nil && src.credentials != nil {
		c := *src.credentials
		s.Credentials = &c
	}
	if src := from("inbox"); src != nil && src.inbox != nil {
		in := *src.inbox
		s.Inbox = &in
	}
	slices.Sort(s.Inherited)
	s.Defaults = len(s.Inherited) > 0
	op.Safety = s
	r.dropKeyParam(so)
	return deps
}

// cloneKey copies a parsed key for one operation, named typeName.
func cloneKey(k *Key, typeName string) *Key {
	out := &Key{TypeName: typeName, Format: k.Format, Fields: slices.Clone(k.Fields)}
	for _, p := range k.Parts {
		if p.Field != nil {
			i := slices.IndexFunc(k.Fields, func(f KeyField) bool { return f.Name == p.Field.Name })
			p.Field = &out.Fields[i]
		}
		out.Parts = append(out.Parts, p)
	}
	return out
}

// dropKeyParam removes the parameter the idempotency key travels in: the generated code sets it
// from the provider key, so callers never pass it.
func (r *resolver) dropKeyParam(so *specOp) {
	idem := so.op.Safety.Idempotency
	if idem == nil {
		return
	}
	so.op.Params = slices.DeleteFunc(so.op.Params, func(p *Param) bool {
		return idem.Header != "" && p.In == InHeader && strings.EqualFold(p.Name, idem.Header) ||
			idem.Query != "" && p.In == InQuery && p.Name == idem.Query
	})
}

// checkBodyPointer checks that a JSON pointer resolves in the operation's request body.
func (r *resolver) checkBodyPointer(so *specOp, n *yaml.Node, what, ptr string) {
	if so.op.Body == nil || so.bodySchema == nil {
		r.errorf(n, so.op.ID, "%s %q: the operation has no request body", what, ptr)
		return
	}
	if _, err := schemaAt(so.bodySchema, ptr); err != nil {
		r.errorf(n, so.op.ID, "%s %q does not resolve in the request body schema: %v", what, ptr, err)
	}
}

// checkIDPointer checks that a receipt's id pointer resolves, to a string or an integer, in the
// success response.
func (r *resolver) checkIDPointer(so *specOp, n *yaml.Node, ptr string) {
	if so.respSchema == nil {
		r.errorf(n, so.op.ID, "receipt id %q: the %s response has no JSON body", ptr, statusText(so.op.Response.Status))
		return
	}
	s, err := schemaAt(so.respSchema, ptr)
	if err != nil {
		r.errorf(n, so.op.ID, "receipt id %q does not resolve in the %s response schema: %v", ptr, statusText(so.op.Response.Status), err)
		return
	}
	if !scalarID(s) {
		r.errorf(n, so.op.ID, "receipt id %q is not a string or an integer in the %s response schema", ptr, statusText(so.op.Response.Status))
	}
}

func statusText(status int) string {
	if status == 0 {
		return "default"
	}
	return fmt.Sprint(status)
}

// lookup checks a lookup answer and returns it with the operation it names, if any.
func (r *resolver) lookup(so *specOp, l *lookupAnswer) (*Lookup, *specOp) {
	out := &Lookup{Consistency: l.consistency, Func: l.fn, Found: l.found}
	if l.op == "" {
		return out, nil
	}
	id := so.op.ID
	lo := r.find(l.op)
	switch {
	case lo == nil:
		r.errorf(l.opNode, id, "lookup operation %q is not in the spec", l.op)
		return out, nil
	case lo.op.Write && !(r.entries[lo] != nil && r.entries[lo].effect == EffectReadOnly):
		r.errorf(l.opNode, id, "lookup operation %q is not a read (%s)", l.op, lo.op.Method)
		return out, nil
	case r.exclude[lo] != nil:
		r.errorf(l.opNode, id, "lookup operation %q is excluded", l.op)
		return out, nil
	}
	r.b.convert(lo)
	out.Operation = lo.op
	passesRef := false
	for i, p := range l.params {
		if !slices.ContainsFunc(lo.op.Params, func(q *Param) bool { return q.Name == p.Name }) {
			r.errorf(l.paramNodes[i], id, "lookup operation %q has no parameter %q", l.op, p.Name)
		}
		if rest := strings.ReplaceAll(p.Template, "{ref}", ""); strings.ContainsAny(rest, "{}") {
			r.errorf(l.paramNodes[i], id, "lookup param %q: %q may only use the placeholder {ref}", p.Name, p.Template)
		}
		passesRef = passesRef || strings.Contains(p.Template, "{ref}")
		out.Params = append(out.Params, p)
	}
	for _, q := range lo.op.Params {
		if q.Required && !slices.ContainsFunc(l.params, func(p LookupParam) bool { return p.Name == q.Name }) {
			r.errorf(l.opNode, id, "lookup operation %q needs its required parameter %q in params", l.op, q.Name)
		}
	}
	if !passesRef {
		r.errorf(l.opNode, id, "lookup params must pass the reference: a value with {ref}")
	}
	slices.SortFunc(out.Params, func(a, b LookupParam) int { return strings.Compare(a.Name, b.Name) })
	if l.found != "" {
		if lo.respSchema == nil {
			r.errorf(l.foundNode, id, "lookup found %q: operation %q has no JSON response", l.found, l.op)
		} else if _, err := schemaAt(lo.respSchema, l.found); err != nil {
			r.errorf(l.foundNode, id, "lookup found %q does not resolve in the response schema of %q: %v", l.found, l.op, err)
		}
	}
	return out, lo
}
