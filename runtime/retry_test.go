package runtime

import "testing"

func TestRetryNames(t *testing.T) {
	if got := (RetryNotSent | RetryAmbiguous | Retry429).String(); got != "not_sent|ambiguous|status_429" {
		t.Errorf("String() = %q", got)
	}
	// The kinds are the bits in order, each String of its own name: writegenimpl.RetryKinds
	// reads them so.
	seen := map[string]bool{}
	for i, n := range retryNames {
		if n.kind != 1<<i || n.kind.String() != n.name || seen[n.name] {
			t.Errorf("retryNames[%d] = %v %q: want bit %d, String %q, a name of its own", i, uint32(n.kind), n.name, i, n.name)
		}
		seen[n.name] = true
	}
	if got := (Retry429 | 1<<len(retryNames)).String(); got != "status_429|0x800" {
		t.Errorf("String() of a bit that is no kind = %q", got)
	}
	if Retry(0).Has(0) || Retry(0).String() != "none" {
		t.Error("empty set")
	}
}
