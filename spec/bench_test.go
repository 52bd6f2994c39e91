package spec

import (
	"path/filepath"
	"testing"

	"github.com/writegen/writegen/internal/corpustest"
)

// BenchmarkLoadStripe measures Load on the largest corpus spec (8 MB of JSON, about 600
// operations), annotated through defaults.
func BenchmarkLoadStripe(b *testing.B) {
	data := corpustest.Read(b, filepath.Join(corpustest.Dir(b), "stripe.json"))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := LoadBytes("stripe.json", data, "ws.yaml", []byte(corpustest.Lenient), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
