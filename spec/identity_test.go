package spec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/writegen/writegen/internal/corpustest"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/safety"
)

// identityBase answers createThread of testdata/threads.yaml with every answer its identity
// depends on; each case of TestCheckIdentity changes one line of it.
const identityBase = `version: 1
package: threads
scope: support-desk
operations:
  createThread:
    effect: ambiguous
    key: {scope: create-thread, fields: {escalation_id: string}, format: "e:{escalation_id}"}
    idempotency: {header: Idempotency-Key, max_length: 64, window: 24h}
    reference: {body: /external_reference}
    response: {is: receipt, id: /id}
    lookup: {operation: listThreads, params: {reference: "{ref}"}, found: /items/0, consistency: {strong: 10s, source: provider docs}}
    retry: {on: [not_sent, ambiguous]}
    dedupe: ledger
exclude:
  deleteThread: not used
  "POST /threads/{thread_id}/messages": not used
  searchThreads: not used
`

// TestCheckIdentity checks each change CheckIdentity refuses against the record of identityBase,
// that an acknowledgement of the old value accepts it, and that an acknowledgement of nothing is
// a warning.
func TestCheckIdentity(t *testing.T) {
	specData := corpustest.Read(t, "testdata/threads.yaml")
	base, err := LoadBytes("threads.yaml", specData, "ws.yaml", []byte(identityBase), Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := safety.Identity(base).Marshal()
	const rec = "out/WRITE_SAFETY.json"
	for _, c := range []struct {
		name, from, to  string // identityBase with from replaced by to
		refused, warned string
	}{
		{"unchanged", "", "", "", ""},
		{"operation renamed, key scope kept", "  createThread:\n", "  \"POST /threads\":\n", "", ""},
		{"scope", "scope: support-desk", "scope: desk", `ws.yaml:3:8: scope "desk" was "support-desk" in out/WRITE_SAFETY.json: every write gets new provider keys and ledger rows, so a retry after the change is a second effect; put it back, or acknowledge it (acknowledge: {scope: "support-desk", reason: ...} in defaults or in each write; 1 of 1 do not: createThread)`, ""},
		{"scope acknowledged in defaults", "scope: support-desk", "scope: desk\ndefaults:\n  acknowledge: {scope: support-desk, reason: the ledger was drained}", "", ""},
		{"key scope", "key: {scope: create-thread,", "key: {scope: threads-create,", `ws.yaml:7:18: operation "createThread": key scope "threads-create" was "create-thread" in out/WRITE_SAFETY.json: the write gets new provider keys and ledger rows, so a retry after the change is a second effect; put it back with key.scope: "create-thread", or acknowledge it (acknowledge: {key_scope: "create-thread", reason: ...})`, ""},
		{"key scope by default", "key: {scope: create-thread,", "key: {", `ws.yaml:5:3: operation "createThread": key scope "createthread" was "create-thread" in out/WRITE_SAFETY.json: the write gets new provider keys and ledger rows, so a retry after the change is a second effect; put it back with key.scope: "create-thread", or acknowledge it (acknowledge: {key_scope: "create-thread", reason: ...})`, ""},
		{"key scope acknowledged", "    dedupe: ledger\n", "    dedupe: ledger\n    acknowledge: {key_scope: create-thread, reason: nothing in flight}\n", "", `ws.yaml:14:30: operation "createThread": acknowledge key_scope "create-thread" matches no change against out/WRITE_SAFETY.json: remove it`},
		{"key format", `format: "e:{escalation_id}"`, `format: "esc:{escalation_id}"`, `ws.yaml:7:74: operation "createThread": key format "esc:{escalation_id}" was "e:{escalation_id}" in out/WRITE_SAFETY.json: the same write gets another business key, so a retry after the change is a second effect; put it back, or acknowledge it (acknowledge: {key_format: "e:{escalation_id}", reason: ...})`, ""},
		{"max length", "max_length: 64", "max_length: 255", `ws.yaml:8:56: operation "createThread": max_length 255 was 64 in out/WRITE_SAFETY.json: a key over the old length is shortened another way, so a retry after the change is a second effect; put it back, or acknowledge it (acknowledge: {max_length: "64", reason: ...})`, ""},
		{"retry widened", "on: [not_sent, ambiguous]", "on: [not_sent, ambiguous, status_429]", `ws.yaml:12:39: operation "createThread": retry on status_429 widens the retry set (it was not_sent|ambiguous in out/WRITE_SAFETY.json): a failure the committed code stopped at would be sent again; leave it out, or acknowledge it (acknowledge: {retry: "not_sent|ambiguous", reason: ...})`, ""},
		{"retry narrowed", "on: [not_sent, ambiguous]", "on: [not_sent]", "", ""},
		{"retry widened and acknowledged", "on: [not_sent, ambiguous]}", "on: [not_sent, ambiguous, status_429]}\n    acknowledge: {retry: \"ambiguous|not_sent\", reason: 429 never commits}", "", ""},
		{"strong to eventual, which resends less", "consistency: {strong: 10s, source: provider docs}}", "consistency: eventual}", "", ""},
		{"strong to an eventual lag shorter than the settle time", "{strong: 10s,", "{eventual: 2s,", `ws.yaml:11:13: operation "createThread": the lookup's lag is 2s, and was 10s in out/WRITE_SAFETY.json: not found would authorise a resend sooner than the old code trusted it, a second effect if the provider commits in between; put it back with consistency: {eventual: 10s, source: ...}, or acknowledge it (acknowledge: {lag: "10s", reason: ...})`, ""},
		{"settle time shorter", "{strong: 10s,", "{strong: 2s,", `ws.yaml:11:13: operation "createThread": the lookup's settle time is 2s, and was 10s in out/WRITE_SAFETY.json: not found would authorise a resend sooner than the old code trusted it, a second effect if the provider commits in between; put it back with consistency: {strong: 10s, source: ...}, or acknowledge it (acknowledge: {lag: "10s", reason: ...})`, ""},
		{"settle time shorter and acknowledged", "{strong: 10s, source: provider docs}}\n", "{strong: 2s, source: provider docs}}\n    acknowledge: {lag: 10s, reason: the provider commits within 1s}\n", "", ""},
		{"settle time acknowledged, unchanged", "    dedupe: ledger\n", "    dedupe: ledger\n    acknowledge: {lag: 10s, reason: the provider commits within 1s}\n", "", `ws.yaml:14:24: operation "createThread": acknowledge lag "10s" matches no change against out/WRITE_SAFETY.json: remove it`},
		{"settle time longer", "{strong: 10s,", "{strong: 1m,", "", ""},
		{"reference moved", "reference: {body: /external_reference}", "reference: {body: /external_reference, value: \"t:{escalation_id}\"}", `ws.yaml:9:16: operation "createThread": the reference is "body /external_reference value t:{escalation_id}", and was "body /external_reference" in out/WRITE_SAFETY.json: the lookup of a write sent before the change would not find it, so its retry is a second effect; put it back, or acknowledge it (acknowledge: {reference: "body /external_reference", reason: ...})`, ""},
		{"reference moved and acknowledged", "reference: {body: /external_reference}", "reference: {body: /external_reference, value: \"t:{escalation_id}\"}\n    acknowledge: {reference: body /external_reference, reason: no write in flight}", "", ""},
		{"dedupe dropped", "    dedupe: ledger\n", "", `ws.yaml:5:3: operation "createThread": dedupe: ledger is dropped (it was claimed in the ledger in out/WRITE_SAFETY.json): concurrent calls with one key would both send, so a retry after the change is a second effect; put it back, or acknowledge it (acknowledge: {dedupe: ledger, reason: ...})`, ""},
		{"dedupe dropped and acknowledged", "    dedupe: ledger\n", "    acknowledge: {dedupe: ledger, reason: one caller only}\n", "", ""},
		{"retention stated where keys were kept for good", "    dedupe: ledger\n", "    dedupe: ledger\n    retention: 30d\n", `ws.yaml:14:5: operation "createThread": retention 720h is shorter than forever in out/WRITE_SAFETY.json: the ledger would forget keys that callers may still repeat, and a repeat after it is a new write, a second effect; put it back, or acknowledge it (acknowledge: {retention: "forever", reason: ...})`, ""},
		{"retention stated and acknowledged", "    dedupe: ledger\n", "    dedupe: ledger\n    retention: 30d\n    acknowledge: {retention: forever, reason: orders repeat within a week}\n", "", ""},
		{"acknowledgement of another value", "    dedupe: ledger\n", "    dedupe: ledger\n    acknowledge: {key_format: \"x:{escalation_id}\", reason: old}\n", "", `ws.yaml:14:31: operation "createThread": acknowledge key_format "x:{escalation_id}" matches no change against out/WRITE_SAFETY.json: remove it`},
	} {
		t.Run(c.name, func(t *testing.T) {
			annot := identityBase
			if c.from != "" {
				if !strings.Contains(annot, c.from) {
					t.Fatalf("%q is not in the base", c.from)
				}
				annot = strings.Replace(annot, c.from, c.to, 1)
			}
			api, err := LoadBytes("threads.yaml", specData, "ws.yaml", []byte(annot), Options{})
			if err != nil {
				t.Fatal(err)
			}
			refused, warned := safety.CheckIdentity(api, rec, old)
			if got := errText(refused); got != c.refused {
				t.Errorf("refused:\n%s\nwant:\n%s", got, c.refused)
			}
			if got := errText(warned); got != c.warned {
				t.Errorf("warned:\n%s\nwant:\n%s", got, c.warned)
			}
		})
	}
}

func errText(l ir.ErrorList) string {
	if len(l) == 0 {
		return ""
	}
	return l.Error()
}

// TestIdentitySurvivesRename renames the operationId of a write in the spec and its entry in
// the annotation file, keeping key.scope: the write keeps its identity (scope, key scope,
// format), which is all its provider key and ledger row are derived from.
func TestIdentitySurvivesRename(t *testing.T) {
	specData := corpustest.Read(t, "testdata/threads.yaml")
	before, err := LoadBytes("threads.yaml", specData, "ws.yaml", []byte(identityBase), Options{})
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(string(specData), "operationId: createThread", "operationId: openConversation", 1)
	annot := strings.Replace(identityBase, "  createThread:", "  openConversation:", 1)
	after, err := LoadBytes("threads.yaml", []byte(renamed), "ws.yaml", []byte(annot), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if refused, warned := safety.CheckIdentity(after, "WRITE_SAFETY.json", safety.Identity(before).Marshal()); len(refused)+len(warned) > 0 {
		t.Fatalf("a rename is refused: %v %v", refused, warned)
	}
	find := func(api *ir.API, id string) *ir.Operation {
		for _, op := range api.Operations {
			if op.ID == id {
				return op
			}
		}
		t.Fatalf("no operation %s", id)
		return nil
	}
	a, b := find(before, "createThread"), find(after, "openConversation")
	if a.GoName == b.GoName {
		t.Fatalf("the rename did not rename the method (%s)", a.GoName)
	}
	if before.Scope != after.Scope || a.Safety.Key.Scope != b.Safety.Key.Scope || a.Safety.Key.Format != b.Safety.Key.Format {
		t.Errorf("identity changed: %s/%s %q, then %s/%s %q", before.Scope, a.Safety.Key.Scope, a.Safety.Key.Format,
			after.Scope, b.Safety.Key.Scope, b.Safety.Key.Format)
	}
}

// TestIdentityRecordEscapes checks that the record spells a format character as an escape, and
// that it reads back as it was.
func TestIdentityRecordEscapes(t *testing.T) {
	rec := ir.IdentityRecord{Version: 1, Scope: "s", Writes: []ir.IdentityWrite{{Operation: "a\u202eb\U000e0001c", Retry: "none"}}}
	data := rec.Marshal()
	if !strings.Contains(string(data), `"a\u202eb\udb40\udc01c"`) {
		t.Errorf("record:\n%s", data)
	}
	var back ir.IdentityRecord
	if err := json.Unmarshal(data, &back); err != nil || back.Writes[0].Operation != rec.Writes[0].Operation {
		t.Errorf("read back %q, %v", back.Writes[0].Operation, err)
	}
}

// TestCheckIdentityUnknownRetry: a record whose retry set names a kind this writegen does not
// know is refused, not read as a smaller set.
func TestCheckIdentityUnknownRetry(t *testing.T) {
	specData := corpustest.Read(t, "testdata/threads.yaml")
	api, err := LoadBytes("threads.yaml", specData, "ws.yaml", []byte(identityBase), Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(safety.Identity(api).Marshal()), `"retry": "not_sent|ambiguous"`, `"retry": "not_sent|status_418"`, 1)
	refused, _ := safety.CheckIdentity(api, "out/WRITE_SAFETY.json", []byte(old))
	want := `out/WRITE_SAFETY.json: operation "createThread": the record's retry set "not_sent|status_418" names "status_418", a kind this writegen does not know: it was written by a newer writegen (use that one), or edited by hand (restore it from version control)`
	if got := errText(refused); got != want {
		t.Errorf("refused:\n%s\nwant:\n%s", got, want)
	}
}

// TestRetentionRecorded: WRITE_SAFETY.json records a write's retention, and a shorter one
// against it is refused unless acknowledged; a longer one, or none (for good), is not.
func TestRetentionRecorded(t *testing.T) {
	specData := corpustest.Read(t, "testdata/threads.yaml")
	with := func(retention string) string {
		return strings.Replace(identityBase, "    dedupe: ledger\n", "    dedupe: ledger\n"+retention, 1)
	}
	base, err := LoadBytes("threads.yaml", specData, "ws.yaml", []byte(with("    retention: 30d\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := safety.Identity(base).Marshal()
	if !strings.Contains(string(old), `"retention": "720h"`) {
		t.Fatalf("WRITE_SAFETY.json does not record the retention:\n%s", old)
	}
	for _, c := range []struct{ retention, refused string }{
		{"    retention: 60d\n", ""},
		{"", ""},
		{"    retention: 7d\n", `ws.yaml:14:5: operation "createThread": retention 168h is shorter than 720h in WRITE_SAFETY.json: the ledger would forget keys that callers may still repeat, and a repeat after it is a new write, a second effect; put it back, or acknowledge it (acknowledge: {retention: "720h", reason: ...})`},
		{"    retention: 7d\n    acknowledge: {retention: 720h, reason: repeats come within a day}\n", ""},
	} {
		api, err := LoadBytes("threads.yaml", specData, "ws.yaml", []byte(with(c.retention)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		refused, warned := safety.CheckIdentity(api, "WRITE_SAFETY.json", old)
		if got := errText(refused); got != c.refused || len(warned) > 0 {
			t.Errorf("retention %q: refused:\n%s\nwant:\n%s\nwarned: %v", c.retention, got, c.refused, warned)
		}
	}
}
