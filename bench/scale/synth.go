package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The synthetic API is a set of resources, each with up to opsPerResource operations in this
// order (a size that is not a multiple of it ends with a partial resource):
//
//	GET    /v1/{plural}                      list<R>: query parameters, the lookup of create<R>
//	POST   /v1/{plural}                      create<R>: a keyed write, a receipt, a lookup
//	GET    /v1/{plural}/{id}                 get<R>
//	PATCH  /v1/{plural}/{id}                 update<R>: an idempotent write without a key
//	DELETE /v1/{plural}/{id}                 delete<R>: idempotent, the compensation of some creates
//	POST   /v1/{plural}/{id}/{verb}          <verb><R>: a keyed write acknowledged (202) with a job
//	PUT    /v1/{plural}/{id}/labels          put<R>Labels: an idempotent write of a list
//
// So the generated code calls every entry point of the runtime: Read (list, get), Write
// (create), Submit (the action), Do (update, delete, labels) and Resume (every write
// deduplicated in the ledger: half of the creates and a third of the actions).
//
// Each resource's schemas are drawn from the seed: a struct with nested inline objects, an enum,
// arrays of a per-resource item struct, a string map, a few scalar fields of assorted formats,
// and for one resource in five a discriminated union. Shared schemas (Money, Address, Job,
// Error, the union's variants) are referenced by all. Resources are tagged in groups of
// groupSize, so an include filter can select a slice of the API.
const opsPerResource = 7

// groupSize is how many resources share one tag.
const groupSize = 20

// nouns are the stems of resource names; a resource is a noun and its index ("invoice12").
var nouns = []string{"account", "invoice", "order", "shipment", "ticket", "project", "device",
	"policy", "report", "subscription", "payment", "customer", "product", "coupon", "webhook",
	"member", "team", "channel", "document", "asset"}

// verbs name the action of a resource.
var verbs = []string{"archive", "approve", "publish", "cancel", "refund", "sync"}

// resource is one synthetic resource and the shape drawn for it.
type resource struct {
	name     string // "invoice12": operationIds, paths, key fields
	title    string // "Invoice12": schema names
	group    int    // tag "groupNN"
	verb     string
	ops      int      // operations of it in the spec, opsPerResource but for the last
	statuses []string // enum values of its status
	extras   []extraField
	items    []extraField // extra fields of its item struct
	union    bool
	// annotations
	dedupeCreate, dedupeAction bool
	compensate                 bool   // create<R> is compensated by delete<R>
	consistency                string // of the lookup: strong or eventual
}

// extraField is a scalar property drawn from the seed.
type extraField struct {
	name   string
	schema map[string]any
}

// scalarShapes are the schemas extra fields are drawn from.
var scalarShapes = []func() map[string]any{
	func() map[string]any { return map[string]any{"type": "string"} },
	func() map[string]any { return map[string]any{"type": "string", "description": "A free-form note."} },
	func() map[string]any { return map[string]any{"type": "integer", "format": "int64"} },
	func() map[string]any { return map[string]any{"type": "integer", "format": "int32"} },
	func() map[string]any { return map[string]any{"type": "number", "format": "double"} },
	func() map[string]any { return map[string]any{"type": "boolean"} },
	func() map[string]any { return map[string]any{"type": "string", "format": "date-time"} },
	func() map[string]any { return map[string]any{"type": "string", "nullable": true} },
	func() map[string]any {
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	},
	func() map[string]any {
		return map[string]any{"type": "string", "enum": []any{"low", "medium", "high"}}
	},
}

// resources draws the resources of an API of ops operations.
func resources(ops int, seed uint64) []*resource {
	rng := rand.New(rand.NewPCG(seed, 0x5ca1e))
	var rs []*resource
	for i := 0; ops > 0; i++ {
		n := nouns[i%len(nouns)]
		r := &resource{
			name:  fmt.Sprintf("%s%d", n, i),
			title: fmt.Sprintf("%s%s%d", strings.ToUpper(n[:1]), n[1:], i),
			group: i / groupSize,
			verb:  verbs[rng.IntN(len(verbs))],
			ops:   min(ops, opsPerResource),
		}
		ops -= r.ops
		for k := range 2 + rng.IntN(5) {
			r.statuses = append(r.statuses, fmt.Sprintf("state_%d", k))
		}
		for k := range 3 + rng.IntN(10) {
			r.extras = append(r.extras, extraField{fmt.Sprintf("attr_%d", k), scalarShapes[rng.IntN(len(scalarShapes))]()})
		}
		for k := range 1 + rng.IntN(5) {
			r.items = append(r.items, extraField{fmt.Sprintf("detail_%d", k), scalarShapes[rng.IntN(len(scalarShapes))]()})
		}
		r.union = rng.IntN(5) == 0
		r.dedupeCreate = rng.IntN(2) == 0
		r.dedupeAction = rng.IntN(3) == 0
		r.compensate = rng.IntN(4) == 0
		r.consistency = "{strong: 5s, source: a synthetic provider commits before it answers}"
		if rng.IntN(3) == 0 {
			r.consistency = "eventual"
		}
		rs = append(rs, r)
	}
	return rs
}

// ref returns a reference to a component schema.
func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// object returns an object schema.
func object(required []string, props map[string]any) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// arrayOf returns an array schema.
func arrayOf(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}

// jsonBody returns a request body or response content of one JSON schema.
func jsonBody(schema map[string]any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

// synthSpec returns the OpenAPI 3.0 document (JSON) of the resources.
func synthSpec(rs []*resource) []byte {
	schemas := map[string]any{
		"Error": object([]string{"code", "message"}, map[string]any{
			"code": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"},
			"param": map[string]any{"type": "string"}, "request_id": map[string]any{"type": "string"},
		}),
		"Money": object([]string{"amount", "currency"}, map[string]any{
			"amount":   map[string]any{"type": "integer", "format": "int64"},
			"currency": map[string]any{"type": "string", "enum": []any{"eur", "usd", "gbp", "jpy"}},
		}),
		"Address": object([]string{"line1", "country"}, map[string]any{
			"line1": map[string]any{"type": "string"}, "line2": map[string]any{"type": "string"},
			"city": map[string]any{"type": "string"}, "postal_code": map[string]any{"type": "string"},
			"country": map[string]any{"type": "string"},
		}),
		"Job": object([]string{"id", "state"}, map[string]any{
			"id":          map[string]any{"type": "string"},
			"state":       map[string]any{"type": "string", "enum": []any{"queued", "running", "done", "failed"}},
			"submitted":   map[string]any{"type": "string", "format": "date-time"},
			"resource_id": map[string]any{"type": "string"},
		}),
		"CardSource": object([]string{"type", "last4"}, map[string]any{
			"type": map[string]any{"type": "string"}, "last4": map[string]any{"type": "string"},
			"exp_month": map[string]any{"type": "integer"}, "exp_year": map[string]any{"type": "integer"},
		}),
		"BankSource": object([]string{"type", "iban"}, map[string]any{
			"type": map[string]any{"type": "string"}, "iban": map[string]any{"type": "string"},
			"holder": map[string]any{"type": "string"},
		}),
	}
	paths := map[string]any{}
	errResponses := func(codes ...string) map[string]any {
		m := map[string]any{}
		for _, c := range codes {
			m[c] = map[string]any{"$ref": "#/components/responses/Error"}
		}
		return m
	}
	withErrors := func(m map[string]any, codes ...string) map[string]any {
		for k, v := range errResponses(codes...) {
			m[k] = v
		}
		return m
	}
	for _, r := range rs {
		T := r.title
		tag := fmt.Sprintf("group%02d", r.group)
		statuses := make([]any, len(r.statuses))
		for i, s := range r.statuses {
			statuses[i] = s
		}
		schemas[T+"Status"] = map[string]any{"type": "string", "enum": statuses}
		item := map[string]any{
			"sku":        map[string]any{"type": "string"},
			"quantity":   map[string]any{"type": "integer", "format": "int32"},
			"unit_price": ref("Money"),
		}
		for _, f := range r.items {
			item[f.name] = f.schema
		}
		schemas[T+"Item"] = object([]string{"sku", "quantity"}, item)
		full := map[string]any{
			"id":                 map[string]any{"type": "string"},
			"created_at":         map[string]any{"type": "string", "format": "date-time"},
			"status":             ref(T + "Status"),
			"name":               map[string]any{"type": "string"},
			"external_reference": map[string]any{"type": "string", "maxLength": 255},
			"amount":             ref("Money"),
			"owner": object([]string{"id"}, map[string]any{
				"id": map[string]any{"type": "string"}, "email": map[string]any{"type": "string", "format": "email"},
				"address": ref("Address"),
			}),
			"items":    arrayOf(ref(T + "Item")),
			"labels":   arrayOf(map[string]any{"type": "string"}),
			"metadata": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		}
		create := map[string]any{
			"name":               map[string]any{"type": "string"},
			"external_reference": map[string]any{"type": "string", "maxLength": 255},
			"amount":             ref("Money"),
			"owner": object(nil, map[string]any{
				"email": map[string]any{"type": "string", "format": "email"}, "address": ref("Address"),
			}),
			"items":    arrayOf(ref(T + "Item")),
			"labels":   arrayOf(map[string]any{"type": "string"}),
			"metadata": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		}
		update := map[string]any{
			"name":     map[string]any{"type": "string"},
			"status":   ref(T + "Status"),
			"labels":   arrayOf(map[string]any{"type": "string"}),
			"metadata": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		}
		for i, f := range r.extras {
			full[f.name] = f.schema
			create[f.name] = f.schema
			if i%2 == 0 {
				update[f.name] = f.schema
			}
		}
		if r.union {
			schemas[T+"Source"] = map[string]any{
				"oneOf": []any{ref("CardSource"), ref("BankSource")},
				"discriminator": map[string]any{"propertyName": "type", "mapping": map[string]any{
					"card": "#/components/schemas/CardSource", "bank": "#/components/schemas/BankSource",
				}},
			}
			full["source"] = ref(T + "Source")
			create["source"] = ref(T + "Source")
		}
		schemas[T] = object([]string{"id", "created_at", "status", "name"}, full)
		schemas[T+"Create"] = object([]string{"name"}, create)
		schemas[T+"Update"] = object(nil, update)
		schemas[T+"List"] = object([]string{"data", "has_more"}, map[string]any{
			"data":        arrayOf(ref(T)),
			"has_more":    map[string]any{"type": "boolean"},
			"next_cursor": map[string]any{"type": "string"},
		})

		id := []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}}
		expand := map[string]any{"name": "expand", "in": "query", "explode": true,
			"schema": arrayOf(map[string]any{"type": "string"})}
		ok := func(code string, schema map[string]any, desc string) map[string]any {
			return map[string]any{code: map[string]any{"description": desc, "content": jsonBody(schema)}}
		}
		collection := "/v1/" + r.name + "s"
		item1 := collection + "/{id}"
		ops := []struct {
			path, method string
			op           map[string]any
		}{
			{collection, "get", map[string]any{
				"operationId": "list" + T, "summary": "List the " + r.name + "s, newest first",
				"parameters": []any{
					map[string]any{"name": "limit", "in": "query", "schema": map[string]any{"type": "integer", "format": "int32", "minimum": 1, "maximum": 100}},
					map[string]any{"name": "starting_after", "in": "query", "schema": map[string]any{"type": "string"}},
					map[string]any{"name": "status", "in": "query", "schema": ref(T + "Status")},
					map[string]any{"name": "created_gte", "in": "query", "schema": map[string]any{"type": "string", "format": "date-time"}},
					map[string]any{"name": "external_reference", "in": "query", "schema": map[string]any{"type": "string"}},
					expand,
				},
				"responses": withErrors(ok("200", ref(T+"List"), "A page of "+r.name+"s."), "400", "401"),
			}},
			{collection, "post", map[string]any{
				"operationId": "create" + T, "summary": "Create a " + r.name,
				"parameters": []any{map[string]any{"name": "Idempotency-Key", "in": "header",
					"schema": map[string]any{"type": "string", "maxLength": 255}}},
				"requestBody": map[string]any{"required": true, "content": jsonBody(ref(T + "Create"))},
				"responses":   withErrors(ok("201", ref(T), "The "+r.name+" was created."), "400", "401", "409", "422", "503"),
			}},
			{item1, "get", map[string]any{
				"operationId": "get" + T, "summary": "Read one " + r.name,
				"parameters": []any{expand},
				"responses":  withErrors(ok("200", ref(T), "The "+r.name+"."), "401", "404"),
			}},
			{item1, "patch", map[string]any{
				"operationId": "update" + T, "summary": "Update a " + r.name,
				"parameters":  []any{map[string]any{"name": "If-Match", "in": "header", "schema": map[string]any{"type": "string"}}},
				"requestBody": map[string]any{"required": true, "content": jsonBody(ref(T + "Update"))},
				"responses":   withErrors(ok("200", ref(T), "The updated "+r.name+"."), "400", "401", "404", "409"),
			}},
			{item1, "delete", map[string]any{
				"operationId": "delete" + T, "summary": "Delete a " + r.name + " (deleting a deleted one succeeds)",
				"responses": withErrors(map[string]any{"204": map[string]any{"description": "Deleted."}}, "401"),
			}},
			{item1 + "/" + r.verb, "post", map[string]any{
				"operationId": r.verb + T, "summary": strings.ToUpper(r.verb[:1]) + r.verb[1:] + " a " + r.name + " (runs as a job)",
				"requestBody": map[string]any{"required": true, "content": jsonBody(object(nil, map[string]any{
					"reason": map[string]any{"type": "string"}, "notify": map[string]any{"type": "boolean"},
				}))},
				"responses": withErrors(ok("202", ref("Job"), "The job was queued."), "400", "401", "409"),
			}},
			{item1 + "/labels", "put", map[string]any{
				"operationId": "put" + T + "Labels", "summary": "Replace the labels of a " + r.name,
				"requestBody": map[string]any{"required": true, "content": jsonBody(arrayOf(map[string]any{"type": "string"}))},
				"responses":   withErrors(ok("200", arrayOf(map[string]any{"type": "string"}), "The labels now set."), "401", "404"),
			}},
		}
		for _, o := range ops[:r.ops] {
			o.op["tags"] = []any{tag}
			item, _ := paths[o.path].(map[string]any)
			if item == nil {
				item = map[string]any{}
				if strings.Contains(o.path, "{id}") {
					item["parameters"] = id
				}
				paths[o.path] = item
			}
			item[o.method] = o.op
		}
	}
	doc := map[string]any{
		"openapi": "3.0.3",
		"info": map[string]any{"title": "Synthetic", "version": "1.0.0",
			"description": fmt.Sprintf("A synthetic API of %d resources for writegen's scale benchmark.", len(rs))},
		"servers":  []any{map[string]any{"url": "https://api.example.com"}},
		"security": []any{map[string]any{"bearer": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
			"responses": map[string]any{"Error": map[string]any{"description": "The request was not carried out.",
				"content": jsonBody(ref("Error"))}},
			"schemas": schemas,
		},
	}
	data, err := json.Marshal(doc) // maps are written in key order: the same resources give the same bytes
	if err != nil {
		panic(err) // only maps, slices, strings, numbers and booleans above
	}
	return data
}

// synthScope is the provider scope of the synthetic API: every package generated from it, the
// whole API or a part, has it.
const synthScope = "synthetic"

// synthAnnotations returns the annotation file of the resources rs, in package pkg. With tags,
// it is the file of one part of the API: it includes those tags only (include: {tags: ...}), and
// rs should be the resources they tag, whose answers it holds.
func synthAnnotations(rs []*resource, pkg string, tags ...string) []byte {
	var b strings.Builder
	b.WriteString("# Write-safety answers of the synthetic API of writegen's scale benchmark.\nversion: 1\n")
	fmt.Fprintf(&b, "package: %s\nscope: %s\n", pkg, synthScope)
	if len(tags) > 0 {
		fmt.Fprintf(&b, "include:\n  tags: [%s]\n", strings.Join(tags, ", "))
	}
	b.WriteString("operations:\n")
	retryKeyed := "retry: {on: [not_sent, ambiguous, status_409, status_429, status_503], attempts: 4}"
	retryIdem := "retry: {on: [not_sent, ambiguous, status_429, status_503], attempts: 3}"
	for _, r := range rs {
		T := r.title
		owner := fmt.Sprintf("team-%02d", r.group)
		if r.ops > 1 {
			fmt.Fprintf(&b, "  create%s:\n", T)
			b.WriteString("    effect: ambiguous\n")
			fmt.Fprintf(&b, "    key: {fields: {%s_ref: string}, format: \"%s:{%s_ref}\"}\n", r.name, r.name, r.name)
			b.WriteString("    idempotency: {header: Idempotency-Key, max_length: 255, window: 24h}\n")
			b.WriteString("    reference: {body: /external_reference}\n")
			b.WriteString("    response: {is: receipt, id: /id}\n")
			fmt.Fprintf(&b, "    lookup: {operation: list%s, params: {external_reference: \"{ref}\"}, found: /data/0, consistency: %s}\n", T, r.consistency)
			b.WriteString("    " + retryKeyed + "\n")
			if r.compensate && r.ops > 4 {
				fmt.Fprintf(&b, "    compensate: {operation: delete%s, params: {id: \"{id}\"}}\n", T)
			}
			if r.dedupeCreate {
				b.WriteString("    dedupe: ledger\n")
			}
			fmt.Fprintf(&b, "    uncertain: reconcile\n    owner: %s\n    credentials: {rotation_invalidates: false}\n", owner)
		}
		if r.ops > 3 {
			fmt.Fprintf(&b, "  update%s:\n    effect: idempotent\n    response: {is: acknowledgement}\n    %s\n    owner: %s\n", T, retryIdem, owner)
		}
		if r.ops > 4 {
			fmt.Fprintf(&b, "  delete%s:\n    effect: idempotent\n    response: {is: acknowledgement}\n    %s\n    owner: %s\n", T, retryIdem, owner)
		}
		if r.ops > 5 {
			fmt.Fprintf(&b, "  %s%s:\n", r.verb, T)
			b.WriteString("    effect: ambiguous\n")
			fmt.Fprintf(&b, "    key: {fields: {%s_id: string, request_id: string}, format: \"%s/{%s_id}/{request_id}\"}\n", r.name, r.verb, r.name)
			b.WriteString("    idempotency: {header: Idempotency-Key, max_length: 255, window: 24h}\n")
			b.WriteString("    response: {is: acknowledgement}\n")
			b.WriteString("    " + retryKeyed + "\n")
			if r.dedupeAction {
				b.WriteString("    dedupe: ledger\n")
			}
			fmt.Fprintf(&b, "    uncertain: reconcile\n    owner: %s\n    credentials: {rotation_invalidates: false}\n", owner)
		}
		if r.ops > 6 {
			fmt.Fprintf(&b, "  put%sLabels:\n    effect: idempotent\n    response: {is: acknowledgement}\n    %s\n    owner: %s\n", T, retryIdem, owner)
		}
	}
	return []byte(b.String())
}
