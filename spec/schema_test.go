package spec

import (
	"math"
	"testing"
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
		got, ok := enumValue(tc.base, tc.in)
		if ok != (tc.want != nil) || got != tc.want {
			t.Errorf("enumValue(%s, %#v) = %#v, %v; want %#v", tc.base, tc.in, got, ok, tc.want)
		}
	}
}
