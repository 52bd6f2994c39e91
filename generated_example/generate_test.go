package example

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/templates"
)

// TestGeneratedUpToDate regenerates the clients in memory and fails when the committed files
// differ, or when a generated directory holds a file generation would not write.
func TestGeneratedUpToDate(t *testing.T) {
	for _, c := range []struct {
		spec, annotations, out string
		mcp                    bool // generated with -mcp
	}{
		{"support.yaml", "writesafety.yaml", "support", true},
		{"chat.yaml", "chat.writesafety.yaml", "chat", false},
	} {
		t.Run(c.out, func(t *testing.T) {
			api, err := spec.Load(c.spec, c.annotations, spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// As go generate runs it in this repository: go run ./cmd/writegen.
			files, err := templates.Generate(api, templates.Options{Version: "(devel)", MCP: c.mcp})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range files {
				names = append(names, f.Name)
				got, err := os.ReadFile(filepath.Join(c.out, f.Name))
				switch {
				case err != nil:
					t.Errorf("%s: %v (run go generate ./generated_example)", f.Name, err)
				case !bytes.Equal(got, f.Data):
					t.Errorf("%s/%s is stale: run go generate ./generated_example", c.out, f.Name)
				}
			}
			entries, err := os.ReadDir(c.out)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if !slices.Contains(names, e.Name()) {
					t.Errorf("%s/%s is not generated: generation would not write it", c.out, e.Name())
				}
			}
		})
	}
}
