package ir

import (
	"fmt"
	"slices"
	"time"

	"github.com/writegen/writegen/runtime"
)

// Pos is a position in an input file, 1-based. A zero Line means the position is unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

// API is one spec plus its annotations, ready to emit as one Go package.
type API struct {
	Package   string // Go package name
	Title     string // info.title
	Version   string // info.version
	SpecFile  string // base name of the spec file, as the user named it (never an absolute path)
	AnnotFile string // base name of the annotation file

	// Scope is the provider scope of the annotation file (its top-level scope): the first part
	// of every write's identity in the ledger and of its provider key. It is stable across
	// operationId renames and spec versions.
	Scope    string
	ScopePos Pos
	// PerAccount is set by tenancy: per_account: the provider serves several accounts told apart
	// by the credential alone, so the generated NewClient refuses to build a client without
	// runtime.WithTenant, whose tenant is part of every write's identity.
	PerAccount    bool
	PerAccountPos Pos
	// DefaultBaseURL is the spec's first server (servers[0], or Swagger 2.0's first scheme, host
	// and basePath) with its variables at their defaults; "" when the spec declares none. A
	// relative URL ("/v1") is kept as it is written.
	DefaultBaseURL string

	Types      []*Type      // named types, sorted by Name
	Operations []*Operation // operations in scope, sorted by GoName
	Excluded   []Excluded   // sorted by ID
	Inboxes    []*Inbox     // the webhook inboxes the writes declare, sorted by Source

	// ToolsPackage is the name of the package of agent tools (writegen generate -mcp), and of
	// its directory inside the client's: <Package>mcp. It imports the client package as
	// ToolsClient: Package, unless the tools' code uses that name for something else (the
	// packages it imports, its AddTools, its local variables), then <Package>client.
	ToolsPackage, ToolsClient string

	// NeedsLedger is true when an operation in scope is deduplicated in the ledger: the
	// generated constructor then takes a runtime.Ledger as a required parameter.
	NeedsLedger bool
	// Resumable lists the keyed writes (Call Write or Submit), sorted by GoName: the generated
	// Resume drives on their rows.
	Resumable []*Operation

	// Warnings are the defects that do not stop generation, sorted by position: those of the
	// spec in parts no operation in scope reaches (left out), what was read another way, and
	// acknowledgements that match no change.
	Warnings ErrorList
	// Identity is the record of the writes' identities, what WRITE_SAFETY.json holds.
	Identity IdentityRecord
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
	// Requires are, for a struct whose oneOf or anyOf members only constrain it, the properties
	// each member requires (sorted): one of them must be given (exactly one with RequiresOneOf).
	// Their properties are fields, optional in Go. Nil when the schema has no such members or a
	// member requires nothing.
	Requires      [][]string
	RequiresOneOf bool

	// AdditionalProperties is set on a struct that also allows extra keys, kept in the map field
	// ExtraName. The struct then has MarshalJSON and UnmarshalJSON methods, as it has when a
	// field is Untagged (JSONMethods).
	AdditionalProperties *TypeRef
	ExtraName            string

	Base string      // KindEnum: "string", "int64" or "float64"
	Enum []EnumValue // KindEnum, in spec order

	Variants      []*Variant // KindUnion, in spec order
	Discriminator string     // KindUnion: the property name, "" when the union is not discriminated
	// OneOf is set on a union written as a oneOf: a value must match exactly one variant (of an
	// anyOf, at least one).
	OneOf bool

	Elem *TypeRef // KindAlias

	// Same is set on a struct or an enum whose declaration would repeat that of Same, field for
	// field and doc for doc, or value for value: the spec writes one object at several places.
	// The generated code declares the type as an alias of Same, which keeps its own declaration.
	Same *Type
	// NoCompare is set on a struct that Go would let == compare although a field is a pointer,
	// which == compares by address: the generated struct is made not comparable.
	NoCompare bool
	// Sent is set on a type that a request can carry: an operation's parameter or body holds
	// it, or holds a type that does. Only a union that is sent has From methods.
	Sent bool
}

// Field is one property of a struct.
type Field struct {
	Name     string // JSON name, as in the spec
	GoName   string // resolved, unique within the struct (and apart from its methods)
	Type     *TypeRef
	Required bool
	// Nullable is true when the value may be null: nullable (3.0), a "null" type (3.1), or a
	// oneOf/anyOf member that is null or only the empty string (Stripe's {enum: [""]}, which
	// clears a field in a form body).
	Nullable bool
	Doc      string
	ReadOnly bool
	Pos      Pos
	// Pointer is true when the field is held through a pointer: it is optional or nullable and
	// its type's zero value is not nil, or its struct contains the struct holding it by value.
	Pointer bool
	// OmitEmpty is true when the field is left out of JSON when empty (it is optional).
	OmitEmpty bool
	// Untagged is true when no json tag can name the property ("", or a name with a quote, a
	// backslash or a comma): the struct's JSON methods read and write it by its name.
	Untagged bool
}

// EnumValue is one value of an enum; GoName is the constant's name (TypeName + ValueName).
type EnumValue struct {
	GoName string
	Value  any // string, int64 or float64
}

// Variant is one member of a union.
type Variant struct {
	Type   *TypeRef
	GoName string // the variant's name in its union, unique there: Card, BankAccount
	// AsName is the union's method that decodes it as this variant (As<GoName>), FromName the
	// one that sets it to the variant (From<GoName>, declared only when the union is Sent),
	// apart from each other and from the union's other members (RawMessage, MarshalJSON,
	// UnmarshalJSON, Discriminator, Value).
	AsName, FromName string
	// Tags are the discriminator values that select this variant (mapping or the schema name).
	Tags []string
	Pos  Pos
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
	// Check is what the schema of this use allows of a builtin or an array beyond its Go type
	// (a format, bounds, a pattern), nil when nothing: the agent tools' input schemas say it.
	Check *Check
}

// Check is what a schema allows of a scalar or an array beyond its type. Bounds not given are
// nil.
type Check struct {
	Format string // as the spec writes it: date, date-time, uri, email, uuid, ...
	// Pattern is the spec's pattern, kept only when Go's regexp accepts it (a pattern written for
	// another engine, with a look-ahead, is left out).
	Pattern              string
	MinLength, MaxLength *uint64
	Minimum, Maximum     *float64
	// ExclusiveMinimum and ExclusiveMaximum make Minimum and Maximum exclusive.
	ExclusiveMinimum, ExclusiveMaximum bool
	MultipleOf                         *float64
	MinItems, MaxItems                 *uint64
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
	Pos      Pos
	// Pointer is true when the field of the params struct is a pointer: the parameter is
	// optional and its type's zero value is not nil.
	Pointer bool
}

// BodyEncoding is how a request body is encoded.
type BodyEncoding string

const (
	BodyJSON      BodyEncoding = "json"
	BodyForm      BodyEncoding = "form"      // application/x-www-form-urlencoded (Stripe nested style)
	BodyMultipart BodyEncoding = "multipart" // multipart/form-data: Type is a struct
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

// CallKind says which function of the runtime carries out an operation.
type CallKind int

const (
	CallRead   CallKind = iota + 1 // writegenimpl.Read: a read, or a write declared read_only
	CallDo                         // writegenimpl.Do: a write without a business key (idempotent)
	CallWrite                      // writegenimpl.Write: a keyed write whose 2xx is a receipt
	CallSubmit                     // writegenimpl.Submit: a keyed write whose 2xx is an acknowledgement
)

// Operation is one path+method in scope.
type Operation struct {
	ID     string // operationId, or "POST /threads" when the spec has none
	GoName string // exported method name, resolved and unique
	Method string // upper case
	Path   string // template, without the query or fragment a spec may write into its path key
	// SpecPath is the path key as the spec writes it; it differs from Path when the key holds a
	// query ("/responses/compact?beta=true") or a fragment ("/shared_items#folders").
	SpecPath string
	// FixedQuery are the query parameters written into the path key, sent with every call in
	// the order written; the fragment is never sent.
	FixedQuery []QueryPair
	Tags       []string
	Summary    string
	Doc        string
	Pos        Pos // in the spec
	// Params are path params in template order, then query, header, cookie; each sorted by Name.
	// A path param the template names but the spec does not declare is a required string. The
	// header or query param that carries the idempotency key (Safety.Idempotency) is left out:
	// the generated code sets it from the provider key.
	Params   []*Param
	Body     *Body
	Response *Response
	// Deprecated as in the spec.
	Deprecated bool
	// PathParts is Path split into literals and the path parameters that fill it, in order.
	PathParts []PathPart

	// The names the generated code declares for the operation.
	Local          string // unexported stem: createThread for CreateThread
	ParamsName     string // its parameter struct (<GoName>Params), "" when it takes no parameter
	DescriptorName string // its descriptor, <Local>Op
	RetryName      string // its retry set, <Local>Retry ("" for reads)
	IDName         string // the accessor of a receipt's durable id, <Local>ID ("" without one)
	// EnvelopeName builds the 2xx body around an object a generated lookup found,
	// <Local>Envelope ("" without Safety.Object); RefusedName reads the provider's refusal
	// in a 2xx body, <Local>Refused ("" without Safety.OK).
	EnvelopeName, RefusedName string
	// VariantName describes the variant a reference goes through (Reference.Through),
	// <Local>Variant ("" without one).
	VariantName string

	Call CallKind
	// Write is true for POST, PUT, PATCH and DELETE. Safety is non-nil exactly for writes.
	Write  bool
	Safety *Safety
	// Hints are what an agent tool of the operation may claim about it.
	Hints Hints
	// ToolName is the name of the operation's agent tool (writegen generate -mcp): its
	// operationId when that is made of [A-Za-z0-9_-], else GoName; a name over 64 characters is
	// cut, with a hash of the whole; a name an operation before it in the IR's order has gets
	// the suffix _2, _3 ...
	ToolName string
	// ToolArgs are the top-level arguments of the tool, unique: the business key's fields (Call
	// Write or Submit), then Params, then the body.
	ToolArgs []ToolArg
	// ToolVar is the variable of the tools package (API.ToolsPackage) that holds the tool,
	// <Local>Tool; ToolFunc the function there that returns its handler, serve<GoName>. Both are
	// unique in that package, apart from what it imports and declares otherwise.
	ToolVar, ToolFunc string
}

// ToolArg is one top-level argument of an operation's agent tool: a field of its business key
// (Key), a parameter (Param) or its body (Body).
type ToolArg struct {
	Name  string // the property of the tool's input: [A-Za-z0-9_.-], at most 64 characters
	Key   *KeyField
	Param *Param
	Body  bool
}

// PathPart is a literal piece of a path template (Param nil) or the parameter that fills a
// placeholder.
type PathPart struct {
	Literal string
	Param   *Param
}

// Uncertain says what happens to an outcome nobody can settle.
type Uncertain string

// UncertainReconcile records the outcome for a person (in the ledger when there is one) and
// tells the owner; the caller gets runtime.ErrUncertain.
const UncertainReconcile Uncertain = "reconcile"

// Safety holds the validated answers of the annotation file for one write operation. Every
// answer is acted on by the generated code: none is only documented.
type Safety struct {
	Pos       Pos      // of the operation's entry in the annotation file (or of the defaults used)
	Defaults  bool     // true when some answers came from the defaults block (listed in Inherited)
	Inherited []string // annotation keys taken from defaults, sorted

	// Effect answers question 1, what a duplicate of the write does, in the runtime's terms
	// (its String is the annotation's name): read_only changes nothing and is called like a
	// read; idempotent is harmless to repeat; compensatable and ambiguous make a second effect,
	// which Compensate undoes for compensatable.
	Effect    runtime.Effect
	EffectPos Pos
	// Destructive says whether the write overwrites or deletes: answered (DestructiveSet), or
	// the method's default (DELETE, PUT and PATCH destructive, POST not).
	Destructive    bool
	DestructiveSet bool

	Key         *Key         // nil only for idempotent and read_only writes without a key
	Idempotency *Idempotency // nil when the provider honours no key
	Reference   *Reference   // nil when the reference is not stored at the provider
	// Sets are the places of the request the generated code fills in, in order: the
	// idempotency key in a body field or a query parameter, then the reference.
	Sets []Set

	Receipt bool  // response.is == receipt (else acknowledgement)
	ID      *Path // a receipt's durable id in the 2xx body; nil for an acknowledgement
	// Object is where the receipt's object is in the 2xx body (response.object: Zendesk's
	// {ticket: {...}}), reached through struct fields only; nil when it is the whole body. ID
	// goes through it, and a generated lookup finds objects of its type: the receipt it adopts
	// is the 2xx body rebuilt around the object found (Operation.EnvelopeName).
	Object *Path
	// OK is the boolean of the 2xx body that is false when the provider refused the write
	// (response.ok: Slack's /ok), and ErrorText the string that says why (response.error);
	// both reached through struct fields only, nil when not declared.
	OK, ErrorText *Path

	Lookup *Lookup
	// Retry is the compile-time retry set; RetryOn lists its members as written.
	Retry    runtime.Retry
	RetryOn  []RetryMember
	RetryPos Pos
	Attempts int // >= 1; 3 when a retry set is given without attempts, 1 without retry

	Compensate *Compensation
	Dedupe     bool // claim the business key in the ledger before calling
	DedupePos  Pos
	// Retention is how long the ledger remembers the business key of a Dedupe write once it is
	// settled for good (retention:): a repeat within it gets the first outcome, and Resume or
	// "writegen ledger prune" may forget the key after it. 0 keeps every key for good.
	Retention    time.Duration
	RetentionPos Pos
	Uncertain    Uncertain
	Owner        string
	// Credentials is nil when not declared.
	Credentials *Credentials
	Inbox       *Inbox
	Acknowledge *Acknowledge // nil when the entry acknowledges nothing
}

// RetryMember is one failure kind of a retry set, where it is written.
type RetryMember struct {
	Kind runtime.Retry
	Name string // as written: "status_503"
	Pos  Pos
}

// Key is the typed business key of a write.
type Key struct {
	TypeName string     // <GoName>Key
	Fields   []KeyField // in the order the annotation lists them
	Format   string     // "escalation:{escalation_id}"
	Parts    []KeyPart  // Format split into literals and field references, in order
	// Scope is the key scope: the operation part of the write's identity (ledger row and
	// provider key). It defaults to the entry's name, normalised; key.scope keeps it stable when
	// the operation is renamed.
	Scope    string
	ScopePos Pos // of key.scope, or of the entry when it is the default
	Pos      Pos
	// FormatPos is where the format is written.
	FormatPos Pos
}

// KeyField is one field of a business key.
type KeyField struct {
	Name   string // as in the annotation: escalation_id
	GoName string // EscalationID, apart from the key type's BusinessKey method
	Type   string // "string" or "int64"
	Pos    Pos
}

// KeyPart is a literal (Field == nil) or a placeholder.
type KeyPart struct {
	Literal string
	Field   *KeyField
}

// Idempotency says where the provider takes its idempotency key.
type Idempotency struct {
	Header       string // e.g. "Idempotency-Key"
	Query        string // query parameter name
	Body         *Path  // a string field of the request body
	MaxLength    int    // 0 = no limit
	MaxLengthPos Pos
	// MaxLengthSpec is set when MaxLength is the spec's maxLength for the key, which the
	// annotation does not restate (MaxLengthPos is then in the spec).
	MaxLengthSpec bool
	Window        time.Duration // as declared; WindowForever; 0 when no person declared it (unknown)
	Pos           Pos
}

// Place describes where the key travels, for reports and the identity record: "header
// Idempotency-Key", "query idem", "body /idempotency_key".
func (i *Idempotency) Place() string {
	switch {
	case i.Header != "":
		return "header " + i.Header
	case i.Query != "":
		return "query " + i.Query
	case i.Body != nil:
		return "body " + i.Body.Pointer
	}
	return ""
}

// Reference is what the write stores at the provider so that a lookup can find it: the provider
// key, or (Value) a template over the key's fields.
type Reference struct {
	Body  *Path  // a string field of the request body
	Query string // or a query parameter
	// Value is the reference as a template over the key's fields; nil means the provider key.
	Value       []KeyPart
	ValueFormat string // Value as written: "{escalation_id}"
	// Marker, when set, is appended to the text of the string field Body instead of replacing
	// it (a comment's body, where the provider has no field for the reference): a template
	// whose Hole is the reference. The lookup then matches the text that contains it.
	Marker     []TemplatePart
	MarkerText string // as written: " [ref:{ref}]"
	MarkerPos  Pos
	// Through is the variant of a oneOf/anyOf of the request body that Body goes through
	// (reference.through; Body has a StepVariant): the reference is set only when the caller
	// sends that variant, and a call that sends another carries none, so that its lookup is
	// not asked. Nil when Body goes through no union.
	Through    *Variant
	ThroughPos Pos
	Pos        Pos
}

// SetValue is what the generated code stores in a place of the request.
type SetValue int

const (
	SetProviderKey SetValue = iota + 1 // the provider key
	SetReference                       // the reference (the provider key unless Reference.Value)
)

// Set is one place of a keyed write's request that the generated code fills in: a string field
// of the body (Body) or a query parameter (Query).
type Set struct {
	Body  *Path
	Query string
	Value SetValue
}

// Lookup answers question 4: how to find what an earlier attempt committed, by its reference.
type Lookup struct {
	// Consistency is runtime.Strong ("not found" means the write did not commit) or
	// runtime.Eventual ("found" may be adopted; "not found" proves nothing), each qualified by
	// Lag below; its String is the annotation's name.
	Consistency runtime.Consistency
	Pos         Pos
	// Source is where a person checked what the consistency claims of the provider (a
	// settle time or a lag): a docs URL or a reason, shown in WRITE_SAFETY.md; "" for a plain
	// eventual lookup, which claims nothing.
	Source    string
	SourcePos Pos
	// Name is the method of Client the generated code calls: <Local>Lookup, generated, with the
	// signature
	//	func (c *Client) Name(ctx context.Context, reference string) ([]runtime.Found[*T], error)
	Name string
	// Func is set for a method the user writes on *Client in a file of their own; the generated
	// lookup Name calls it with a QueryName struct of the reference and Values, and checks
	// its signature at compile time:
	//	func (c *Client) Func(ctx context.Context, q QueryName) ([]runtime.Found[*T], error)
	Func string
	// QueryName is the struct a lookup written by hand is asked with, <GoName>Lookup: the
	// write's reference and Values, which travel with it to the ledger row.
	QueryName string
	// Operation is a read from the spec (a GET, or a POST search declared read_only), called
	// with Params and Body, where "{ref}" is the reference.
	Operation *Operation
	Params    []*Template // sorted by the parameter's Name
	Body      *BodyTemplate
	// Found is where the found effect is in the lookup's response: nil means the whole body,
	// where a 404 means not found. A StepEach in it makes every element of that array a found
	// effect ("/items/0").
	Found *Path
	// Match, in the found element, is the string field that carries the reference: the runtime
	// keeps an element only when the field equals the reference, or, when the write stores a
	// marker (Reference.Marker), contains the marker (runtime.Found.Ref), whatever the read
	// matched. Every generated lookup has one: lookup.match as written, or the field the write
	// stores its reference in (MatchDerived). Pages and Since need Found to be an element of a
	// list.
	Match        *Path
	MatchDerived bool
	// NewestFirst are the read's parameters that ask for the list newest first
	// (lookup.newest_first), sent with Params; each a query parameter whose spec lists the value.
	// A walk bounded by Since needs them.
	NewestFirst []*Template
	// Adopt, when set, reads the receipt's object by the id of the element found
	// (lookup.adopt: {operation, params}), so the receipt is the object itself, not what the
	// search returned.
	Adopt *AdoptRead
	// Pages bounds a walk through a list of many pages; nil reads one page.
	Pages *Pages
	// Since, in the found element, is when it was created (a time.Time, an RFC 3339 string or
	// Unix seconds): in a list newest first, the walk stops at the first element created before
	// the write first used its key, less writegenimpl.SinceMargin. Nil without such a bound.
	Since *Path
	// Object is set when the lookup finds the receipt's object (Safety.Object), not the write's
	// whole answer: the receipt it adopts is the answer built around the object found
	// (Operation.EnvelopeName).
	Object bool
	// Extends is set when the receipt's object (the write's response, or Safety.Object) is a
	// struct that extends the found element's struct: an allOf of its schema with optional
	// properties of its own, its first fields the element's (Intercom's
	// create_contact_response, allOf [contact] and enabled_push_messaging). The receipt adopted
	// copies the element's fields and leaves the object's own empty.
	Extends bool
	// Copies is set by lookup.adopt: fields: the receipt's object is built from the found
	// element, of another schema, by copying the properties of the same name (Jira's create
	// answers id, key and self; its search finds whole issues). The others stay empty.
	Copies bool
	// OK is the write's Safety.OK resolved in the read's response, when the read answers with
	// the same boolean (Slack's reads carry ok too): false there fails the lookup rather than
	// reading as not found. Nil otherwise.
	OK *Path
	// Lag is how long after a write's last attempt ended the lookup is sure to see it: for an
	// eventual lookup its lag (consistency: {eventual: 30s}), for a strong one its settle time,
	// the longest the provider may still commit a request whose connection was lost
	// (consistency: {strong: 5s}). "Not found" proves the write did not commit only once it has
	// passed. Zero: for an eventual lookup "not found" proves nothing; a strong one settles by
	// the client's runtime.WithLookupSettle.
	Lag time.Duration
	// Escape is the query language each substitution of Params and Body is escaped for, as a
	// whole literal of it (writegenimpl.StripeSearchString, ...); "" substitutes values as
	// they are.
	Escape Escape
	// Values are the values of the write, other than the reference, that Params name (the
	// ticket_id whose comments the read lists), sorted by Name. They travel with the reference
	// (writegenimpl.JoinReference), so that Resume asks the same lookup.
	Values []*LookupValue
}

// AdoptRead is a read that returns the receipt's object by the id of what a lookup found:
// GitHub's issue search finds IssueSearchResultItem, and issues/get reads the Issue its create
// answers.
type AdoptRead struct {
	Operation *Operation
	// Params are the read's parameters: "{id}" is the found element's ID, and {NAME} a value of
	// the write, as in Lookup.Params.
	Params []*Template
	// ID is the found element's id, in the found element: the write's response.id pointer.
	ID *Path
	// Match is the string of the read's answer that carries the write's reference: the lookup's
	// match pointer, in the object read (under response.object). The runtime compares the
	// object read, not only the element found: a search that matched an element elsewhere
	// (another repository's issue of the same number) never has another object adopted.
	Match *Path
	Pos   Pos
}

// Escape names a query language whose literals a lookup's substitutions are written as.
type Escape string

const (
	EscapeStripeSearch  Escape = "stripe_search"  // Stripe's search query language: 'value'
	EscapeZendeskSearch Escape = "zendesk_search" // Zendesk's search syntax: value or "a phrase"
	EscapeGitHubSearch  Escape = "github_search"  // GitHub's issue search syntax: value or "a phrase"
	EscapeJQL           Escape = "jql"            // Jira's JQL: "value"
	EscapeLucene        Escape = "lucene"         // the Lucene query syntax: a backslash-escaped term
)

// Escapes are the query languages, in the order messages list them.
var Escapes = []Escape{EscapeStripeSearch, EscapeZendeskSearch, EscapeGitHubSearch, EscapeJQL, EscapeLucene}

// Pages is the bound of a lookup that walks the pages of a list: at most Max pages, each next
// one asked for by passing the response's Cursor as the read's parameter Param. The walk ends
// at the list's end when the cursor is absent or empty.
//
// Without a Cursor the walk goes by page number: Param, an integer, is Start on the first
// request and one more on each next; a page with no element is the end of the list.
type Pages struct {
	Max    int
	Cursor *Path  // in the read's response: a string; nil: by page number
	Param  *Param // of the read: a string (the cursor) or an integer (the page number)
	Start  int    // the first page's number, by page number
	Pos    Pos
}

// LookupValue is a value a lookup's params take from the write: a required path or query
// parameter of the write (Param) or a field of its business key (Field).
type LookupValue struct {
	Name    string // as the template writes it: ticket_id
	Param   *Param
	Field   *KeyField
	Integer bool // an integer: formatted in base 10 to travel, parsed back by the lookup
	Pos     Pos
}

// Template is a parameter value written as a template with one placeholder: "{ref}" in a
// lookup, "{id}" in a compensation.
type Template struct {
	Param *Param
	Text  string         // as written: "ref:{ref}"
	Parts []TemplatePart // Text split at the placeholder
	// Const is a lookup param's constant of its own type, not a string (per_page: 100): an
	// int64, a float64, a bool, or an enum's value.
	Const any
	Pos   Pos
}

// TemplatePart is a literal, the placeholder (Literal "" and Hole true), or, in a lookup's
// params, a value of the write (Value).
type TemplatePart struct {
	Literal string
	Hole    bool
	Value   *LookupValue
}

// BodyTemplate is the JSON body a lookup sends, with "{ref}" substituted in its string values
// (a POST search: Intercom, Jira and HubSpot search with a JSON body).
type BodyTemplate struct {
	// Parts is the JSON text split into literal JSON and the string values that hold the
	// placeholder: each such value is a JSON string built from its TemplateParts.
	Parts []JSONPart
	JSON  string // the template as compact JSON, for reports
	Pos   Pos
}

// JSONPart is literal JSON text, or (String non-nil) a JSON string value built from a template.
type JSONPart struct {
	Literal string
	String  []TemplatePart
}

// Compensation undoes a duplicate effect: the lookup found it beyond the first.
type Compensation struct {
	Operation *Operation // an idempotent write without a business key
	Params    []*Template
	Name      string // the method of Client the generated code declares: <Local>Compensate
	Pos       Pos
}

// Credentials answers question 8.
type Credentials struct {
	// RotationInvalidates is true when a refresh invalidates tokens in flight: an auth failure
	// during a concurrent rotation is then classified ambiguous.
	RotationInvalidates bool
}

// Order says how an inbox handles events that arrive out of order, in the ledger's words.
type Order string

const (
	OrderAny     Order = "any"      // every event once, in any order
	OrderInOrder Order = "in_order" // the events of one ordering key one at a time, in sequence
	OrderLatest  Order = "latest"   // in order, skipping an event older than one already handled
)

// Inbox answers question 7 for writes triggered by webhooks: the generated package builds the
// inbox of the webhook source the answer declares.
type Inbox struct {
	Source    string        // the webhook source the events come from
	Retention time.Duration // how long event ids are kept (>= the provider's retry period)
	Order     Order
	Pos       Pos
	GoName    string       // its constructor: New<Source>Inbox
	Writes    []*Operation // the writes whose answers declare it, sorted by GoName
}

// Acknowledge accepts changes of a write's identity that writegen would refuse against the
// WRITE_SAFETY.json of the generated package: each item names the answer given up, by its old
// value.
type Acknowledge struct {
	Reason string
	Items  []AckItem // in the order written
	Pos    Pos
}

// AckItem is one acknowledged change: the kind of answer and its old value.
type AckItem struct {
	Kind     string // scope, key_scope, key_format, max_length, retry, lookup, dedupe
	Old      string
	Pos      Pos
	Defaults bool // written in the defaults block
}

// Path is a JSON pointer of the annotation file resolved against the Go types it goes through:
// each step a struct field, an array element or a map key. The emitters turn it into selectors
// and index expressions; nothing walks a pointer at run time.
type Path struct {
	Pointer string // as written: "/items/0/id"
	Steps   []Step
	Root    *TypeRef // the type the path starts from
	Type    *TypeRef // the type of the value it ends at
	Pos     Pos      // of the pointer in the annotation file
}

// StepKind says what one step of a Path goes into.
type StepKind int

const (
	StepField StepKind = iota + 1 // Field of a struct
	StepIndex                     // element Index of an array
	StepEach                      // every element of an array (a lookup's found: "/items/0")
	StepKey                       // key Key of a map, or of a struct's AdditionalProperties (Extra)
	// StepUnion goes into a oneOf/anyOf (Union), whose value is known only once decoded: the
	// properties Rest lead, in every variant, to a string or an integer (Type). It is the last
	// step of a receipt's id.
	StepUnion
	// StepVariant goes into the Variant of a oneOf/anyOf (Union) that a reference is stored in
	// (Reference.Through): the steps after it are properties of the variant. The generated code
	// sets them in the union's JSON only when it holds that variant.
	StepVariant
)

// Step is one step of a Path.
type Step struct {
	Kind  StepKind
	Field *Field // StepField
	Index int    // StepIndex
	Key   string // StepKey
	Extra bool   // StepKey into the struct's map of additional properties (Type.ExtraName)
	// Struct is the struct stepped through by StepField and an Extra StepKey.
	Struct *Type
	Union  *Type // StepUnion, StepVariant
	// Variant is the member of Union a StepVariant goes into.
	Variant *Variant
	Rest    []string // StepUnion: the properties, in order
	Type    *TypeRef // the type of the value reached
}

// Hints are what an agent tool of the operation may claim about it (MCP's tool annotations),
// derived from the answers and never more than they prove (promise 36).
type Hints struct {
	// ReadOnly: the operation changes nothing (a read, or a write answered read_only).
	ReadOnly bool
	// Idempotent: repeating the call with the same arguments cannot make a second effect. A
	// read; an idempotent effect; a business key claimed in the ledger (a repeat gets the
	// first outcome); or a provider key the provider keeps forever (window: forever). A key
	// remembered for a window, or for a time nobody declared, does not qualify: a repeat after
	// the window is a second effect.
	Idempotent bool
	// Destructive: the write overwrites or deletes (the destructive answer, else the method's
	// default: true for DELETE, PUT and PATCH).
	Destructive bool
}

// QueryPair is one query parameter a spec writes into a path key, name and value unescaped.
type QueryPair struct {
	Name, Value string
}

// StringVariant returns the member of the union r names that is a plain string, or nil when r
// names no union or the union has no such member.
func StringVariant(r *TypeRef) *Variant {
	if r.Kind != RefNamed || r.Named.Kind != KindUnion {
		return nil
	}
	for _, v := range r.Named.Variants {
		if v.Type.Kind == RefBuiltin && v.Type.Builtin == "string" {
			return v
		}
	}
	return nil
}

// String renders a type reference as Go source, for messages and tests.
func (r *TypeRef) String() string {
	switch r.Kind {
	case RefNamed:
		return r.Named.Name
	case RefArray:
		return "[]" + r.Elem.String()
	case RefMap:
		return "map[string]" + r.Elem.String()
	case RefBuiltin:
		return r.Builtin
	}
	return fmt.Sprintf("TypeRef(%d)", r.Kind)
}

// JSONMethods reports whether a struct has its own MarshalJSON and UnmarshalJSON: it keeps
// additional properties, or a property no json tag can name.
func (t *Type) JSONMethods() bool {
	return t.Kind == KindStruct && (t.AdditionalProperties != nil || slices.ContainsFunc(t.Fields, func(f *Field) bool { return f.Untagged }))
}

// WindowForever is the Window of an idempotency key the annotation says the provider keeps for
// good (window: forever).
//
// A window is an answer a person gives from the provider's documentation: none is assumed.
// Without one (no window, or window: unknown) the Window is 0, and the generated code relies on
// the key only within the call that first sends it (the runtime's KeyWindow 0): its retries
// re-send it, but Resume, a takeover of its ledger row and a later call with the same business
// key never do, since the provider may have forgotten it. They ask the lookup, or leave the
// outcome uncertain, as for a key past its window.
const WindowForever time.Duration = -1

// WindowKnown reports whether a person declared how long the provider remembers the key.
func (i *Idempotency) WindowKnown() bool { return i.Window != 0 }

// Forever reports whether the provider keeps the key for good (window: forever).
func (i *Idempotency) Forever() bool { return i.Window == WindowForever }
