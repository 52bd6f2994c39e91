// Package ir is the intermediate representation the generator's stages build and its emitters
// (templates/) read: the types, operations and write-safety answers of one client package, with
// the positioned errors every stage reports. It holds types and the queries that read them, and
// imports nothing of writegen but runtime's enumerations (Effect, Consistency, Retry), so an
// emitter that reads it depends on no stage of the generator.
//
// The IR is built once by spec.Load, validated, and never changed afterwards. It is fully
// resolved: every Go identifier the emitters write is a field of its node (Operation.GoName,
// Local, ParamsName, DescriptorName, RetryName, IDName, Key.TypeName, Lookup.Name,
// Compensation.Name, Inbox.GoName), every JSON pointer of the annotation file is a Path of struct
// fields, array elements and map keys, every enumeration is a typed value, how each field is held
// (pointer, omitempty, the map of additional properties) is decided, and every node keeps its
// source position. The emitters make no decision that can fail: what they cannot express is
// refused by Load, at the position of what is wrong. Every slice is sorted (see each comment); no
// emitter iterates a map.
package ir
