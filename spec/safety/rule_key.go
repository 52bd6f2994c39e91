package safety

import (
	"slices"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// key resolves the typed business key a write that is not repeatable is called with.
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

// key copies a parsed key for one write and settles its scope: key.scope, or the entry's name
// normalised. Two writes never share a key scope.
func (r *Resolver) key(so *build.Op, k *ir.Key, at *annot.Answers) *ir.Key {
	out := &ir.Key{TypeName: so.Op.GoName + "Key", Format: k.Format, Fields: slices.Clone(k.Fields),
		Scope: k.Scope, ScopePos: k.ScopePos, Pos: k.Pos, FormatPos: k.FormatPos}
	for _, p := range k.Parts {
		if p.Field != nil {
			i := slices.IndexFunc(k.Fields, func(f ir.KeyField) bool { return f.Name == p.Field.Name })
			p.Field = &out.Fields[i]
		}
		out.Parts = append(out.Parts, p)
	}
	if out.Scope == "" {
		name := so.Op.ID
		if at.ID != "" {
			name = at.ID
		}
		out.ScopePos = r.pos(r.entryNode(so))
		if out.Scope = annot.NormalScope(name); out.Scope == "" {
			r.errorAt(out.ScopePos, so.Op.ID, "the name %q makes no key scope: write key.scope (lower-case letters, digits, '.', '_', '-')", name)
			return out
		}
	}
	if prev := r.keyScopes[out.Scope]; prev != nil {
		r.errorAt(out.ScopePos, so.Op.ID, "key scope %q is also the key scope of %q (%s): two writes with one key scope share provider keys and ledger rows; give this one its own key.scope",
			out.Scope, prev.ID, prev.Safety.Key.ScopePos)
	} else {
		r.keyScopes[out.Scope] = so.Op
	}
	return out
}
