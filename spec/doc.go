// Package spec turns an OpenAPI document and its write-safety annotation file into the validated
// IR the emitters in templates/ read (package ir).
//
// Load reads OpenAPI 3.0 and 3.1 with kin-openapi, and Swagger 2.0 through its converter. A JSON
// spec is parsed once into a positioned node tree that kin-openapi decodes from, so every
// operation and type keeps its file:line:col. In OpenAPI 3.1 references may name a schema by
// its $id or $anchor.
//
// # Stages
//
// Load wires the generator's stages, each a package that reads the output of the ones before:
// load.Read (the positioned tree and kin-openapi's model), annot.Parse (the annotation file,
// strictly), build.New and ListOperations (the operations), safety.New with Bind, DecideScope
// and Resolve (the answers bound to the operations, the scope, the lookups' reads), the spec's
// defects sorted by what the scope reaches, Settle (the types converted and named, every write
// checked) and Assemble (the IR). The IR (package ir) imports none of them, and the emitters
// read nothing else.
//
// # Specs split across several files
//
// A reference may name another file by its path relative to the file it is written in; what
// the references name is bundled into the root's tree before anything else reads it (package
// load says how, and how the bundled schemas are named).
//
// # Defects of the spec
//
// Real specs have defects kin-openapi refuses to read: a reference to nothing, a null where an
// object must be, a value of the wrong type. Each is taken out of the document, at its
// position, and the rest is read. Only what the operations in scope reach must then be sound:
// an operation reaches everything it holds (parameters, request bodies and responses of every
// status and media type, callbacks, examples), its path's parameters, and all they refer to;
// lookups and compensations pull their operations in. A defect they reach is an error naming
// the first operation that reaches it; any other is a warning (API.Warnings), so a spec whose
// broken part is left out of scope still generates. Data is data: a "$ref" inside an example,
// a default, an enum, a const or an extension is not a reference. The tuple form of items (a
// list of schemas) is read as an array whose elements may be any of them (anyOf; any value in
// Swagger 2.0, which has no anyOf), with a warning.
//
// The annotation file is read strictly: an unknown field, a wrong type, a contradiction, an
// answer a scaffold left as TODO in a write in scope and every refusal of the design is an
// Error at its position, naming the operation. All of them are reported at once, as an
// ErrorList sorted by position; an answer refused where it is written is not reported again by
// the checks that depend on it. Entries outside the include filter need no answers.
//
// # The safety check
//
// Every write in scope is checked against the rules of the safety check (package safety), and
// its identity is recorded in WRITE_SAFETY.json and compared with the record of the package
// being regenerated (safety.CheckIdentity).
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
// code reserves (Client, NewClient, DefaultBaseURL, Writes, <Op>Key, <Op>Params) keeps it, and so does
// an inbox constructor (New<Source>Inbox); a component schema keeps its
// name over an inline type; of the rest, each takes its literal spelling when that tells it
// apart ("issuing.card" IssuingDotCard, "issuing_card" Issuing_Card, "DateCreated<"
// DateCreatedLt), else its kind or location as a suffix (CardObject, LimitQuery), else a number
// counted in the order of the claimants' JSON pointers. The annotation file's names block
// renames a schema outright.
//
// Package scaffold writes the annotation file for `writegen init`.
package spec
