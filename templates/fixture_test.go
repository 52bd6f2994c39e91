package templates

import (
	"time"

	"github.com/writegen/writegen/spec"
)

// sampleAPI builds, by hand, the IR of a small support-desk API that uses most shapes the
// emitters know: structs with required, optional, nullable, read-only and recursive fields,
// unknown keys, enums, aliases, a discriminated and an undiscriminated union, every parameter
// location, JSON, form and multipart bodies, receipts and acknowledgements, hand-written and
// generated lookups, and a ledger.
func sampleAPI() *spec.API {
	pos := func(line int) spec.Pos { return spec.Pos{File: "openapi.yaml", Line: line, Col: 5} }
	apos := func(line int) spec.Pos { return spec.Pos{File: "writesafety.yaml", Line: line, Col: 3} }
	str := &spec.TypeRef{Kind: spec.RefBuiltin, Builtin: "string"}
	i64 := &spec.TypeRef{Kind: spec.RefBuiltin, Builtin: "int64"}
	named := func(t *spec.Type) *spec.TypeRef { return &spec.TypeRef{Kind: spec.RefNamed, Named: t} }
	builtin := func(b string) *spec.TypeRef { return &spec.TypeRef{Kind: spec.RefBuiltin, Builtin: b} }
	array := func(e *spec.TypeRef) *spec.TypeRef { return &spec.TypeRef{Kind: spec.RefArray, Elem: e} }
	mapOf := func(e *spec.TypeRef) *spec.TypeRef { return &spec.TypeRef{Kind: spec.RefMap, Elem: e} }

	status := &spec.Type{Name: "ThreadStatus", Kind: spec.KindEnum, SchemaName: "ThreadStatus", Pos: pos(10),
		Doc: "Where a thread is.\u202e Hidden */ text\x00.", Base: "string",
		Enum: []spec.EnumValue{{GoName: "ThreadStatusOpen", Value: "open"}, {GoName: "ThreadStatusClosed", Value: "closed"}}}
	priority := &spec.Type{Name: "Priority", Kind: spec.KindEnum, SchemaName: "Priority", Pos: pos(15), Base: "int64",
		Enum: []spec.EnumValue{{GoName: "PriorityLow", Value: int64(1)}, {GoName: "PriorityHigh", Value: int64(3)}}}
	tags := &spec.Type{Name: "Tags", Kind: spec.KindAlias, SchemaName: "Tags", Pos: pos(20), Elem: array(str)}
	metadata := &spec.Type{Name: "Metadata", Kind: spec.KindAlias, SchemaName: "Metadata", Pos: pos(22), Elem: mapOf(str)}
	message := &spec.Type{Name: "Message", Kind: spec.KindStruct, SchemaName: "Message", Pos: pos(30)}
	thread := &spec.Type{Name: "Thread", Kind: spec.KindStruct, SchemaName: "Thread", Pos: pos(40), Doc: "A conversation."}
	message.Fields = []*spec.Field{
		{Name: "id", GoName: "ID", Type: str, Required: true},
		{Name: "thread", GoName: "Thread", Type: named(thread), Required: true},
		{Name: "reply_to", GoName: "ReplyTo", Type: named(message)},
		{Name: "body", GoName: "Body", Type: str, Required: true, Doc: "The text. Ends with */ and a line\nbreak."},
	}
	thread.Fields = []*spec.Field{
		{Name: "id", GoName: "ID", Type: str, Required: true, ReadOnly: true},
		{Name: "status", GoName: "Status", Type: named(status), Required: true},
		{Name: "priority", GoName: "Priority", Type: named(priority)},
		{Name: "title", GoName: "Title", Type: str, Nullable: true, Required: true},
		{Name: "created", GoName: "Created", Type: builtin("time.Time"), Required: true},
		{Name: "count", GoName: "Count", Type: i64},
		{Name: "tags", GoName: "Tags", Type: named(tags)},
		{Name: "metadata", GoName: "Metadata", Type: named(metadata)},
		{Name: "first", GoName: "First", Type: named(message), Required: true},
		{Name: "external_reference", GoName: "ExternalReference", Type: str},
	}
	threadList := &spec.Type{Name: "ThreadList", Kind: spec.KindStruct, SchemaName: "ThreadList", Pos: pos(60),
		Fields: []*spec.Field{{Name: "data", GoName: "Data", Type: array(named(thread)), Required: true}}}
	card := &spec.Type{Name: "Card", Kind: spec.KindStruct, SchemaName: "Card", Pos: pos(70),
		Fields: []*spec.Field{{Name: "type", GoName: "Type", Type: str, Required: true}, {Name: "last4", GoName: "Last4", Type: str}}}
	bank := &spec.Type{Name: "BankAccount", Kind: spec.KindStruct, SchemaName: "BankAccount", Pos: pos(75),
		Fields: []*spec.Field{{Name: "type", GoName: "Type", Type: str, Required: true}, {Name: "iban", GoName: "IBAN", Type: str}}}
	source := &spec.Type{Name: "PaymentSource", Kind: spec.KindUnion, SchemaName: "PaymentSource", Pos: pos(80),
		Discriminator: "type", Variants: []*spec.Variant{
			{Type: named(card), GoName: "Card", Tags: []string{"card"}},
			{Type: named(bank), GoName: "BankAccount", Tags: []string{"bank_account", "BankAccount"}},
		}}
	created := &spec.Type{Name: "CreatedFilter", Kind: spec.KindUnion, Pos: pos(85), Variants: []*spec.Variant{
		{Type: i64, GoName: "Int64"},
		{Type: mapOf(i64), GoName: "Range"},
	}}
	extra := &spec.Type{Name: "Settings", Kind: spec.KindStruct, SchemaName: "Settings", Pos: pos(90),
		Fields:               []*spec.Field{{Name: "mode", GoName: "Mode", Type: str}},
		AdditionalProperties: i64}
	createReq := &spec.Type{Name: "CreateThreadRequest", Kind: spec.KindStruct, Pos: pos(100), Fields: []*spec.Field{
		{Name: "title", GoName: "Title", Type: str, Required: true},
		{Name: "external_reference", GoName: "ExternalReference", Type: str},
		{Name: "source", GoName: "Source", Type: named(source)},
		{Name: "settings", GoName: "Settings", Type: named(extra)},
	}}
	chargeReq := &spec.Type{Name: "CreateChargeRequest", Kind: spec.KindStruct, Pos: pos(110), Fields: []*spec.Field{
		{Name: "amount", GoName: "Amount", Type: i64, Required: true},
		{Name: "metadata", GoName: "Metadata", Type: mapOf(str)},
	}}
	uploadReq := &spec.Type{Name: "UploadFileRequest", Kind: spec.KindStruct, Pos: pos(120), Fields: []*spec.Field{
		{Name: "file", GoName: "File", Type: builtin("[]byte"), Required: true},
		{Name: "purpose", GoName: "Purpose", Type: named(status)},
		{Name: "size", GoName: "Size", Type: i64},
		{Name: "meta", GoName: "Meta", Type: named(extra)},
	}}
	charge := &spec.Type{Name: "Charge", Kind: spec.KindStruct, SchemaName: "Charge", Pos: pos(130), Fields: []*spec.Field{
		{Name: "id", GoName: "ID", Type: str, Required: true},
		{Name: "amount", GoName: "Amount", Type: i64, Required: true},
	}}

	getThread := &spec.Operation{ID: "getThread", GoName: "GetThread", Method: "GET", Path: "/threads/{thread_id}", Pos: pos(200),
		Summary: "Get a thread",
		Params: []*spec.Param{
			{Name: "thread_id", GoName: "ThreadID", In: spec.InPath, Type: str, Required: true, Style: "simple"},
			{Name: "expand", GoName: "Expand", In: spec.InQuery, Type: array(str), Style: "form", Explode: true},
			{Name: "X-Request-Id", GoName: "XRequestID", In: spec.InHeader, Type: str, Style: "simple"},
			{Name: "session", GoName: "Session", In: spec.InCookie, Type: str, Style: "form", Explode: true},
		},
		Response: &spec.Response{Status: 200, Type: named(thread), ContentType: "application/json"}}
	listThreads := &spec.Operation{ID: "listThreads", GoName: "ListThreads", Method: "GET", Path: "/threads", Pos: pos(210),
		Params: []*spec.Param{
			{Name: "created", GoName: "Created", In: spec.InQuery, Type: named(created), Style: "deepObject", Explode: true},
			{Name: "external_reference", GoName: "ExternalReference", In: spec.InQuery, Type: str, Style: "form", Explode: true},
			{Name: "since", GoName: "Since", In: spec.InQuery, Type: builtin("time.Time"), Style: "form", Explode: true},
			{Name: "tags", GoName: "Tags", In: spec.InQuery, Type: named(tags), Style: "form"},
		},
		Response: &spec.Response{Status: 200, Type: named(threadList), ContentType: "application/json"}}
	deleteThread := &spec.Operation{ID: "deleteThread", GoName: "DeleteThread", Method: "DELETE", Path: "/threads/{thread_id}", Pos: pos(220),
		Params: []*spec.Param{{Name: "thread_id", GoName: "ThreadID", In: spec.InPath, Type: str, Required: true, Style: "simple"}},
		Write:  true,
		Safety: &spec.Safety{Pos: apos(40), Effect: spec.EffectIdempotent, Retry: []string{"not_sent", "status_503"}, Attempts: 3,
			Uncertain: "reconcile", Owner: "support-ops", Defaults: true, Inherited: []string{"owner", "uncertain"}}}
	createThread := &spec.Operation{ID: "createThread", GoName: "CreateThread", Method: "POST", Path: "/threads", Pos: pos(230),
		Summary: "Create a thread", Doc: "Opens a thread.\n\nIt notifies the team.",
		Body:     &spec.Body{Encoding: spec.BodyJSON, ContentType: "application/json", Type: named(createReq), Required: true},
		Response: &spec.Response{Status: 201, Type: named(thread), ContentType: "application/json"},
		Write:    true,
	}
	keyField := spec.KeyField{Name: "escalation_id", GoName: "EscalationID", Type: "string"}
	createThread.Safety = &spec.Safety{Pos: apos(10), Effect: spec.EffectAmbiguous,
		Key: &spec.Key{TypeName: "CreateThreadKey", Fields: []spec.KeyField{keyField}, Format: "escalation:{escalation_id}",
			Parts: []spec.KeyPart{{Literal: "escalation:"}, {Field: &keyField}}},
		Idempotency: &spec.Idempotency{Header: "Idempotency-Key", MaxLength: 255, Window: 24 * time.Hour},
		Reference:   &spec.Reference{Body: "/external_reference"},
		Receipt:     true, IDPointer: "/id",
		Lookup: &spec.Lookup{Consistency: spec.Strong, Operation: listThreads, Params: []spec.LookupParam{{Name: "external_reference", Template: "{ref}"}}, Found: "/data/0"},
		Retry:  []string{"ambiguous", "not_sent", "status_409", "status_429"}, Attempts: 4,
		Compensate: deleteThread, Dedupe: "ledger", Uncertain: "reconcile", Owner: "support-ops",
		Credentials: &spec.Credentials{RotationInvalidates: true},
	}
	orderField := spec.KeyField{Name: "order_id", GoName: "OrderID", Type: "int64"}
	lineField := spec.KeyField{Name: "line", GoName: "Line", Type: "string"}
	createCharge := &spec.Operation{ID: "createCharge", GoName: "CreateCharge", Method: "POST", Path: "/charges", Pos: pos(240),
		Body:     &spec.Body{Encoding: spec.BodyForm, ContentType: "application/x-www-form-urlencoded", Type: named(chargeReq)},
		Response: &spec.Response{Status: 200, Type: named(charge), ContentType: "application/json"},
		Write:    true,
		Safety: &spec.Safety{Pos: apos(60), Effect: spec.EffectAmbiguous,
			Key: &spec.Key{TypeName: "CreateChargeKey", Fields: []spec.KeyField{orderField, lineField}, Format: "order:{order_id}/{line}",
				Parts: []spec.KeyPart{{Literal: "order:"}, {Field: &orderField}, {Literal: "/"}, {Field: &lineField}}},
			Idempotency: &spec.Idempotency{Header: "Idempotency-Key", MaxLength: 255, Window: 24 * time.Hour},
			Reference:   &spec.Reference{Body: "/metadata/writegen_ref"},
			Receipt:     true, IDPointer: "/id",
			Lookup: &spec.Lookup{Consistency: spec.Eventual, Func: "findChargeByReference"},
			Retry:  []string{"ambiguous", "not_sent"}, Attempts: 3, Uncertain: "reconcile", Owner: "payments | oncall",
		}}
	reqField := spec.KeyField{Name: "request_id", GoName: "RequestID", Type: "string"}
	sendMessage := &spec.Operation{ID: "sendMessage", GoName: "SendMessage", Method: "POST", Path: "/threads/{thread_id}/messages", Pos: pos(250),
		Params:   []*spec.Param{{Name: "thread_id", GoName: "ThreadID", In: spec.InPath, Type: str, Required: true, Style: "simple"}},
		Body:     &spec.Body{Encoding: spec.BodyJSON, ContentType: "application/json", Type: named(message), Required: true},
		Response: &spec.Response{Status: 202, ContentType: "application/json"},
		Write:    true,
		Safety: &spec.Safety{Pos: apos(80), Effect: spec.EffectAmbiguous,
			Key: &spec.Key{TypeName: "SendMessageKey", Fields: []spec.KeyField{reqField}, Format: "{request_id}",
				Parts: []spec.KeyPart{{Field: &reqField}}},
			Idempotency: &spec.Idempotency{Query: "idempotency_key"},
			Retry:       []string{"not_sent"}, Attempts: 2, Uncertain: "reconcile",
			Inbox: &spec.Inbox{Source: "chat", Retention: 72 * time.Hour, Order: "any"},
		}}
	uploadFile := &spec.Operation{ID: "uploadFile", GoName: "UploadFile", Method: "POST", Path: "/files", Pos: pos(260),
		Body:     &spec.Body{Encoding: spec.BodyMultipart, ContentType: "multipart/form-data", Type: named(uploadReq), Required: true},
		Response: &spec.Response{Status: 200, Type: named(charge), ContentType: "application/json"},
		Write:    true,
		Safety:   &spec.Safety{Pos: apos(100), Effect: spec.EffectIdempotent, Retry: []string{"not_sent"}, Attempts: 2, Uncertain: "reconcile"},
	}
	return &spec.API{
		Package: "support", Title: "Support desk", Version: "1.0", SpecFile: "openapi.yaml", AnnotFile: "writesafety.yaml",
		Types: []*spec.Type{bank, card, charge, chargeReq, createReq, created, message, metadata, source, priority, extra, tags,
			thread, threadList, status, uploadReq},
		Operations:  []*spec.Operation{createCharge, createThread, deleteThread, getThread, listThreads, sendMessage, uploadFile},
		Excluded:    []spec.Excluded{{ID: "archiveThread", Reason: "not used | by this connector", Pos: apos(120)}},
		NeedsLedger: true,
	}
}
