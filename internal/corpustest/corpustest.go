// Package corpustest finds the corpus of real provider specs the tests read (../shared/corpus/specs
// beside the module's root, which CI places there) and holds what the tests know of it: the
// annotations that load a whole spec, and where the Square spec is broken; Read reads a file a
// test needs.
package corpustest

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Dir returns the shared folder of real provider specs (beside the repository), or skips
// the test when it is absent.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := Find()
	if err != nil {
		t.Skipf("corpus of real specs not found at ../shared/corpus/specs from the module root (%v): skipping", err)
	}
	return dir
}

// Find locates ../shared/corpus/specs from the module root.
func Find() (string, error) {
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

// Specs lists the corpus files.
func Specs(t testing.TB) []string {
	dir := Dir(t)
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

// SquareDefect is how the corpus's Square spec is refused with every operation in scope: it
// references a schema it does not define (the first of several places), which the catalog's
// operations reach.
const SquareDefect = `square.json:9946:21: operation "BatchRetrieveCatalogObjects": unresolved reference "#/components/schemas/CatalogModifierToggleOverrideType": nothing in the file is at that path; correct the spec, or leave the operation out of scope`

// SquareReaching are the operations of the Square spec that reach its undefined schema, and
// whether each is a write. Left out of scope, the rest of the spec loads.
var SquareReaching = map[string]bool{
	"BatchRetrieveCatalogObjects": true, "BatchUpsertCatalogObjects": true, "CreateCatalogImage": true,
	"CreatePaymentLink": true, "ListCatalog": false, "RetrieveCatalogObject": false, "SearchCatalogItems": true,
	"SearchCatalogObjects": true, "UpdateCatalogImage": true, "UpsertCatalogObject": true,
}

// Lenient answers every write the same way, so a whole spec loads.
const Lenient = `version: 1
package: corpus
defaults:
  effect: idempotent
  response: {is: acknowledgement}
  retry: {on: [not_sent, ambiguous], attempts: 3}
scope: corpus
`

// LenientFor is Lenient for the corpus spec name: for Square, with the operations that reach
// its defect excluded.
func LenientFor(name string) string {
	if name != "square.json" {
		return Lenient
	}
	out := Lenient + "exclude:\n"
	for _, id := range slices.Sorted(maps.Keys(SquareReaching)) {
		out += "  " + id + ": reaches an undefined schema\n"
	}
	return out
}

// Read returns the file at path (a corpus spec, or any other file a test reads), or fails the
// test.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
