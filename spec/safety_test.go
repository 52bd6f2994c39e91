package spec

import (
	"os"
	"testing"
)

// TestSafetyRefusals checks the refusals of answers that could not act at run time: each the
// exact message at the position of the answer that is wrong.
func TestSafetyRefusals(t *testing.T) {
	spec, err := os.ReadFile("testdata/threads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		annot string
		want  string
	}{
		{"reversible", annotFile(`  createThread:
    effect: reversible
` + okRest), `ws.yaml:5:13: operation "createThread": effect reversible is gone: a duplicate that can be undone is still a second effect; write ambiguous (and compensate: to undo the duplicates a lookup finds)`},
		{"scope missing", "version: 1\npackage: threads\noperations:\n" + okCreate + okRest, `ws.yaml:1:1: scope is required: the provider's stable name in ledger rows and provider keys, like scope: threads`},
		{"scope malformed", "version: 1\npackage: threads\noperations:\n" + okCreate + okRest + "scope: Support Desk\n", `ws.yaml:13:8: scope "Support Desk" may hold only lower-case letters, digits, '.', '_' and '-', starting with a letter or digit`},
		{"key scope malformed", annotFile(`  createThread:
    effect: ambiguous
    key: {scope: Create/Thread, fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:6:18: operation "createThread": key scope "Create/Thread" may hold only lower-case letters, digits, '.', '_' and '-', starting with a letter or digit`},
		{"key scope in defaults", annotFile(okCreate+okRest) + `defaults:
  key: {scope: all, fields: {id: string}, format: "{id}"}
`, `ws.yaml:15:16: key.scope names one write's own scope and cannot be a default: write it in each entry`},
		{"key scope shared", annotFile(`  createThread:
    effect: ambiguous
    key: {scope: threads, fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
  "POST /threads/{thread_id}/messages":
    effect: ambiguous
    key: {scope: threads, fields: {id: string}, format: "{id}"}
    response: {is: acknowledgement}
exclude:
  deleteThread: not used
  searchThreads: not used
`), `ws.yaml:10:18: operation "POST /threads/{thread_id}/messages": key scope "threads" is also the key scope of "createThread" (ws.yaml:6:18): two writes with one key scope share provider keys and ledger rows; give this one its own key.scope`},
		{"max length too short", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {header: Idempotency-Key, max_length: 16}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:7:56: operation "createThread": max_length 16 is too short: writegen's provider keys need at least 22 characters (a shortened key is a hash of 128 bits)`},
		{"attempts 1 with a retry set", annotFile(okCreate + `    retry: {on: [not_sent], attempts: 1}
` + okRest), `ws.yaml:9:39: operation "createThread": attempts is 1, so nothing in retry.on is ever retried: raise attempts or leave retry out`},
		{"5xx retry of an unkeyed write", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    response: {is: receipt, id: /id}
    retry: {on: [not_sent, status_429, status_503, status_5xx]}
` + okRest), `ws.yaml:8:40: operation "createThread": retry on status_503 never fires: a 5xx may answer a write that committed, and with no idempotency key, no strongly consistent lookup and no idempotent effect it is never sent again; remove it, or declare what makes a resend safe
ws.yaml:8:52: operation "createThread": retry on status_5xx never fires: a 5xx may answer a write that committed, and with no idempotency key, no strongly consistent lookup and no idempotent effect it is never sent again; remove it, or declare what makes a resend safe`},
		{"5xx retry with a strong lookup", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/0, consistency: {strong: 5s, source: provider docs}}
    retry: {on: [not_sent, ambiguous, status_503]}
` + okRest), ``},
		{"lookup by a reference never sent", annotFile(okCreate + `    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/0, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:13: operation "createThread": lookup searches by the write's reference, but the provider key travels only in the header Idempotency-Key, which the provider does not keep: store it with reference: {body: /field} (or a query parameter), or take the key in a body or query field`},
		{"lookup finds another type", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:75: operation "createThread": lookup finds a list of Thread, but createThread answers with Thread: point found at an element of the list (like /items/0): every element is a found effect`},
		{"lookup found index", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/1, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:75: operation "createThread": lookup found "/items/1" does not resolve in the response of "listThreads": index 1: in found, index 0 of one list stands for every element, each a found effect (write 0, once)`},
		{"lookup found not an index", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/x, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:75: operation "createThread": lookup found "/items/x" does not resolve in the response of "listThreads": "x" is not an array index`},
		{"lookup through a POST search", annotFile(okCreateRef + `    lookup: {operation: searchThreads, body: {query: "ref:{ref}"}, found: /0, consistency: eventual}
  searchThreads: {effect: read_only}
exclude:
  deleteThread: not used
  "POST /threads/{thread_id}/messages": not used
`), ``},
		{"lookup body does not fit", annotFile(okCreateRef + `    lookup: {operation: searchThreads, body: {query: 5, limit: 1}, found: /0, consistency: eventual}
  searchThreads: {effect: read_only}
exclude:
  deleteThread: not used
  "POST /threads/{thread_id}/messages": not used
`), `ws.yaml:9:54: operation "createThread": lookup body does not fit the request body of "searchThreads": "5" where string goes`},
		{"lookup body for a read without one", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}"}, body: {q: "{ref}"}, found: /items/0, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:74: operation "createThread": lookup operation "listThreads" takes no request body: pass the reference in params`},
		{"lookup param not of its type", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}", limit: ten}, found: /items/0, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:74: operation "createThread": lookup param "limit" is int32, and "ten" is not one`},
		{"lookup param not a string", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}", limit: "x{ref}"}, found: /items/0, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:74: operation "createThread": lookup param "limit" is int32, not a string: writegen passes it a string, or one integer value of the write (like "{ticket_id}")`},
		{"lookup func collides with a method", annotFile(okCreateRef + `    lookup: {func: GetThread, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:13: operation "createThread": lookup func GetThread is the method of "getThread": name the method written by hand otherwise`},
		{"lookup func is the client's field", annotFile(okCreateRef + `    lookup: {func: impl, consistency: {strong: 5s, source: provider docs}}
` + okRest), `ws.yaml:9:13: operation "createThread": lookup func impl is the field impl of Client: name the method written by hand otherwise`},
		{"compensate without a lookup", annotFile(okCreate + `    compensate: {operation: deleteThread, params: {thread_id: "{id}"}}
  deleteThread: {effect: idempotent, response: {is: acknowledgement}}
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:9:17: operation "createThread": compensate undoes the duplicates a lookup finds beyond the first, and the write has no lookup: add one, or leave compensate out`},
		{"compensate after a lookup of one", annotFile(okCreateRef + `    lookup: {operation: getThread, params: {thread_id: "{ref}"}, consistency: {strong: 5s, source: provider docs}}
    compensate: {operation: deleteThread, params: {thread_id: "{id}"}}
  deleteThread: {effect: idempotent, response: {is: acknowledgement}}
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:10:17: operation "createThread": compensate undoes the duplicates a lookup finds beyond the first, but this lookup finds at most one (found: the whole response): point found at an element of a list (like /items/0), so that every element is a found effect`},
		{"compensation with a key", annotFile(okCreateRef + `    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/0, consistency: {strong: 5s, source: provider docs}}
    compensate: {operation: deleteThread, params: {thread_id: "{id}"}}
  deleteThread:
    effect: ambiguous
    key: {fields: {id: string}, format: "{id}"}
    response: {is: acknowledgement}
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:10:29: operation "createThread": compensation "deleteThread" is called once for each duplicate and may be called again: it must be an idempotent write without a business key`},
		{"compensation of an acknowledgement by id", annotFile(`  createThread:
    effect: compensatable
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    reference: {body: /external_reference}
    response: {is: acknowledgement}
    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/0, consistency: {strong: 5s, source: provider docs}}
    compensate: {operation: deleteThread, params: {thread_id: "{id}"}}
  deleteThread: {effect: idempotent, response: {is: acknowledgement}}
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:10:17: operation "createThread": compensation params use {id}, the duplicate's durable id, but the write's answer is not a receipt with an id`},
		{"inbox order", annotFile(okCreate + `    inbox: {source: chat, retention: 72h, order: ordered}
` + okRest), `ws.yaml:9:50: operation "createThread": inbox order "ordered": write in_order (the ledger's word)`},
		{"inbox declared twice", annotFile(okCreate + `    inbox: {source: chat, retention: 72h}
  "POST /threads/{thread_id}/messages":
    effect: ambiguous
    key: {fields: {id: string}, format: "{id}"}
    response: {is: acknowledgement}
    inbox: {source: chat, retention: 24h}
exclude:
  deleteThread: not used
  searchThreads: not used
`), `ws.yaml:14:12: operation "POST /threads/{thread_id}/messages": inbox "chat" is declared with other answers at ws.yaml:9:12: one source has one inbox`},
		{"reference value", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    reference: {body: /external_reference, value: "{escalation}"}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:7:51: operation "createThread": reference value placeholder {escalation} is not a key field`},
		{"reference value where the key goes", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {body: /external_reference}
    reference: {body: /external_reference, value: "{escalation_id}"}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:8:16: operation "createThread": the reference is stored where the idempotency key goes: store it elsewhere, or leave out its value`},
		{"reference not a string", annotFile(`  createThread:
    effect: ambiguous
    key: {fields: {escalation_id: string}, format: "e:{escalation_id}"}
    reference: {body: /metadata}
    response: {is: receipt, id: /id}
` + okRest), `ws.yaml:7:23: operation "createThread": reference body "/metadata" is a map of string, not a string: writegen stores a string there`},
		{"idempotency without a key", annotFile(okCreate + `  deleteThread:
    effect: idempotent
    idempotency: {header: Idempotency-Key}
    response: {is: acknowledgement}
exclude:
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`), `ws.yaml:11:5: operation "deleteThread": idempotency needs a business key: the provider key is derived from it (add key: {fields: ..., format: ...})`},
		{"read-only with a key", annotFile(okCreate + `  searchThreads:
    effect: read_only
    key: {fields: {q: string}, format: "{q}"}
exclude:
  deleteThread: not used
  "POST /threads/{thread_id}/messages": not used
`), `ws.yaml:11:5: operation "searchThreads": a read_only operation is called like a read and takes no business key: write key: none`},
		{"acknowledgements", annotFile(okCreate + `    acknowledge: {key_format: "x", retry: "sometimes", dedupe: yes}
` + okRest), `ws.yaml:9:18: operation "createThread": acknowledge needs a reason: why the change cannot make a retry a second effect
ws.yaml:9:43: operation "createThread": acknowledge retry "sometimes": want the old set as WRITE_SAFETY.json writes it, like "not_sent|ambiguous"
ws.yaml:9:64: operation "createThread": acknowledge dedupe "yes": only a dropped dedupe: ledger is acknowledged (write ledger)`},
		{"destructive", annotFile(okCreate + `    destructive: maybe
` + okRest), `ws.yaml:9:18: operation "createThread": destructive: want true or false, found "maybe"`},
		{"placeholders outside the include filter", "version: 1\npackage: threads\nscope: threads\ninclude: {operations: [createThread]}\noperations:\n" + okCreate + `  deleteThread:
    effect: TODO
    owner: TODO
`, ``},
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
