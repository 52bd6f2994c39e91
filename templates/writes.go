package templates

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/ir"
)

// writes emits Writes, the descriptions of the package's writes (those WRITE_SAFETY.json records),
// made from their descriptors, when it has any:
//
//	func Writes() []runtime.WriteInfo {
//		return writegenimpl.Describe("support-desk", createThreadOp, postMessageOp)
//	}
func (g *generator) writes(f *jen.File) {
	args := []jen.Code{jen.Lit(g.api.Scope)}
	width := len("\treturn writegenimpl.Describe(") + len(strconv.Quote(g.api.Scope)) + 1
	for _, op := range g.api.Operations {
		if !isWrite(op) {
			continue
		}
		args = append(args, jen.Id(op.DescriptorName))
		width += len(", ") + len(op.DescriptorName)
	}
	if len(args) == 1 {
		return
	}
	call := impl("Describe").Call(args...)
	if width > 4+commentWidth {
		call = impl("Describe").Custom(callLines, args...)
	}
	f.Line()
	f.Comment(comment("Writes describes the client's writes, in the order of their methods: the answers that decide " +
		"what running one again does, which the engine integrations check their retry policies against " +
		"(wgtemporal.NewWrites). It returns a new slice on each call."))
	f.Func().Id("Writes").Params().Index().Add(rt("WriteInfo")).Block(jen.Return(call))
}

// isWrite reports whether op is a write whose identity WRITE_SAFETY.json records: it has
// answers, and an effect.
func isWrite(op *ir.Operation) bool {
	return op.Safety != nil && op.Safety.Effect != runtime.EffectReadOnly
}
