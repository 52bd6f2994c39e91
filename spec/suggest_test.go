package spec

import (
	"testing"

	"github.com/writegen/writegen/spec/annot"
)

func TestSuggest(t *testing.T) {
	candidates := []string{"createThread", "deleteThread", "searchThreads", "effect", "idempotency", "status_409", "status_429"}
	for _, tt := range []struct{ name, want string }{
		{"createThraed", ` (did you mean "createThread"?)`}, // a transposition
		{"CreateThread", ` (did you mean "createThread"?)`}, // case only
		{"create_thread", ` (did you mean "createThread"?)`},
		{"efect", ` (did you mean "effect"?)`},
		{"idempotence", ` (did you mean "idempotency"?)`},
		{"status_492", ` (did you mean "status_429"?)`},
		{"status_400", ` (did you mean "status_409"?)`},
		{"retries", ""}, // not among the candidates
		{"idempotency_key", ` (did you mean "idempotency"?)`}, // inflected
		{"status", ""}, // a prefix of two: the first is not a guess
		{"crea", ""},
		{"uploadAttachment", ""},
	} {
		if got := annot.Suggest(tt.name, candidates); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestSameName checks which of a read's filters init takes for a write's reference field: the
// same name however written, or with a short suffix, never a misspelling or a shorter name.
func TestSameName(t *testing.T) {
	for _, tt := range []struct {
		filter, field string
		want          bool
	}{
		{"external_id", "external_id", true},
		{"externalId", "external_id", true},
		{"external-id", "ExternalID", true},
		{"external_ids", "external_id", true}, // a list filter, given one value
		{"reference_id", "reference", true},   // the reference's id
		{"external_di", "external_id", false}, // a misspelling is another name
		{"ref", "reference", false},           // too short to be clearly the same
		{"external_reference", "reference", false},
		{"customer", "customer_reference", false},
	} {
		if got := annot.SameName(tt.filter, tt.field); got != tt.want {
			t.Errorf("sameName(%q, %q) = %v, want %v", tt.filter, tt.field, got, tt.want)
		}
	}
}
