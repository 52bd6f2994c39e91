package spec

import (
	"bytes"
	"errors"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// corpusDir returns the shared folder of real provider specs (beside the repository), or skips
// the test when it is absent.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := findCorpus()
	if err != nil {
		t.Skipf("corpus of real specs not found at ../shared/corpus/specs from the module root (%v): skipping", err)
	}
	return dir
}

// findCorpus locates ../shared/corpus/specs from the module root.
func findCorpus() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
	corpus := filepath.Join(dir, "..", "shared", "corpus", "specs")
	_, err = os.Stat(corpus)
	return corpus, err
}

// corpusSpecs lists the corpus files.
func corpusSpecs(t testing.TB) []string {
	dir := corpusDir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// squareDefect is how the corpus's Square spec is refused with every operation in scope: it
// references a schema it does not define (the first of several places), which the catalog's
// operations reach.
const squareDefect = `square.json:9946:21: operation "BatchRetrieveCatalogObjects": unresolved reference "#/components/schemas/CatalogModifierToggleOverrideType": nothing in the file is at that path; correct the spec, or leave the operation out of scope`

// squareReaching are the operations of the Square spec that reach its undefined schema, and
// whether each is a write. Left out of scope, the rest of the spec loads.
var squareReaching = map[string]bool{
	"BatchRetrieveCatalogObjects": true, "BatchUpsertCatalogObjects": true, "CreateCatalogImage": true,
	"CreatePaymentLink": true, "ListCatalog": false, "RetrieveCatalogObject": false, "SearchCatalogItems": true,
	"SearchCatalogObjects": true, "UpdateCatalogImage": true, "UpsertCatalogObject": true,
}

// lenient answers every write the same way, so a whole spec loads.
const lenient = `version: 1
package: corpus
defaults:
  effect: idempotent
  response: {is: acknowledgement}
  retry: {on: [not_sent, ambiguous], attempts: 3}
scope: corpus
`

// lenientFor is lenient for the corpus spec name: for Square, with the operations that reach
// its defect excluded.
func lenientFor(name string) string {
	if name != "square.json" {
		return lenient
	}
	out := lenient + "exclude:\n"
	for _, id := range slices.Sorted(maps.Keys(squareReaching)) {
		out += "  " + id + ": reaches an undefined schema\n"
	}
	return out
}

// TestCorpus loads every real spec of the corpus into types and operations, and checks that
// every name is a valid, unique Go identifier and that every alias would declare what the type
// it stands for declares. Square is refused with the place of its defect while an operation in
// scope reaches it, and loads without them, with its defects as warnings.
func TestCorpus(t *testing.T) {
	for _, path := range corpusSpecs(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := mustRead(t, path)
			if name == "square.json" {
				_, err := LoadBytes(name, data, "ws.yaml", []byte(lenient), Options{})
				var list ir.ErrorList
				if !errors.As(err, &list) || list[0].Error() != squareDefect {
					t.Fatalf("got %v\nwant first %s", err, squareDefect)
				}
			}
			api, err := LoadBytes(name, data, "ws.yaml", []byte(lenientFor(name)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(api.Operations) == 0 || len(api.Types) == 0 {
				t.Fatalf("%d operations, %d types", len(api.Operations), len(api.Types))
			}
			checkNames(t, api)
			aliases := checkSame(t, api)
			for _, w := range api.Warnings {
				t.Logf("warning: %v", w)
			}
			t.Logf("%d operations, %d types (%d aliases of another), %d warnings, base URL %q",
				len(api.Operations), len(api.Types), aliases, len(api.Warnings), api.DefaultBaseURL)
		})
	}
}

// checkNames fails the test for any name of the IR that is not an exported Go identifier or is
// not unique where it must be.
func checkNames(t *testing.T, api *ir.API) {
	t.Helper()
	ident := func(what, name string) {
		if !token.IsIdentifier(name) || !token.IsExported(name) {
			t.Errorf("%s %q is not an exported Go identifier", what, name)
		}
	}
	unique := func(what string, seen map[string]bool, name string) {
		ident(what, name)
		if seen[name] {
			t.Errorf("%s %q is not unique", what, name)
		}
		seen[name] = true
	}
	pkg := map[string]bool{"Client": true, "NewClient": true}
	methods := map[string]bool{"Runtime": true, "Resume": true}
	tools := map[string]bool{}
	toolsPkg := map[string]bool{api.ToolsClient: true}
	for _, name := range build.ToolsReserved {
		if toolsPkg[name] {
			t.Errorf("the tools package imports the client as %q, a name it uses otherwise", name)
		}
		toolsPkg[name] = true
	}
	for _, op := range api.Operations {
		for _, name := range []string{op.ToolVar, op.ToolFunc} {
			if !token.IsIdentifier(name) || toolsPkg[name] {
				t.Errorf("%s: %q in the tools package is not an identifier of its own", op.ID, name)
			}
			toolsPkg[name] = true
		}
		if !build.ValidToolName(op.ToolName) || len(op.ToolName) > build.MaxToolName || tools[op.ToolName] {
			t.Errorf("%s: tool name %q is not valid and unique", op.ID, op.ToolName)
		}
		tools[op.ToolName] = true
		args := map[string]bool{}
		for _, a := range op.ToolArgs {
			if build.ToolArgName(a.Name) != a.Name || args[a.Name] {
				t.Errorf("%s: tool argument %q is not valid and unique", op.ID, a.Name)
			}
			args[a.Name] = true
		}
		unique("operation", methods, op.GoName)
		unique("key type", pkg, op.GoName+"Key")
		unique("params type", pkg, op.GoName+"Params")
		fields := map[string]bool{}
		for _, p := range op.Params {
			unique("parameter of "+op.GoName, fields, p.GoName)
		}
	}
	for _, ty := range api.Types {
		unique("type", pkg, ty.Name)
		fields, variants := map[string]bool{}, map[string]bool{}
		for _, f := range ty.Fields {
			unique("field of "+ty.Name, fields, f.GoName)
		}
		members := map[string]bool{}
		for _, m := range build.UnionMembers {
			members[m] = true
		}
		for _, v := range ty.Variants {
			unique("variant of "+ty.Name, variants, v.GoName)
			unique("accessor of "+ty.Name, members, v.AsName)
			unique("setter of "+ty.Name, members, v.FromName)
		}
	}
	for _, ty := range api.Types {
		for _, v := range ty.Enum {
			unique("constant", pkg, v.GoName)
		}
	}
}

// TestScaffoldCorpus runs writegen init on every corpus spec: the output is the same on every
// run, lists every write, and is refused untouched, for its TODOs only.
func TestScaffoldCorpus(t *testing.T) {
	for _, path := range corpusSpecs(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := Scaffold(path, ScaffoldOptions{})
			if err != nil {
				t.Fatal(err)
			}
			again, err := Scaffold(path, ScaffoldOptions{})
			if err != nil || !bytes.Equal(out, again) {
				t.Fatalf("a second run differs (err %v)", err)
			}
			api, err := LoadBytes(name, mustRead(t, path), "ws.yaml", []byte(lenientFor(name)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			writes := 0
			if name == "square.json" { // the scaffold also lists the writes left out above
				for id, write := range squareReaching {
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
			_, err = LoadBytes(name, mustRead(t, path), "ws.yaml", out, Options{})
			var list ir.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("untouched scaffold: got %v, want refused", err)
			}
			todo := map[string]bool{}
			for _, e := range list {
				if _, reaches := squareReaching[e.Operation]; name == "square.json" && e.Pos.File == name && reaches {
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
	out, err := Scaffold("testdata/threads.yaml", ScaffoldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# yaml-language-server: $schema=" + SchemaURL + "\n",
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
	out, err := Scaffold("testdata/threads.yaml", ScaffoldOptions{Include: []string{"createThread", "messages"}})
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
	if _, err := Scaffold("testdata/threads.yaml", ScaffoldOptions{Include: []string{"nope"}}); err == nil ||
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
	out, err := Scaffold(spec, ScaffoldOptions{})
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
