package spec

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"testing"

	"github.com/writegen/writegen/spec/annot"
)

var update = flag.Bool("update", false, "rewrite the files made from the runtime's lists (the annotation schema's retry kinds)")

// TestRetryVocabulary holds the annotation's retry kinds to the runtime's one list of them
// (writegenimpl.RetryKinds): the names the parser takes, and the enum of the JSON Schema's retryKind,
// which go test ./spec -run TestRetryVocabulary -update writes from it.
func TestRetryVocabulary(t *testing.T) {
	var doc struct {
		Defs struct {
			RetryKind struct {
				Enum []string `json:"enum"`
			} `json:"retryKind"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(AnnotationSchema, &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Defs.RetryKind.Enum
	if slices.Equal(got, annot.RetryNames) {
		return
	}
	if !*update {
		t.Fatalf("writesafety.schema.json's retryKind is %q, the runtime's kinds are %q: run go test ./spec -run TestRetryVocabulary -update", got, annot.RetryNames)
	}
	old, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	now, err := json.Marshal(annot.RetryNames)
	if err != nil {
		t.Fatal(err)
	}
	line := func(enum []byte) []byte {
		return append([]byte(`"enum": `), bytes.ReplaceAll(enum, []byte(`","`), []byte(`", "`))...)
	}
	if bytes.Count(AnnotationSchema, line(old)) != 1 {
		t.Fatalf("writesafety.schema.json: the retryKind enum is not written as one line %s", line(old))
	}
	if err := os.WriteFile("writesafety.schema.json", bytes.Replace(AnnotationSchema, line(old), line(now), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}
