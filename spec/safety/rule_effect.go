package safety

// effect resolves what a second call would do (the rule "effect" of safetyRules).
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

// destructive resolves whether the write overwrites or deletes, answered or by its method.
func (w *writeCheck) destructive() bool {
	if src := w.from("destructive"); src != nil {
		w.s.Destructive, w.s.DestructiveSet = src.Destructive, true
	} else {
		w.s.Destructive = w.op.Method != "POST"
	}
	return true
}
