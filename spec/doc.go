// Package spec turns an OpenAPI document and its write-safety annotation file into the validated
// IR the emitters in templates/ read (see ir.go).
//
// Load reads OpenAPI 3.0 and 3.1 with kin-openapi, and Swagger 2.0 through its converter. A JSON
// spec is parsed once into a positioned node tree that kin-openapi decodes from, so every
// operation and type keeps its file:line:col. References must stay inside the file.
//
// The annotation file is read strictly: an unknown field, a wrong type, a contradiction, an
// answer a scaffold left as TODO and every refusal of the design (an unanswered write, an
// ambiguous retry with nothing to make it safe, a receipt id or body pointer that does not
// resolve in the schema, a lookup or compensation naming the wrong operation, key placeholders
// that do not match the key fields) is an Error at its position, naming the operation. All of
// them are reported at once, as an ErrorList sorted by position.
//
// # Types
//
// A type is named after where its schema is written: a component schema by its key, an inline
// schema by its parent's name and its property ("ChargeOutcome"), an operation's body and
// response as <Op>Request and <Op>Response. A schema reached by several paths is converted once,
// at its definition, so a name never depends on which operation is converted first. allOf
// members are flattened into one struct; oneOf and anyOf become unions (discriminated when the
// spec says so), except that a single member left after dropping null (and Stripe's empty-string
// alternative) is that member, and an inline union of a few references and scalars (Stripe's
// expandable fields) is one shared type named after its members ("ExpandableCustomer").
// Recursion goes through named types only.
//
// # Names
//
// Names are settled once, for the whole package, after every type is known. Names that collide
// are settled by rank and by what was written, never by declaration order: a name the generated
// code reserves (Client, NewClient, <Op>Key, <Op>Params) keeps it; a component schema keeps its
// name over an inline type; of the rest, each takes its literal spelling when that tells it
// apart ("issuing.card" IssuingDotCard, "issuing_card" Issuing_Card, "DateCreated<"
// DateCreatedLt), else its kind or location as a suffix (CardObject, LimitQuery), else a number
// counted in the order of the claimants' JSON pointers. The annotation file's names block
// renames a schema outright.
//
// Scaffold writes the annotation file for `writegen init`.
package spec
