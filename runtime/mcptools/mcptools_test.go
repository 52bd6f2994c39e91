package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/writegen/writegen/runtime"
)

// TestErrorTexts checks the tool error of each outcome of the runtime: the word it starts with,
// and what it tells the agent.
func TestErrorTexts(t *testing.T) {
	check := Check{Tool: "searchThreads", Args: `{"external_reference":"{ref}"}`}
	uncertain := &runtime.UncertainError{
		Identity:    runtime.Identity{Scope: "support-desk", Operation: "create-thread", BusinessKey: "escalation:42"},
		OperationID: "createThread", ProviderKey: "support-desk/create-thread:escalation:42", Owner: "support-ops",
		Reason: "attempts exhausted", Recorded: "ledger row 7",
	}
	for _, c := range []struct {
		name  string
		err   error
		check Check
		want  []string
	}{
		{"uncertain", uncertain, check, []string{"UNCERTAIN: ", "(attempts exhausted)", "Do not call it again", "support-ops was told; it is recorded in ledger row 7.",
			`call the read tool searchThreads with {"external_reference":"support-desk/create-thread:escalation:42"}.`}},
		{"uncertain, reference from the key", fmt.Errorf("wrapped: %w", uncertain), Check{Tool: "listThreads", Args: `{"ref":"{ref}"}`, Ref: `esc-"42"`},
			[]string{"UNCERTAIN: ", `call the read tool listThreads with {"ref":"esc-\"42\""}.`}},
		{"uncertain, no lookup", &runtime.UncertainError{Owner: "ops"}, Check{}, []string{"UNCERTAIN: ", "ops was told.", "No read tool can check"}},
		{"uncertain, no owner", &runtime.UncertainError{Recorded: "log"}, Check{}, []string{"UNCERTAIN: ", "It is recorded in log."}},
		{"key conflict", &runtime.KeyConflictError{Identity: runtime.Identity{BusinessKey: "escalation:42"}, RowID: 3},
			Check{}, []string{"KEY CONFLICT: ", `"escalation:42"`, "ledger row 3", "Nothing was sent"}},
		{"empty key", &runtime.EmptyKeyError{Operation: "createThread", Field: "escalation_id"}, Check{},
			[]string{"MISSING KEY: ", `"escalation_id"`, "Nothing was sent"}},
		{"not applied", &runtime.NotAppliedError{Operation: "createThread", Reason: "not sent"}, Check{},
			[]string{"NOT APPLIED: nothing happened (not sent)", "safe to call again"}},
		{"429", &runtime.StatusError{Status: 429, State: runtime.StateNotApplied}, Check{},
			[]string{"NOT APPLIED: nothing happened (429 Too Many Requests)"}},
		{"rejected", &runtime.StatusError{Status: 422, Body: []byte(`{"title":"subject is required"}`), State: runtime.StateRejected}, Check{},
			[]string{`REJECTED: the provider answered 422 Unprocessable Entity: {"title":"subject is required"}`, "Nothing took effect"}},
		{"in progress", fmt.Errorf("claim: %w", runtime.ErrInProgress), Check{}, []string{"IN PROGRESS: ", "later"}},
		{"compensated", runtime.ErrCompensated, Check{}, []string{"COMPENSATED: "}},
		{"other", errors.New("ledger: database is locked"), Check{}, []string{"FAILED: ledger: database is locked."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Error(c.err, c.check)
			got := textOf(res)
			if !res.IsError {
				t.Error("not a tool error")
			}
			if !strings.HasPrefix(got, c.want[0]) {
				t.Errorf("%q does not start with %q", got, c.want[0])
			}
			for _, w := range c.want[1:] {
				if !strings.Contains(got, w) {
					t.Errorf("%q does not say %q", got, w)
				}
			}
		})
	}
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*mcp.TextContent).Text)
	}
	return b.String()
}

type thread struct {
	ID string `json:"id"`
}

// TestResults checks the structured content of each kind of success, and that its text is the
// same JSON.
func TestResults(t *testing.T) {
	for _, c := range []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"receipt", Receipt(&runtime.Receipt[thread]{ID: "th_1", Body: &thread{"th_1"}, Raw: []byte(`{"id":"th_1","extra":1}`), Source: runtime.AdoptedLedger}, nil, Check{}),
			`{"id":"th_1","source":"adopted_ledger","body":{"id":"th_1","extra":1}}`},
		{"receipt without raw", Receipt(&runtime.Receipt[thread]{ID: "th_1", Body: &thread{"th_1"}, Source: runtime.AdoptedLookup}, nil, Check{}),
			`{"id":"th_1","source":"adopted_lookup","body":{"id":"th_1"}}`},
		{"acknowledgement", Ack(&runtime.Ack[struct{}]{Status: 202}, nil, Check{}),
			`{"accepted":true,"status":202,"source":"created","note":"The provider accepted the request: its effect may come later."}`},
		{"done", Done(struct{}{}, nil, "Done."), `{"accepted":true,"note":"Done."}`},
		{"done with a body", Done(&thread{"th_1"}, nil, "Done."), `{"accepted":true,"note":"Done.","body":{"id":"th_1"}}`},
		{"read", Read(&thread{"th_1"}, nil), `{"id":"th_1"}`},
		{"wrapped read", Wrap([]thread{{"a"}, {"b"}}, nil), `{"result":[{"id":"a"},{"id":"b"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.res.IsError {
				t.Fatalf("a tool error: %s", textOf(c.res))
			}
			got, _ := json.Marshal(c.res.StructuredContent)
			if string(got) != c.want {
				t.Errorf("structured content %s, want %s", got, c.want)
			}
			if textOf(c.res) != c.want {
				t.Errorf("text %s, want %s", textOf(c.res), c.want)
			}
		})
	}
	if res := Receipt[thread](nil, &runtime.UncertainError{}, Check{}); !res.IsError || res.StructuredContent != nil {
		t.Error("an error is not a tool error without structured content")
	}
}

// TestAddChecksArguments calls a tool added with Add through the SDK's client: arguments that
// do not match the input schema never reach the handler.
func TestAddChecksArguments(t *testing.T) {
	ctx := t.Context()
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	calls := 0
	tool := &mcp.Tool{Name: "createThread", InputSchema: json.RawMessage(`{"type": "object",
		"properties": {"escalation_id": {"type": "integer"}, "body": {"type": "object", "properties": {"subject": {"type": "string"}}}},
		"required": ["escalation_id"], "additionalProperties": false}`)}
	Add(s, tool, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls++
		var id int64
		var body struct{ Subject string }
		if err := Decode(req, Arg("escalation_id", &id), Arg("body", &body)); err != nil {
			return Invalid(err), nil
		}
		return Read(map[string]any{"id": id, "subject": body.Subject}, nil), nil
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
	for _, c := range []struct {
		args any
		want string
	}{
		{map[string]any{"body": map[string]any{"subject": "s"}}, "INVALID ARGUMENTS: "},
		{map[string]any{"escalation_id": "42"}, "INVALID ARGUMENTS: "},
		{map[string]any{"escalation_id": 4.5}, "INVALID ARGUMENTS: "},
		{map[string]any{"escalation_id": 42, "subjet": "typo"}, "INVALID ARGUMENTS: "},
		{map[string]any{"escalation_id": 42, "body": map[string]any{"subject": "s"}}, `{"id":42,"subject":"s"}`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "createThread", Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		if got := textOf(res); !strings.HasPrefix(got, c.want) {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
	if calls != 1 {
		t.Errorf("the handler ran %d times, want once (for the valid arguments)", calls)
	}
}

// TestAddRefusesABadSchema checks that a tool whose input schema is no object schema is refused
// when it is added, as the SDK refuses it.
func TestAddRefusesABadSchema(t *testing.T) {
	for _, schema := range []any{json.RawMessage(`{"type": "array"}`), json.RawMessage(`{`), map[string]any{"type": "object"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: added", schema)
				}
			}()
			Add(mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil), &mcp.Tool{Name: "x", InputSchema: schema}, nil)
		}()
	}
}

// TestWrongArgumentNamesItAndItsType calls a tool through the SDK's client with arguments of the
// wrong type (null among them, which the schema validator reports as "<invalid reflect.Value>
// has type "null""): the tool error names the argument, what it got and the type it wants.
func TestWrongArgumentNamesItAndItsType(t *testing.T) {
	ctx := t.Context()
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	tool := &mcp.Tool{Name: "createThread", InputSchema: json.RawMessage(`{"type": "object",
		"properties": {
			"escalation_id": {"type": "integer"},
			"priority": {"type": ["integer", "null"]},
			"body": {"$ref": "#/$defs/NewThread"}
		},
		"required": ["escalation_id"], "additionalProperties": false,
		"$defs": {"NewThread": {"type": "object", "properties": {"subject": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}, "additionalProperties": false}}}`)}
	Add(s, tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
	for _, c := range []struct {
		args string
		want string
	}{
		{`{"escalation_id": null}`, "argument escalation_id is null: want an integer"},
		{`{"escalation_id": "42"}`, `argument escalation_id is the string "42": want an integer`},
		{`{"escalation_id": 4.5}`, "argument escalation_id is the number 4.5: want an integer"},
		{`{"escalation_id": 1, "priority": "high"}`, `argument priority is the string "high": want an integer or null`},
		{`{"escalation_id": 1, "body": null}`, "argument body is null: want an object"},
		{`{"escalation_id": 1, "body": {"subject": 3}}`, "argument body.subject is the number 3: want a string"},
		{`{"escalation_id": 1, "body": {"tags": ["a", false]}}`, "argument body.tags[1] is the boolean false: want a string"},
		{`{"escalation_id": 1, "body": {"subjet": "s"}}`, "argument body.subjet is not one of this tool's (subject, tags)"},
		{`{"body": {}}`, "argument escalation_id is missing: it is required"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "createThread", Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatal(err)
		}
		got := textOf(res)
		if !res.IsError || !strings.HasPrefix(got, "INVALID ARGUMENTS: "+c.want) {
			t.Errorf("%s: %q, want INVALID ARGUMENTS: %s", c.args, got, c.want)
		}
		if strings.Contains(got, "reflect") || strings.Contains(got, "validating") {
			t.Errorf("%s: %q speaks of the validator", c.args, got)
		}
	}
}
