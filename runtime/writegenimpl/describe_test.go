package writegenimpl

import (
	"slices"
	"testing"

	"github.com/writegen/writegen/runtime"
)

// TestDescribe reads each answer of a description from the descriptor the executor runs.
func TestDescribe(t *testing.T) {
	keyed := &Operation{ID: "createThread", Scope: "createthread", Method: "POST", Path: "/threads",
		Effect: runtime.EffectAmbiguous, Retry: runtime.RetryNotSent | runtime.RetryAmbiguous, Attempts: 3,
		KeyHeader: "Idempotency-Key", Keyed: true, Dedupe: true}
	looked := &Operation{ID: "addNote", Scope: "addnote", Method: "POST", Path: "/notes",
		Effect: runtime.EffectAmbiguous, Retry: runtime.RetryAmbiguous, Lookup: runtime.Eventual}
	unkeyed := &Operation{ID: "ping", Method: "POST", Path: "/ping", Effect: runtime.EffectIdempotent,
		Retry: runtime.RetryNotSent}
	got := Describe("desk", keyed, looked, unkeyed)
	want := []runtime.WriteInfo{
		{Scope: "desk", OperationID: "createThread", KeyScope: "createthread", Effect: runtime.EffectAmbiguous,
			Retry: runtime.RetryNotSent | runtime.RetryAmbiguous, ProviderKey: true, Dedupe: true},
		{Scope: "desk", OperationID: "addNote", KeyScope: "addnote", Effect: runtime.EffectAmbiguous,
			Retry: runtime.RetryAmbiguous, Lookup: runtime.Eventual},
		{Scope: "desk", OperationID: "ping", Effect: runtime.EffectIdempotent, Retry: runtime.RetryNotSent},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Describe = %+v\nwant %+v", got, want)
	}
	if got := Describe("desk"); len(got) != 0 {
		t.Errorf("Describe with no operations = %+v, want none", got)
	}
}
