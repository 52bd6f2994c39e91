package writegenimpl

import (
	"strings"

	"github.com/writegen/writegen/runtime"
)

// RetryKinds returns every failure kind of a runtime.Retry set, one per element, in bit order:
// each bit whose String is a kind's annotation name (a bit that names no kind prints in hex). It
// is the one list of the kinds: the annotation's names, the generator's constants and the
// annotation schema are made from it, and tests hold them to it.
func RetryKinds() []runtime.Retry {
	var kinds []runtime.Retry
	for k := runtime.Retry(1); k != 0; k <<= 1 {
		if !strings.HasPrefix(k.String(), "0x") {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// ParseRetry returns the kind named by an annotation name ("not_sent", "ambiguous",
// "status_409", "status_5xx", ...).
func ParseRetry(name string) (runtime.Retry, bool) {
	for _, k := range RetryKinds() {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}
