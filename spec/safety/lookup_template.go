package safety

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// bodyTemplate checks the JSON body a lookup sends (a POST search) against the lookup's request
// body type, and splits it at the string values that hold "{ref}".
func (r *Resolver) bodyTemplate(so *build.Op, read *ir.Operation, n *yaml.Node) *ir.BodyTemplate {
	id := so.Op.ID
	switch {
	case read.Body == nil:
		r.errorf(n, id, "lookup operation %q takes no request body: pass the reference in params", read.ID)
		return nil
	case read.Body.Encoding != ir.BodyJSON:
		r.errorf(n, id, "lookup operation %q sends %s, not JSON: a body template is JSON", read.ID, read.Body.ContentType)
		return nil
	}
	if bad, why := fitJSON(n, read.Body.Type); bad != nil {
		r.errorf(bad, id, "lookup body does not fit the request body of %q: %s", read.ID, why)
		return nil
	}
	var w jsonWriter
	if bad, why := w.value(n); bad != nil {
		r.errorf(bad, id, "lookup body: %s", why)
		return nil
	}
	w.flush()
	return &ir.BodyTemplate{Parts: w.parts, JSON: w.text.String(), Pos: r.pos(n)}
}

// fitJSON reports the first value of the YAML tree n that a value of type t cannot hold, and why.
func fitJSON(n *yaml.Node, t *ir.TypeRef) (*yaml.Node, string) {
	if n.Kind == yaml.AliasNode {
		return n, "an alias: write the value out"
	}
	u := ir.Under(t)
	switch {
	case u.Kind == ir.RefBuiltin && (u.Builtin == "any" || u.Builtin == "json.RawMessage"):
		return nil, ""
	case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindUnion:
		for _, v := range u.Named.Variants {
			if bad, _ := fitJSON(n, v.Type); bad == nil {
				return nil, ""
			}
		}
		return n, fmt.Sprintf("it fits none of the members of %s", u.Named.Name)
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil, ""
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			var vt *ir.TypeRef
			switch {
			case u.Kind == ir.RefMap:
				vt = u.Elem
			case u.Kind == ir.RefNamed && u.Named.Kind == ir.KindStruct:
				for _, f := range u.Named.Fields {
					if f.Name == k.Value {
						vt = f.Type
						break
					}
				}
				if vt == nil && u.Named.AdditionalProperties != nil {
					vt = u.Named.AdditionalProperties
				}
				if vt == nil {
					return k, fmt.Sprintf("%s has no property %q", u.Named.Name, k.Value)
				}
			default:
				return n, fmt.Sprintf("an object where %s goes", ir.DescribeRef(t))
			}
			if bad, why := fitJSON(v, vt); bad != nil {
				return bad, why
			}
		}
		return nil, ""
	case yaml.SequenceNode:
		if u.Kind != ir.RefArray {
			return n, fmt.Sprintf("a list where %s goes", ir.DescribeRef(t))
		}
		for _, item := range n.Content {
			if bad, why := fitJSON(item, u.Elem); bad != nil {
				return bad, why
			}
		}
		return nil, ""
	}
	ok := false
	switch n.Tag {
	case "!!str":
		ok = ir.IsStringType(t) || u.Kind == ir.RefBuiltin && (u.Builtin == "time.Time" || u.Builtin == "[]byte")
		if ok && u.Kind == ir.RefNamed && len(u.Named.Enum) > 0 && !strings.Contains(n.Value, "{ref}") &&
			!slices.ContainsFunc(u.Named.Enum, func(v ir.EnumValue) bool { return v.Value == n.Value }) {
			return n, fmt.Sprintf("%q is not one of the values of %s", n.Value, u.Named.Name)
		}
	case "!!int":
		ok = ir.IsIntegerType(t) || isFloatType(t)
	case "!!float":
		ok = isFloatType(t)
	case "!!bool":
		ok = u.Kind == ir.RefBuiltin && u.Builtin == "bool"
	}
	if !ok {
		return n, fmt.Sprintf("%q where %s goes", n.Value, ir.DescribeRef(t))
	}
	return nil, ""
}

func isFloatType(r *ir.TypeRef) bool {
	u := ir.Under(r)
	if u.Kind == ir.RefNamed {
		return u.Named.Kind == ir.KindEnum && u.Named.Base == "float64"
	}
	return u.Kind == ir.RefBuiltin && (u.Builtin == "float64" || u.Builtin == "float32")
}

// jsonWriter writes a YAML tree as compact JSON, in the order written, cutting it at every
// string value that holds "{ref}".
type jsonWriter struct {
	parts []ir.JSONPart
	buf   strings.Builder // literal JSON not yet in parts
	text  strings.Builder // the whole template, "{ref}" kept, for reports
}

func (w *jsonWriter) write(s string) {
	w.buf.WriteString(s)
	w.text.WriteString(s)
}

func (w *jsonWriter) flush() {
	if w.buf.Len() > 0 {
		w.parts = append(w.parts, ir.JSONPart{Literal: w.buf.String()})
		w.buf.Reset()
	}
}

// value writes n; it returns the value it cannot write and why.
func (w *jsonWriter) value(n *yaml.Node) (*yaml.Node, string) {
	switch n.Kind {
	case yaml.MappingNode:
		w.write("{")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				w.write(",")
			}
			w.write(jsonQuote(n.Content[i].Value))
			w.write(":")
			if bad, why := w.value(n.Content[i+1]); bad != nil {
				return bad, why
			}
		}
		w.write("}")
		return nil, ""
	case yaml.SequenceNode:
		w.write("[")
		for i, item := range n.Content {
			if i > 0 {
				w.write(",")
			}
			if bad, why := w.value(item); bad != nil {
				return bad, why
			}
		}
		w.write("]")
		return nil, ""
	case yaml.ScalarNode:
	default:
		return n, "an alias: write the value out"
	}
	switch n.Tag {
	case "!!str":
		if !strings.Contains(n.Value, "{ref}") {
			w.write(jsonQuote(n.Value))
			return nil, ""
		}
		w.flush()
		var parts []ir.TemplatePart
		for i, lit := range strings.Split(n.Value, "{ref}") {
			if i > 0 {
				parts = append(parts, ir.TemplatePart{Hole: true})
			}
			if lit != "" {
				parts = append(parts, ir.TemplatePart{Literal: lit})
			}
		}
		w.parts = append(w.parts, ir.JSONPart{String: parts})
		w.text.WriteString(jsonQuote(n.Value))
	case "!!int":
		v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err != nil {
			return n, fmt.Sprintf("%q is not an integer JSON can hold", n.Value)
		}
		w.write(strconv.FormatInt(v, 10))
	case "!!float":
		v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return n, fmt.Sprintf("%q is not a number JSON can hold", n.Value)
		}
		w.write(strconv.FormatFloat(v, 'g', -1, 64))
	case "!!bool":
		w.write(strconv.FormatBool(strings.EqualFold(n.Value, "true")))
	case "!!null":
		w.write("null")
	default:
		return n, fmt.Sprintf("%q is not a JSON value", n.Value)
	}
	return nil, ""
}

// jsonQuote is s as a JSON string, without HTML escapes.
func jsonQuote(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
