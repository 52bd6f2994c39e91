package runtime

import "testing"

func TestRetryNames(t *testing.T) {
	if got := (RetryNotSent | RetryAmbiguous | Retry429).String(); got != "not_sent|ambiguous|status_429" {
		t.Errorf("String() = %q", got)
	}
	for _, n := range retryNames {
		if k, ok := ParseRetry(n.name); !ok || k != n.kind || k.String() != n.name {
			t.Errorf("ParseRetry(%q) = %v, %v", n.name, k, ok)
		}
	}
	if _, ok := ParseRetry("status_418"); ok {
		t.Error("ParseRetry accepted status_418")
	}
	if Retry(0).Has(0) || Retry(0).String() != "none" {
		t.Error("empty set")
	}
}
