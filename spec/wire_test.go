package spec

import (
	"slices"
	"testing"

	"github.com/writegen/writegen/spec/ir"
)

// wireSpec holds the shapes issue "On the wire as the spec says" found real specs write: a
// scalar in an allOf, a property required only inside oneOf branches, and constraints.
const wireSpec = `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /a:
    post:
      operationId: postA
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Attribute"}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Event"}
components:
  schemas:
    SequenceID: {type: string, pattern: "^[a-z]+$"}
    Status: {type: string, enum: [open, closed]}
    Event:
      type: object
      required: [sequence_id]
      properties:
        sequence_id:
          allOf:
            - {type: string, maxLength: 20}
            - {nullable: false}
        seq: {type: string, allOf: [{$ref: "#/components/schemas/SequenceID"}]}
        status: {type: string, allOf: [{$ref: "#/components/schemas/Status"}]}
        at: {type: string, format: date-time, allOf: [{$ref: "#/components/schemas/SequenceID"}]}
        count: {allOf: [{type: integer}, {minimum: 1}, {maximum: 9}]}
        mixed: {allOf: [{type: string}, {type: integer}]}
    Attribute:
      type: object
      required: [name, label]
      properties:
        name: {type: string, minLength: 1, maxLength: 10}
        kind: {type: string, enum: [list, text]}
        email: {type: string, format: email}
        when: {type: string, format: date}
        ratio: {type: number, minimum: 0, exclusiveMaximum: true, maximum: 1}
        tags: {type: array, items: {type: string, format: uuid}, minItems: 1, maxItems: 3}
        bad: {type: string, pattern: "^(?=a)"}
      oneOf:
        - required: [options]
          properties:
            options: {type: array, items: {type: string}}
        - required: [regex, flags]
          properties:
            regex: {type: string}
`

func loadWire(t *testing.T) *ir.API {
	t.Helper()
	api, err := LoadBytes("wire.yaml", []byte(wireSpec), "ws.yaml", []byte("version: 1\npackage: x\nscope: x\noperations: {postA: {effect: idempotent, response: {is: acknowledgement}}}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return api
}

func typeNamed(t *testing.T, api *ir.API, name string) *ir.Type {
	t.Helper()
	i := slices.IndexFunc(api.Types, func(ty *ir.Type) bool { return ty.Name == name })
	if i < 0 {
		var names []string
		for _, ty := range api.Types {
			names = append(names, ty.Name)
		}
		t.Fatalf("no type %s among %v", name, names)
	}
	return api.Types[i]
}

func fieldNamed(t *testing.T, ty *ir.Type, name string) *ir.Field {
	t.Helper()
	i := slices.IndexFunc(ty.Fields, func(f *ir.Field) bool { return f.Name == name })
	if i < 0 {
		t.Fatalf("%s has no field %s", ty.Name, name)
	}
	return ty.Fields[i]
}

// TestPromise56_ScalarAllOf: a scalar written as an allOf is that scalar, never a map, so that
// the answers the spec allows decode; a named enum stays itself; members of different types are
// no scalar.
func TestPromise56_ScalarAllOf(t *testing.T) {
	ev := typeNamed(t, loadWire(t), "Event")
	for name, want := range map[string]string{
		"sequence_id": "string",
		"seq":         "string",
		"status":      "Status",
		"at":          "time.Time",
		"count":       "int64",
		"mixed":       "map[string]any",
	} {
		if got := fieldNamed(t, ev, name).Type.String(); got != want {
			t.Errorf("%s is %s, want %s", name, got, want)
		}
	}
	if c := fieldNamed(t, ev, "sequence_id").Type.Check; c == nil || c.MaxLength == nil || *c.MaxLength != 20 {
		t.Errorf("sequence_id's check %+v, want maxLength 20 from its allOf", c)
	}
	if c := fieldNamed(t, ev, "count").Type.Check; c == nil || *c.Minimum != 1 || *c.Maximum != 9 {
		t.Errorf("count's check %+v, want 1 to 9 from its allOf", c)
	}
}

// TestPromise57_RequiredInBranches: a property declared and required only inside the oneOf
// branches of an object is a field (optional in Go, as only one branch requires it), and the
// branches' requirements are kept for the tools; a property required and declared nowhere is a
// field too.
func TestPromise57_RequiredInBranches(t *testing.T) {
	at := typeNamed(t, loadWire(t), "Attribute")
	for _, name := range []string{"options", "regex"} {
		if f := fieldNamed(t, at, name); f.Required {
			t.Errorf("%s is required of every value", name)
		}
	}
	if want := [][]string{{"options"}, {"flags", "regex"}}; !slices.EqualFunc(at.Requires, want, slices.Equal) || !at.RequiresOneOf {
		t.Errorf("requires %v (oneOf %v), want %v under oneOf", at.Requires, at.RequiresOneOf, want)
	}
	// Required, and declared nowhere: a field of any value, required as the schema says.
	for name, required := range map[string]bool{"label": true, "flags": false} {
		if f := fieldNamed(t, at, name); f.Type.String() != "any" || f.Required != required {
			t.Errorf("%s: %s, required %v; want any, required %v", name, f.Type, f.Required, required)
		}
	}
}

// TestPromise57_Checks: what a schema allows of a value beyond its Go type is kept on the use
// of the type; a pattern Go's regexp does not take is left out.
func TestPromise57_Checks(t *testing.T) {
	at := typeNamed(t, loadWire(t), "Attribute")
	check := func(name string) ir.Check {
		t.Helper()
		c := fieldNamed(t, at, name).Type.Check
		if c == nil {
			t.Fatalf("%s has no check", name)
		}
		return *c
	}
	if c := check("name"); *c.MinLength != 1 || *c.MaxLength != 10 {
		t.Errorf("name: %+v", c)
	}
	if c := check("email"); c.Format != "email" {
		t.Errorf("email: %+v", c)
	}
	if c := check("when"); c.Format != "date" {
		t.Errorf("when: %+v", c)
	}
	if c := check("ratio"); *c.Minimum != 0 || *c.Maximum != 1 || c.ExclusiveMinimum || !c.ExclusiveMaximum {
		t.Errorf("ratio: %+v", c)
	}
	if c := check("tags"); *c.MinItems != 1 || *c.MaxItems != 3 {
		t.Errorf("tags: %+v", c)
	}
	if c := fieldNamed(t, at, "tags").Type.Elem.Check; c == nil || c.Format != "uuid" {
		t.Errorf("tags' items: %+v", c)
	}
	if c := fieldNamed(t, at, "bad").Type.Check; c != nil {
		t.Errorf("bad: %+v, want no check: Go's regexp refuses its pattern", c)
	}
}
