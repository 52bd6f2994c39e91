package safety

import (
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/ir"
)

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
