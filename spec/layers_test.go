package spec

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayers holds the generator's packages to the stages they are: the IR is a leaf that
// knows only runtime's enumerations, and the emitters read the IR (and the schemas written
// from it) alone, never a stage that builds it.
func TestLayers(t *testing.T) {
	const module = "github.com/writegen/writegen/"
	allowed := map[string][]string{
		"spec/ir":            {"runtime"},
		"spec/naming":        {},
		"spec/load":          {"spec/ir", "spec/naming"},
		"spec/build":         {"spec/annot", "spec/ir", "spec/load", "spec/naming"},
		"spec/safety":        {"runtime", "runtime/writegenimpl", "spec/annot", "spec/build", "spec/ir", "spec/naming"},
		"spec/annot":         {"runtime", "runtime/writegenimpl", "spec/ir", "spec/load", "spec/naming"},
		"spec/ir/toolschema": {"spec/ir"},
		"spec/scaffold":      {"spec", "spec/annot", "spec/build", "spec/ir", "spec/load"},
		"spec":               {"spec/annot", "spec/build", "spec/ir", "spec/load", "spec/safety"},
		"templates":          {"runtime", "runtime/writegenimpl", "spec/ir", "spec/ir/toolschema"},
	}
	for dir, want := range allowed {
		pkg, err := build.ImportDir(filepath.Join("..", dir), 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, imp := range pkg.Imports {
			ours, ok := strings.CutPrefix(imp, module)
			if ok && !slices.Contains(want, ours) {
				t.Errorf("%s imports %s; it may import only %s of writegen", dir, imp, strings.Join(want, ", "))
			}
		}
	}
}
