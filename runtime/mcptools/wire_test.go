package mcptools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPromise57_ToolRefusesWhatTheSpecRefuses: an argument that breaks a constraint the input
// schema carries from the spec (a format, a length, a pattern, a bound, an enum, a oneOf union,
// a property one branch requires) gets INVALID ARGUMENTS and nothing is sent; an argument that
// keeps them is served.
func TestPromise57_ToolRefusesWhatTheSpecRefuses(t *testing.T) {
	ctx := t.Context()
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	calls := 0
	tool := &mcp.Tool{Name: "createAttribute", InputSchema: json.RawMessage(`{"type": "object",
		"properties": {
			"body": {"type": "object",
				"properties": {
					"name": {"type": "string", "minLength": 1, "maxLength": 5},
					"owner": {"type": "string", "format": "email"},
					"homepage": {"type": "string", "format": "uri"},
					"due": {"type": "string", "format": "date"},
					"at": {"type": "string", "format": "date-time"},
					"ref": {"type": "string", "format": "uuid"},
					"code": {"type": "string", "pattern": "^q-[0-9]+$"},
					"weight": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
					"kind": {"type": "string", "enum": ["list", "text"]},
					"options": {"type": "array", "items": {"type": "string"}, "minItems": 1},
					"regex": {"type": "string"},
					"target": {"oneOf": [
						{"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"]},
						{"type": "object", "properties": {"queue": {"type": "string"}}, "required": ["queue"]}
					]}
				},
				"required": ["name"],
				"oneOf": [{"required": ["options"]}, {"required": ["regex"]}]
			}
		},
		"required": ["body"], "additionalProperties": false}`)}
	Add(s, tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls++
		return Read(map[string]any{}, nil), nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const ok = `"name": "plan", "regex": "x"`
	for _, c := range []struct {
		body string
		want string // "" : served
	}{
		{ok, ""},
		{ok + `, "owner": "a@example.com", "homepage": "https://example.com/a", "due": "2024-05-01", "at": "2024-05-01T10:00:00Z",
			"ref": "123e4567-e89b-12d3-a456-426614174000", "code": "q-12", "weight": 0.5, "kind": "list", "target": {"url": "https://x.example"}`, ""},
		{ok + `, "owner": "not an address"`, `argument body.owner is the string "not an address": want an email address`},
		{ok + `, "homepage": "/relative"`, `argument body.homepage is the string "/relative": want an absolute URI`},
		{ok + `, "due": "01/05/2024"`, `argument body.due is the string "01/05/2024": want a date`},
		{ok + `, "at": "2024-05-01 10:00"`, `argument body.at is the string "2024-05-01 10:00": want a date and time`},
		{ok + `, "ref": "42"`, `argument body.ref is the string "42": want a UUID`},
		{ok + `, "target": {"url": "nope"}`, "argument body.target matches none of the 2 forms"},
		{`"name": "", "regex": "x"`, "minLength"},
		{`"name": "toolong", "regex": "x"`, "maxLength"},
		{ok + `, "code": "x-1"`, "pattern"},
		{ok + `, "weight": 1`, "exclusiveMaximum"},
		{ok + `, "kind": "other"`, "enum"},
		{`"name": "plan"`, "argument body matches none of the 2 forms"},
		{`"name": "plan", "regex": "x", "options": ["a"]`, "oneOf"},
		{ok + `, "target": {"url": "https://x.example", "queue": "q"}`, "oneOf"},
	} {
		args := json.RawMessage(`{"body": {` + c.body + `}}`)
		before := calls
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "createAttribute", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		got := textOf(res)
		switch {
		case c.want == "" && (res.IsError || calls != before+1):
			t.Errorf("%s: %q, want it served", args, got)
		case c.want != "" && (!strings.HasPrefix(got, "INVALID ARGUMENTS: ") || !strings.Contains(got, c.want) ||
			!strings.Contains(got, "Nothing was sent") || calls != before):
			t.Errorf("%s: %q, want INVALID ARGUMENTS saying %q, and nothing sent", args, got, c.want)
		}
	}
}
