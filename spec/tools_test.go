package spec

import (
	"strings"
	"testing"
)

// TestToolNames checks that tool names are valid for every client, stable and unique.
func TestToolNames(t *testing.T) {
	long := strings.Repeat("a", 70)
	api := &API{Operations: []*Operation{
		{ID: "createThread", GoName: "CreateThread"},
		{ID: "POST /threads", GoName: "PostThreads"},
		{ID: "repos.get", GoName: "ReposGet"},
		{ID: "ReposGet", GoName: "ReposGet2"},
		{ID: long, GoName: "Long"},
	}}
	nameTools(api)
	want := []string{"createThread", "PostThreads", "ReposGet", "ReposGet_2", long[:55] + "_"}
	cut := api.Operations[4].ToolName
	for i, op := range api.Operations {
		got := op.ToolName
		if i == 4 {
			if !strings.HasPrefix(got, want[i]) || len(got) > maxToolName {
				t.Errorf("%s: %q", op.ID, got)
			}
		} else if got != want[i] {
			t.Errorf("%s: %q, want %q", op.ID, got, want[i])
		}
		if !validToolName(got) {
			t.Errorf("%s: %q is not a valid tool name", op.ID, got)
		}
	}
	if nameTools(api); api.Operations[4].ToolName != cut {
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
		if got := toolArgName(in); got != want {
			t.Errorf("toolArgName(%q) = %q, want %q", in, got, want)
		}
	}
	op := &Operation{
		Call:   CallWrite,
		Safety: &Safety{Key: &Key{Fields: []KeyField{{Name: "id"}, {Name: "body"}}}},
		Params: []*Param{
			{Name: "id", In: InPath},
			{Name: "id", In: InQuery},
			{Name: "limit", In: InQuery},
		},
		Body: &Body{},
	}
	var got []string
	for _, a := range toolArgs(op) {
		got = append(got, a.Name)
	}
	if want := "key_id key_body path_id query_id limit body"; strings.Join(got, " ") != want {
		t.Errorf("arguments %q, want %q", got, want)
	}
}
