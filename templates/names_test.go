package templates

import (
	"strings"
	"testing"

	"github.com/writegen/writegen/spec/ir"
)

// TestEmittersReadTheIRNames renames, in the IR, what the generated code declares for the
// variants of unions, and checks that the generated code declares and calls those names: the
// emitters make up no identifier of their own (spec settles them, apart from the others).
func TestEmittersReadTheIRNames(t *testing.T) {
	api := sampleAPI(t)
	var unions []*ir.Type
	for _, ty := range api.Types {
		if ty.Kind == ir.KindUnion && ty.Same == nil {
			unions = append(unions, ty)
			for _, v := range ty.Variants {
				v.AsName, v.FromName = "Decode"+v.GoName, "Set"+v.GoName
			}
		}
	}
	if len(unions) == 0 {
		t.Fatal("the sample has no union")
	}
	files, err := Generate(api, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".go") {
			src.Write(f.Data)
		}
	}
	all := src.String()
	for _, ty := range unions {
		for _, v := range ty.Variants {
			if want := "func (u *" + ty.Name + ") Decode" + v.GoName + "()"; !strings.Contains(all, want) {
				t.Errorf("no %q", want)
			}
			if ty.Sent {
				if want := "func (u *" + ty.Name + ") Set" + v.GoName + "("; !strings.Contains(all, want) {
					t.Errorf("no %q", want)
				}
			}
			for _, old := range []string{") As" + v.GoName + "()", ") From" + v.GoName + "(", ".As" + v.GoName + "()", ".From" + v.GoName + "("} {
				if strings.Contains(all, old) {
					t.Errorf("the generated code writes %q, a name the IR does not hold", old)
				}
			}
		}
	}
}

// TestToolsReadTheIRNames renames, in the IR, what the tools package declares and the name it
// imports the client by, and checks that the generated tools use those names.
func TestToolsReadTheIRNames(t *testing.T) {
	api := sampleAPI(t)
	api.ToolsPackage, api.ToolsClient = "agenttools", "desk"
	for _, op := range api.Operations {
		op.ToolVar, op.ToolFunc = "the"+op.GoName, "handle"+op.GoName
	}
	files, err := Generate(api, Options{MCP: true, ImportPath: "example.com/connector/sample"})
	if err != nil {
		t.Fatal(err)
	}
	var src string
	for _, f := range files {
		if f.Name == "agenttools/"+ToolsFile {
			src = string(f.Data)
		}
	}
	if src == "" {
		t.Fatal("no agenttools/tools.go")
	}
	for _, want := range []string{"\npackage agenttools\n", "\tdesk \"example.com/connector/sample\"\n", "func AddTools(s *mcp.Server, c *desk.Client) {"} {
		if !strings.Contains(src, want) {
			t.Errorf("no %q", want)
		}
	}
	for _, op := range api.Operations {
		for _, want := range []string{
			"\nvar the" + op.GoName + " = &mcp.Tool{",
			"\nfunc handle" + op.GoName + "(c *desk.Client) mcp.ToolHandler {",
			"mcptools.Add(s, the" + op.GoName + ", handle" + op.GoName + "(c))",
		} {
			if !strings.Contains(src, want) {
				t.Errorf("no %q", want)
			}
		}
	}
}

// TestToolsNeedTheClientsImportPath checks that Generate refuses tools without the client's
// import path, which the tools package imports.
func TestToolsNeedTheClientsImportPath(t *testing.T) {
	if _, err := Generate(sampleAPI(t), Options{MCP: true}); err == nil || !strings.Contains(err.Error(), "ImportPath") {
		t.Errorf("Generate with MCP and no ImportPath: %v", err)
	}
}
