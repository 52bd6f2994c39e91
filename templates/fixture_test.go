package templates

import (
	"testing"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/ir"
)

// sampleAPI loads testdata/sample.yaml and its annotations: a small support-desk API that uses
// most shapes the emitters know: structs with required, optional, nullable, read-only and
// recursive fields, unknown keys, enums, aliases, a discriminated and an undiscriminated union,
// every parameter location, JSON, form and multipart bodies, receipts and acknowledgements,
// hand-written and generated lookups, a compensation, an inbox and a ledger.
func sampleAPI(t testing.TB) *ir.API {
	t.Helper()
	api, err := spec.Load("testdata/sample.yaml", "testdata/sample.writesafety.yaml", spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return api
}
