package safety

import (
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// The safety check is a list of rules, applied in order to each write in scope (safetyRules).
// Each resolves one answer into the write's Safety or refuses it at its position, and says which
// promise it enforces; the reference ("writegen help annotations") lists them from the same
// table. A rule that depends on an answer already refused says nothing more of it: one defect,
// one message. Each rule is written in rule_<name>.go with the resolution it makes and every
// refusal of its answer (the lookup's proofs in lookup_*.go); safety.go binds the annotations
// to the operations and decides the scope.

// safetyRule is one rule of the safety check. run reports whether the check goes on.
type safetyRule struct {
	name    string
	promise string
	run     func(*writeCheck) bool
	refuses bool // the rule can refuse an answer (TestEveryRuleHasARefusal shows each one do it)
}

// safetyRules are the rules, in the order the check applies them.
var safetyRules = []safetyRule{
	{"effect", "Every write says what a second call would do: read_only, idempotent, compensatable or ambiguous.", (*writeCheck).effect, true},
	{"destructive", "Whether a write overwrites or deletes is answered, or is its method's: DELETE, PUT and PATCH destructive, POST not.", (*writeCheck).destructive, false},
	{"key", "A write that is not repeatable is called with a typed business key; a read_only operation takes none.", (*writeCheck).key, true},
	{"idempotency", "A provider's idempotency key is derived from the business key, and fits the bound the spec or the annotation declares.", (*writeCheck).idempotency, true},
	{"reference", "A reference the provider keeps is the provider key or a template over the key's fields, set only where the request really holds it.", (*writeCheck).reference, true},
	{"response", "A 2xx is a receipt whose durable id resolves in the answer, or an acknowledgement; a read_only operation answers like a read.", (*writeCheck).response, true},
	{"lookup", "A lookup written is generated and type-checked against the write, or refused with its reason: never dropped.", (*writeCheck).lookup, true},
	{"retry", "Every failure kind of a retry set can fire: a resend after an answer that may have committed needs a key in its window, a lookup that can prove it did not, or an idempotent effect.", (*writeCheck).retry, true},
	{"compensate", "A compensatable write names the write that undoes a duplicate.", (*writeCheck).compensate, true},
	{"dedupe", "A ledger claim is taken on the business key: dedupe: ledger needs one. The ledger remembers a settled key for the write's retention, never shorter than the provider's key window.", (*writeCheck).dedupe, true},
	{"report", "Who is told of an uncertain outcome, and what a credential rotation does to a write in flight, are recorded as answered.", (*writeCheck).report, false},
	{"inbox", "A webhook inbox keys its events by the fields the annotation names.", (*writeCheck).inbox, true},
	{"acknowledge", "A change of a write's identity against WRITE_SAFETY.json is made only where acknowledged; the defaults' acknowledgements apply to every write.", (*writeCheck).acknowledge, false},
}

// Rule is one rule of the safety check, as the reference lists it.
type Rule struct {
	Name    string // the answer it resolves
	Promise string // what it enforces
	Refuses bool   // it can refuse an answer
}

// Rules returns the rules of the safety check, in the order it applies them.
func Rules() []Rule {
	out := make([]Rule, len(safetyRules))
	for i, r := range safetyRules {
		out[i] = Rule{r.name, r.promise, r.refuses}
	}
	return out
}

// writeCheck is the safety check of one write: its answers, the Safety built from them, and the
// answers refused so far.
type writeCheck struct {
	r          *Resolver
	so         *build.Op
	op         *ir.Operation
	s          *ir.Safety
	entry, def *annot.Answers
	at         *annot.Answers  // where the write is answered: its entry, or the defaults
	refused    map[string]bool // answers refused, where written or by a rule
	refNone    bool            // reference: none
}

// safety builds and checks the Safety of one write in scope, rule by rule. It runs once every Go
// name is settled, so that its messages name the types as the generated code does.
func (r *Resolver) safety(so *build.Op) {
	op := so.Op
	entry, def := r.entries[so], r.a.Defaults
	if entry == nil && def == nil {
		if r.meant[so] {
			return // reported where its entry misspells it
		}
		r.Errs = append(r.Errs, &ir.Error{Pos: op.Pos, Operation: op.ID,
			Msg: op.Method + " has no write-safety annotation: answer it under operations, or list it under exclude"})
		return
	}
	w := &writeCheck{r: r, so: so, op: op, s: &ir.Safety{Uncertain: ir.UncertainReconcile, Attempts: 1},
		entry: entry, def: def, at: def, refused: map[string]bool{}}
	if entry != nil {
		w.at = entry
	}
	w.s.Pos = r.pos(w.at.At)
	defer func() { r.rule = "" }()
	for _, rule := range safetyRules {
		r.rule = rule.name // the defects found meanwhile are the rule's
		if !rule.run(w) {
			return
		}
	}
	s := w.s
	slices.Sort(s.Inherited)
	s.Inherited = slices.Compact(s.Inherited)
	s.Defaults = len(s.Inherited) > 0
	op.Safety = s
	r.dropKeyParam(so)
}

// from returns the answers that hold k for the write (its entry's, or the defaults'), noting an
// inherited one.
func (w *writeCheck) from(k string) *annot.Answers {
	src, inherited := w.r.from(w.so, k)
	if inherited {
		w.s.Inherited = append(w.s.Inherited, k)
	}
	return src
}

func (w *writeCheck) fail(n *yaml.Node, format string, args ...any) {
	w.r.errorf(n, w.op.ID, format, args...)
}

// bad reports whether the answer k of src was refused where it is written.
func (w *writeCheck) bad(src *annot.Answers, k string) bool { return src != nil && src.Bad[k] }

// needKey refuses what needs a business key when the write has none (unless the key itself was
// refused), and reports whether it has one.
func (w *writeCheck) needKey(n *yaml.Node, msg string) bool {
	if w.s.Key == nil && !w.refused["key"] {
		w.fail(n, "%s", msg)
	}
	return w.s.Key != nil
}

func (w *writeCheck) readOnly() bool { return w.s.Effect == runtime.EffectReadOnly }
