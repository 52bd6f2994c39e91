// Package mcptools is what the MCP tools that writegen generates (writegen generate -mcp) call:
// it checks a call's arguments against the tool's input schema, decodes them into the
// generated Go types, and turns the outcome of the call into the result an agent reads.
// Programs do not call it; they call AddTools of the generated tools package, which sits beside
// the client (support/supportmcp for the client support), so that the client does not link the
// SDK:
//
//	client, err := support.NewClient(baseURL, ledger)
//	server := mcp.NewServer(&mcp.Implementation{Name: "support-desk"}, nil)
//	supportmcp.AddTools(server, client)
//	err = server.Run(ctx, &mcp.StdioTransport{})
//
// A tool's result is what the write's annotations promise, said to an agent:
//
//   - a receipt is structured content {"id", "source", "body"}, where source says whether the
//     effect was created by this call ("created"), found by a lookup after an earlier attempt
//     ("adopted_lookup") or replayed from the ledger for a call with the same business key
//     ("adopted_ledger");
//   - an acknowledgement is {"accepted": true, "status", "source", "note", "body"}: the effect
//     may come later;
//   - a read is its response body, inside {"result": ...} when it is not a JSON object;
//   - every other outcome is a tool error (IsError) whose text starts with one word in capitals
//     and says what happened and whether calling again helps: UNCERTAIN (do not call again:
//     who was told, where it is recorded, which read tool can check), REJECTED (the provider's
//     status and answer), KEY CONFLICT, NOT APPLIED (nothing happened: call again), IN PROGRESS,
//     COMPENSATED, MISSING KEY and INVALID ARGUMENTS (nothing was sent), FAILED.
//
// The package may import the MCP SDK; the core runtime uses the standard library only.
package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Add adds tool t to s, served by h. The arguments of every call are checked against
// t.InputSchema first: arguments that do not match get an INVALID ARGUMENTS tool error, and h
// is not called, so nothing is sent. t.InputSchema must be a JSON Schema (2020-12) of type
// "object", as a json.RawMessage or a *jsonschema.Schema; Add panics when it is not, as the
// SDK's Server.AddTool does.
func Add(s *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) {
	resolved, err := resolve(t.InputSchema)
	if err != nil {
		panic(fmt.Sprintf("mcptools: tool %q: input schema: %v", t.Name, err))
	}
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := validate(resolved, req.Params.Arguments); err != nil {
			return Invalid(err), nil
		}
		return h(ctx, req)
	})
}

// resolve resolves a tool's input schema.
func resolve(schema any) (*jsonschema.Resolved, error) {
	var s *jsonschema.Schema
	switch v := schema.(type) {
	case *jsonschema.Schema:
		s = v
	case json.RawMessage:
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("want a json.RawMessage or a *jsonschema.Schema, not %T", schema)
	}
	if s == nil || s.Type != "object" {
		return nil, errors.New(`want a schema of type "object"`)
	}
	return s.Resolve(nil)
}

// validate checks the raw arguments of a call against the resolved input schema, and their
// formats. Absent arguments are an empty object. Its error names each wrong argument and what
// it must be (argumentDefects), else says what the schema validator found.
func validate(rs *jsonschema.Resolved, args json.RawMessage) error {
	v := map[string]any{}
	if len(bytes.TrimSpace(args)) > 0 && !bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		if err := json.Unmarshal(args, &v); err != nil {
			return fmt.Errorf("the arguments are not a JSON object: %v", err)
		}
	}
	err := rs.Validate(v)
	if defects := argumentDefects(rs.Schema(), v); len(defects) > 0 {
		return errors.New(strings.Join(defects, "; "))
	}
	if err == nil {
		return nil
	}
	return validatorText(err)
}

// An Argument names one argument of a tool and the Go value it is decoded into.
type Argument struct {
	name string
	to   any
}

// Arg returns the argument called name, decoded with encoding/json into *to (a pointer to a
// field of the generated key, params or body).
func Arg(name string, to any) Argument { return Argument{name, to} }

// Decode decodes the arguments of req into the values args name. An argument that is absent
// (or null) leaves its value as it is; the input schema, checked by Add, has already refused
// the absence of a required one.
func Decode(req *mcp.CallToolRequest, args ...Argument) error {
	var m map[string]json.RawMessage
	if raw := bytes.TrimSpace(req.Params.Arguments); len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("the arguments are not a JSON object: %v", err)
		}
	}
	var errs []error
	for _, a := range args {
		raw, ok := m[a.name]
		if !ok || bytes.Equal(raw, []byte("null")) {
			continue
		}
		if err := json.Unmarshal(raw, a.to); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", a.name, err))
		}
	}
	return errors.Join(errs...)
}
