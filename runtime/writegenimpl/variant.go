package writegenimpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Variant describes the member of a oneOf/anyOf that a write stores its
// reference in (reference.through). A union's JSON holds the variant when
// it is an object whose discriminator (when the union has one) is one of
// Tags, whose properties are all among Properties (unless Properties is
// nil: the variant allows any), and which has every property of Required.
// The test is strict where the union's As methods are lenient: JSON of
// another variant must not pass for this one.
type Variant struct {
	Name          string   // the variant's type, for messages
	Discriminator string   // the union's discriminating property, "" without one
	Tags          []string // the discriminator values that select the variant
	Properties    []string // its properties; nil when it allows any
	Required      []string // its required properties
}

// holds reports whether obj, a union's JSON object, holds v.
func (v *Variant) holds(obj map[string]json.RawMessage) bool {
	if v.Discriminator != "" {
		var tag string
		if raw, ok := obj[v.Discriminator]; !ok || json.Unmarshal(raw, &tag) != nil || !slices.Contains(v.Tags, tag) {
			return false
		}
	}
	if v.Properties != nil {
		for k := range obj {
			if !slices.Contains(v.Properties, k) {
				return false
			}
		}
	}
	for _, k := range v.Required {
		if _, ok := obj[k]; !ok {
			return false
		}
	}
	return true
}

// SetInVariant returns raw, the JSON a oneOf/anyOf of a request body
// holds, with value set as the string at the properties path inside it,
// and sent true, when raw holds the variant v; otherwise raw as it is and
// sent false: the caller sent another variant (or none), and the write
// carries no reference (Request.NoReference). Objects missing on the path
// are added; the properties of raw are kept as they were.
func SetInVariant(raw json.RawMessage, v *Variant, value string, path ...string) (out json.RawMessage, sent bool, err error) {
	if len(path) == 0 {
		return raw, false, fmt.Errorf("writegen: variant %s: no property to set", v.Name)
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return raw, false, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(t, &obj); err != nil {
		return raw, false, fmt.Errorf("writegen: variant %s: %w", v.Name, err)
	}
	if !v.holds(obj) {
		return raw, false, nil
	}
	set, err := setString(obj, value, path)
	if err != nil {
		return raw, false, fmt.Errorf("writegen: variant %s: %w", v.Name, err)
	}
	return set, true, nil
}

// setString sets value at path in obj and returns its encoding.
func setString(obj map[string]json.RawMessage, value string, path []string) (json.RawMessage, error) {
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	k := path[0]
	if len(path) == 1 {
		b, err := json.Marshal(value)
		if err != nil {
			return nil, err
		}
		obj[k] = b
		return json.Marshal(obj)
	}
	var inner map[string]json.RawMessage
	if raw, ok := obj[k]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, fmt.Errorf("property %q is not an object: %w", k, err)
		}
	}
	b, err := setString(inner, value, path[1:])
	if err != nil {
		return nil, err
	}
	obj[k] = b
	return json.Marshal(obj)
}
