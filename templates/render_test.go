package templates

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/imports"

	"github.com/writegen/writegen/spec"
)

// TestRenderMatchesImports holds render, which formats a file once with the import block grouped
// by our own code, to the bytes imports.Process with FormatOnly gives (which formats twice), on
// every file of every golden package and of the sample.
func TestRenderMatchesImports(t *testing.T) {
	root := filepath.Join("..", "testdata", "golden")
	cases, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	inputs := [][2]string{{"testdata/sample.yaml", "testdata/sample.writesafety.yaml"}}
	for _, c := range cases {
		dir := filepath.Join(root, c.Name())
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
		g := &generator{api: api}
		for _, s := range g.sources() {
			got, err := render(s.name, s.file)
			if err != nil {
				t.Fatal(err)
			}
			var raw bytes.Buffer
			if err := s.file.Render(&raw); err != nil { // NoFormat is set by render
				t.Fatal(err)
			}
			want, err := imports.Process(s.name, raw.Bytes(), &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: %s: render differs from imports.Process:\n%s\nwant:\n%s", in[0], s.name, got, want)
			}
			files++
		}
	}
	t.Logf("%d files of %d packages", files, len(inputs))
}
