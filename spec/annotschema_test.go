package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/writegen/writegen/spec/annot"
	"go.yaml.in/yaml/v4"
)

// compileAnnotationSchema compiles AnnotationSchema.
func compileAnnotationSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(AnnotationSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaURL, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaURL)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// yamlValue reads an annotation file as the JSON value editors validate.
func yamlValue(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	// Through JSON, so that numbers and mappings have the types the validator knows.
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemaAcceptsTheFilesTheParserAccepts validates, against the JSON Schema, every annotation
// file the generator accepts: the golden cases that generate, the corpus's and the example's.
// A case the generator refuses for a defect of the annotation file's format must be refused by
// the schema too.
func TestSchemaAcceptsTheFilesTheParserAccepts(t *testing.T) {
	s := compileAnnotationSchema(t)
	root := filepath.Join("..", "testdata")
	var accepted []string
	cases, err := os.ReadDir(filepath.Join(root, "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		dir := filepath.Join(root, "golden", c.Name())
		if _, err := os.Stat(filepath.Join(dir, "want")); err == nil {
			accepted = append(accepted, filepath.Join(dir, "writesafety.yaml"))
		}
	}
	corpus, _ := filepath.Glob(filepath.Join(root, "corpus", "*.writesafety.yaml"))
	example, _ := filepath.Glob(filepath.Join("..", "generated_example", "*writesafety.yaml"))
	accepted = append(append(accepted, corpus...), example...)
	if len(accepted) < 40 || len(corpus) < 8 || len(example) < 2 {
		t.Fatalf("found %d accepted files (%d corpus, %d example): the test data moved?", len(accepted), len(corpus), len(example))
	}
	for _, f := range accepted {
		v := yamlValue(t, f)
		err := s.Validate(v)
		if ve := (*jsonschema.ValidationError)(nil); errors.As(err, &ve) && onlyPlaceholders(v, ve) {
			// A TODO outside the include filter needs no answer, so the generator takes it; the
			// schema cannot know the filter and flags it, as editors should.
			continue
		}
		if err != nil {
			t.Errorf("%s: the generator accepts it, the schema does not:\n%v", f, err)
		}
	}
	for _, name := range []string{"refuse-unknown-field", "refuse-reversible", "refuse-todo"} {
		f := filepath.Join(root, "golden", name, "writesafety.yaml")
		if err := s.Validate(yamlValue(t, f)); err == nil {
			t.Errorf("%s: the generator refuses it, the schema accepts it", f)
		}
	}
}

// onlyPlaceholders reports whether every failure of e is about a value holding TODO, in a file
// with an include filter.
func onlyPlaceholders(doc any, e *jsonschema.ValidationError) bool {
	top, _ := doc.(map[string]any)
	if _, ok := top["include"]; !ok {
		return false
	}
	var leaves func(e *jsonschema.ValidationError) bool
	leaves = func(e *jsonschema.ValidationError) bool {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				if !leaves(c) {
					return false
				}
			}
			return true
		}
		v := doc
		for _, seg := range e.InstanceLocation {
			m, _ := v.(map[string]any)
			v = m[seg]
		}
		s, ok := v.(string)
		return ok && strings.Contains(s, "TODO")
	}
	return leaves(e)
}

// TestSchemaKnowsEveryField reads annot/annot.go and checks that every field name the parser accepts
// (the names given to its mapping reader, and the lists it passes there) is a property in the
// schema, and every value it picks from a list is in an enum of the schema, so that editors
// never flag what the parser takes.
func TestSchemaKnowsEveryField(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("annot", "annot.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]string{} // package-level []string vars, by name
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					lists[name.Name] = stringsIn(vs.Values[i])
				}
			}
		}
	}
	lists["RetryNames"] = annot.RetryNames // made from the runtime's kinds, not written in annot.go
	// The names given to the mapping reader are fields; those given to oneOf are values.
	var fields, values []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || len(call.Args) < 2 || sel.Sel.Name != "mapping" && sel.Sel.Name != "oneOf" {
			return true
		}
		var names []string
		for _, a := range call.Args[1:] {
			names = append(names, stringsIn(a)...)
			ast.Inspect(a, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					names = append(names, lists[id.Name]...)
				}
				return true
			})
		}
		if sel.Sel.Name == "mapping" {
			fields = append(fields, names...)
		} else {
			values = append(values, names...)
		}
		return true
	})
	if len(fields) < 40 {
		t.Fatalf("found %d field names in annot.go's mapping calls: has the parser changed shape?", len(fields))
	}
	var schema any
	if err := json.Unmarshal(AnnotationSchema, &schema); err != nil {
		t.Fatal(err)
	}
	known, enums := map[string]bool{}, map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				for k := range props {
					known[k] = true
				}
			}
			if e, ok := v["enum"].([]any); ok {
				for _, x := range e {
					if s, ok := x.(string); ok {
						enums[s] = true
					}
				}
			}
			if c, ok := v["const"].(string); ok {
				enums[c] = true
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(schema)
	slices.Sort(fields)
	for _, name := range slices.Compact(fields) {
		if !known[name] {
			t.Errorf("the parser knows the field %q; the schema has no property of that name", name)
		}
	}
	if len(values) < 10 {
		t.Fatalf("found %d values in annot.go's oneOf calls: has the parser changed shape?", len(values))
	}
	slices.Sort(values)
	for _, v := range slices.Compact(values) {
		if !enums[v] {
			t.Errorf("the parser accepts the value %q; no enum or const of the schema has it", v)
		}
	}
}

// stringsIn returns the string literals in e.
func stringsIn(e ast.Expr) []string {
	var out []string
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && !strings.ContainsAny(s, " :") {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}
