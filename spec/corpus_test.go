package spec

import (
	"errors"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/writegen/writegen/internal/corpustest"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// TestCorpus loads every real spec of the corpus into types and operations, and checks that
// every name is a valid, unique Go identifier and that every alias would declare what the type
// it stands for declares. Square is refused with the place of its defect while an operation in
// scope reaches it, and loads without them, with its defects as warnings.
func TestCorpus(t *testing.T) {
	for _, path := range corpustest.Specs(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := corpustest.Read(t, path)
			if name == "square.json" {
				_, err := LoadBytes(name, data, "ws.yaml", []byte(corpustest.Lenient), Options{})
				var list ir.ErrorList
				if !errors.As(err, &list) || list[0].Error() != corpustest.SquareDefect {
					t.Fatalf("got %v\nwant first %s", err, corpustest.SquareDefect)
				}
			}
			api, err := LoadBytes(name, data, "ws.yaml", []byte(corpustest.LenientFor(name)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(api.Operations) == 0 || len(api.Types) == 0 {
				t.Fatalf("%d operations, %d types", len(api.Operations), len(api.Types))
			}
			checkNames(t, api)
			aliases := checkSame(t, api)
			for _, w := range api.Warnings {
				t.Logf("warning: %v", w)
			}
			t.Logf("%d operations, %d types (%d aliases of another), %d warnings, base URL %q",
				len(api.Operations), len(api.Types), aliases, len(api.Warnings), api.DefaultBaseURL)
		})
	}
}

// checkNames fails the test for any name of the IR that is not an exported Go identifier or is
// not unique where it must be.
func checkNames(t *testing.T, api *ir.API) {
	t.Helper()
	ident := func(what, name string) {
		if !token.IsIdentifier(name) || !token.IsExported(name) {
			t.Errorf("%s %q is not an exported Go identifier", what, name)
		}
	}
	unique := func(what string, seen map[string]bool, name string) {
		ident(what, name)
		if seen[name] {
			t.Errorf("%s %q is not unique", what, name)
		}
		seen[name] = true
	}
	pkg := map[string]bool{"Client": true, "NewClient": true}
	methods := map[string]bool{"Runtime": true, "Resume": true}
	tools := map[string]bool{}
	toolsPkg := map[string]bool{api.ToolsClient: true}
	for _, name := range build.ToolsReserved {
		if toolsPkg[name] {
			t.Errorf("the tools package imports the client as %q, a name it uses otherwise", name)
		}
		toolsPkg[name] = true
	}
	for _, op := range api.Operations {
		for _, name := range []string{op.ToolVar, op.ToolFunc} {
			if !token.IsIdentifier(name) || toolsPkg[name] {
				t.Errorf("%s: %q in the tools package is not an identifier of its own", op.ID, name)
			}
			toolsPkg[name] = true
		}
		if !build.ValidToolName(op.ToolName) || len(op.ToolName) > build.MaxToolName || tools[op.ToolName] {
			t.Errorf("%s: tool name %q is not valid and unique", op.ID, op.ToolName)
		}
		tools[op.ToolName] = true
		args := map[string]bool{}
		for _, a := range op.ToolArgs {
			if build.ToolArgName(a.Name) != a.Name || args[a.Name] {
				t.Errorf("%s: tool argument %q is not valid and unique", op.ID, a.Name)
			}
			args[a.Name] = true
		}
		unique("operation", methods, op.GoName)
		unique("key type", pkg, op.GoName+"Key")
		unique("params type", pkg, op.GoName+"Params")
		fields := map[string]bool{}
		for _, p := range op.Params {
			unique("parameter of "+op.GoName, fields, p.GoName)
		}
	}
	for _, ty := range api.Types {
		unique("type", pkg, ty.Name)
		fields, variants := map[string]bool{}, map[string]bool{}
		for _, f := range ty.Fields {
			unique("field of "+ty.Name, fields, f.GoName)
		}
		members := map[string]bool{}
		for _, m := range build.UnionMembers {
			members[m] = true
		}
		for _, v := range ty.Variants {
			unique("variant of "+ty.Name, variants, v.GoName)
			unique("accessor of "+ty.Name, members, v.AsName)
			unique("setter of "+ty.Name, members, v.FromName)
		}
	}
	for _, ty := range api.Types {
		for _, v := range ty.Enum {
			unique("constant", pkg, v.GoName)
		}
	}
}
