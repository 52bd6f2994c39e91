package lookupctx

import "testing"

// TestPromise47_CarriesComparesTheMarker: a text carries the write's marker only when it holds
// the marker whole, whatever a search matched; a text edited in a browser, whose line breaks
// came back as \r\n, still carries it.
func TestPromise47_CarriesComparesTheMarker(t *testing.T) {
	in := &Info{Ref: "wiki:a/b", Marker: "\n\n<!-- ref:wiki:a/b -->"}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Page moved.\n\n<!-- ref:wiki:a/b -->", true},
		{"Page moved.\r\n\r\n<!-- ref:wiki:a/b -->", true},
		{"Page moved, edited.\r\n\r\n<!-- ref:wiki:a/b -->\r\nmore", true},
		{"Page moved.\n\n<!-- ref:wiki:a/b/c -->", false},
		{"Page moved.\r\n\r\n<!-- ref:wiki:a/b/c -->", false},
		{"<!-- ref:wiki:a/b -->", false}, // the marker's paragraph break was edited out
		{"wiki:a/b", false},
	} {
		if got := in.Carries(tc.text); got != tc.want {
			t.Errorf("Carries(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	plain := &Info{Ref: "wiki:a/b"}
	if !plain.Carries("wiki:a/b") || plain.Carries("wiki:a/b/c") || plain.Carries("wiki:a/b ") {
		t.Error("a reference field carries the reference only when it is the reference")
	}
}
