package spec

import (
	"strings"
	"testing"

	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// TestToolNames checks that tool names are valid for every client, stable and unique.
func TestToolNames(t *testing.T) {
	long := strings.Repeat("a", 70)
	api := &ir.API{Operations: []*ir.Operation{
		{ID: "createThread", GoName: "CreateThread"},
		{ID: "POST /threads", GoName: "PostThreads"},
		{ID: "repos.get", GoName: "ReposGet"},
		{ID: "ReposGet", GoName: "ReposGet2"},
		{ID: long, GoName: "Long"},
	}}
	build.NameTools(api)
	want := []string{"createThread", "PostThreads", "ReposGet", "ReposGet_2", long[:55] + "_"}
	cut := api.Operations[4].ToolName
	for i, op := range api.Operations {
		got := op.ToolName
		if i == 4 {
			if !strings.HasPrefix(got, want[i]) || len(got) > build.MaxToolName {
				t.Errorf("%s: %q", op.ID, got)
			}
		} else if got != want[i] {
			t.Errorf("%s: %q, want %q", op.ID, got, want[i])
		}
		if !build.ValidToolName(got) {
			t.Errorf("%s: %q is not a valid tool name", op.ID, got)
		}
	}
	if build.NameTools(api); api.Operations[4].ToolName != cut {
		t.Errorf("the cut name is not stable: %q, then %q", cut, api.Operations[4].ToolName)
	}
}

// TestToolArgNames checks that argument names are valid property names, and that colliding
// names are qualified by where they go.
func TestToolArgNames(t *testing.T) {
	for in, want := range map[string]string{
		"escalation_id": "escalation_id",
		"filter[kind]":  "filter_kind",
		"expand[]":      "expand",
		"X-Request-Id":  "X-Request-Id",
		"$":             "arg",
		"a b  c":        "a_b_c",
	} {
		if got := build.ToolArgName(in); got != want {
			t.Errorf("toolArgName(%q) = %q, want %q", in, got, want)
		}
	}
	op := &ir.Operation{
		Call:   ir.CallWrite,
		Safety: &ir.Safety{Key: &ir.Key{Fields: []ir.KeyField{{Name: "id"}, {Name: "body"}}}},
		Params: []*ir.Param{
			{Name: "id", In: ir.InPath},
			{Name: "id", In: ir.InQuery},
			{Name: "limit", In: ir.InQuery},
		},
		Body: &ir.Body{},
	}
	var got []string
	for _, a := range build.ToolArgs(op) {
		got = append(got, a.Name)
	}
	if want := "key_id key_body path_id query_id limit body"; strings.Join(got, " ") != want {
		t.Errorf("arguments %q, want %q", got, want)
	}
}

// TestToolIdentifiersCollide loads a spec whose tool names would collide in the tools package:
// the tool variable of serveFoo (serveFooTool) is the handler function of fooTool, and the
// client package's name is one the tools package imports (mcp). Each is renamed, the same way
// whatever the order of the spec, and the rest keep their names.
func TestToolIdentifiersCollide(t *testing.T) {
	const specText = `openapi: 3.0.3
info: {title: collide, version: "1"}
paths:
  /foo:
    get:
      operationId: fooTool
      responses: {"200": {description: ok}}
  /serve:
    get:
      operationId: serveFoo
      responses: {"200": {description: ok}}
  /other:
    get:
      operationId: other
      responses: {"200": {description: ok}}
`
	swapped := strings.Replace(specText, "  /foo:\n    get:\n      operationId: fooTool\n      responses: {\"200\": {description: ok}}\n", "", 1) +
		"  /foo:\n    get:\n      operationId: fooTool\n      responses: {\"200\": {description: ok}}\n"
	for _, text := range []string{specText, swapped} {
		api, err := LoadBytes("api.yaml", []byte(text), "ws.yaml", []byte("version: 1\npackage: mcp\nscope: collide\n"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][2]string{}
		for _, op := range api.Operations {
			got[op.ID] = [2]string{op.ToolVar, op.ToolFunc}
		}
		want := map[string][2]string{
			"fooTool":  {"fooToolTool", "serveFooToolHandler"},
			"serveFoo": {"serveFooTool", "serveServeFoo"},
			"other":    {"otherTool", "serveOther"},
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: tool variable and handler %q, want %q", id, got[id], w)
			}
		}
		if api.ToolsPackage != "mcpmcp" || api.ToolsClient != "mcpclient" {
			t.Errorf("tools package %s importing the client as %s, want mcpmcp importing it as mcpclient", api.ToolsPackage, api.ToolsClient)
		}
	}
}
