package spec

import "github.com/writegen/writegen/runtime"

// Hints are what an agent tool of the operation may claim about it (MCP's tool annotations),
// derived from the answers and never more than they prove (promise 36).
type Hints struct {
	// ReadOnly: the operation changes nothing (a read, or a write answered read_only).
	ReadOnly bool
	// Idempotent: repeating the call with the same arguments cannot make a second effect. A
	// read; an idempotent effect; a business key claimed in the ledger (a repeat gets the
	// first outcome); or a provider key the provider keeps forever (window: forever). A key
	// remembered for a window, or for a time nobody declared, does not qualify: a repeat after
	// the window is a second effect.
	Idempotent bool
	// Destructive: the write overwrites or deletes (the destructive answer, else the method's
	// default: true for DELETE, PUT and PATCH).
	Destructive bool
}

// hintsOf derives the hints of op.
func hintsOf(op *Operation) Hints {
	s := op.Safety
	switch op.Call {
	case CallRead:
		return Hints{ReadOnly: true, Idempotent: true}
	case CallDo:
		return Hints{Destructive: s.Destructive, Idempotent: s.Effect == runtime.EffectIdempotent}
	}
	return Hints{Destructive: s.Destructive, Idempotent: s.Effect == runtime.EffectIdempotent || s.Dedupe ||
		s.Idempotency != nil && s.Idempotency.Forever()}
}

// toolDefects refuses what agent tools cannot be generated from: a POST write whose answers do
// not say whether it overwrites or deletes.
func toolDefects(api *API) ErrorList {
	var errs ErrorList
	for _, op := range api.Operations {
		s := op.Safety
		if s == nil || op.Call == CallRead || op.Method != "POST" || s.DestructiveSet {
			continue
		}
		errs = append(errs, &Error{Pos: s.Pos, Operation: op.ID,
			Msg: "destructive: say whether it overwrites or deletes (true) or only adds (false); MCP tools need the answer for a POST"})
	}
	return errs
}
