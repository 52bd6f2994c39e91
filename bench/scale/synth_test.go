package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/templates"
)

// TestSynthDeterministic checks that a seed always gives the same spec and annotations, and
// another seed other ones.
func TestSynthDeterministic(t *testing.T) {
	a, b, c := resources(300, 1), resources(300, 1), resources(300, 2)
	if !bytes.Equal(synthSpec(a), synthSpec(b)) || !bytes.Equal(synthAnnotations(a, "api"), synthAnnotations(b, "api")) {
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
		api, err := spec.LoadBytes("synthetic.json", synthSpec(rs), "synthetic.writesafety.yaml", synthAnnotations(rs, "api"), spec.Options{})
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
		for _, call := range []string{".WriteInto(", ".SubmitInto(", ".Read(", ".Do(", ".ResumeAll("} {
			if !strings.Contains(code.String(), call) {
				t.Errorf("%d operations: the generated code has no %s", ops, call)
			}
		}
	}
}

// TestSynthParts generates the API as parts, each from the annotation file of its tags alone
// (the answers of its own operations and include: {tags: ...}), as -split does: together they
// have every operation of the API exactly once, and one package's operations are all of its
// tags.
func TestSynthParts(t *testing.T) {
	rs := resources(3*groupSize*opsPerResource+10, 1)
	data := synthSpec(rs)
	seen := map[string]int{}
	for first := 0; first*groupSize < len(rs); first += 2 {
		part := rs[first*groupSize : min((first+2)*groupSize, len(rs))]
		var tags []string
		for g := first; g < min(first+2, part[len(part)-1].group+1); g++ {
			tags = append(tags, fmt.Sprintf("group%02d", g))
		}
		name := fmt.Sprintf("p%d", first/2)
		api, err := spec.LoadBytes("synthetic.json", data, name+".writesafety.yaml", synthAnnotations(part, name, tags...), spec.Options{})
		if err != nil {
			t.Fatalf("%s (%v): %v", name, tags, err)
		}
		if api.Package != name || api.Scope != synthScope {
			t.Errorf("%s: package %q, scope %q; want %q, %q", name, api.Package, api.Scope, name, synthScope)
		}
		for _, op := range api.Operations {
			if !slices.ContainsFunc(op.Tags, func(tag string) bool { return slices.Contains(tags, tag) }) {
				t.Errorf("%s: operation %s (tags %v) is not of %v", name, op.ID, op.Tags, tags)
			}
			seen[op.ID]++
		}
		if _, err := templates.Generate(api, templates.Options{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	total := 0
	for _, r := range rs {
		total += r.ops
	}
	if len(seen) != total {
		t.Errorf("the parts have %d operations; the API has %d", len(seen), total)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("operation %s is in %d parts", id, n)
		}
	}
}
