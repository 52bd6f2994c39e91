package templates

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/ir"
)

// generatedTool is what a tool variable of a generated tools.go declares.
type generatedTool struct {
	name, description                            string
	readOnly, destructive, idempotent, openWorld bool
	input, output                                string // the schemas, "" when absent
}

// parseTools reads the tool variables of a generated tools.go, by variable name.
func parseTools(t *testing.T, src []byte) map[string]generatedTool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), ToolsFile, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]generatedTool{}
	str := func(e ast.Expr) string {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			t.Fatalf("not a string literal: %#v", e)
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	boolean := func(e ast.Expr) bool {
		if call, ok := e.(*ast.CallExpr); ok { // new(true)
			e = call.Args[0]
		}
		return e.(*ast.Ident).Name == "true"
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			lit := vs.Values[0].(*ast.UnaryExpr).X.(*ast.CompositeLit)
			var tool generatedTool
			for _, el := range lit.Elts {
				kv := el.(*ast.KeyValueExpr)
				switch kv.Key.(*ast.Ident).Name {
				case "Name":
					tool.name = str(kv.Value)
				case "Description":
					tool.description = str(kv.Value)
				case "InputSchema":
					tool.input = str(kv.Value.(*ast.CallExpr).Args[0])
				case "OutputSchema":
					tool.output = str(kv.Value.(*ast.CallExpr).Args[0])
				case "Annotations":
					for _, a := range kv.Value.(*ast.UnaryExpr).X.(*ast.CompositeLit).Elts {
						akv := a.(*ast.KeyValueExpr)
						v := boolean(akv.Value)
						switch akv.Key.(*ast.Ident).Name {
						case "ReadOnlyHint":
							tool.readOnly = v
						case "DestructiveHint":
							tool.destructive = v
						case "IdempotentHint":
							tool.idempotent = v
						case "OpenWorldHint":
							tool.openWorld = v
						}
					}
				}
			}
			tools[vs.Names[0].Name] = tool
		}
	}
	return tools
}

// mcpInputs are the inputs generated with -mcp: the golden cases mcp-* that are not refused,
// and the example's support desk.
func mcpInputs(t *testing.T) []struct{ spec, annotations string } {
	t.Helper()
	root := filepath.Join("..", "testdata", "golden")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var inputs []struct{ spec, annotations string }
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "mcp-") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "want")); err != nil {
			continue // refused
		}
		inputs = append(inputs, struct{ spec, annotations string }{filepath.Join(dir, "openapi.yaml"), filepath.Join(dir, "writesafety.yaml")})
	}
	if len(inputs) < 2 {
		t.Fatalf("found %d mcp golden cases", len(inputs))
	}
	ex := filepath.Join("..", "generated_example")
	return append(inputs, struct{ spec, annotations string }{filepath.Join(ex, "support.yaml"), filepath.Join(ex, "writesafety.yaml")})
}

// TestToolHintsNeverClaimMore checks every tool generated from the golden cases and the example
// against the annotations it comes from (promise 36): readOnlyHint exactly for reads and
// read_only writes; idempotentHint only for reads, idempotent effects, a business key claimed in
// the ledger, or a provider key kept forever (never a key kept for a window only);
// destructiveHint exactly for writes whose answer (or method) says they overwrite or delete;
// openWorldHint for every tool; and each description claims what the hints claim. It also
// resolves every schema with the SDK's JSON Schema package, and checks that the business key
// fields are required and excluded operations are not tools.
func TestToolHintsNeverClaimMore(t *testing.T) {
	for _, in := range mcpInputs(t) {
		t.Run(filepath.Base(filepath.Dir(in.spec)), func(t *testing.T) {
			api, err := spec.Load(in.spec, in.annotations, spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			files, err := Generate(api, Options{MCP: true, ImportPath: "example.com/connector/" + api.Package})
			if err != nil {
				t.Fatal(err)
			}
			var src []byte
			for _, f := range files {
				if f.Name == ToolsPath(api) {
					src = f.Data
				}
			}
			if src == nil {
				t.Fatalf("no %s", ToolsPath(api))
			}
			checkClientImports(t, files, ToolsPath(api))
			tools := parseTools(t, src)
			if len(tools) != len(api.Operations) {
				t.Errorf("%d tools for %d operations", len(tools), len(api.Operations))
			}
			for _, ex := range api.Excluded {
				for _, tool := range tools {
					if tool.name == ex.ID {
						t.Errorf("excluded operation %s is a tool", ex.ID)
					}
				}
			}
			for _, op := range api.Operations {
				tool, ok := tools[op.ToolVar]
				if !ok {
					t.Errorf("%s: no tool", op.ID)
					continue
				}
				checkHints(t, op, tool)
				checkDescription(t, op, tool)
				checkSchemas(t, op, tool)
			}
		})
	}
}

// checkDescription fails when tool's description claims what its hints do not, or the reverse:
// that it only reads, that it overwrites or deletes, that calling it again (with the same key)
// makes no second effect.
func checkDescription(t *testing.T, op *ir.Operation, tool generatedTool) {
	t.Helper()
	d := tool.description
	if got := strings.Contains(d, "It only reads: calling it changes nothing."); got != tool.readOnly {
		t.Errorf("%s: the description says it only reads: %v; readOnlyHint %v:\n%s", op.ID, got, tool.readOnly, d)
	}
	if tool.readOnly {
		return
	}
	if got := strings.Contains(d, "It overwrites or deletes."); got != tool.destructive {
		t.Errorf("%s: the description says it overwrites or deletes: %v; destructiveHint %v:\n%s", op.ID, got, tool.destructive, d)
	}
	once := strings.Contains(d, "Repeating it is harmless") || strings.Contains(d, "makes no second effect")
	if once != tool.idempotent {
		t.Errorf("%s: the description says repeating it makes no second effect: %v; idempotentHint %v:\n%s", op.ID, once, tool.idempotent, d)
	}
	if strings.Contains(d, "Its business key is ") {
		if one := strings.Contains(d, "calls with the same key are one write."); one != tool.idempotent {
			t.Errorf("%s: the description says calls with the same key are one write: %v; idempotentHint %v:\n%s", op.ID, one, tool.idempotent, d)
		}
	}
}

// checkClientImports fails when a Go file of the client package (any file but the tools
// package's, tools) imports the MCP SDK or writegen's support of the tools.
func checkClientImports(t *testing.T, files []File, tools string) {
	t.Helper()
	for _, f := range files {
		if f.Name == tools || !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		if strings.Contains(f.Name, "/") {
			t.Errorf("%s: a Go file outside the client package and the tools package", f.Name)
		}
		file, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/modelcontextprotocol/") || p == mcptoolsPath {
				t.Errorf("%s of the client package imports %s", f.Name, p)
			}
		}
	}
}

// checkHints fails when a hint of tool claims more than op's annotations say.
func checkHints(t *testing.T, op *ir.Operation, tool generatedTool) {
	t.Helper()
	s := op.Safety
	read := s == nil || s.Effect == runtime.EffectReadOnly
	if tool.readOnly != read {
		t.Errorf("%s: readOnlyHint %v, but it is a read: %v", op.ID, tool.readOnly, read)
	}
	if tool.idempotent {
		allowed := read || s.Effect == runtime.EffectIdempotent ||
			s.Key != nil && (s.Dedupe || s.Idempotency != nil && s.Idempotency.Forever())
		if !allowed {
			t.Errorf("%s: idempotentHint, but repeating it can make a second effect (effect %s, dedupe %v, idempotency %+v)", op.ID, s.Effect, s.Dedupe, s.Idempotency)
		}
	} else if read || s.Effect == runtime.EffectIdempotent {
		t.Errorf("%s: no idempotentHint for a read or an idempotent effect", op.ID)
	}
	wantDestructive := !read && s.Destructive
	if tool.destructive != wantDestructive {
		t.Errorf("%s: destructiveHint %v, the annotations say %v", op.ID, tool.destructive, wantDestructive)
	}
	if !read && op.Method == "POST" && !s.DestructiveSet {
		t.Errorf("%s: a POST tool without a destructive answer", op.ID)
	}
	if !tool.openWorld {
		t.Errorf("%s: no openWorldHint, but it calls the provider", op.ID)
	}
}

// checkSchemas resolves the schemas of tool and checks that its business key fields are
// required arguments.
func checkSchemas(t *testing.T, op *ir.Operation, tool generatedTool) {
	t.Helper()
	for _, text := range []string{tool.input, tool.output} {
		if text == "" {
			continue
		}
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			t.Errorf("%s: %v", op.ID, err)
			continue
		}
		if s.Type != "object" {
			t.Errorf("%s: a schema of type %q, want object", op.ID, s.Type)
		}
		if _, err := s.Resolve(nil); err != nil {
			t.Errorf("%s: %v", op.ID, err)
		}
	}
	if tool.output == "" {
		t.Errorf("%s: no output schema", op.ID)
	}
	var in struct{ Required []string }
	json.Unmarshal([]byte(tool.input), &in)
	if op.Call == ir.CallWrite || op.Call == ir.CallSubmit {
		for _, a := range op.ToolArgs {
			if a.Key != nil && !containsString(in.Required, a.Name) {
				t.Errorf("%s: business key field %s is not a required argument", op.ID, a.Name)
			}
		}
	}
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// The names every client accepts: of a tool, and of an argument.
var (
	toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	argNameRE  = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
)

// TestCorpusTools generates the tools of every spec of the shared corpus, every write answered
// through defaults, and checks their hints and descriptions, that every schema resolves and that
// every tool and argument name is one clients accept and is unique.
func TestCorpusTools(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the corpus")
	}
	dir := filepath.Join("..", "..", "shared", "corpus", "specs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("the shared corpus is absent (%v)", err)
	}
	annotations := []byte(strings.Replace(corpusAnnotations, "defaults:\n", "defaults:\n  destructive: false\n", 1))
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			api, err := spec.LoadBytes(e.Name(), data, "writesafety.yaml", annotations, spec.Options{})
			if err != nil {
				t.Skipf("not generated without answers of its own: %v", err)
			}
			files, err := Generate(api, Options{MCP: true, ImportPath: "example.com/connector/" + api.Package})
			if err != nil {
				t.Fatal(err)
			}
			var tools map[string]generatedTool
			for _, f := range files {
				if f.Name == ToolsPath(api) {
					tools = parseTools(t, f.Data)
				}
			}
			checkClientImports(t, files, ToolsPath(api))
			names := map[string]bool{}
			for _, op := range api.Operations {
				tool := tools[op.ToolVar]
				if !toolNameRE.MatchString(tool.name) || tool.name != op.ToolName || names[tool.name] {
					t.Errorf("%s: tool name %q", op.ID, tool.name)
				}
				names[tool.name] = true
				checkHints(t, op, tool)
				checkDescription(t, op, tool)
				checkSchemas(t, op, tool)
				var in struct{ Properties map[string]json.RawMessage }
				json.Unmarshal([]byte(tool.input), &in)
				for name := range in.Properties {
					if !argNameRE.MatchString(name) {
						t.Errorf("%s: argument %q", op.ID, name)
					}
				}
			}
			t.Logf("%d tools", len(tools))
		})
	}
}

// TestDescriptionNeverTakesBackItsKey checks the description of a keyed write tool for every
// way its repeats are (or are not) made one write: it says that calls with the same key are one
// write exactly when its idempotentHint does, which the IR gives when the ledger claims the key
// or the provider remembers it forever, never beside "calling it again makes a second effect"
// (dedupe: none without a provider key), and it says what a key kept for a window, or for a time
// nobody declared, leaves open.
func TestDescriptionNeverTakesBackItsKey(t *testing.T) {
	for _, c := range []struct {
		name       string
		dedupe     bool
		idem       *ir.Idempotency
		idempotent bool // op.Hints.Idempotent, as the IR gives it for these answers
		want       []string
	}{
		{"dedupe none, no provider key", false, nil, false,
			[]string{"it names the write in what is recorded and reported, and does not make two calls one write.", "Calling it again makes a second effect."}},
		{"ledger", true, nil, true,
			[]string{"calls with the same key are one write.", "makes no second effect: the ledger returns"}},
		{"key kept forever", false, &ir.Idempotency{Header: "Idempotency-Key", Window: ir.WindowForever}, true,
			[]string{"calls with the same key are one write.", "makes no second effect: the provider recognises the key."}},
		{"key kept for a window", false, &ir.Idempotency{Header: "Idempotency-Key", Window: time.Hour}, false,
			[]string{"one write while the provider remembers it.", "for 1h only: calling it again after that makes a second effect."}},
		{"key window unknown", false, &ir.Idempotency{Header: "Idempotency-Key"}, false,
			[]string{"one write while the provider remembers it.", "for a time it does not document: calling it again may make a second effect."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			op := &ir.Operation{ID: "addNote", Call: ir.CallWrite, Safety: &ir.Safety{
				Effect: runtime.EffectAmbiguous, Dedupe: c.dedupe, Idempotency: c.idem, Owner: "desk-ops"},
				Hints:    ir.Hints{Idempotent: c.idempotent},
				ToolName: "addNote", ToolArgs: []ir.ToolArg{{Name: "note_ref", Key: &ir.KeyField{}}}}
			m := &mcpGen{}
			d := m.description(op)
			for _, w := range c.want {
				if !strings.Contains(d, w) {
					t.Errorf("%q does not say %q", d, w)
				}
			}
			if strings.Contains(d, "are one write.") && strings.Contains(d, "makes a second effect") {
				t.Errorf("%q says both that calls with one key are one write and that a repeat is a second effect", d)
			}
		})
	}
}
