package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadThreads loads a small spec with every answer given and compares the whole IR.
func TestLoadThreads(t *testing.T) {
	api, err := Load("testdata/threads.yaml", "testdata/threads.writesafety.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := dumpAPI(api); got != wantThreads {
		t.Errorf("got:\n%s\nwant:\n%s", got, wantThreads)
	}
}

const wantThreads = `package threads (Threads 1.0) from threads.yaml and threads.writesafety.yaml ledger=true
type CreateThreadRequest kind=1 schema="" at testdata/threads.yaml:33:13
  field Subject "subject" string required=true nullable=false readonly=false
  field ExternalReference "external_reference" string required=false nullable=false readonly=false
  field Metadata "metadata" map[string]string required=false nullable=false readonly=false
type ListThreadsResponse kind=1 schema="" at testdata/threads.yaml:18:15
  field Items "items" []Thread required=false nullable=false readonly=false
type PostThreadsThreadIDMessagesRequest kind=1 schema="" at testdata/threads.yaml:72:13
  field Text "text" string required=false nullable=false readonly=false
type Thread kind=1 schema="Thread" at testdata/threads.yaml:100:5
  field ID "id" string required=true nullable=false readonly=false
  field Subject "subject" string required=false nullable=false readonly=false
  field Status "status" ThreadStatus required=false nullable=false readonly=false
  field CreatedAt "created_at" time.Time required=false nullable=false readonly=false
  field Parent "parent" Thread required=false nullable=false readonly=false
type ThreadStatus kind=2 schema="" at testdata/threads.yaml:106:9
  const ThreadStatusOpen = "open" (string)
  const ThreadStatusClosed = "closed" (string)
op CreateThread = createThread POST /threads write=true at testdata/threads.yaml:24:5
  body json application/json CreateThreadRequest required=true
  response 201 "application/json" Thread
  safety at testdata/threads.writesafety.yaml:5:3 effect=ambiguous destructive=false receipt=true id="/id" retry=not_sent|ambiguous|status_409|status_429 attempts=4 dedupe=true uncertain=reconcile owner="support-ops" inherited=[]
  key CreateThreadKey scope=createthread at testdata/threads.writesafety.yaml:5:3 "escalation:{escalation_id}:{attempt}" fields={escalation_id EscalationID string}{attempt Attempt int64} parts="escalation:"{EscalationID}":"{Attempt}
  idempotency header Idempotency-Key max=255 window=24h0m0s
  reference body=/external_reference=.ExternalReference*:string query="" value=
  set body=/external_reference=.ExternalReference*:string query="" value=2
  lookup createThreadLookup func="" op="ListThreads" params=[Reference={ref}] found=/items/0=.Items[*]:Thread consistency=strong
  compensate createThreadCompensate with DeleteThread
  credentials {RotationInvalidates:true}
op DeleteThread = deleteThread DELETE /threads/{thread_id} write=true at testdata/threads.yaml:60:5
  param ThreadID path "thread_id" string required=true style=simple explode=false
  response 204 "" <nil>
  safety at testdata/threads.writesafety.yaml:19:3 effect=idempotent destructive=true receipt=false id="" retry=not_sent|ambiguous attempts=3 dedupe=false uncertain=reconcile owner="" inherited=[]
op GetThread = getThread GET /threads/{thread_id} write=false at testdata/threads.yaml:51:5
  param ThreadID path "thread_id" string required=true style=simple explode=false
  response 200 "application/json" Thread
op ListThreads = listThreads GET /threads write=false at testdata/threads.yaml:7:5
  param Limit query "limit" int32 required=false style=form explode=true
  param Reference query "reference" string required=false style=form explode=true
  response 200 "application/json" ListThreadsResponse
op PostThreadsThreadIDMessages = POST /threads/{thread_id}/messages POST /threads/{thread_id}/messages write=true at testdata/threads.yaml:67:5
  param ThreadID path "thread_id" string required=true style=simple explode=false
  body form application/x-www-form-urlencoded PostThreadsThreadIDMessagesRequest required=false
  response 202 "" <nil>
  safety at testdata/threads.writesafety.yaml:23:3 effect=ambiguous destructive=false receipt=false id="" retry=none attempts=1 dedupe=false uncertain=reconcile owner="" inherited=[]
  key PostThreadsThreadIDMessagesKey scope=post-threads-thread_id-messages at testdata/threads.writesafety.yaml:23:3 "{message_id}" fields={message_id MessageID string} parts={MessageID}
  inbox NewChatInbox testdata/threads.writesafety.yaml:27:12 source=chat retention=72h0m0s order=any
excluded searchThreads: a read spelled as POST; not used at testdata/threads.writesafety.yaml:29:3
`

// TestLoadDefaults checks that defaults fill only what an entry leaves out, and say so.
func TestLoadDefaults(t *testing.T) {
	annot := `version: 1
package: threads
defaults:
  effect: ambiguous
  key: {fields: {request_id: string}, format: "{request_id}"}
  response: {is: acknowledgement}
  retry: {on: [not_sent], attempts: 2}
  owner: oncall
operations:
  createThread:
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
exclude:
  searchThreads: not used
scope: threads
`
	spec := mustRead(t, "testdata/threads.yaml")
	api, err := LoadBytes("threads.yaml", spec, "ws.yaml", []byte(annot), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, op := range api.Operations {
		if op.Safety != nil {
			got[op.ID] = strings.TrimSpace(dumpSafety(op.Safety))
		}
	}
	want := map[string]string{
		"createThread": `safety at ws.yaml:10:3 effect=ambiguous destructive=false receipt=true id="/id" retry=not_sent attempts=2 dedupe=false uncertain=reconcile owner="oncall" inherited=[effect owner retry]
  key CreateThreadKey scope=createthread at ws.yaml:10:3 "e:{escalation_id}" fields={escalation_id EscalationID string} parts="e:"{EscalationID}`,
		"deleteThread": `safety at ws.yaml:3:1 effect=ambiguous destructive=true receipt=false id="" retry=not_sent attempts=2 dedupe=false uncertain=reconcile owner="oncall" inherited=[effect key owner response retry]
  key DeleteThreadKey scope=deletethread at ws.yaml:3:1 "{request_id}" fields={request_id RequestID string} parts={RequestID}`,
		"POST /threads/{thread_id}/messages": `safety at ws.yaml:3:1 effect=ambiguous destructive=false receipt=false id="" retry=not_sent attempts=2 dedupe=false uncertain=reconcile owner="oncall" inherited=[effect key owner response retry]
  key PostThreadsThreadIDMessagesKey scope=post-threads-thread_id-messages at ws.yaml:3:1 "{request_id}" fields={request_id RequestID string} parts={RequestID}`,
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s:\ngot  %s\nwant %s", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got safety for %d operations, want %d", len(got), len(want))
	}
}

// TestLoadScope checks the include filter, the operations a lookup and a compensation pull into
// scope, the package option and a name override.
func TestLoadScope(t *testing.T) {
	annot := `version: 1
package: threads
include: {operations: ["POST /threads"]}
names: {"#/components/schemas/Thread": Conversation}
operations:
  createThread:
    effect: compensatable
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
    reference: {body: /external_reference}
    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/0, consistency: strong}
    compensate: {operation: deleteThread, params: {thread_id: "{id}"}}
  deleteThread:
    effect: idempotent
    response: {is: acknowledgement}
scope: threads
`
	api, err := LoadBytes("threads.yaml", mustRead(t, "testdata/threads.yaml"), "ws.yaml", []byte(annot), Options{Package: "support"})
	if err != nil {
		t.Fatal(err)
	}
	var ops, types []string
	for _, op := range api.Operations {
		ops = append(ops, op.GoName)
	}
	for _, ty := range api.Types {
		types = append(types, ty.Name)
	}
	if got, want := strings.Join(ops, " "), "CreateThread DeleteThread ListThreads"; got != want {
		t.Errorf("operations: got %s, want %s", got, want)
	}
	if got, want := strings.Join(types, " "), "Conversation ConversationStatus CreateThreadRequest ListThreadsResponse"; got != want {
		t.Errorf("types: got %s, want %s", got, want)
	}
	if api.Package != "support" {
		t.Errorf("package %q, want the option's support", api.Package)
	}
}

// TestSpecDefects checks that a spec that cannot be loaded is refused with the place and the
// defect.
func TestSpecDefects(t *testing.T) {
	const annot = "version: 1\npackage: x\nscope: x\n"
	cases := []struct{ name, spec, want string }{
		{"broken.json", "{\n  \"openapi\": \"3.0.0\",\n  \"paths\": {,}\n}\n",
			`broken.json:3:13: invalid character ',' looking for beginning of object key string`},
		{"short.json", "{\"openapi\": \"3.0.0\", \"info\": {\"title\": \"x\"", `short.json:1:43: unexpected end of JSON input after object key:value pair`},
		{"tabs.yaml", "openapi: 3.0.0\ninfo:\n\ttitle: x\n", `tabs.yaml:3:1: found character that cannot start any token`},
		{"none.yaml", "title: x\n", `none.yaml:1:1: not an OpenAPI document: neither "openapi" nor "swagger" is set`},
		{"old.yaml", "swagger: \"1.2\"\n", `old.yaml:1:10: unsupported swagger version "1.2" (want 2.0)`},
		{"list.yaml", "- a\n", `list.yaml:1:1: not an OpenAPI document: the top level is not a mapping`},
		{"nullkey.yaml", "openapi: 3.0.0\ninfo: {title: x, version: \"1\"}\npaths:\n  ~: {}\n  /a: {get: {responses: {\"204\": {description: ok, x-a: {: 1}}}}}\n",
			`nullkey.yaml:4:3: a mapping key is null: it names nothing
nullkey.yaml:5:57: a mapping key is null: it names nothing`},
		{"swagger.yaml", `swagger: "2.0"
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
`, `swagger.yaml:3:7: host "https://api.example.com/v1" must be a host name, without a scheme or a path
swagger.yaml:5:31: security scheme "oauth": unknown OAuth2 flow "device"
swagger.yaml:12:5: operation "twoBodies": Swagger 2.0 allows one body parameter, not 2
swagger.yaml:18:5: operation "PUT /a": Swagger 2.0 allows a body parameter or formData parameters, not both`},
		{"nullresponse.yaml", `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      responses:
        "200": {description: ok, content: {application/json: {example: {responses: {"1": ~}}}}}
        "404":
`, `nullresponse.yaml:8:15: invalid response: value MUST be an object`},
		{"nullschema.yaml", `openapi: 3.0.0
info: {title: x, version: "1"}
paths: {}
components:
  schemas:
    A:
      properties:
        example: ~
`, `nullschema.yaml:8:18: invalid schema: value MUST be an object`},
		{"schemacontent.yaml", `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      parameters:
        - {name: q, in: query, schema: {type: string}}
        - {name: r, in: query, schema: {type: string}, content: {application/json: {schema: {type: string}}}}
      responses: {"204": {description: ok}}
`, `schemacontent.yaml:8:11: cannot contain both schema and content in a parameter`},
		{"empty.yaml", "# nothing\n", `empty.yaml:1:1: not an OpenAPI document: the file is empty`},
		{"control.yaml", "openapi: 3.0.0\ninfo: {title: \"é\x00\", version: \"1\"}\n", `control.yaml:2:17: control characters are not allowed (value: 0)`},
		{"latin1.yaml", "openapi: 3.0.0\ninfo: {title: caf\xe9, version: \"1\"}\n", `latin1.yaml:2:18: invalid trailing UTF-8 octet (value: 44)`},
		{"refs.yaml", `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Missing"}
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
      example: {$ref: "#/not/checked"}
    100%: {type: string}
`, `refs.yaml:11:30: unresolved reference "#/components/schemas/Missing": nothing in the file is at that path
refs.yaml:16:28: reference "other.yaml#/Thing" leaves the file (only references inside it are allowed)
refs.yaml:24:25: unresolved reference "#/components/schemas/Nope": nothing in the file is at that path
refs.yaml:25:24: reference "#/components/schemas/100%" is not a URI (a % starts an escape like %2F; no control characters)`},
		{"types.yaml", `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      parameters: 5
      responses: {"204": {description: ok}}
`, `types.yaml:6:19: cannot construct !!int ` + "`5`" + ` into openapi3.Parameters in /paths/~1a/get/parameters`},
		{"paths.yaml", `openapi: 3.0.0
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
`, `paths.yaml:4:3: path "/a/{b": a { without }
paths.yaml:6:3: path "/a/{b{c}": a { without }
paths.yaml:8:3: path "/a}": a } without {
paths.yaml:10:3: path "/a/{}": {} names no parameter`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadBytes(c.name, []byte(c.spec), "ws.yaml", []byte(annot), Options{})
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("got %v, want an ErrorList", err)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// TestErrorOnOneLine checks that an error quoting the inputs as they are prints on one line,
// without the characters that would make a terminal show something else.
func TestErrorOnOneLine(t *testing.T) {
	e := &Error{Pos: Pos{File: "a.yaml", Line: 3, Col: 1}, Operation: "x\ny", Msg: "path /a\x1b[2J\u202e{b}\nnext \xff line\u2028\ufffd é\t"}
	want := `a.yaml:3:1: operation "x\ny": path /a\x1b[2J\u202e{b}\nnext \xff line\u2028� é\t`
	if got := e.Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	plain := &Error{Pos: Pos{File: "a.yaml"}, Msg: "café \"quoted\""}
	if got := plain.Error(); got != `a.yaml: café "quoted"` {
		t.Errorf("got %s", got)
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestNoInfo checks that a document without info, which OpenAPI requires but writegen only
// reads for the docs, loads and scaffolds.
func TestNoInfo(t *testing.T) {
	const doc = "openapi: 3.0.0\npaths: {}\n"
	api, err := LoadBytes("bare.yaml", []byte(doc), "ws.yaml", []byte("version: 1\npackage: bare\nscope: bare\n"), Options{})
	if err != nil || api.Title != "" || api.Version != "" {
		t.Fatalf("LoadBytes = %+v, %v", api, err)
	}
	path := filepath.Join(t.TempDir(), "bare.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Scaffold(path, ScaffoldOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestNullMediaType checks that a media type written as null, like one written {}, declares no
// schema: the parameter, body and response hold any JSON.
func TestNullMediaType(t *testing.T) {
	const doc = `openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    put:
      operationId: put
      parameters:
        - {name: f, in: query, content: {application/json: ~}}
      requestBody:
        required: true
        content:
          application/json:
      responses:
        "200":
          description: ok
          content: {application/json: ~}
`
	api, err := LoadBytes("null.yaml", []byte(doc), "ws.yaml", []byte(hostileAnnot), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `op Put = put PUT /a write=true at null.yaml:5:5
  param F query "f" any required=false style=form explode=true
  body json application/json any required=true
  response 200 "application/json" any
`
	if got := dumpAPI(api); !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant it to hold:\n%s", got, want)
	}
}
