package spec

import (
	"fmt"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
)

// schemaAt follows a JSON pointer into the documents a schema describes: a segment names a
// property (of the schema or of any allOf, oneOf or anyOf member, through references) or a key
// of additionalProperties; a number or "-" steps into array items. It returns the schema the
// pointer lands on, or an error naming the shortest prefix that does not resolve.
func schemaAt(sr *openapi3.SchemaRef, ptr string) (*openapi3.Schema, error) {
	if sr == nil || sr.Value == nil {
		return nil, fmt.Errorf("there is no schema")
	}
	s := sr.Value
	if ptr == "" {
		return s, nil
	}
	walked := ""
	for _, seg := range splitPointer(ptr) {
		next := step(s, seg, make(map[*openapi3.Schema]bool))
		if next == nil {
			return nil, fmt.Errorf("nothing at %q", walked+"/"+seg)
		}
		s = next
		walked += "/" + seg
	}
	return s, nil
}

// step is one segment of schemaAt.
func step(s *openapi3.Schema, seg string, seen map[*openapi3.Schema]bool) *openapi3.Schema {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	if p, ok := s.Properties[seg]; ok && p.Value != nil {
		return p.Value
	}
	if _, err := strconv.Atoi(seg); (err == nil || seg == "-") && s.Items != nil && s.Items.Value != nil {
		return s.Items.Value
	}
	for _, m := range s.AllOf {
		if r := step(m.Value, seg, seen); r != nil {
			return r
		}
	}
	for _, m := range append(s.OneOf[:len(s.OneOf):len(s.OneOf)], s.AnyOf...) {
		if r := step(m.Value, seg, seen); r != nil {
			return r
		}
	}
	if hasExtra(s) {
		return s.AdditionalProperties.Schema.Value
	}
	return nil
}

// scalarID reports whether a schema can hold an id: a string or an integer, or anything untyped.
func scalarID(s *openapi3.Schema) bool {
	if typeless(s) && !isObject(s) && s.Items == nil {
		return true
	}
	return typeIs(s, "string") || typeIs(s, "integer")
}
