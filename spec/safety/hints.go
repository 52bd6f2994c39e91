package safety

import (
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/ir"
)

// HintsOf derives the hints of op.
func HintsOf(op *ir.Operation) ir.Hints {
	s := op.Safety
	switch op.Call {
	case ir.CallRead:
		return ir.Hints{ReadOnly: true, Idempotent: true}
	case ir.CallDo:
		return ir.Hints{Destructive: s.Destructive, Idempotent: s.Effect == runtime.EffectIdempotent}
	}
	return ir.Hints{Destructive: s.Destructive, Idempotent: s.Effect == runtime.EffectIdempotent || s.Dedupe ||
		s.Idempotency != nil && s.Idempotency.Forever()}
}

// ToolDefects refuses what agent tools cannot be generated from: a POST write whose answers do
// not say whether it overwrites or deletes.
func ToolDefects(api *ir.API) ir.ErrorList {
	var errs ir.ErrorList
	for _, op := range api.Operations {
		s := op.Safety
		if s == nil || op.Call == ir.CallRead || op.Method != "POST" || s.DestructiveSet {
			continue
		}
		errs = append(errs, &ir.Error{Pos: s.Pos, Operation: op.ID,
			Msg: "destructive: say whether it overwrites or deletes (true) or only adds (false); MCP tools need the answer for a POST"})
	}
	return errs
}
