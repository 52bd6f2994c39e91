package writegenimpl

import (
	"slices"
	"testing"

	"github.com/writegen/writegen/runtime"
)

// TestRetryKinds reads the runtime's kinds, every one and only those, in bit order, and parses
// each back from its annotation name.
func TestRetryKinds(t *testing.T) {
	want := []runtime.Retry{runtime.RetryNotSent, runtime.RetryAmbiguous, runtime.Retry408, runtime.Retry409,
		runtime.Retry425, runtime.Retry429, runtime.Retry500, runtime.Retry502, runtime.Retry503, runtime.Retry504,
		runtime.Retry5xx}
	if got := RetryKinds(); !slices.Equal(got, want) {
		t.Fatalf("RetryKinds() = %v, want %v", got, want)
	}
	for _, k := range want {
		if got, ok := ParseRetry(k.String()); !ok || got != k {
			t.Errorf("ParseRetry(%q) = %v, %v", k.String(), got, ok)
		}
	}
	for _, name := range []string{"status_418", "none", "0x800", "not_sent|ambiguous", ""} {
		if k, ok := ParseRetry(name); ok {
			t.Errorf("ParseRetry(%q) = %v, want no kind", name, k)
		}
	}
}
