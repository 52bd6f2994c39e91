// Package scaffold writes the annotation file `writegen init` prints (Scaffold): an entry for
// every write the include filter selects, with what the spec reveals answered (an idempotency
// key it declares, a receipt's id, the lookups its reads make possible, each a proposal with what
// a person must confirm) and TODO wherever only a person can answer. Generation refuses the file
// while a TODO is left in a write in scope. It reads the spec through the stages spec.Load wires,
// and is read by nothing of the generator but cmd/writegen.
package scaffold
