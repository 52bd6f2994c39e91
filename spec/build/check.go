package build

import (
	"regexp"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/writegen/writegen/spec/ir"
)

// checked returns r with the check of schema s, a copy, when r is a builtin or an array and s
// allows less than r's type does; otherwise r. A TypeRef is never changed once built, and the
// builtins are shared, so a checked use gets its own.
func checked(r *ir.TypeRef, s *openapi3.Schema) *ir.TypeRef {
	if r.Kind != ir.RefBuiltin && r.Kind != ir.RefArray || s == nil {
		return r
	}
	c := checkOf(s, r.Kind == ir.RefArray)
	if c == nil {
		return r
	}
	cp := *r
	cp.Check = c
	return &cp
}

// checkOf returns what s allows beyond its type, nil when nothing.
func checkOf(s *openapi3.Schema, array bool) *ir.Check {
	c := &ir.Check{}
	if array {
		if s.MinItems > 0 {
			c.MinItems = new(s.MinItems)
		}
		c.MaxItems = s.MaxItems
		if c.MinItems == nil && c.MaxItems == nil {
			return nil
		}
		return c
	}
	c.Format = s.Format
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err == nil {
			c.Pattern = s.Pattern
		}
	}
	if s.MinLength > 0 {
		c.MinLength = new(s.MinLength)
	}
	c.MaxLength = s.MaxLength
	c.Minimum, c.Maximum, c.MultipleOf = s.Min, s.Max, s.MultipleOf
	// 3.0 writes exclusiveMinimum as a flag on minimum, 3.1 as the bound itself.
	if v := s.ExclusiveMin.Value; v != nil {
		c.Minimum, c.ExclusiveMinimum = v, true
	} else if s.ExclusiveMin.IsTrue() && c.Minimum != nil {
		c.ExclusiveMinimum = true
	}
	if v := s.ExclusiveMax.Value; v != nil {
		c.Maximum, c.ExclusiveMaximum = v, true
	} else if s.ExclusiveMax.IsTrue() && c.Maximum != nil {
		c.ExclusiveMaximum = true
	}
	if *c == (ir.Check{}) {
		return nil
	}
	return c
}
