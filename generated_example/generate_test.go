package example

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
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
			files, err := templates.Generate(api, templates.Options{Version: "(devel)", MCP: c.mcp,
				ImportPath: "github.com/writegen/writegen/generated_example/" + c.out})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range files {
				names = append(names, f.Name)
				got, err := os.ReadFile(filepath.Join(c.out, filepath.FromSlash(f.Name)))
				switch {
				case err != nil:
					t.Errorf("%s: %v (run go generate ./generated_example)", f.Name, err)
				case !bytes.Equal(got, f.Data):
					t.Errorf("%s/%s is stale: run go generate ./generated_example", c.out, f.Name)
				}
			}
			// The client's directory, and the tools package's inside it, hold nothing else.
			for _, dir := range []string{"", api.ToolsPackage} {
				entries, err := os.ReadDir(filepath.Join(c.out, dir))
				if errors.Is(err, fs.ErrNotExist) && !c.mcp {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					name := path.Join(dir, e.Name())
					if !slices.Contains(names, name) && !(e.IsDir() && name == api.ToolsPackage && c.mcp) {
						t.Errorf("%s/%s is not generated: generation would not write it", c.out, name)
					}
				}
			}
		})
	}
}
