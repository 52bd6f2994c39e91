package templates

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/ir"
)

// The benchmarks run on the Stripe spec of the shared corpus, which lives beside the repository
// (the corpus tests of cmd/writegen build and vet the code generated for every corpus spec).

// corpusAnnotations answers every write of a spec at once, through defaults, so that a corpus
// spec can be generated whole.
const corpusAnnotations = `version: 1
package: corpus
defaults:
  effect: ambiguous
  key: {fields: {request_id: string}, format: "{request_id}"}
  idempotency: {header: Idempotency-Key, max_length: 255, window: 24h}
  retry: {on: [not_sent, ambiguous], attempts: 3}
  response: {is: acknowledgement}
  owner: connectors
scope: corpus
`

// corpusSpec returns the path of a spec of the shared corpus, which lives beside the
// repository, skipping the test when it is absent.
func corpusSpec(tb testing.TB, name string) string {
	tb.Helper()
	path := filepath.Join("..", "..", "shared", "corpus", "specs", name)
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("corpus spec %s is absent (%v)", name, err)
	}
	return path
}

// loadCorpus loads a corpus spec with corpusAnnotations.
func loadCorpus(tb testing.TB, name string) *ir.API {
	tb.Helper()
	data, err := os.ReadFile(corpusSpec(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	api, err := spec.LoadBytes(name, data, "writesafety.yaml", []byte(corpusAnnotations), spec.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return api
}

// BenchmarkGenerateStripe measures Generate on the Stripe spec (the loading is not measured).
func BenchmarkGenerateStripe(b *testing.B) {
	api := loadCorpus(b, "stripe.json")
	for b.Loop() {
		if _, err := Generate(api, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadAndGenerateStripe measures what writegen generate does with the Stripe spec,
// but for writing the files: loading, checking and generating.
func BenchmarkLoadAndGenerateStripe(b *testing.B) {
	data, err := os.ReadFile(corpusSpec(b, "stripe.json"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		api, err := spec.LoadBytes("stripe.json", data, "writesafety.yaml", []byte(corpusAnnotations), spec.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Generate(api, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
