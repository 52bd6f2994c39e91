package templates

import (
	"github.com/writegen/writegen/spec/ir"
)

// generator holds the IR and the helpers the files turn out to need. It decides nothing the IR
// has not settled: every name, every path and every check is the IR's.
type generator struct {
	api *ir.API

	// Helpers a file needs, emitted at its end. models.go and operations.go set disjoint ones.
	needExtra      bool // marshalExtra, unmarshalExtra
	needField      bool // unmarshalField
	needUnionSet   bool // unionSet
	needNoCompare  bool // noCompare
	needPtrCopy    bool // ptrCopy
	needCopyMap    bool // copyMap
	needJSONPart   bool // addJSONPart
	needJSONString bool // jsonString
}
