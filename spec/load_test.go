package spec

import (
	"strings"
	"testing"

	"github.com/writegen/writegen/internal/corpustest"
	"github.com/writegen/writegen/spec/ir"
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
  field ExternalReference "external_reference" string required=false nullable=false readonly=false
  field Status "status" ThreadStatus required=false nullable=false readonly=false
  field CreatedAt "created_at" time.Time required=false nullable=false readonly=false
  field Parent "parent" Thread required=false nullable=false readonly=false
type ThreadStatus kind=2 schema="" at testdata/threads.yaml:107:9
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
	spec := corpustest.Read(t, "testdata/threads.yaml")
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
    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/0, consistency: {strong: 5s, source: provider docs}}
    compensate: {operation: deleteThread, params: {thread_id: "{id}"}}
  deleteThread:
    effect: idempotent
    response: {is: acknowledgement}
scope: threads
`
	api, err := LoadBytes("threads.yaml", corpustest.Read(t, "testdata/threads.yaml"), "ws.yaml", []byte(annot), Options{Package: "support"})
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

// TestErrorOnOneLine checks that an error quoting the inputs as they are prints on one line,
// without the characters that would make a terminal show something else.
func TestErrorOnOneLine(t *testing.T) {
	e := &ir.Error{Pos: ir.Pos{File: "a.yaml", Line: 3, Col: 1}, Operation: "x\ny", Msg: "path /a\x1b[2J\u202e{b}\nnext \xff line\u2028\ufffd é\t"}
	want := `a.yaml:3:1: operation "x\ny": path /a\x1b[2J\u202e{b}\nnext \xff line\u2028� é\t`
	if got := e.Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	plain := &ir.Error{Pos: ir.Pos{File: "a.yaml"}, Msg: "café \"quoted\""}
	if got := plain.Error(); got != `a.yaml: café "quoted"` {
		t.Errorf("got %s", got)
	}
}

// TestNoInfo checks that a document without info, which OpenAPI requires but writegen only
// reads for the docs, loads (and scaffolds: TestScaffoldNoInfo).
func TestNoInfo(t *testing.T) {
	const doc = "openapi: 3.0.0\npaths: {}\n"
	api, err := LoadBytes("bare.yaml", []byte(doc), "ws.yaml", []byte("version: 1\npackage: bare\nscope: bare\n"), Options{})
	if err != nil || api.Title != "" || api.Version != "" {
		t.Fatalf("LoadBytes = %+v, %v", api, err)
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
