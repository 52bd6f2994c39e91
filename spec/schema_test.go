package spec

import (
	"math"
	"testing"

	"github.com/writegen/writegen/spec/build"
)

// TestEnumValue checks the conversion of enum members to their base type, and that a member
// the type cannot hold is refused rather than changed.
func TestEnumValue(t *testing.T) {
	for _, tc := range []struct {
		base string
		in   any
		want any // nil: refused
	}{
		{"string", "a", "a"},
		{"string", 1.5, "1.5"},
		{"string", true, "true"},
		{"int64", 3.0, int64(3)},
		{"int64", "-7", int64(-7)},
		{"int64", "9223372036854775807", int64(math.MaxInt64)},
		{"int64", -9223372036854775808.0, int64(math.MinInt64)},
		{"int64", 9223372036854775808.0, nil},
		{"int64", 1e30, nil},
		{"int64", "-1e30", nil},
		{"int64", 1.5, nil},
		{"int64", true, nil},
		{"float64", 2.5, 2.5},
		{"float64", "0.25", 0.25},
		{"float64", "Infinity", nil},
		{"float64", "-inf", nil},
		{"float64", "NaN", nil},
		{"float64", "1e999", nil},
		{"string", math.Inf(1), nil},
	} {
		got, ok := build.EnumValue(tc.base, tc.in)
		if ok != (tc.want != nil) || got != tc.want {
			t.Errorf("enumValue(%s, %#v) = %#v, %v; want %#v", tc.base, tc.in, got, ok, tc.want)
		}
	}
}

// TestSymbolPropertyNames checks that a property whose name has no letter or digit ("" above
// all) is named by its symbols, does not take the name of the property "x", and yields to a
// property called by the name it spells.
func TestSymbolPropertyNames(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                properties:
                  "": {type: string}
                  x: {type: string}
                  $: {type: string}
                  Empty: {type: integer}
`
	api, err := LoadBytes("symbols.yaml", []byte(spec), "ws.yaml", []byte("version: 1\npackage: x\nscope: x\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `type GetAResponse kind=1 schema="" at symbols.yaml:12:15
  field EmptyField "" string required=false nullable=false readonly=false
  field X "x" string required=false nullable=false readonly=false
  field Dollar "$" string required=false nullable=false readonly=false
  field Empty "Empty" int64 required=false nullable=false readonly=false
`
	if got := dumpType(api.Types[0]); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
