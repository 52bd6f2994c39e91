package templates

import (
	"fmt"
	"go/token"
	"unicode"

	"github.com/writegen/writegen/spec"
)

// generator holds what the emitters compute once from the IR before building any file.
type generator struct {
	api  *spec.API
	errs spec.ErrorList

	// cyclic holds the required struct fields that are pointers only because their type
	// contains, by value, the struct that holds them.
	cyclic map[*spec.Field]bool
	// local is the unexported stem of each operation's names: createThread for CreateThread,
	// giving createThreadOp, createThreadRetry and createThreadLookup.
	local map[*spec.Operation]string

	// Helpers a file needs, emitted at its end. models.go and operations.go set disjoint ones.
	needExtra     bool // marshalExtra, unmarshalExtra
	needUnion     bool // union, unionAs
	needPtrCopy   bool // ptrCopy
	needCopyMap   bool // copyMap
	needJSONValue bool // jsonValue
	needJSONPart  bool // addJSONPart
}

// newGenerator checks what the IR leaves to the emitters (the names they make up) and computes
// the recursion breaks. Every fault is reported, in the IR's order.
func newGenerator(api *spec.API) (*generator, error) {
	g := &generator{
		api:    api,
		cyclic: cyclicFields(api.Types),
		local:  make(map[*spec.Operation]string, len(api.Operations)),
	}
	if !token.IsIdentifier(api.Package) || api.Package == "_" {
		g.fail(spec.Pos{File: api.AnnotFile}, "", "package name %q is not a Go identifier", api.Package)
	}
	g.checkNames()
	if len(g.errs) > 0 {
		return nil, g.errs
	}
	return g, nil
}

// fail records a fault of the inputs that the emitters cannot express.
func (g *generator) fail(pos spec.Pos, op, format string, args ...any) {
	g.errs = append(g.errs, &spec.Error{Pos: pos, Operation: op, Msg: fmt.Sprintf(format, args...)})
}

// namespace detects two declarations of one name.
type namespace struct {
	g     *generator
	owner map[string]declaration
}

// declaration is what declared a name, and where.
type declaration struct {
	what string
	pos  spec.Pos
}

// declare records that what declares name, or reports the collision.
func (n *namespace) declare(pos spec.Pos, op, name, what string) {
	if prev, ok := n.owner[name]; ok {
		n.g.fail(pos, op, "%s %s collides with %s %s at %s", what, name, prev.what, name, prev.pos)
		return
	}
	n.owner[name] = declaration{what, pos}
}

// checkNames reports the generated names that collide: package-level names, the methods of
// Client and the unexported names derived from each operation.
func (g *generator) checkNames() {
	pkg := &namespace{g, map[string]declaration{}}
	methods := &namespace{g, map[string]declaration{}}
	none := spec.Pos{File: g.api.SpecFile}
	pkg.declare(none, "", "Client", "the client type")
	pkg.declare(none, "", "NewClient", "the client constructor")
	methods.declare(none, "", "Runtime", "the method")
	methods.declare(none, "", "rt", "the field")
	if g.api.NeedsLedger {
		methods.declare(none, "", "Resume", "the method")
	}
	for _, t := range g.api.Types {
		pkg.declare(t.Pos, "", t.Name, "type")
		for _, v := range t.Enum {
			pkg.declare(t.Pos, "", v.GoName, "enum value")
		}
		if t.AdditionalProperties != nil {
			for _, f := range t.Fields {
				if f.GoName == "MarshalJSON" || f.GoName == "UnmarshalJSON" {
					g.fail(t.Pos, "", "type %s: field %s collides with its JSON method", t.Name, f.GoName)
				}
			}
		}
	}
	for _, op := range g.api.Operations {
		if hasParams(op) {
			pkg.declare(op.Pos, op.ID, paramsName(op), "parameter struct")
		}
		if s := op.Safety; s != nil && s.Key != nil {
			pkg.declare(s.Pos, op.ID, s.Key.TypeName, "key type")
			for _, f := range s.Key.Fields {
				if f.GoName == "BusinessKey" {
					g.fail(s.Pos, op.ID, "key field %s collides with the method BusinessKey", f.Name)
				}
			}
		}
		stem := lowerFirst(op.GoName)
		g.local[op] = stem
		methods.declare(op.Pos, op.ID, op.GoName, "method")
		pkg.declare(op.Pos, op.ID, stem+"Op", "operation descriptor")
		if op.Write {
			pkg.declare(op.Pos, op.ID, stem+"Retry", "retry set")
		}
		if l := lookupOf(op); l != nil && l.Operation != nil {
			methods.declare(op.Pos, op.ID, stem+"Lookup", "generated lookup")
		}
	}
	for _, op := range g.api.Operations {
		if l := lookupOf(op); l != nil && l.Func != "" {
			if prev, ok := methods.owner[l.Func]; ok {
				g.fail(op.Safety.Pos, op.ID, "lookup func %s collides with %s %s at %s", l.Func, prev.what, l.Func, prev.pos)
			}
		}
	}
}

// lookupOf returns the lookup of a write, or nil.
func lookupOf(op *spec.Operation) *spec.Lookup {
	if op.Safety == nil {
		return nil
	}
	return op.Safety.Lookup
}

// hasParams reports whether op takes a parameter struct.
func hasParams(op *spec.Operation) bool { return len(op.Params) > 0 }

// paramsName is the name of op's parameter struct.
func paramsName(op *spec.Operation) string { return op.GoName + "Params" }

// lowerFirst turns an exported name into an unexported one, lowering a leading initialism as a
// whole: CreateThread -> createThread, URLCreate -> urlCreate, ID -> id.
func lowerFirst(name string) string {
	rs := []rune(name)
	n := 0
	for n < len(rs) && unicode.IsUpper(rs[n]) {
		n++
	}
	if n > 1 && n < len(rs) && unicode.IsLetter(rs[n]) {
		n-- // the last capital starts the next word: URLCreate -> url + Create
	}
	for i := range max(n, 1) {
		rs[i] = unicode.ToLower(rs[i])
	}
	return string(rs)
}

// cyclicFields finds the required, non-nullable struct fields whose struct type contains the
// struct holding them by value, directly or through other structs. Such a field must be a
// pointer, or the type would be infinitely large. Every such field of a cycle is made a
// pointer, so the choice does not depend on the order of declarations.
func cyclicFields(types []*spec.Type) map[*spec.Field]bool {
	edges := func(t *spec.Type) []*spec.Field {
		var out []*spec.Field
		for _, f := range t.Fields {
			if f.Required && !f.Nullable && f.Type.Kind == spec.RefNamed && f.Type.Named.Kind == spec.KindStruct {
				out = append(out, f)
			}
		}
		return out
	}
	// Tarjan's strongly connected components over the value edges.
	index := map[*spec.Type]int{}
	low := map[*spec.Type]int{}
	comp := map[*spec.Type]int{}
	onStack := map[*spec.Type]bool{}
	var stack []*spec.Type
	next, ncomp := 1, 0
	var visit func(t *spec.Type)
	visit = func(t *spec.Type) {
		index[t], low[t] = next, next
		next++
		stack = append(stack, t)
		onStack[t] = true
		for _, f := range edges(t) {
			u := f.Type.Named
			if index[u] == 0 {
				visit(u)
				low[t] = min(low[t], low[u])
			} else if onStack[u] {
				low[t] = min(low[t], index[u])
			}
		}
		if low[t] == index[t] {
			ncomp++
			for {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[u] = false
				comp[u] = ncomp
				if u == t {
					break
				}
			}
		}
	}
	cyclic := map[*spec.Field]bool{}
	for _, t := range types {
		if t.Kind == spec.KindStruct && index[t] == 0 {
			visit(t)
		}
	}
	for _, t := range types {
		for _, f := range edges(t) {
			if comp[f.Type.Named] == comp[t] {
				cyclic[f] = true
			}
		}
	}
	return cyclic
}
