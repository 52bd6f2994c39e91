package spec

import "testing"

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
		if got := Suggest(tt.name, candidates); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
