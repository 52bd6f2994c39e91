package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/templates"
)

// TestSynthDeterministic checks that a seed always gives the same spec and annotations, and
// another seed other ones.
func TestSynthDeterministic(t *testing.T) {
	a, b, c := resources(300, 1), resources(300, 1), resources(300, 2)
	if !bytes.Equal(synthSpec(a), synthSpec(b)) || !bytes.Equal(synthAnnotations(a, false), synthAnnotations(b, false)) {
		t.Fatal("the same seed gave different files")
	}
	if bytes.Equal(synthSpec(a), synthSpec(c)) {
		t.Fatal("seeds 1 and 2 gave the same spec")
	}
}

// TestSynthGenerates loads synthetic specs of sizes that end with each partial resource through
// writegen and generates them: every size has exactly its number of operations, and the code
// calls each entry point of the runtime.
func TestSynthGenerates(t *testing.T) {
	for _, ops := range []int{1, 2, 4, 6, 100} {
		rs := resources(ops, 1)
		api, err := spec.LoadBytes("synthetic.json", synthSpec(rs), "synthetic.writesafety.yaml", synthAnnotations(rs, false), spec.Options{})
		if err != nil {
			t.Fatalf("%d operations: %v", ops, err)
		}
		if len(api.Operations) != ops {
			t.Fatalf("%d operations: the IR has %d", ops, len(api.Operations))
		}
		files, err := templates.Generate(api, templates.Options{})
		if err != nil {
			t.Fatalf("%d operations: %v", ops, err)
		}
		if ops < 100 {
			continue
		}
		var code strings.Builder
		for _, f := range files {
			code.Write(f.Data)
		}
		for _, call := range []string{".Write(", ".Submit(", ".Read[", ".Do[", ".Resume["} {
			if !strings.Contains(code.String(), call) {
				t.Errorf("%d operations: the generated code has no %s", ops, call)
			}
		}
	}
}
