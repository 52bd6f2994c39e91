package payments_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/templates"
)

// TestGeneratedUpToDate regenerates the client in memory and fails when a
// committed file differs.
func TestGeneratedUpToDate(t *testing.T) {
	api, err := spec.Load("payments.yaml", "payments.writesafety.yaml", spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// As go generate runs it in this repository: go run ./cmd/writegen.
	files, err := templates.Generate(api, templates.Options{Version: "(devel)"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got, err := os.ReadFile(f.Name)
		switch {
		case err != nil:
			t.Errorf("%s: %v (run go generate ./engines/internal/payments)", f.Name, err)
		case !bytes.Equal(got, f.Data):
			t.Errorf("%s is stale: run go generate ./engines/internal/payments", f.Name)
		}
	}
}
