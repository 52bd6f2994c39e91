package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegen/writegen/spec"
)

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
func loadCorpus(tb testing.TB, name string) *spec.API {
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

// TestGenerateCorpus generates a client for every spec of the corpus that loads, and vets them
// all with the go command: real provider specs must give code that compiles.
func TestGenerateCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and vets the corpus")
	}
	root := tempRoot(t)
	for _, name := range []string{"adyen-checkout.json", "intercom.yaml", "paypal-orders.json", "petstore-2.0.json",
		"petstore-3.0.yaml", "petstore-expanded-2.0.yaml", "stripe.json", "twilio-api-v2010.json"} {
		api := loadCorpus(t, name)
		files, err := Generate(api, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dir := writePackage(t, root, files, nil)
		t.Logf("%s: %d types, %d operations in %s", name, len(api.Types), len(api.Operations), strings.TrimPrefix(dir, "./"))
	}
	goCmd(t, "vet", root+"/...")
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
