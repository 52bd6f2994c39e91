package toolschema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/writegen/writegen/spec/ir"
)

// TestBoundedOutputSchema checks that a response reaching more named types than an output
// schema describes in full is written down to fewer levels, says so, and still resolves.
func TestBoundedOutputSchema(t *testing.T) {
	types := make([]*ir.Type, maxOutputTypes+10)
	for i := range types {
		types[i] = &ir.Type{Name: "T" + strconv.Itoa(i), Kind: ir.KindStruct}
	}
	for i, typ := range types {
		typ.Fields = []*ir.Field{{Name: "name", Type: &ir.TypeRef{Kind: ir.RefBuiltin, Builtin: "string"}, Required: true}}
		if i+1 < len(types) {
			typ.Fields = append(typ.Fields, &ir.Field{Name: "next", Type: &ir.TypeRef{Kind: ir.RefNamed, Named: types[i+1]}})
		}
	}
	op := &ir.Operation{ID: "getChain", Call: ir.CallRead, Response: &ir.Response{Status: 200, Type: &ir.TypeRef{Kind: ir.RefNamed, Named: types[0]}}}
	op.ToolName = "getChain"
	text := Output(op)
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Description, "more than 3 levels deep are not described") {
		t.Errorf("description %q", s.Description)
	}
	third := s.Properties["next"].Properties["next"].Properties["next"]
	if third == nil || third.Type != "object" {
		t.Fatalf("the third level is not described: %+v", third)
	}
	if fourth := third.Properties["next"]; fourth == nil || fourth.Type != "" || len(fourth.Properties) > 0 {
		t.Errorf("the fourth level is described: %+v", fourth)
	}
}
