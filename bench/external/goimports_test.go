package external

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/imports"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/templates"
)

// TestGeneratedFilesAreGoimports generates every golden package and the templates' sample, with
// their tools packages, and holds each Go file to the bytes goimports -format-only gives for it
// with its import block made one group again, as jennifer writes it: templates formats each file
// once, grouping the imports by its own code, and must write what goimports would.
func TestGeneratedFilesAreGoimports(t *testing.T) {
	root := filepath.Join("..", "..")
	inputs := [][2]string{{
		filepath.Join(root, "templates", "testdata", "sample.yaml"),
		filepath.Join(root, "templates", "testdata", "sample.writesafety.yaml"),
	}}
	cases, err := os.ReadDir(filepath.Join(root, "testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		dir := filepath.Join(root, "testdata", "golden", c.Name())
		if _, err := os.Stat(filepath.Join(dir, "want")); err == nil {
			inputs = append(inputs, [2]string{filepath.Join(dir, "openapi.yaml"), filepath.Join(dir, "writesafety.yaml")})
		}
	}
	files := 0
	for _, in := range inputs {
		api, err := spec.Load(in[0], in[1], spec.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in[0], err)
		}
		out, err := templates.Generate(api, templates.Options{MCP: true, ImportPath: "example.com/" + api.Package})
		if err != nil {
			t.Fatalf("%s: %v", in[0], err)
		}
		for _, f := range out {
			if !strings.HasSuffix(f.Name, ".go") {
				continue
			}
			want, err := imports.Process(f.Name, oneImportGroup(f.Data), &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
			if err != nil {
				t.Fatalf("%s: %s: %v", in[0], f.Name, err)
			}
			if !bytes.Equal(f.Data, want) {
				t.Errorf("%s: %s differs from goimports -format-only:\n%s\nwant:\n%s", in[0], f.Name, f.Data, want)
			}
			files++
		}
	}
	if files < 3*len(inputs) {
		t.Fatalf("%d Go files of %d packages: fewer than a client, its operations and its tools each", files, len(inputs))
	}
	t.Logf("%d files of %d packages", files, len(inputs))
}

// oneImportGroup removes the blank lines of src's import block.
func oneImportGroup(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	start += len("\nimport (\n")
	end := bytes.Index(src[start:], []byte("\n)\n"))
	if end < 0 {
		return src
	}
	end += start
	block := bytes.ReplaceAll(src[start:end], []byte("\n\n"), []byte("\n"))
	return append(append(append([]byte(nil), src[:start]...), block...), src[end:]...)
}
