package writegenimpl

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The parameter encoders. The generated code knows each parameter's type and style, so it turns
// each value into its wire text itself (strconv, a time's RFC 3339 form, a list of such texts,
// an object's key-value pairs) and hands over strings: no reflection in a request's path. A
// union's value is its JSON, which JSONParam reads.

// PathSegment is one path parameter's text, escaped for a path segment.
//
//go:noinline
func PathSegment(s string) string { return url.PathEscape(s) }

// PathList is a path parameter of many texts in the simple style: each escaped, joined by
// commas (an object's as key, value, key, value).
func PathList(l []string) string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = url.PathEscape(s)
	}
	return strings.Join(out, ",")
}

// AddQuery adds the query parameter name=value.
//
//go:noinline
func (r *Request) AddQuery(name, value string) {
	if r.Query == nil {
		r.Query = url.Values{}
	}
	r.Query.Add(name, value)
}

// AddQueryList adds a query parameter of many values: one name=value each when sep is ""
// (form, exploded), else one whose values are joined by sep ("," for form, " " for
// spaceDelimited, "|" for pipeDelimited).
func (r *Request) AddQueryList(name string, values []string, sep string) {
	if sep != "" {
		r.AddQuery(name, strings.Join(values, sep))
		return
	}
	for _, v := range values {
		r.AddQuery(name, v)
	}
}

// AddQueryObject adds a query parameter holding an object, given as its key-value pairs
// (k1, v1, k2, v2, ...), in the OpenAPI style: deepObject as name[k]=v, form exploded as k=v,
// spaceDelimited and pipeDelimited joined by their separator, and form as name=k1,v1,k2,v2.
func (r *Request) AddQueryObject(name string, pairs []string, style string, explode bool) {
	switch {
	case style == "deepObject":
		for i := 0; i+1 < len(pairs); i += 2 {
			r.AddQuery(name+"["+pairs[i]+"]", pairs[i+1])
		}
	case style == "spaceDelimited":
		r.AddQuery(name, strings.Join(pairs, " "))
	case style == "pipeDelimited":
		r.AddQuery(name, strings.Join(pairs, "|"))
	case explode:
		for i := 0; i+1 < len(pairs); i += 2 {
			r.AddQuery(pairs[i], pairs[i+1])
		}
	default:
		r.AddQuery(name, strings.Join(pairs, ","))
	}
}

// AddQueryJSON adds a query parameter whose value is a union's JSON, in the parameter's style:
// an object as AddQueryObject adds it, an array as AddQueryList, anything else as one value.
// null adds nothing.
func (r *Request) AddQueryJSON(name string, raw json.RawMessage, style string, explode bool) {
	l, object, ok := JSONParam(raw)
	switch {
	case !ok:
	case object:
		r.AddQueryObject(name, l, style, explode)
	case style == "spaceDelimited":
		r.AddQueryList(name, l, " ")
	case style == "pipeDelimited":
		r.AddQueryList(name, l, "|")
	case explode:
		r.AddQueryList(name, l, "")
	default:
		r.AddQueryList(name, l, ",")
	}
}

// SetHeader sets the header name to value.
func (r *Request) SetHeader(name, value string) { r.header().Set(name, value) }

// AddCookie adds the cookie name=value to the Cookie header.
func (r *Request) AddCookie(name, value string) {
	c := (&http.Cookie{Name: name, Value: value}).String()
	if old := r.header().Get("Cookie"); old != "" {
		c = old + "; " + c
	}
	r.Header.Set("Cookie", c)
}

// JSONParam reads a union's JSON as a parameter's texts: an object's key-value pairs, keys
// sorted (object is true), an array's elements, or one scalar's text; ok is false for null or
// JSON that does not decode. Nested values are written as their JSON.
func JSONParam(raw json.RawMessage) (texts []string, object, ok bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || v == nil {
		return nil, false, false
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			texts = append(texts, k, jsonText(v[k]))
		}
		return texts, true, true
	case []any:
		for _, e := range v {
			texts = append(texts, jsonText(e))
		}
		return texts, false, true
	}
	return []string{jsonText(v)}, false, true
}

// JSONTexts is JSONParam's texts alone, for a parameter in the simple style (a path segment, a
// header, a cookie): nil for null.
func JSONTexts(raw json.RawMessage) []string {
	l, _, _ := JSONParam(raw)
	return l
}

// JSONOf is the JSON of a parameter declared without a schema, which JSONParam reads; nil when
// it does not encode.
func JSONOf(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// JSONText is the text of a value that has none of its own (an object inside an object
// parameter): its JSON.
func JSONText(v any) string { return string(JSONOf(v)) }

// jsonText writes one decoded JSON value as a parameter's text: a string as it is, a number as
// written, a boolean as true or false, anything else as its JSON.
func jsonText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v) // decoded JSON always encodes
	return string(b)
}

// Texts writes each element of a list with text: the generated code passes the formatter of
// the element's type.
func Texts[E any](l []E, text func(E) string) []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = text(e)
	}
	return out
}

// StringTexts is a list of strings, enums or named strings as texts.
func StringTexts[S ~string](l []S) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = string(s)
	}
	return out
}

// IntTexts is a list of integers as decimal texts.
func IntTexts[I ~int32 | ~int64](l []I) []string {
	out := make([]string, len(l))
	for i, n := range l {
		out[i] = strconv.FormatInt(int64(n), 10)
	}
	return out
}

// FloatTexts is a list of 64-bit numbers as texts, as FloatText writes them.
func FloatTexts[F ~float64](l []F) []string {
	out := make([]string, len(l))
	for i, f := range l {
		out[i] = FloatText(float64(f), 64)
	}
	return out
}

// Pairs writes a map as key-value pairs, keys sorted, each value with text.
func Pairs[V any](m map[string]V, text func(V) string) []string {
	out := make([]string, 0, 2*len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k, text(m[k]))
	}
	return out
}

// TimeText is a date-time parameter's text: RFC 3339 with the nanoseconds it has.
//
//go:noinline
func TimeText(t time.Time) string { return t.Format(time.RFC3339Nano) }

// FloatText is a number parameter's text, as short as it reads back (bits 32 or 64).
func FloatText(f float64, bits int) string { return strconv.FormatFloat(f, 'f', -1, bits) }
