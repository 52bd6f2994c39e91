package spec

import (
	"errors"
	"strings"
	"testing"

	"github.com/writegen/writegen/spec/ir"
)

// answerAll answers every write the same way, so that only the spec's defects are reported.
const answerAll = "version: 1\npackage: x\ndefaults:\n  effect: idempotent\n  response: {is: acknowledgement}\nscope: x\n"

// loadCase loads a spec with an annotation file and returns its errors, or its warnings when
// it loads, one per line.
func loadCase(t *testing.T, name, spec, annot string) (api *ir.API, errs, warnings string) {
	t.Helper()
	api, err := LoadBytes(name, []byte(spec), "ws.yaml", []byte(annot), Options{})
	if err != nil {
		var list ir.ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("got %v, want an ErrorList", err)
		}
		return nil, err.Error(), ""
	}
	return api, "", api.Warnings.Error()
}

type defectCase struct {
	name, spec string
	annot      string // answerAll when ""
	errs       string // the errors, one per line; "" when it loads
	warnings   string // when it loads
}

func runDefectCases(t *testing.T, cases []defectCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			annot := c.annot
			if annot == "" {
				annot = answerAll
			}
			_, errs, warnings := loadCase(t, c.name, c.spec, annot)
			if errs != c.errs {
				t.Errorf("errors:\n%s\nwant:\n%s", errs, c.errs)
			}
			if warnings != c.warnings {
				t.Errorf("warnings:\n%s\nwant:\n%s", warnings, c.warnings)
			}
		})
	}
}

// TestSpecDefects checks that a spec that cannot be read is refused with the place and the
// defect, and that a defect of a part of it is an error when an operation in scope reaches it,
// naming the operation.
func TestSpecDefects(t *testing.T) {
	runDefectCases(t, []defectCase{
		{name: "broken.json", spec: "{\n  \"openapi\": \"3.0.0\",\n  \"paths\": {,}\n}\n",
			errs: `broken.json:3:13: invalid character ',' looking for beginning of object key string`},
		{name: "short.json", spec: "{\"openapi\": \"3.0.0\", \"info\": {\"title\": \"x\"", errs: `short.json:1:43: unexpected end of JSON input after object key:value pair`},
		{name: "tabs.yaml", spec: "openapi: 3.0.0\ninfo:\n\ttitle: x\n", errs: `tabs.yaml:3:1: found character that cannot start any token; YAML indents with spaces only: replace the tab`},
		{name: "none.yaml", spec: "title: x\n", errs: `none.yaml:1:1: not an OpenAPI document: neither "openapi" nor "swagger" is set`},
		{name: "old.yaml", spec: "swagger: \"1.2\"\n", errs: `old.yaml:1:10: unsupported swagger version "1.2" (want 2.0)`},
		{name: "list.yaml", spec: "- a\n", errs: `list.yaml:1:1: not an OpenAPI document: the top level is not a mapping`},
		{name: "empty.yaml", spec: "# nothing\n", errs: `empty.yaml:1:1: not an OpenAPI document: the file is empty`},
		{name: "control.yaml", spec: "openapi: 3.0.0\ninfo: {title: \"é\x00\", version: \"1\"}\n", errs: `control.yaml:2:17: control characters are not allowed (value: 0)`},
		{name: "latin1.yaml", spec: "openapi: 3.0.0\ninfo: {title: caf\xe9, version: \"1\"}\n", errs: `latin1.yaml:2:18: invalid trailing UTF-8 octet (value: 44)`},
		{name: "alias.yaml", spec: "openapi: 3.0.0\ninfo: {title: x, version: \"1\"}\npaths: {}\ncomponents: {schemas: {A: &a {properties: {p: *a}}}}\n",
			errs: `alias.yaml:4:47: alias "a" leads back into itself: the value would never end`},

		{name: "nullkey.yaml", spec: "openapi: 3.0.0\ninfo: {title: x, version: \"1\"}\npaths:\n  ~: {}\n  /a: {get: {responses: {\"204\": {description: ok, x-a: {: 1}}}}}\n",
			errs: `nullkey.yaml:5:57: operation "GET /a": a mapping key is null: it names nothing (quote it, or remove the entry); correct the spec, or leave the operation out of scope`},
		{name: "swagger.yaml", spec: `swagger: "2.0"
info: {title: x, version: "1"}
host: https://api.example.com/v1
securityDefinitions:
  oauth: {type: oauth2, flow: device}
parameters:
  payload: {name: payload, in: body, schema: {type: object}}
paths:
  /a:
    parameters:
      - {name: note, in: formData, type: string}
    post:
      operationId: twoBodies
      parameters:
        - {name: a, in: body, schema: {type: object}}
        - $ref: "#/parameters/payload"
      responses: {"204": {description: ok}}
    put:
      parameters:
        - {name: a, in: body, schema: {type: object}}
      responses: {"204": {description: ok}}
    patch:
      parameters:
        - {name: note, in: query, type: string}
      responses: {"204": {description: ok}}
  /b:
    parameters:
      - {name: a, in: body, schema: {type: object}}
      - {name: b, in: body, schema: {type: object}}
    post:
      responses: {"204": {description: ok}}
`, errs: `swagger.yaml:3:7: host "https://api.example.com/v1" must be a host name, without a scheme or a path (write the path in basePath)
swagger.yaml:12:5: operation "twoBodies": Swagger 2.0 allows one body parameter, not 2
swagger.yaml:18:5: operation "PUT /a": Swagger 2.0 allows a body parameter or formData parameters, not both
swagger.yaml:27:5: operation "POST /b": path "/b": Swagger 2.0 allows one body parameter, not 2, and every operation of the path has these parameters; correct the spec, or leave the operation out of scope`},
		{name: "nullresponse.yaml", spec: `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      responses:
        "200": {description: ok, content: {application/json: {example: {responses: {"1": ~}}}}}
        "404":
`, errs: `nullresponse.yaml:8:15: operation "GET /a": a response is null here: write the object, or remove the entry; correct the spec, or leave the operation out of scope`},
		{name: "schemacontent.yaml", spec: `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      parameters:
        - {name: q, in: query, schema: {type: string}}
        - {name: r, in: query, schema: {type: string}, content: {application/json: {schema: {type: string}}}}
      responses: {"204": {description: ok}}
`, errs: `schemacontent.yaml:8:56: operation "GET /a": a parameter has a schema or content, not both: remove one; correct the spec, or leave the operation out of scope`},
		{name: "refs.yaml", spec: `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/A"}
        default: {$ref: "#/components/responses/Nope"}
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: "other.yaml#/Thing"}
      responses:
        "204": {description: ok}
components:
  schemas:
    A:
      properties:
        $ref: {type: string}
        example: {$ref: "#/components/schemas/Nope"}
        escape: {$ref: "#/components/schemas/100%"}
        pointer: {$ref: "#components/schemas/A"}
      example: {$ref: "#/not/checked"}
    100%: {type: string}
`, errs: `refs.yaml:12:25: operation "GET /a": unresolved reference "#/components/responses/Nope": nothing in the file is at that path; correct the spec, or leave the operation out of scope
refs.yaml:17:28: operation "POST /a": reference "other.yaml#/Thing": file not found: other.yaml; correct the spec, or leave the operation out of scope
refs.yaml:25:25: operation "GET /a": unresolved reference "#/components/schemas/Nope": nothing in the file is at that path; correct the spec, or leave the operation out of scope
refs.yaml:26:24: operation "GET /a": reference "#/components/schemas/100%" is not a URI (a % starts an escape like %2F; no control characters); correct the spec, or leave the operation out of scope
refs.yaml:27:25: operation "GET /a": unresolved reference "#components/schemas/A": a reference inside the file is a JSON pointer ("#/components/schemas/Name"); correct the spec, or leave the operation out of scope`},
		{name: "types.yaml", spec: `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      parameters: 5
      responses: {"204": {description: ok}}
`, errs: `types.yaml:6:19: operation "GET /a": parameters is an integer (5) where a list of parameters must be; correct the spec, or leave the operation out of scope`},
		{name: "paths.yaml", spec: `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a/{b:
    get: {responses: {"204": {description: ok}}}
  /a/{b{c}:
    get: {responses: {"204": {description: ok}}}
  /a}:
    get: {responses: {"204": {description: ok}}}
  /a/{}:
    get: {responses: {"204": {description: ok}}}
`, errs: `paths.yaml:4:3: operation "GET /a/{b": path "/a/{b": a { without }; correct the spec, or leave the operation out of scope
paths.yaml:6:3: operation "GET /a/{b{c}": path "/a/{b{c}": a { without }; correct the spec, or leave the operation out of scope
paths.yaml:8:3: operation "GET /a}": path "/a}": a } without {; correct the spec, or leave the operation out of scope
paths.yaml:10:3: operation "GET /a/{}": path "/a/{}": {} names no parameter; correct the spec, or leave the operation out of scope`},
		{name: "swagger-types.json", spec: `{"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"get": {
  "parameters": [{"name": "q", "in": "query", "type": "string", "required": "yes"}],
  "responses": {"200": {"description": 5}}}}},
 "definitions": {"A": {"properties": {"a": {"type": "string", "required": true}}}}}`,
			errs: `swagger-types.json:2:77: operation "GET /a": required is a string where true or false must be; correct the spec, or leave the operation out of scope
swagger-types.json:3:40: operation "GET /a": description is an integer where a string must be; correct the spec, or leave the operation out of scope`},
		{name: "info.yaml", spec: "openapi: 3.0.0\ninfo: {title: [x], version: \"1\"}\npaths: {}\n",
			errs: `info.yaml:2:15: title is a list where a string must be`},
		{name: "inf.yaml", spec: "openapi: 3.0.0\ninfo: {title: x, version: \"1\"}\npaths: {/a: {get: {parameters: [{name: q, in: query, schema: {maximum: .inf}}], responses: {\"204\": {description: ok}}}}}\n",
			errs: `inf.yaml:3:72: operation "GET /a": .inf has no JSON representation: write a number; correct the spec, or leave the operation out of scope`},
	})
}

// unreachableSpec has a defect of every kind Load cuts out, in parts that only GET /broken and
// POST /broken reach; GET /fine reaches none of them.
const unreachableSpec = `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  ~: {}
  /fine:
    get:
      operationId: fine
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {$ref: "#/components/schemas/Fine"}}}
  /broken:
    get:
      operationId: broken
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {$ref: "#/components/schemas/Broken"}}}
        "404": {$ref: "#/components/responses/Missing"}
    post:
      operationId: brokenWrite
      parameters: 5
      requestBody:
        content: {application/json: {schema: {$ref: "other.yaml#/Thing"}}}
      responses: {"204": {description: ok}}
  /bad/{x:
    get: {operationId: badPath, responses: {"204": {description: ok}}}
components:
  schemas:
    Fine:
      properties:
        id: {type: string}
    Broken:
      properties:
        a: {$ref: "#/components/schemas/Missing"}
        b: {type: string, required: true}
        c: ~
        d: {$ref: ~}
        e: {$ref: "#/info/title"}
  parameters:
    p: {name: p, in: query, schema: {type: string}, content: {text/plain: {schema: {type: string}}}}
`

// TestUnreachableDefects checks that the defects no operation in scope reaches are warnings,
// at their positions, and that generation goes on without them; the same defects reached are
// errors naming the operation that reaches them.
func TestUnreachableDefects(t *testing.T) {
	runDefectCases(t, []defectCase{
		{name: "only-fine.yaml", spec: unreachableSpec, annot: "version: 1\npackage: x\ninclude: {operations: [fine]}\nscope: x\n",
			warnings: `only-fine.yaml:4:3: a mapping key is null: it names nothing (quote it, or remove the entry); no operation in scope reaches it, so it is left out
only-fine.yaml:19:23: unresolved reference "#/components/responses/Missing": nothing in the file is at that path; no operation in scope reaches it, so it is left out
only-fine.yaml:22:19: parameters is an integer (5) where a list of parameters must be; no operation in scope reaches it, so it is left out
only-fine.yaml:24:53: reference "other.yaml#/Thing": file not found: other.yaml; no operation in scope reaches it, so it is left out
only-fine.yaml:26:3: path "/bad/{x": a { without }; no operation in scope reaches it, so it is left out
only-fine.yaml:35:19: unresolved reference "#/components/schemas/Missing": nothing in the file is at that path; no operation in scope reaches it, so it is left out
only-fine.yaml:36:37: required: true on a schema: OpenAPI lists the required properties in the object's required list (required: [name]); no operation in scope reaches it, so it is left out
only-fine.yaml:37:12: a schema is null here: write the object, or remove the entry; no operation in scope reaches it, so it is left out
only-fine.yaml:38:19: a $ref with no value: write the reference ("#/components/schemas/Name"), or remove the $ref; no operation in scope reaches it, so it is left out
only-fine.yaml:39:19: reference "#/info/title" names something else than a schema object: point it at one; no operation in scope reaches it, so it is left out
only-fine.yaml:41:53: a parameter has a schema or content, not both: remove one; no operation in scope reaches it, so it is left out`},
		{name: "all.yaml", spec: unreachableSpec, annot: "version: 1\npackage: x\ndefaults: {effect: idempotent, response: {is: acknowledgement}}\nexclude: {badPath: malformed}\nscope: x\n",
			errs: `all.yaml:19:23: operation "broken": unresolved reference "#/components/responses/Missing": nothing in the file is at that path; correct the spec, or leave the operation out of scope
all.yaml:22:19: operation "brokenWrite": parameters is an integer (5) where a list of parameters must be; correct the spec, or leave the operation out of scope
all.yaml:24:53: operation "brokenWrite": reference "other.yaml#/Thing": file not found: other.yaml; correct the spec, or leave the operation out of scope
all.yaml:35:19: operation "broken": unresolved reference "#/components/schemas/Missing": nothing in the file is at that path; correct the spec, or leave the operation out of scope
all.yaml:36:37: operation "broken": required: true on a schema: OpenAPI lists the required properties in the object's required list (required: [name]); correct the spec, or leave the operation out of scope
all.yaml:37:12: operation "broken": a schema is null here: write the object, or remove the entry; correct the spec, or leave the operation out of scope
all.yaml:38:19: operation "broken": a $ref with no value: write the reference ("#/components/schemas/Name"), or remove the $ref; correct the spec, or leave the operation out of scope
all.yaml:39:19: operation "broken": reference "#/info/title" names something else than a schema object: point it at one; correct the spec, or leave the operation out of scope`},
	})
}

// TestUnreachableDefectsLookup checks that a lookup pulls what its operation reaches into what
// must resolve.
func TestUnreachableDefectsLookup(t *testing.T) {
	const spec = `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /things:
    get:
      operationId: findThings
      parameters: [{name: ref, in: query, schema: {type: string}}]
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Nope"}}}}
    post:
      operationId: createThing
      requestBody:
        content: {application/json: {schema: {properties: {ref: {type: string}}}}}
      responses: {"204": {description: ok}}
`
	const annot = `version: 1
package: x
include: {operations: [createThing]}
operations:
  createThing:
    effect: ambiguous
    key: {fields: {id: string}, format: "{id}"}
    reference: {body: /ref}
    response: {is: acknowledgement}
    lookup: {operation: findThings, params: {ref: "{ref}"}, consistency: {strong: 5s, source: provider docs}}
scope: x
`
	runDefectCases(t, []defectCase{{name: "lookup.yaml", spec: spec, annot: annot,
		errs: `lookup.yaml:9:78: operation "findThings": unresolved reference "#/components/schemas/Nope": nothing in the file is at that path; correct the spec, or leave the operation out of scope`}})
}

// TestDataRefs checks that a "$ref" inside data (an example's value, a default, an enum, a
// const, an extension, Swagger 2.0's response examples, a link's parameters) is data, not a
// reference, and that a property or a component named like a keyword is not data.
func TestDataRefs(t *testing.T) {
	const spec = `openapi: 3.1.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - {name: q, in: query, schema: {type: object}, example: {$ref: "#/nope/1"}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/example"}
              examples:
                one: {value: {$ref: "#/nope/2"}}
                two: {$ref: "#/components/examples/three"}
          links:
            self: {operationId: getA, parameters: {q: {$ref: "#/nope/3"}}}
components:
  examples:
    three: {summary: three, value: {$ref: "#/nope/4", list: [{$ref: "#/nope/5"}]}}
  schemas:
    example:
      type: object
      x-meta: {$ref: "#/nope/6"}
      default: {$ref: "#/nope/7"}
      examples: [{$ref: "#/nope/10"}]
      properties:
        example: {$ref: "#/components/schemas/default"}
        x-ref: {type: string}
        kind: {enum: [{$ref: "#/nope/8"}, a], const: {$ref: "#/nope/9"}}
    default:
      type: object
      properties:
        value: {type: string}
`
	api, errs, warnings := loadCase(t, "data.yaml", spec, "version: 1\npackage: x\nscope: x\n")
	if errs != "" || warnings != "" {
		t.Fatalf("errors:\n%s\nwarnings:\n%s", errs, warnings)
	}
	got := dumpAPI(api)
	for _, want := range []string{
		`field Example "example" Default required=false`,
		`field XRef "x-ref" string required=false`,
		`response 200 "application/json" Example`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got:\n%s\nwant it to hold %s", got, want)
		}
	}

	const swagger = `swagger: "2.0"
info: {title: x, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          schema: {type: object, properties: {id: {type: string}}}
          examples:
            application/json: {$ref: "#/nope"}
`
	if _, errs, warnings := loadCase(t, "data2.yaml", swagger, "version: 1\npackage: x\nscope: x\n"); errs != "" || warnings != "" {
		t.Fatalf("errors:\n%s\nwarnings:\n%s", errs, warnings)
	}
}

// TestIDAnchorRefs checks that OpenAPI 3.1 references to an $id or an $anchor of the file
// resolve to the schema that declares it (relative ones against the $id in scope), that a
// reference to another file does not, and that a $ref with no value says so.
func TestIDAnchorRefs(t *testing.T) {
	const spec = `openapi: 3.1.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  byID: {$ref: "https://example.com/schemas/pet"}
                  byAnchor: {$ref: "#owner"}
                  byIDPointer: {$ref: "https://example.com/schemas/pet#/properties/name"}
                  byIDAnchor: {$ref: "https://example.com/schemas/pet#tag"}
components:
  schemas:
    Pet:
      $id: https://example.com/schemas/pet
      type: object
      properties:
        name: {type: string}
        tag: {$anchor: tag, type: object, properties: {label: {type: string}}}
        owner: {$ref: "owner"}
    Owner:
      $id: https://example.com/schemas/owner
      $anchor: owner
      type: object
      properties:
        id: {type: string}
`
	api, errs, warnings := loadCase(t, "ids.yaml", spec, "version: 1\npackage: x\nscope: x\n")
	if errs != "" || warnings != "" {
		t.Fatalf("errors:\n%s\nwarnings:\n%s", errs, warnings)
	}
	got := dumpAPI(api)
	for _, want := range []string{
		`field ByID "byID" Pet required=false`,
		`field ByAnchor "byAnchor" Owner required=false`,
		`field ByIDPointer "byIDPointer" string required=false`,
		`field ByIDAnchor "byIDAnchor" PetTag required=false`,
		`field Owner "owner" Owner required=false`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got:\n%s\nwant it to hold %s", got, want)
		}
	}

	runDefectCases(t, []defectCase{{name: "ids-bad.yaml", spec: `openapi: 3.1.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                properties:
                  a: {$ref: "https://example.com/schemas/nope"}
                  b: {$ref: "#nope"}
                  c:
                    $ref: # the reference was never written
                  d: {$ref: ""}
                  e: {$ref: {a: b}}
components:
  schemas:
    Pet: {$id: "https://example.com/schemas/pet", $anchor: pet}
`, errs: `ids-bad.yaml:13:29: operation "GET /a": reference "https://example.com/schemas/nope" is a URL, and no schema of the spec has it as $id: writegen reads the spec's own files only; download the file under the directory of ids-bad.yaml and refer to it by its relative path, or bundle the spec into one file; correct the spec, or leave the operation out of scope
ids-bad.yaml:14:29: operation "GET /a": unresolved reference "#nope": no schema in the file has $anchor "nope"; correct the spec, or leave the operation out of scope
ids-bad.yaml:16:26: operation "GET /a": a $ref with no value: write the reference ("#/components/schemas/Name"), or remove the $ref; correct the spec, or leave the operation out of scope
ids-bad.yaml:17:29: operation "GET /a": a $ref with no value: write the reference ("#/components/schemas/Name"), or remove the $ref; correct the spec, or leave the operation out of scope
ids-bad.yaml:18:29: operation "GET /a": a $ref must be a string: write the reference ("#/components/schemas/Name"); correct the spec, or leave the operation out of scope`}})
}

// TestTupleItems checks that the tuple form of items (a list of schemas) is read as an array
// of a union of them in OpenAPI 3, of any value in Swagger 2.0 (of the one schema when there is
// one), with a warning at the list.
func TestTupleItems(t *testing.T) {
	const v3 = `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  pair: {type: array, items: [{type: string}, {type: integer}]}
                  one: {type: array, items: [{type: string}]}
`
	api, errs, warnings := loadCase(t, "tuple3.yaml", v3, "version: 1\npackage: x\nscope: x\n")
	if errs != "" {
		t.Fatal(errs)
	}
	wantWarnings := `tuple3.yaml:15:46: items is a list of schemas (a tuple, which OpenAPI does not have): read as an array whose elements are any of them (anyOf); write one schema to say what the elements are
tuple3.yaml:16:45: items is a list of schemas (a tuple, which OpenAPI does not have): read as an array of its one schema; write one schema to say what the elements are`
	if warnings != wantWarnings {
		t.Errorf("warnings:\n%s\nwant:\n%s", warnings, wantWarnings)
	}
	got := dumpAPI(api)
	for _, want := range []string{`field Pair "pair" []StringOrInt64 required=false`, `field One "one" []string required=false`} {
		if !strings.Contains(got, want) {
			t.Errorf("got:\n%s\nwant it to hold %s", got, want)
		}
	}

	const v2 = `swagger: "2.0"
info: {title: x, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - {name: ids, in: query, type: array, items: [{type: string}]}
      responses:
        "200":
          description: ok
          schema:
            type: object
            properties:
              pair: {type: array, items: [{type: string}, {$ref: "#/definitions/Missing"}]}
`
	api, errs, warnings = loadCase(t, "tuple2.yaml", v2, "version: 1\npackage: x\nscope: x\n")
	if errs != "" {
		t.Fatal(errs)
	}
	wantWarnings = `tuple2.yaml:8:54: items is a list of schemas (a tuple, which OpenAPI does not have): read as an array of its one schema; write one schema to say what the elements are
tuple2.yaml:15:42: items is a list of schemas (a tuple, which OpenAPI does not have): read as an array of any JSON values (Swagger 2.0 has no anyOf to say which); write one schema to say what the elements are`
	if warnings != wantWarnings {
		t.Errorf("warnings:\n%s\nwant:\n%s", warnings, wantWarnings)
	}
	got = dumpAPI(api)
	for _, want := range []string{`field Pair "pair" []any required=false`, `param IDs query "ids" []string`} {
		if !strings.Contains(got, want) {
			t.Errorf("got:\n%s\nwant it to hold %s", got, want)
		}
	}
}

// FuzzLoadDefects loads specs with defects anywhere, in scope or not: Load must end, without a
// panic, with the API or errors, and every error and warning about the spec must have a line.
func FuzzLoadDefects(f *testing.F) {
	f.Add(unreachableSpec, "version: 1\npackage: x\ninclude: {operations: [fine]}\nscope: x\n")
	f.Add(unreachableSpec, answerAll)
	f.Add("swagger: \"2.0\"\ninfo: {title: x, version: \"1\"}\npaths: {/a: {get: {responses: {\"200\": {description: ok, schema: {items: [{type: string}, {}]}}}}}}\n", answerAll)
	f.Add("openapi: 3.1.0\ninfo: {title: x, version: \"1\"}\npaths: {/a: {get: {responses: {\"200\": {description: ok, content: {application/json: {schema: {$ref: \"#a\"}}}}}}}}\ncomponents: {schemas: {A: {$anchor: a, $id: \"b/c\", properties: {x: {$ref: \"c#a\"}}}}}\n", answerAll)
	f.Add("{\"openapi\": \"3.0.0\", \"paths\": {\"/a\": {\"post\": {\"requestBody\": {\"content\": {\"multipart/form-data\": {\"schema\": {\"type\": \"string\"}}, \"*/*\": {}}}, \"responses\": {\"204\": {\"description\": \"ok\"}}}}}}", answerAll)
	f.Fuzz(func(t *testing.T, spec, annot string) {
		api, err := LoadBytes("fuzz.yaml", []byte(spec), "ws.yaml", []byte(annot), Options{})
		var list ir.ErrorList
		switch {
		case err == nil:
			list = api.Warnings
		case !errors.As(err, &list):
			return // the annotation file or the spec could not be read at all
		}
		for _, e := range list {
			if e.Pos.File == "fuzz.yaml" && e.Pos.Line == 0 && !strings.Contains(e.Msg, "failed to unmarshal") {
				t.Errorf("no line: %v", e)
			}
		}
	})
}
