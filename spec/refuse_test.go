package spec

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec/ir"
)

// annotFile builds an annotation file for testdata/threads.yaml: the header takes lines 1-3, so the
// first line of body is line 4; the scope comes last.
func annotFile(body string) string {
	return "version: 1\npackage: threads\noperations:\n" + body + "scope: threads\n"
}

// okRest answers the writes a case does not look at, after line 3 + the case's own lines.
const okRest = `exclude:
  deleteThread: not used
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`

// okCreateRef is okCreate storing its provider key in the body, where a lookup can find it.
const okCreateRef = `  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    reference: {body: /external_reference}
    response: {is: receipt, id: /id}
`

const okCreate = `  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {header: Idempotency-Key}
    response: {is: receipt, id: /id}
`

// TestRefusals checks each refusal of the annotation file: the exact message, its position and
// the operation named.
func TestRefusals(t *testing.T) {
	spec, err := os.ReadFile("testdata/threads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		annot string
		want  string
	}{
		{"ok", annotFile(okCreate + okRest), ""},

		{"missing entry", annotFile(okRest), `threads.yaml:24:5: operation "createThread": POST has no write-safety annotation: answer it under operations, or list it under exclude`},
		{"ambiguous retry without key or lookup", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
    retry: {on: [not_sent, ambiguous]}
` + okRest), `ws.yaml:8:28: operation "createThread": retry on ambiguous never fires: after a lost answer the write may have committed, and with no idempotency key, no strongly consistent lookup (or eventual with a lag) and no idempotent effect it is never sent again; remove it, or declare what makes a resend safe`},
		{"ambiguous retry with eventual lookup", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    reference: {body: /external_reference}
    response: {is: receipt, id: /id}
    lookup: {func: findThread, consistency: eventual}
    retry: {on: [ambiguous]}
` + okRest), `ws.yaml:10:18: operation "createThread": retry on ambiguous never fires: after a lost answer the write may have committed, and with no idempotency key, no strongly consistent lookup (or eventual with a lag) and no idempotent effect it is never sent again; remove it, or declare what makes a resend safe`},
		{"ambiguous retry with strong lookup", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    reference: {body: /external_reference}
    response: {is: receipt, id: /id}
    lookup: {func: findThread, consistency: {strong: 5s, source: provider docs}}
    retry: {on: [ambiguous]}
` + okRest), ""},
		{"ambiguous retry of an idempotent write", annotFile(okCreate + `  deleteThread:
    effect: idempotent
    response: {is: acknowledgement}
    retry: {on: [ambiguous]}
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), ""},
		{"status_409 without key", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
    retry: {on: [status_409]}
` + okRest), `ws.yaml:8:18: operation "createThread": retry on status_409 never fires: only a write with an idempotency key reads 409 as "the first attempt is still running"; without one a 409 is a rejection, never retried`},
		{"receipt id does not resolve", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /thread/id}
` + okRest), `ws.yaml:7:33: operation "createThread": receipt id "/thread/id" does not resolve in the 201 response: Thread has no property "thread"`},
		{"receipt id is an object", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /parent}
` + okRest), `ws.yaml:7:33: operation "createThread": receipt id "/parent" is Thread in the 201 response, not a string or an integer`},
		{"receipt id through a reference", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /parent/parent/id}
` + okRest), ""},
		{"receipt without a body", annotFile(okCreate + `  deleteThread:
    effect: idempotent
    response: {is: receipt, id: /id}
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:11:33: operation "deleteThread": receipt id "/id": the 204 response has no JSON body`},
		{"receipt without id", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt}
` + okRest), `ws.yaml:7:15: operation "createThread": a receipt needs id: the JSON pointer of the durable id in the 2xx body (like /id)`},
		{"acknowledgement with id", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: acknowledgement, id: /id}
` + okRest), `ws.yaml:7:37: operation "createThread": an acknowledgement has no id: only a receipt names a durable id`},
		{"lookup operation missing", annotFile(okCreate + `    lookup: {operation: findThreads, params: {q: "{ref}"}, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:25: operation "createThread": lookup operation "findThreads" is not in the spec`},
		{"lookup operation is a write", annotFile(okCreate + `    lookup: {operation: deleteThread, params: {thread_id: "{ref}"}, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:25: operation "createThread": lookup operation "deleteThread" is not a read (DELETE): a search sent as DELETE is a lookup once its entry says effect: read_only`},
		{"lookup operation is excluded", annotFile(okCreate + `    lookup: {operation: getThread, params: {thread_id: "{ref}"}, consistency: {strong: 5s, source: provider docs}}
` + okRest + "  getThread: not used\n"), `ws.yaml:9:25: operation "createThread": lookup operation "getThread" is excluded`},
		{"lookup operation is a read by declaration", annotFile(okCreateRef + `    lookup: {operation: searchThreads, params: {}, consistency: {strong: 5s, source: provider docs}}
  searchThreads:
    effect: read_only
` + `exclude:
  deleteThread: not used
  "POST /threads/{thread_id}/messages": not used
`), `ws.yaml:9:25: operation "createThread": lookup reads one object without passing the reference: it could only tell that object is not the write's, never that the write is absent; pass a value with {ref} in params or body, or point found at an element of a list it walks (like /items/0)`},
		{"lookup params and found", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {ref: "{ref}", limit: "{limit}"}, found: /data/0, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:47: operation "createThread": lookup operation "listThreads" has no parameter "ref"
ws.yaml:9:68: operation "createThread": lookup param "limit": "{limit}": {limit} is neither {ref} nor a path or query parameter of createThread nor a field of its key
ws.yaml:9:87: operation "createThread": lookup found "/data/0" does not resolve in the response of "listThreads": ListThreadsResponse has no property "data"`},
		{"lookup without the reference", annotFile(okCreateRef + `    lookup: {operation: getThread, params: {thread_id: "x"}, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:25: operation "createThread": lookup reads one object without passing the reference: it could only tell that object is not the write's, never that the write is absent; pass a value with {ref} in params or body, or point found at an element of a list it walks (like /items/0)`},
		{"lookup missing a required parameter", annotFile(okCreateRef + `    lookup: {operation: getThread, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:25: operation "createThread": lookup operation "getThread" needs its required parameter "thread_id" in params`},
		{"consistency with another key", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {external_reference: "{ref}"}, found: /items/0, consistency: {settle: 2s}}
` + okRest), `ws.yaml:9:107: operation "createThread": consistency as a mapping is {strong: SETTLE, source: ...} or {eventual: LAG, source: ...}: how long after a write's last attempt could run the lookup is sure to see it
ws.yaml:9:108: operation "createThread": unknown field "settle" (known: strong, eventual, source)`},
		{"consistency strong alone", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {external_reference: "{ref}"}, found: /items/0, consistency: strong}
` + okRest), `ws.yaml:9:107: operation "createThread": consistency strong says not found proves the write did not commit, a claim about the provider that a person must back: write {strong: SETTLE, source: ...}, with how long the provider may still commit a request whose connection was lost and where that is documented (a URL, or the reason you trust it), or eventual`},
		{"consistency without its source", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {external_reference: "{ref}"}, found: /items/0, consistency: {eventual: 30s}}
` + okRest), `ws.yaml:9:107: operation "createThread": consistency {eventual: 30s} is a claim about the provider: add source: with where a person checked it (the provider's docs URL, or the reason it holds), which WRITE_SAFETY.md shows the reviewer`},
		{"adopt fields of the same schema", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/0, adopt: fields, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:92: operation "createThread": lookup adopt: fields copies the properties of an element of another schema, and listThreads finds Thread, what the receipt is: leave adopt out`},
		{"lookup func and operation", annotFile(okCreate + `    lookup: {func: find, operation: getThread, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:13: operation "createThread": lookup needs exactly one of func or operation`},
		{"lookup func not an identifier", annotFile(okCreate + `    lookup: {func: find-thread}
` + okRest), `ws.yaml:9:13: operation "createThread": lookup needs consistency: eventual, or {eventual: LAG, source: ...} or {strong: SETTLE, source: ...} with where a person checked the provider's word
ws.yaml:9:20: operation "createThread": lookup func "find-thread" is not a Go identifier`},
		{"lookup func empty or blank", annotFile(okCreate + `    lookup: {func: "", consistency: {strong: 5s, source: provider docs}}
  deleteThread:
    effect: idempotent
    response: {is: acknowledgement}
    lookup: {func: _, consistency: {strong: 5s, source: provider docs}}
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:9:20: operation "createThread": lookup func "" is not a Go identifier
ws.yaml:13:20: operation "deleteThread": lookup func "_" is not a Go identifier`},
		{"empty operation names", `version: 1
package: threads
include: {operations: [createThread, ""]}
operations:
` + okCreate + `    lookup: {operation: "", params: {q: "{ref}"}, consistency: {strong: 5s, source: provider docs}}
    compensate: " "
  "":
    effect: idempotent
` + okRest + "  \"\": not used\nscope: threads\n", `ws.yaml:3:38: empty operation name (name it by operationId or as "POST /path")
ws.yaml:10:25: operation "createThread": empty operation name (name it by operationId or as "POST /path")
ws.yaml:11:17: operation "createThread": empty operation name (name it by operationId or as "POST /path")
ws.yaml:12:3: empty operation name (name it by operationId or as "POST /path")
ws.yaml:18:3: empty operation name (name it by operationId or as "POST /path")`},
		{"compensation missing", annotFile(okCreate + `    compensate: removeThread
` + okRest), `ws.yaml:9:17: operation "createThread": compensation "removeThread" is not in the spec`},
		{"compensation excluded", annotFile(okCreate + `    compensate: deleteThread
` + okRest), `ws.yaml:9:17: operation "createThread": compensation "deleteThread" is excluded`},
		{"compensation unannotated", `version: 1
package: threads
include: {operations: [createThread]}
operations:
` + okCreate + `    compensate: deleteThread
scope: threads
`, `ws.yaml:10:17: operation "createThread": compensation "deleteThread" has no write-safety annotation`},
		{"compensation is a read", annotFile(okCreate + `    compensate: getThread
` + okRest), `ws.yaml:9:17: operation "createThread": compensation "getThread" is a read (GET), not a write`},
		{"compensatable without compensation", annotFile(`  createThread:
    effect: compensatable
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:5:5: operation "createThread": effect compensatable needs compensate: the operation that undoes a duplicate`},
		{"key format and fields differ", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string, tenant: int64}, format: "e:{escalation}"}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:6:67: operation "createThread": key format placeholder {escalation} is not a key field`},
		{"key fields left out of the format", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string, tenant: int64}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:6:67: operation "createThread": key field "tenant" is not in the format "e:{escalation_id}"`},
		{"key format braces", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id"}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:6:52: operation "createThread": key format "e:{escalation_id" has a { without }`},
		{"key field type", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: uuid}, format: "{escalation_id}"}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:6:35: operation "createThread": "uuid" is not one of: string, int64`},
		{"uncertain guessed away", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "{escalation_id}"}
    response: {is: receipt, id: /id}
    uncertain: fail
` + okRest), `ws.yaml:8:16: operation "createThread": "fail" is not one of: reconcile`},
		{"key missing", annotFile(`  createThread:
    effect: ambiguous
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:4:3: operation "createThread": effect ambiguous needs a key: the business key callers pass (key: {fields: ..., format: ...})`},
		{"effect missing", annotFile(`  createThread:
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:4:3: operation "createThread": effect is required: read_only, idempotent, compensatable or ambiguous`},
		{"response missing", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
` + okRest), `ws.yaml:4:3: operation "createThread": response is required: is the 2xx a receipt (response: {is: receipt, id: /id}) or an acknowledgement?`},
		{"unknown fields", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, formt: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
    retries: {on: [not_sent]}
` + okRest + "colour: blue\n"), `ws.yaml:6:44: operation "createThread": unknown field "formt" (did you mean "format"?)
ws.yaml:8:5: operation "createThread": unknown field "retries" (known: effect, destructive, key, idempotency, reference, response, lookup, retry, compensate, dedupe, retention, uncertain, owner, credentials, inbox, acknowledge)
ws.yaml:13:1: unknown field "colour" (known: version, package, scope, tenancy, include, defaults, operations, exclude, names)`},
		{"misspelt operation, one message", annotFile(`  createThraed:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {header: Idempotency-Key}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:4:3: operation "createThraed": no such operation in the spec (did you mean "createThread"?)`},
		{"misspelt answers, one message each", annotFile(`  createThread:
    efect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {header: Idempotency-Key}
    respons: {is: receipt, id: /id}
` + okRest), `ws.yaml:5:5: operation "createThread": unknown field "efect" (did you mean "effect"?)
ws.yaml:8:5: operation "createThread": unknown field "respons" (did you mean "response"?)`},
		{"misspelt value", annotFile(okCreate + `    dedupe: leger
` + okRest), `ws.yaml:9:13: operation "createThread": "leger" is not one of: ledger, none (did you mean "ledger"?)`},
		{"wrong types", annotFile(`  createThread:
    effect: [ambiguous]
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {header: Idempotency-Key, max_length: long, window: soon}
    response: {is: receipt, id: id}
    retry: {on: not_sent, attempts: 3}
    credentials: {rotation_invalidates: sometimes}
` + okRest), `ws.yaml:5:13: operation "createThread": effect: want a string, found a list
ws.yaml:7:56: operation "createThread": max_length: want an integer, found "long"
ws.yaml:7:70: operation "createThread": window "soon" is not a positive duration (like 24h, 90m or 30d), forever or unknown: say how long the provider documents that it remembers a key
ws.yaml:8:33: operation "createThread": "id" is not a JSON pointer (want one starting with /, like /id)
ws.yaml:9:17: operation "createThread": on: want a list, found "not_sent"
ws.yaml:9:37: operation "createThread": attempts is 3 but retry names nothing to retry on
ws.yaml:10:41: operation "createThread": rotation_invalidates: want true or false, found "sometimes"`},
		{"placeholders left", annotFile(`  createThread:
    effect: TODO
    key: {fields: {TODO: string}, format: "{TODO}"}
    response: {is: receipt, id: /id}
    owner: "TODO: ask the team"
` + okRest), `ws.yaml:5:13: operation "createThread": "TODO" is a placeholder left by writegen init: answer it
ws.yaml:6:20: operation "createThread": "TODO" is a placeholder left by writegen init: answer it
ws.yaml:6:43: operation "createThread": "{TODO}" is a placeholder left by writegen init: answer it
ws.yaml:8:12: operation "createThread": "TODO: ask the team" is a placeholder left by writegen init: answer it`},
		{"body pointers", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {body: /idempotency_key}
    reference: {body: /metadata/writegen_ref}
    response: {is: receipt, id: /id}
  deleteThread:
    effect: idempotent
    reference: {body: /ref}
    response: {is: acknowledgement}
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:7:25: operation "createThread": idempotency body "/idempotency_key" does not resolve in the request body: CreateThreadRequest has no property "idempotency_key"
ws.yaml:12:16: operation "deleteThread": reference needs a business key: the reference is the provider key or a template over the key's fields`},
		{"retry names and attempts", annotFile(okCreate + `    retry: {on: [not_sent, status_418, not_sent], attempts: 0}
` + okRest), `ws.yaml:9:28: operation "createThread": "status_418" is not one of: not_sent, ambiguous, status_408, status_409, status_425, status_429, status_500, status_502, status_503, status_504, status_5xx (did you mean "status_408"?)
ws.yaml:9:40: operation "createThread": not_sent is listed twice
ws.yaml:9:61: operation "createThread": attempts must be at least 1`},
		{"attempts without a retry set", annotFile(okCreate + `    retry: {on: [], attempts: 3}
` + okRest), `ws.yaml:9:31: operation "createThread": attempts is 3 but retry names nothing to retry on`},
		{"operation named twice", annotFile(okCreate + `  "POST /threads":
    effect: idempotent
    response: {is: acknowledgement}
` + okRest), `ws.yaml:9:3: operation "POST /threads": POST /threads is already named at line 4 (as "createThread")`},
		{"operation not in the spec", annotFile(okCreate + `  createMessage:
    effect: idempotent
    response: {is: acknowledgement}
` + okRest), `ws.yaml:9:3: operation "createMessage": no such operation in the spec (name it by operationId or as "POST /path")`},
		{"entry and exclusion", annotFile(okCreate + okRest + "  createThread: twice\n"), `ws.yaml:13:3: operation "createThread": POST /threads is answered at line 4 and excluded here: keep one`},
		{"entry for a read", annotFile(okCreate + `  getThread:
    effect: read_only
` + okRest), `ws.yaml:9:3: operation "getThread": GET is a read: only writes take write-safety answers`},
		{"version and package", "version: 2\npackage: 9lives\noperations:\n" + okCreate + okRest + "scope: 9lives\n", `ws.yaml:1:10: unsupported version 2 (want 1)
ws.yaml:2:10: package "9lives" is not a Go package name`},
		{"package main", "version: 1\npackage: main\noperations:\n" + okCreate + okRest + "scope: threads\n", `ws.yaml:2:10: package main is a command, which nothing can import: name the client's package`},
		{"version missing", "package: threads\noperations:\n" + okCreate + okRest + "scope: threads\n", `ws.yaml:1:1: version is required (version: 1)`},
		{"defaults fill in", `version: 1
package: threads
defaults:
  effect: ambiguous
  key: {fields: {request_id: string}, format: "{request_id}"}
  response: {is: acknowledgement}
  lookup: {func: find, consistency: {strong: 5s, source: provider docs}}
  compensate: deleteThread
operations:
` + okCreate + okRest + "scope: threads\n", `ws.yaml:7:3: lookup names one operation's own lookup and cannot be a default
ws.yaml:8:3: compensate names one operation's own compensate and cannot be a default`},
		{"defaults refused where they do not fit", `version: 1
package: threads
defaults:
  effect: idempotent
  response: {is: receipt, id: /id}
  retry: {on: [status_409]}
operations:
` + okCreate + `exclude:
  searchThreads: not used
scope: threads
`, `ws.yaml:5:31: operation "deleteThread": receipt id "/id": the 204 response has no JSON body
ws.yaml:5:31: operation "POST /threads/{thread_id}/messages": receipt id "/id": the 202 response has no JSON body
ws.yaml:6:16: operation "deleteThread": retry on status_409 never fires: only a write with an idempotency key reads 409 as "the first attempt is still running"; without one a 409 is a rejection, never retried
ws.yaml:6:16: operation "POST /threads/{thread_id}/messages": retry on status_409 never fires: only a write with an idempotency key reads 409 as "the first attempt is still running"; without one a 409 is a rejection, never retried`},
		{"include names", `version: 1
package: threads
include: {operations: [createThread, "PUT /threads"], tags: [threads, billing]}
operations:
` + okCreate + okRest + "scope: threads\n", `ws.yaml:3:38: operation "PUT /threads": included operation is not in the spec
ws.yaml:3:71: included tag "billing" is not used by any operation`},
		{"retention", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {header: Idempotency-Key, window: 24h}
    response: {is: receipt, id: /id}
    dedupe: ledger
    retention: 12h
  deleteThread:
    effect: idempotent
    key: {fields: {thread_id: string}, format: "t:{thread_id}"}
    response: {is: acknowledgement}
    retention: 30d
  "POST /threads/{thread_id}/messages":
    effect: ambiguous
    key: {fields: {message_id: string}, format: "m:{message_id}"}
    response: {is: acknowledgement}
    dedupe: ledger
    retention: a month
exclude:
  searchThreads: not used
`), `ws.yaml:10:5: operation "createThread": retention 12h is shorter than the provider's key window (24h): a repeat after the ledger forgot the key would count the window from the repeat, and could send the key again after the provider forgot it, a second effect; make it 24h or longer, or forever
ws.yaml:15:5: operation "deleteThread": retention 720h says how long the ledger remembers the business key, but the write takes no ledger claim: add dedupe: ledger, or remove retention
ws.yaml:21:16: operation "POST /threads/{thread_id}/messages": retention "a month" is not a positive duration (like 30d or 720h) or forever: say how long the ledger must remember a business key once its write is settled, so that a repeat with the key gets the first outcome`},
		{"dedupe without a key", annotFile(okCreate + `  deleteThread:
    effect: idempotent
    response: {is: acknowledgement}
    dedupe: ledger
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:12:5: operation "deleteThread": dedupe: ledger claims the business key, but the operation has no key`},
		{"written twice", annotFile(okCreate + `    effect: idempotent
` + okRest), `ws.yaml:9:5: operation "createThread": "effect" is written twice (first at line 5)`},
		{"exclusion without reason", annotFile(okCreate + `exclude:
  deleteThread: ""
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:10:17: operation "deleteThread": an exclusion needs a reason`},
		{"name overrides", annotFile(okCreate + okRest + `names:
  "#/components/schemas/Thread": thread
  "#/components/schemas/Post": Post
`), `ws.yaml:14:34: name "thread" is not an exported Go identifier
ws.yaml:15:3: names: "#/components/schemas/Post" names nothing in the spec`},
		{"name override", annotFile(okCreate + okRest + `names:
  "#/components/schemas/Thread": Conversation
`), ""},
		{"name override taken", annotFile(okCreate + okRest + `names:
  "#/components/schemas/Thread": CreateThreadKey
`), `ws.yaml:14:3: names: "CreateThreadKey" is already the name of generated CreateThreadKey`},
		{"key none on an ambiguous write", annotFile(`  createThread:
    key: none
defaults:
  effect: ambiguous
  key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
  idempotency: {header: Idempotency-Key}
  response: {is: receipt, id: /id}
` + okRest), `ws.yaml:4:3: operation "createThread": effect ambiguous needs a key: the business key callers pass (key: {fields: ..., format: ...})`},
		{"idempotency none overrides the defaults", annotFile(`  createThread:
    idempotency: none
defaults:
  effect: ambiguous
  key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
  idempotency: {header: Idempotency-Key}
  response: {is: receipt, id: /id}
  retry: {on: [status_409]}
` + okRest), `ws.yaml:11:16: operation "createThread": retry on status_409 never fires: only a write with an idempotency key reads 409 as "the first attempt is still running"; without one a 409 is a rejection, never retried`},
		{"none is not an answer everywhere", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: none
` + okRest), `ws.yaml:7:15: operation "createThread": response: want a mapping, found "none"`},
		{"read-only write with a response", annotFile(`  createThread:
    effect: read_only
    response: {is: acknowledgement}
` + okRest), `ws.yaml:6:5: operation "createThread": a read_only operation answers like a read: leave response out`},
		{"read-only write under a receipt default", annotFile(`  createThread: {effect: read_only, key: none}
defaults:
  effect: ambiguous
  key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
  response: {is: receipt, id: /no/such/field}
` + okRest), ""},
		{"ambiguous retry of a read-only write", annotFile(`  createThread:
    effect: read_only
    key: none
    retry: {on: [not_sent, ambiguous]}
` + okRest), ""},
		{"response.error without ok", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {header: Idempotency-Key}
    response: {is: receipt, id: /id, error: /title}
` + okRest), `ws.yaml:8:45: operation "createThread": response.error names the provider's error text when response.ok is false: give response.ok too`},
		{"an acknowledgement with an object", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {header: Idempotency-Key}
    response: {is: acknowledgement, object: /thread}
` + okRest), `ws.yaml:8:45: operation "createThread": an acknowledgement has no object: only a receipt names the object the write made`},
		{"reference.through without body", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    reference: {query: ref, through: Thread}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:7:29: operation "createThread": reference.through names the variant of the request body that reference.body goes through: give reference.body`},
		{"not yaml", "version: 1\noperations: [\n", `ws.yaml:3:1: did not find expected node content`},
		{"empty", "", `ws.yaml:1:1: empty annotation file: want version: 1`},
		{"unreadable", "version: 1\npackage: threads\noperations:\n  createThread:\n    owner: \"a\x1b[2Jb\"\n", `ws.yaml:5:14: control characters are not allowed (value: 27)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadBytes("threads.yaml", spec, "ws.yaml", []byte(c.annot), Options{})
			noteRules(err)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// TestConsistencyTimes: {strong: 2s} declares a strong lookup's settle time and {eventual: 30s}
// an eventual one's lag, each resolved into Lookup.Lag; plain forms leave it zero.
func TestConsistencyTimes(t *testing.T) {
	spec, err := os.ReadFile("testdata/threads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		consistency string
		want        runtime.Consistency
		lag         time.Duration
	}{
		{"{strong: 2s, source: provider docs}", runtime.Strong, 2 * time.Second},
		{"eventual", runtime.Eventual, 0},
		{"{eventual: 30s, source: https://docs.example.com/search}", runtime.Eventual, 30 * time.Second},
	} {
		body := okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/0, consistency: ` + c.consistency + "}\n"
		if c.want == runtime.Eventual && c.lag == 0 {
			body = strings.Replace(body, "    response:", "    retry: {on: [not_sent]}\n    response:", 1) // ambiguous never fires without a lag
		}
		api, err := LoadBytes("threads.yaml", spec, "ws.yaml", []byte(annotFile(body+okRest)), Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.consistency, err)
		}
		var op *ir.Operation
		for _, o := range api.Operations {
			if o.ID == "createThread" {
				op = o
			}
		}
		if l := op.Safety.Lookup; l.Consistency != c.want || l.Lag != c.lag {
			t.Errorf("%s: lookup %s with lag %v; want %s with %v", c.consistency, l.Consistency, l.Lag, c.want, c.lag)
		}
	}
}
