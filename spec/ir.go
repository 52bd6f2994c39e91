package spec

import "time"

// The IR is what the emitters in templates/ read. It is built once by Load, validated, and never
// changed afterwards. Every slice is sorted (see each comment); no emitter iterates a map. Every
// node keeps its source position and its resolved Go name.

// Pos is a position in an input file, 1-based. A zero Line means the position is unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

// API is one spec plus its annotations, ready to emit as one Go package.
type API struct {
	Package    string       // Go package name
	Title      string       // info.title
	Version    string       // info.version
	SpecFile   string       // base name of the spec file, as the user named it (never an absolute path)
	AnnotFile  string       // base name of the annotation file
	Types      []*Type      // named types, sorted by Name
	Operations []*Operation // operations in scope, sorted by GoName
	Excluded   []Excluded   // sorted by ID
	// NeedsLedger is true when an operation in scope has Dedupe == "ledger": the generated
	// constructor then takes a runtime.Ledger as a required parameter.
	NeedsLedger bool
	// DefaultBaseURL is the spec's first server (servers[0], or Swagger 2.0's first scheme, host
	// and basePath) with its variables at their defaults; "" when the spec declares none. A
	// relative URL ("/v1") is kept as it is written.
	DefaultBaseURL string
	// Warnings are the defects of the spec that do not stop generation, sorted by position:
	// those in parts no operation in scope reaches (left out), and what was read another way.
	Warnings ErrorList
}

// Excluded is an operation left out on purpose (usually a write), with the person's reason.
type Excluded struct {
	ID     string
	Reason string
	Pos    Pos
}

// Kind says what shape a named Type has.
type Kind int

const (
	KindStruct Kind = iota + 1 // Fields
	KindEnum                   // Enum values over Base ("string", "int64", "float64")
	KindUnion                  // oneOf/anyOf: Variants, optionally Discriminator
	KindAlias                  // a named defined type over Elem (array, map or primitive): type X []Y
)

// Type is a named Go type generated from a schema.
type Type struct {
	Name string // resolved, unique Go name
	Kind Kind
	Doc  string // description, raw (emitters make it comment-safe)
	Pos  Pos
	// SchemaName is the components/schemas key, or "" for an inline schema named from its context.
	SchemaName string

	Fields []*Field // KindStruct, in spec order of properties, allOf members flattened first-to-last

	// AdditionalProperties is set on a struct that also allows extra keys (kept as a map field).
	AdditionalProperties *TypeRef

	Base string      // KindEnum: "string", "int64" or "float64"
	Enum []EnumValue // KindEnum, in spec order

	Variants      []*Variant // KindUnion, in spec order
	Discriminator string     // KindUnion: the property name, "" when the union is not discriminated

	Elem *TypeRef // KindAlias
}

// Field is one property of a struct.
type Field struct {
	Name     string // JSON name, as in the spec
	GoName   string // resolved, unique within the struct
	Type     *TypeRef
	Required bool
	// Nullable is true when the value may be null: nullable (3.0), a "null" type (3.1), or a
	// oneOf/anyOf member that is null or only the empty string (Stripe's {enum: [""]}, which
	// clears a field in a form body).
	Nullable bool
	Doc      string
	ReadOnly bool
}

// EnumValue is one value of an enum; GoName is the constant's name (TypeName + ValueName).
type EnumValue struct {
	GoName string
	Value  any // string, int64 or float64
}

// Variant is one member of a union.
type Variant struct {
	Type   *TypeRef
	GoName string // accessor suffix: AsCard, AsBankAccount
	// Tags are the discriminator values that select this variant (mapping or the schema name).
	Tags []string
}

// RefKind says what a TypeRef points at.
type RefKind int

const (
	RefNamed   RefKind = iota + 1 // Named
	RefBuiltin                    // Builtin
	RefArray                      // Elem
	RefMap                        // Elem (map[string]Elem)
)

// TypeRef is a use of a type: a field, a parameter, a body or a response.
type TypeRef struct {
	Kind  RefKind
	Named *Type
	// Builtin is one of: "string", "int64", "int32", "float64", "float32", "bool",
	// "time.Time" (format date-time), "[]byte" (format binary, byte), "any" (no schema),
	// "json.RawMessage" (free-form that must keep its bytes).
	Builtin string
	Elem    *TypeRef
}

// ParamIn is where a parameter travels.
type ParamIn string

const (
	InPath   ParamIn = "path"
	InQuery  ParamIn = "query"
	InHeader ParamIn = "header"
	InCookie ParamIn = "cookie"
)

// Param is one operation parameter.
type Param struct {
	Name     string // wire name
	GoName   string // resolved, unique within the operation's params struct
	In       ParamIn
	Type     *TypeRef
	Required bool
	Style    string // OpenAPI style; defaulted per location ("simple", "form", "deepObject" ...)
	Explode  bool   // defaulted per style
	Doc      string
}

// BodyEncoding is how a request body is encoded.
type BodyEncoding string

const (
	BodyJSON      BodyEncoding = "json"
	BodyForm      BodyEncoding = "form"      // application/x-www-form-urlencoded (Stripe nested style)
	BodyMultipart BodyEncoding = "multipart" // multipart/form-data
	BodyRaw       BodyEncoding = "raw"       // any other media type: Type is []byte, sent as is
)

// Body is a request body.
type Body struct {
	Encoding    BodyEncoding
	ContentType string
	Type        *TypeRef // usually RefNamed to a struct named <Op>Request
	Required    bool
}

// Response is the success response the generated method returns.
type Response struct {
	// Status is the 2xx chosen: the lowest 2xx with JSON content, else the lowest 2xx. It is 0
	// when the spec declares no 2xx: then "default" stands in when there is one.
	Status int
	// Type is nil when the response has no body. When the body is not JSON (a PDF, plain text),
	// Type is []byte and ContentType says what it is: the bytes are returned as they are.
	Type        *TypeRef
	ContentType string
}

// Operation is one path+method in scope.
type Operation struct {
	ID      string // operationId, or "POST /threads" when the spec has none
	GoName  string // exported method name, resolved and unique
	Method  string // upper case
	Path    string // template
	Tags    []string
	Summary string
	Doc     string
	Pos     Pos // in the spec
	// Params are path params in template order, then query, header, cookie; each sorted by Name.
	// A path param the template names but the spec does not declare is a required string. The
	// header or query param that carries the idempotency key (Safety.Idempotency) is left out:
	// the generated code sets it from the provider key.
	Params   []*Param
	Body     *Body
	Response *Response
	// Deprecated as in the spec.
	Deprecated bool

	// Write is true for POST, PUT, PATCH and DELETE. Safety is non-nil exactly for writes.
	Write  bool
	Safety *Safety
}

// Effect answers question 1.
type Effect string

const (
	EffectReadOnly      Effect = "read_only"
	EffectIdempotent    Effect = "idempotent"
	EffectReversible    Effect = "reversible"
	EffectCompensatable Effect = "compensatable"
	EffectAmbiguous     Effect = "ambiguous"
)

// Safety holds the validated answers of the annotation file for one write operation.
type Safety struct {
	Pos       Pos      // of the operation's entry in the annotation file (or of the defaults used)
	Defaults  bool     // true when some answers came from the defaults block (listed in Inherited)
	Inherited []string // annotation keys taken from defaults, sorted

	Effect      Effect
	Key         *Key         // nil only for EffectIdempotent/EffectReadOnly without a key
	Idempotency *Idempotency // nil when the provider honours no key
	Reference   *Reference   // nil when the key is not also stored at the provider
	Receipt     bool         // response.is == receipt (else acknowledgement)
	IDPointer   string       // response.id, a JSON pointer that resolves in Response.Type
	Lookup      *Lookup
	Retry       []string   // annotation names, sorted: "ambiguous", "not_sent", "status_429" ...
	Attempts    int        // >= 1; 3 when a retry set is given without attempts, 1 without retry
	Compensate  *Operation // resolved, annotated
	Dedupe      string     // "ledger" or ""
	Uncertain   string     // "reconcile": recorded for a person and the owner told
	Owner       string
	Credentials *Credentials
	Inbox       *Inbox
}

// Key is the typed business key of a write.
type Key struct {
	TypeName string     // <GoName>Key
	Fields   []KeyField // in the order the annotation lists them
	Format   string     // "escalation:{escalation_id}"
	Parts    []KeyPart  // Format split into literals and field references, in order
}

// KeyField is one field of a business key.
type KeyField struct {
	Name   string // as in the annotation: escalation_id
	GoName string // EscalationID
	Type   string // "string" or "int64"
}

// KeyPart is a literal (Field == nil) or a placeholder.
type KeyPart struct {
	Literal string
	Field   *KeyField
}

// Idempotency says where the provider takes its idempotency key.
type Idempotency struct {
	Header    string // e.g. "Idempotency-Key"
	Query     string // query parameter name
	Body      string // JSON pointer in the request body
	MaxLength int
	Window    time.Duration // 0 = the provider keeps keys forever
}

// Reference is where the provider key is also stored so that a lookup can find it.
type Reference struct {
	Body  string // JSON pointer in the request body: "/external_reference", "/metadata/writegen_ref"
	Query string
}

// Consistency of a lookup.
type Consistency string

const (
	Strong   Consistency = "strong"
	Eventual Consistency = "eventual"
)

// Lookup answers question 4.
type Lookup struct {
	Consistency Consistency
	// Func is a method the user writes on *Client in a file of their own; the generated code
	// checks its signature at compile time.
	Func string
	// Operation is a read from the spec, generated as the lookup. Params maps its parameter
	// names to templates where "{ref}" is the reference; Found is a JSON pointer to the found
	// object in its response ("" = the whole body, a 404 meaning not found), e.g. "/data/0".
	Operation *Operation
	Params    []LookupParam // sorted by Name
	Found     string
}

// LookupParam is one parameter a generated lookup passes.
type LookupParam struct {
	Name     string
	Template string
}

// Credentials answers question 8.
type Credentials struct {
	// RotationInvalidates is true when a refresh invalidates tokens in flight: an auth failure
	// during a concurrent rotation is then classified ambiguous.
	RotationInvalidates bool
}

// Inbox answers question 7 for operations triggered by webhooks.
type Inbox struct {
	Source    string        // the webhook source the events come from
	Retention time.Duration // how long event ids are kept (>= the provider's retry period)
	Order     string        // "any" or "ordered"
}
