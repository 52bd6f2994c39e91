package writegenimpl

import "github.com/writegen/writegen/runtime"

// Describe returns the descriptions of the writes ops, in their order, in
// the provider scope scope: a generated package's Writes calls it with the
// descriptors of its writes, so that what the engines check is what the
// executor does.
func Describe(scope string, ops ...*Operation) []runtime.WriteInfo {
	writes := make([]runtime.WriteInfo, len(ops))
	for i, op := range ops {
		writes[i] = runtime.WriteInfo{
			Scope:       scope,
			OperationID: op.ID,
			KeyScope:    op.Scope,
			Effect:      op.Effect,
			Retry:       op.Retry,
			ProviderKey: op.Keyed,
			Lookup:      op.Lookup,
			Dedupe:      op.Dedupe,
		}
	}
	return writes
}
