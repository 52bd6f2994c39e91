package scaffold

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegen/writegen/internal/corpustest"
	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/ir"
)

// TestScaffoldCorpus runs writegen init on every corpus spec: the output is the same on every
// run, lists every write, and is refused untouched, for its TODOs only.
func TestScaffoldCorpus(t *testing.T) {
	for _, path := range corpustest.Specs(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := Scaffold(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			again, err := Scaffold(path, Options{})
			if err != nil || !bytes.Equal(out, again) {
				t.Fatalf("a second run differs (err %v)", err)
			}
			api, err := spec.LoadBytes(name, corpustest.Read(t, path), "ws.yaml", []byte(corpustest.LenientFor(name)), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			writes := 0
			if name == "square.json" { // the scaffold also lists the writes left out above
				for id, write := range corpustest.SquareReaching {
					if write && !searchOp.MatchString(id) { // a search is answered as a read
						writes++
					}
				}
			}
			for _, op := range api.Operations {
				if op.Write && !isSearch(op) { // a search is answered as a read
					writes++
					if !bytes.Contains(out, []byte("\n  "+yamlKey(op.ID)+": # ")) {
						t.Errorf("scaffold does not list %s", op.ID)
					}
				}
			}
			_, err = spec.LoadBytes(name, corpustest.Read(t, path), "ws.yaml", out, spec.Options{})
			var list ir.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("untouched scaffold: got %v, want refused", err)
			}
			todo := map[string]bool{}
			for _, e := range list {
				if _, reaches := corpustest.SquareReaching[e.Operation]; name == "square.json" && e.Pos.File == name && reaches {
					continue // its defect, which these operations reach
				}
				if !strings.Contains(e.Msg, "placeholder left by writegen init") && !strings.Contains(e.Msg, "a question writegen init left") {
					t.Errorf("untouched scaffold refused for another reason: %v", e)
				}
				todo[e.Operation] = true
			}
			if len(todo) != writes {
				t.Errorf("%d operations with TODOs, want all %d writes", len(todo), writes)
			}
		})
	}
}

// TestScaffoldThreads checks what the scaffold fills in from the spec: a declared idempotency
// header, receipt or acknowledgement from the status, the id field, lookup candidates.
func TestScaffoldThreads(t *testing.T) {
	out, err := Scaffold("../testdata/threads.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# yaml-language-server: $schema=" + spec.SchemaURL + "\n",
		"\npackage: threads\n",
		"\nscope: threads\n",
		"\n    destructive: TODO #",
		"\n    key: {scope: createthread, fields: {TODO: string}, format: \"{TODO}\"}",
		"\n  createThread: # POST /threads\n    effect: TODO #",
		"\n    idempotency: {header: Idempotency-Key, window: TODO} # declared by the spec; window: how long",
		"\n    response: {is: receipt, id: /id} # 201 Created with an id\n",
		// getThread needs a thread_id that createThread does not know: only deleteThread lists it.
		"\n    response: {is: receipt, id: /id} # 201 Created with an id\n    # lookup candidates: listThreads (GET /threads)\n",
		"\n    # lookup candidates: getThread (GET /threads/{thread_id}), listThreads (GET /threads)\n",
		"\n  deleteThread: # DELETE /threads/{thread_id}\n",
		"\n    response: {is: acknowledgement} # 204 without a body\n",
		"\n  \"POST /threads/{thread_id}/messages\": # POST /threads/{thread_id}/messages\n",
		"\n    response: {is: acknowledgement} # 202 Accepted\n",
		"\n  searchThreads: # POST /search\n    effect: read_only # a search sent as POST",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("scaffold lacks %q", want)
		}
	}
	// Writes come in path order: /search before /threads.
	if bytes.Index(out, []byte("searchThreads:")) > bytes.Index(out, []byte("createThread:")) {
		t.Error("writes are not in path order")
	}
}

// TestScaffoldInclude checks that init -include lists only the writes it selects, by
// operationId and by tag, and writes the include block.
func TestScaffoldInclude(t *testing.T) {
	out, err := Scaffold("../testdata/threads.yaml", Options{Include: []string{"createThread", "messages"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\ninclude:\n  operations: [createThread]\n  tags: [messages]\n",
		"\n  createThread: # POST /threads\n",
		"\n  \"POST /threads/{thread_id}/messages\": # POST /threads/{thread_id}/messages\n",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("scaffold lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"deleteThread:", "searchThreads:"} {
		if bytes.Contains(out, []byte(not)) {
			t.Errorf("scaffold lists %s, which -include leaves out", not)
		}
	}
	if _, err := Scaffold("../testdata/threads.yaml", Options{Include: []string{"nope"}}); err == nil ||
		err.Error() != `-include: "nope" is neither an operation (operationId or "METHOD /path") nor a tag of the spec` {
		t.Errorf("unknown name: got %v", err)
	}
}

// TestScaffoldCarries checks what init carries from the spec: an idempotency header's
// maxLength, a search sent as POST answered as a read and offered as a lookup, and a list that
// filters on the write's reference field offered first.
func TestScaffoldCarries(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "desk.yaml")
	if err := os.WriteFile(spec, []byte(`openapi: 3.0.3
info: {title: Support Desk, version: "1"}
paths:
  /threads:
    post:
      operationId: createThread
      parameters:
        - {name: Idempotency-Key, in: header, schema: {type: string, maxLength: 64}}
      requestBody: {content: {application/json: {schema: {type: object, properties: {external_id: {type: string}}}}}}
      responses: {"201": {description: ok}}
    get:
      operationId: listThreads
      parameters:
        - {name: external_id, in: query, schema: {type: string}}
      responses: {"200": {description: ok}}
  /threads/search:
    post:
      operationId: searchThreads
      requestBody: {content: {application/json: {schema: {type: object, properties: {query: {type: string}}}}}}
      responses: {"200": {description: ok}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Scaffold(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nscope: support-desk\n",
		"\n    idempotency: {header: Idempotency-Key, max_length: 64, window: TODO} # declared by the spec",
		// The list that filters on the write's reference field comes first, with its filter.
		"\n    # lookup candidates: listThreads (GET /threads?external_id=, the body field /external_id), searchThreads (POST /threads/search, a search)\n",
		"\n  searchThreads: # POST /threads/search\n    effect: read_only # a search sent as POST",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("scaffold lacks %q:\n%s", want, out)
		}
	}
}

// TestScaffoldNoInfo checks that a document without info, which OpenAPI requires but writegen
// only reads for the docs, scaffolds.
func TestScaffoldNoInfo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bare.yaml")
	if err := os.WriteFile(path, []byte("openapi: 3.0.0\npaths: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Scaffold(path, Options{}); err != nil {
		t.Fatal(err)
	}
}
