package spec

import (
	"path/filepath"
	"testing"
)

// BenchmarkLoadStripe measures Load on the largest corpus spec (8 MB of JSON, about 600
// operations), annotated through defaults.
func BenchmarkLoadStripe(b *testing.B) {
	data := mustRead(b, filepath.Join(corpusDir(b), "stripe.json"))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := LoadBytes("stripe.json", data, "ws.yaml", []byte(lenient), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
