// Package annot reads the write-safety annotation file strictly (Parse): an unknown field, a
// wrong type, a malformed duration or template, a contradiction inside one answer and an answer a
// scaffold left as TODO are each an Error at its position, all reported at once. What it returns
// is the file as written (File, one Answers per operation entry and for the defaults), every
// answer with the node it came from, so that the stages that check the answers against the spec
// place their refusals where the answer is written. It knows nothing of the spec: whether an
// answer holds for the operation it names is for the safety check (package spec) to say.
package annot
