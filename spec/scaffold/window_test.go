package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/ir"
)

// plaidLike is a write whose key is a body field with a maxLength, as Plaid's transfers are
// (idempotency_key, at most 50 characters), and whose spec says nothing of how long the provider
// remembers it.
const plaidLike = `openapi: 3.0.3
info: {title: Transfers, version: "1"}
paths:
  /transfer/create:
    post:
      operationId: transferCreate
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [idempotency_key, amount]
              properties:
                idempotency_key: {type: string, maxLength: 50}
                amount: {type: string}
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {type: object, required: [id], properties: {id: {type: string}}}}}
`

// TestPromise40_InitDeclaresNoWindow: writegen init leaves the window of a key it finds in the
// spec as a placeholder, which blocks generation until a person answers it; an answer of
// "unknown" (or no window) is read as unknown, never as forever, and a bad one is refused at
// its position.
func TestPromise40_InitDeclaresNoWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "transfers.yaml")
	if err := os.WriteFile(path, []byte(plaidLike), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Scaffold(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const line = "    idempotency: {body: /idempotency_key, max_length: 50, window: TODO} # a body field of the spec; window: how long the provider documents that it remembers a key (24h, 30d), forever, or unknown\n"
	if !strings.Contains(string(out), line) {
		t.Fatalf("scaffold lacks\n%s\n%s", line, out)
	}
	// Every other placeholder answered; the window is the only one left.
	answered := strings.NewReplacer(
		"effect: TODO", "effect: ambiguous", "destructive: TODO", "destructive: false",
		`fields: {TODO: string}, format: "{TODO}"`, `fields: {transfer: string}, format: "{transfer}"`,
		"owner: TODO", "owner: payments", "response: {is: TODO, id: /id}", "response: {is: receipt, id: /id}",
	).Replace(string(out))
	_, err = spec.LoadBytes("transfers.yaml", []byte(plaidLike), "ws.yaml", []byte(answered), spec.Options{})
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Msg, `"TODO" is a placeholder left by writegen init`) ||
		list[0].Pos.Line != strings.Count(answered[:strings.Index(answered, "window: TODO")], "\n")+1 {
		t.Fatalf("with the window unanswered: %v; want one placeholder error at the window", err)
	}
	for _, c := range []struct{ answer, want string }{
		{"unknown", "0s"}, {"forever", "-1ns"}, {"30d", "720h0m0s"},
	} {
		api, err := spec.LoadBytes("transfers.yaml", []byte(plaidLike), "ws.yaml", []byte(strings.Replace(answered, "window: TODO", "window: "+c.answer, 1)), spec.Options{})
		if err != nil {
			t.Fatalf("window: %s: %v", c.answer, err)
		}
		i := api.Operations[0].Safety.Idempotency
		if i.Window.String() != c.want || i.WindowKnown() != (c.answer != "unknown") || i.Forever() != (c.answer == "forever") {
			t.Errorf("window: %s: read as %v (known %v, forever %v)", c.answer, i.Window, i.WindowKnown(), i.Forever())
		}
	}
	_, err = spec.LoadBytes("transfers.yaml", []byte(plaidLike), "ws.yaml", []byte(strings.Replace(answered, "window: TODO", "window: always", 1)), spec.Options{})
	if err == nil || !strings.Contains(err.Error(), `window "always" is not a positive duration (like 24h, 90m or 30d), forever or unknown`) {
		t.Errorf("window: always: %v", err)
	}
}
