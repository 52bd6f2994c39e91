package spec

import (
	"slices"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/ir"
)

// The safety check is a list of rules, applied in order to each write in scope (safetyRules).
// Each resolves one answer into the write's Safety or refuses it at its position, and says which
// promise it enforces; the reference ("writegen help annotations") lists them from the same
// table. A rule that depends on an answer already refused says nothing more of it: one defect,
// one message.

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
}

// SafetyRules returns the rules of the safety check, in the order it applies them.
func SafetyRules() []Rule {
	out := make([]Rule, len(safetyRules))
	for i, r := range safetyRules {
		out[i] = Rule{r.name, r.promise}
	}
	return out
}

// writeCheck is the safety check of one write: its answers, the Safety built from them, and the
// answers refused so far.
type writeCheck struct {
	r          *resolver
	so         *specOp
	op         *ir.Operation
	s          *ir.Safety
	entry, def *annot.Answers
	at         *annot.Answers  // where the write is answered: its entry, or the defaults
	refused    map[string]bool // answers refused, where written or by a rule
	refNone    bool            // reference: none
}

// safety builds and checks the Safety of one write in scope, rule by rule. It runs once every Go
// name is settled, so that its messages name the types as the generated code does.
func (r *resolver) safety(so *specOp) {
	op := so.op
	entry, def := r.entries[so], r.a.Defaults
	if entry == nil && def == nil {
		if r.meant[so] {
			return // reported where its entry misspells it
		}
		r.errs = append(r.errs, &ir.Error{Pos: op.Pos, Operation: op.ID,
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

func (w *writeCheck) effect() bool {
	src := w.from("effect")
	if src == nil || src.Effect == 0 {
		if src == nil {
			w.fail(w.at.At, "effect is required: read_only, idempotent, compensatable or ambiguous")
		}
		return false
	}
	w.s.Effect, w.s.EffectPos = src.Effect, w.r.pos(src.Set["effect"])
	return true
}

func (w *writeCheck) destructive() bool {
	if src := w.from("destructive"); src != nil {
		w.s.Destructive, w.s.DestructiveSet = src.Destructive, true
	} else {
		w.s.Destructive = w.op.Method != "POST"
	}
	return true
}

func (w *writeCheck) key() bool {
	s := w.s
	repeatable := w.readOnly() || s.Effect == runtime.EffectIdempotent
	switch src := w.from("key"); {
	case src != nil && src.Key != nil && !w.bad(src, "key"):
		s.Key = w.r.key(w.so, src.Key, w.at)
		if w.readOnly() {
			w.fail(src.Set["key"], "a read_only operation is called like a read and takes no business key: write key: none")
			s.Key, w.refused["key"] = nil, true
		}
	case src != nil && !src.None["key"]:
		w.refused["key"] = true
	case !repeatable:
		w.fail(w.at.At, "effect %s needs a key: the business key callers pass (key: {fields: ..., format: ...})", s.Effect)
		w.refused["key"] = true
	}
	return true
}

func (w *writeCheck) idempotency() bool {
	src := w.from("idempotency")
	if src == nil || src.Idempotency == nil {
		return true
	}
	w.refused["idempotency"] = w.bad(src, "idempotency")
	idem := *src.Idempotency
	w.s.Idempotency = &idem
	w.needKey(src.Set["idempotency"], "idempotency needs a business key: the provider key is derived from it (add key: {fields: ..., format: ...})")
	if src.IdemBody != "" {
		if idem.Body = w.r.bodyPath(w.so, src.IdemBodyNode, "idempotency body", src.IdemBody); idem.Body == nil {
			w.refused["idempotency"] = true
		}
	}
	if !w.refused["idempotency"] {
		w.r.boundKey(w.so, &idem)
	}
	return true
}

func (w *writeCheck) reference() bool {
	switch src := w.from("reference"); {
	case src != nil && src.None["reference"]:
		w.refNone = true // no reference: a lookup is refused for it, never dropped
	case src != nil && (src.Reference == nil || w.bad(src, "reference")):
		w.refused["reference"] = true
	case src != nil && w.needKey(src.Reference.Node, "reference needs a business key: the reference is the provider key or a template over the key's fields"):
		w.s.Reference = w.r.reference(w.so, src.Reference, w.s)
	}
	w.r.sets(w.so, w.s)
	return true
}

func (w *writeCheck) response() bool {
	s := w.s
	if w.readOnly() {
		// A read answers with its body: it has no receipt, and a receipt of the defaults does not apply.
		if w.entry != nil && w.entry.Set["response"] != nil {
			w.fail(w.entry.Set["response"], "a read_only operation answers like a read: leave response out")
		}
		return true
	}
	src := w.from("response")
	if src == nil {
		w.fail(w.at.At, "response is required: is the 2xx a receipt (response: {is: receipt, id: /id}) or an acknowledgement?")
		w.refused["response"] = true
		return true
	}
	s.Receipt = src.RespIs == "receipt"
	w.refused["response"] = w.bad(src, "response")
	if src.Envelope != nil && !w.refused["response"] && !w.r.envelope(w.so, src.Envelope, s) {
		w.refused["response"] = true
	}
	if s.Receipt && src.RespID != "" && !w.refused["response"] {
		if s.ID = w.r.idPath(w.so, s, src.RespIDNode, src.RespID); s.ID == nil {
			w.refused["response"] = true
		}
	}
	return true
}

func (w *writeCheck) lookup() bool {
	src := w.from("lookup")
	if src == nil {
		return true
	}
	r, so, s := w.r, w.so, w.s
	lop := r.lookupOp[so]
	switch {
	case src.Lookup == nil || w.bad(src, "lookup") || w.refused["key"] || w.refused["reference"] || w.refused["idempotency"],
		src.Lookup.Op != "" && (lop == nil || len(lop.errs) > 0 || r.defective[lop.op.ID] || r.defective[w.op.ID]):
		// refused where it is written, or its types are
		w.refused["lookup"] = true
	case w.readOnly():
		w.fail(src.Lookup.Node, "a read_only operation is sent again like a read after any failure, so nothing asks its lookup: leave the lookup out")
		w.refused["lookup"] = true
	case w.refNone && (s.Idempotency == nil || s.Idempotency.Body == nil && s.Idempotency.Query == ""):
		w.fail(src.Lookup.Node, "lookup searches by the write's reference, but the entry says reference: none, so the provider keeps nothing to find the write by: store one (reference: {body: /field}) or leave the lookup out")
		w.refused["lookup"] = true
	case w.needKey(src.Lookup.Node, "lookup needs a business key: it searches for the write's reference, derived from the key"):
		if s.Lookup = r.lookup(so, src.Lookup, s); s.Lookup == nil {
			w.refused["lookup"] = true
		}
	}
	return true
}

func (w *writeCheck) retry() bool {
	s := w.s
	src := w.from("retry")
	if src == nil {
		if w.readOnly() {
			s.Retry, s.Attempts = runtime.RetryReads, readAttempts // called like a read, retried like one
		}
		return true
	}
	s.RetryPos = w.r.pos(src.Set["retry"])
	s.Attempts = src.Attempts
	s.RetryOn = slices.Clone(src.Retry)
	quiet := w.refused["key"] || w.refused["idempotency"] || w.refused["lookup"] // what it depends on is refused
	for _, m := range s.RetryOn {
		s.Retry |= m.Kind
		if why := neverFires(m, s); why != "" && !quiet {
			w.r.errorAt(m.Pos, w.op.ID, "retry on %s never fires: %s", m.Name, why)
		}
	}
	return true
}

func (w *writeCheck) compensate() bool {
	switch src := w.from("compensate"); {
	case src == nil:
		if w.s.Effect == runtime.EffectCompensatable {
			w.fail(src0(w.from, "effect"), "effect compensatable needs compensate: the operation that undoes a duplicate")
		}
	case src.Compensate == nil || w.bad(src, "compensate") || w.refused["lookup"] || w.refused["response"]:
	default:
		w.s.Compensate = w.r.compensation(w.so, src.Compensate, w.s)
	}
	return true
}

func (w *writeCheck) dedupe() bool {
	if src := w.from("dedupe"); src != nil {
		w.s.Dedupe, w.s.DedupePos = src.Dedupe, w.r.pos(src.Set["dedupe"])
		if w.s.Dedupe {
			w.needKey(src.Set["dedupe"], "dedupe: ledger claims the business key, but the operation has no key")
		}
	}
	w.retention()
	return true
}

// retention resolves how long the ledger remembers the key of a write it claims (retention:),
// once dedupe is resolved.
func (w *writeCheck) retention() {
	src, inherited := w.r.from(w.so, "retention")
	if src == nil || w.bad(src, "retention") || src.Retention == 0 {
		return
	}
	n := src.Set["retention"]
	window := time.Duration(0)
	if i := w.s.Idempotency; i != nil && !i.Forever() {
		window = i.Window
	}
	switch {
	case !w.s.Dedupe && inherited:
		// the defaults' retention is for the writes that claim their keys
	case !w.s.Dedupe:
		w.fail(n, "retention %s says how long the ledger remembers the business key, but the write takes no ledger claim: add dedupe: ledger, or remove retention", durationText(src.Retention))
	case src.Retention < window:
		w.fail(n, "retention %s is shorter than the provider's key window (%s): a repeat after the ledger forgot the key would count the window from the repeat, and could send the key again after the provider forgot it, a second effect; make it %s or longer, or forever",
			durationText(src.Retention), durationText(window), durationText(window))
	default:
		w.s.Retention, w.s.RetentionPos = src.Retention, w.r.pos(n)
		if inherited {
			w.s.Inherited = append(w.s.Inherited, "retention")
		}
	}
}

func (w *writeCheck) report() bool {
	s := w.s
	if src := w.from("uncertain"); src != nil && src.Uncertain != "" {
		s.Uncertain = src.Uncertain
	}
	if src := w.from("owner"); src != nil {
		s.Owner = src.Owner
	}
	if src := w.from("credentials"); src != nil && src.Credentials != nil {
		c := *src.Credentials
		s.Credentials = &c
	}
	return true
}

func (w *writeCheck) inbox() bool {
	if src := w.from("inbox"); src != nil && src.Inbox != nil {
		w.s.Inbox = w.r.inbox(w.so, src.Inbox)
	}
	return true
}

// acknowledge gathers the write's acknowledgements: the defaults' apply to every write beside
// the entry's own.
func (w *writeCheck) acknowledge() bool {
	s := w.s
	for _, src := range []*annot.Answers{w.entry, w.def} {
		if src == nil || src.Acknowledge == nil {
			continue
		}
		if s.Acknowledge == nil {
			s.Acknowledge = &ir.Acknowledge{Reason: src.Acknowledge.Reason, Pos: src.Acknowledge.Pos}
		}
		for _, it := range src.Acknowledge.Items {
			it.Defaults = src == w.def
			s.Acknowledge.Items = append(s.Acknowledge.Items, it)
		}
		if src == w.def {
			s.Inherited = append(s.Inherited, "acknowledge")
		}
	}
	return true
}
