package drive

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestFillKeepsTheSchema fills arguments for input schemas of the shapes generated tools have,
// in every argument set, and checks them with the schema validator the tools use.
func TestFillKeepsTheSchema(t *testing.T) {
	for _, schema := range []string{
		`{"type": "object", "properties": {
			"request_id": {"type": "string", "minLength": 1},
			"limit": {"type": "integer", "minimum": 1, "maximum": 50},
			"ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
			"channel": {"type": "string", "pattern": "^[a-z]{2,8}-[0-9]+$"},
			"code": {"type": "string", "minLength": 3, "maxLength": 4},
			"tags": {"type": "array", "items": {"type": "string", "format": "uuid"}, "minItems": 2},
			"body": {"$ref": "#/$defs/Attribute"}},
		 "required": ["request_id", "body"], "additionalProperties": false,
		 "$defs": {"Attribute": {"type": "object",
			"properties": {
				"name": {"type": "string", "maxLength": 5},
				"kind": {"type": "string", "enum": ["list", "text"]},
				"options": {"type": "array", "items": {"type": "string"}},
				"regex": {"type": "string"},
				"key": {"type": "string", "description": "Filled in by the tool (the write's provider key or reference): leave it out."},
				"target": {"oneOf": [
					{"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"], "additionalProperties": false},
					{"type": "object", "properties": {"queue": {"type": "string"}}, "required": ["queue"], "additionalProperties": false}]},
				"parent": {"anyOf": [{"$ref": "#/$defs/Attribute"}, {"type": "null"}]}},
			"required": ["name"],
			"oneOf": [{"required": ["options"]}, {"required": ["regex"]}]}}}`,
	} {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(schema), &s); err != nil {
			t.Fatal(err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		sets := ArgSets(&s)
		if len(sets) != 3 {
			t.Errorf("%d argument sets, want 3: required, and full per member of the widest union", len(sets))
		}
		for _, set := range sets {
			for seed := range uint64(20) {
				args := Fill(&s, set, seed)
				if err := rs.Validate(args); err != nil {
					b, _ := json.Marshal(args)
					t.Errorf("%s, seed %d: %s: %v", set, seed, b, err)
				}
				if b, _ := args["body"].(map[string]any); b["key"] != nil {
					t.Errorf("%s: filled the property the tool fills", set)
				}
			}
		}
	}
}
