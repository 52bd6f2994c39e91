package main

import (
	"os"
	"testing"
)

// TestReference checks that annotations.md is the reference written from the annotation file's
// JSON Schema; "go test ./cmd/writegen -run Reference -update" rewrites it.
func TestReference(t *testing.T) {
	got, err := reference()
	if err != nil {
		t.Fatal(err)
	}
	const file = "annotations.md"
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s is not what the schema gives: run go test ./cmd/writegen -run Reference -update", file)
	}
}
