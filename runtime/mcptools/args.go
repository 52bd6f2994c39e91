package mcptools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// argumentDefects says what is wrong with the arguments v of a tool whose input schema is root,
// one sentence per defect, each naming the argument (a path through objects and arrays:
// "body.subject", "tags[2]") and what its schema wants: "argument escalation_id is null: want
// an integer". It checks what an agent most often gets wrong (types, required and unknown
// properties) and the formats the schema validator leaves alone (date, date-time, uri, email,
// uuid), following $ref into root's $defs; a value under anyOf or oneOf has defects only when
// it has some against every member, and one under allOf is left to the schema validator, whose
// message is used when this finds nothing.
func argumentDefects(root *jsonschema.Schema, v map[string]any) []string {
	var out []string
	argDefects(root, root, v, "", &out)
	return out
}

// argDefects appends the defects of the value v at path against schema s.
func argDefects(root, s *jsonschema.Schema, v any, path string, out *[]string) {
	for depth := 0; s != nil && s.Ref != "" && depth < 32; depth++ {
		name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
		if !ok {
			return
		}
		s = root.Defs[name]
	}
	if s == nil || len(s.AllOf) > 0 {
		return
	}
	if members := slices.Concat(s.AnyOf, s.OneOf); len(members) > 0 {
		var first []string
		for i, m := range members {
			var d []string
			argDefects(root, m, v, path, &d)
			if len(d) == 0 {
				first = nil
				break
			}
			if i == 0 {
				first = d
			}
		}
		if len(first) > 0 {
			*out = append(*out, fmt.Sprintf("argument %s matches none of the %d forms it may take; against the first: %s",
				argName(path), len(members), strings.Join(first, "; ")))
			return
		}
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
		*out = append(*out, fmt.Sprintf("argument %s is %s: want %s", argName(path), describeValue(v), wantTypes(types)))
		return
	}
	switch v := v.(type) {
	case string:
		if check, ok := formats[s.Format]; ok && !check(v) {
			*out = append(*out, fmt.Sprintf("argument %s is %s: want %s", argName(path), describeValue(v), formatWords[s.Format]))
		}
	case map[string]any:
		for _, name := range s.Required {
			if _, ok := v[name]; !ok {
				*out = append(*out, "argument "+argName(join(path, name))+" is missing: it is required")
			}
		}
		names := make([]string, 0, len(v))
		for name := range v {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			p := s.Properties[name]
			switch {
			case p != nil:
				argDefects(root, p, v[name], join(path, name), out)
			case closed(s.AdditionalProperties) && len(s.PatternProperties) == 0:
				known := make([]string, 0, len(s.Properties))
				for k := range s.Properties {
					known = append(known, k)
				}
				slices.Sort(known)
				*out = append(*out, fmt.Sprintf("argument %s is not one of this tool's (%s)", argName(join(path, name)), strings.Join(known, ", ")))
			case s.AdditionalProperties != nil:
				argDefects(root, s.AdditionalProperties, v[name], join(path, name), out)
			}
		}
	case []any:
		if s.Items != nil {
			for i, e := range v {
				argDefects(root, s.Items, e, path+"["+strconv.Itoa(i)+"]", out)
			}
		}
	}
}

// closed reports whether an additionalProperties schema admits nothing (false, or {"not": {}}).
func closed(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// hasType reports whether the decoded JSON value v is of the JSON Schema type t.
func hasType(v any, t string) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case float64:
		return t == "number" || t == "integer" && v == math.Trunc(v) && !math.IsInf(v, 0)
	case json.Number:
		_, err := v.Int64()
		return t == "number" || t == "integer" && err == nil
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

// wantTypes names the JSON Schema types ts as a sentence does: "an integer", "a string or null".
func wantTypes(ts []string) string {
	words := make([]string, len(ts))
	for i, t := range ts {
		switch t {
		case "integer", "object", "array":
			words[i] = "an " + t
		case "null":
			words[i] = "null"
		default:
			words[i] = "a " + t
		}
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// describeValue names a decoded JSON value for a message: null, the string "42", the number 4.5.
func describeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "the boolean " + strconv.FormatBool(v)
	case string:
		if len(v) > 40 {
			return "a string of " + strconv.Itoa(len(v)) + " bytes"
		}
		return "the string " + strconv.Quote(v)
	case float64:
		return "the number " + strconv.FormatFloat(v, 'g', -1, 64)
	case json.Number:
		return "the number " + v.String()
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// argName quotes a path that is not a plain name.
func argName(path string) string {
	for _, r := range path {
		if !(r == '_' || r == '-' || r == '.' || r == '[' || r == ']' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return strconv.Quote(path)
		}
	}
	return path
}

// validatorText cleans the schema validator's message for an agent: without its "validating
// root: " prefix and the Go reflection text it prints for a null.
func validatorText(err error) error {
	s := strings.TrimPrefix(err.Error(), "validating root: ")
	s = strings.ReplaceAll(s, "<invalid reflect.Value>", "null")
	return errors.New(s)
}

// formats check the string formats that specs use and the schema validator does not.
var formats = map[string]func(string) bool{
	"date": func(v string) bool {
		_, err := time.Parse(time.DateOnly, v)
		return err == nil
	},
	"date-time": func(v string) bool {
		_, err := time.Parse(time.RFC3339, v)
		return err == nil
	},
	"uri": func(v string) bool {
		u, err := url.Parse(v)
		return err == nil && u.IsAbs()
	},
	"email": func(v string) bool {
		a, err := mail.ParseAddress(v)
		return err == nil && a.Address == v
	},
	"uuid": uuidPattern.MatchString,
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// formatWords name what each format wants.
var formatWords = map[string]string{
	"date":      "a date (2006-01-02)",
	"date-time": "a date and time (RFC 3339: 2006-01-02T15:04:05Z)",
	"uri":       "an absolute URI (https://example.com/a)",
	"email":     "an email address (name@example.com)",
	"uuid":      "a UUID (123e4567-e89b-12d3-a456-426614174000)",
}
