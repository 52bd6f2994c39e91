package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/safety"
)

// The reference of the annotation file ("writegen help annotations", and annotations.md beside
// this file) is written from the JSON Schema's descriptions, so that the two never disagree.

// runSchema is "writegen schema": it prints the JSON Schema of the annotation file.
func runSchema(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("schema", "> writesafety.schema.json", stderr)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if _, err := stdout.Write(spec.AnnotationSchema); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}

// node is a JSON value that keeps the order of its object's members.
type node struct {
	keys  []string
	items map[string]*node
	list  []*node
	value any // a scalar: string, float64, bool or nil
}

// get returns member key of an object, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.items == nil {
		return nil
	}
	return n.items[key]
}

// str returns a string scalar, or "".
func (n *node) str() string {
	if n == nil {
		return ""
	}
	s, _ := n.value.(string)
	return s
}

// yaml renders a node in YAML's flow style, quoting only the strings that need it.
func (n *node) yaml() string {
	var b strings.Builder
	n.write(&b, yamlScalar)
	return b.String()
}

// yamlScalar writes s plain when YAML reads it back as the same string, else double-quoted.
func yamlScalar(s string) string {
	_, number := strconv.ParseFloat(s, 64)
	plain := s != "" && number != nil && !strings.ContainsAny(s, ":{}[],#&*!|>'\"%@`") &&
		strings.TrimSpace(s) == s && !strings.ContainsAny(s[:1], "-?=<")
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~":
		plain = false
	}
	if plain {
		return s
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// decodeOrdered decodes one JSON value from d.
func decodeOrdered(d *json.Decoder) (*node, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n := &node{items: map[string]*node{}}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(d)
			if err != nil {
				return nil, err
			}
			key := k.(string)
			n.keys = append(n.keys, key)
			n.items[key] = v
		}
		_, err := d.Token()
		return n, err
	case json.Delim('['):
		n := &node{list: []*node{}}
		for d.More() {
			v, err := decodeOrdered(d)
			if err != nil {
				return nil, err
			}
			n.list = append(n.list, v)
		}
		_, err := d.Token()
		return n, err
	}
	return &node{value: tok}, nil
}

// raw renders a node back as compact JSON, in its order.
func (n *node) raw() string {
	var b strings.Builder
	n.write(&b, nil)
	return b.String()
}

// write renders n in flow style: JSON, or with quote set YAML, whose strings (keys included)
// quote renders.
func (n *node) write(b *strings.Builder, quote func(string) string) {
	switch {
	case n.items != nil:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			(&node{value: k}).write(b, quote)
			b.WriteString(": ")
			n.items[k].write(b, quote)
		}
		b.WriteByte('}')
	case n.list != nil:
		b.WriteByte('[')
		for i, e := range n.list {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b, quote)
		}
		b.WriteByte(']')
	default:
		if s, ok := n.value.(string); ok && quote != nil {
			b.WriteString(quote(s))
			return
		}
		v, _ := json.Marshal(n.value)
		b.Write(v)
	}
}

// reference writes the annotation file's reference in Markdown.
func reference() (string, error) {
	root, err := decodeOrdered(json.NewDecoder(bytes.NewReader(spec.AnnotationSchema)))
	if err != nil {
		return "", fmt.Errorf("annotation schema: %w", err)
	}
	r := &referenceWriter{root: root}
	r.b.WriteString(referenceIntro)
	r.section("Top level", "", root)
	r.section("An operation's answers", "operations.NAME.", r.resolve(root.get("$defs").get("answers")))
	r.rules()
	return r.b.String(), nil
}

// rules writes the rules of the safety check, from the check's own table.
func (r *referenceWriter) rules() {
	r.b.WriteString("\n## The safety check\n\n")
	r.b.WriteString("generate and check apply these rules to every write in scope, in this order; each resolves one\n" +
		"answer or refuses it at its position, and a rule whose answer depends on one already refused\n" +
		"says nothing more of it (one defect, one message).\n\n")
	for i, rule := range safety.Rules() {
		fmt.Fprintf(&r.b, "%d. **%s**: %s\n", i+1, rule.Name, rule.Promise)
	}
}

const referenceIntro = `# The write-safety annotation file

<!-- Written from spec/writesafety.schema.json and the safety check's rules (spec/safety/rules.go) by
     "go test ./cmd/writegen -run Reference -update". Do not edit: edit the schema's descriptions. -->

The annotation file answers, for every write operation of the spec, what happens when the
write's outcome is unknown. writegen generate reads it with the spec and refuses, at the
answer's file:line:col, what it cannot hold the code to. "writegen init" writes one with a TODO
wherever a person must answer, and "writegen schema" prints its JSON Schema (editors that speak
yaml-language-server read it from the file's first line).

A small one:

` + "```yaml" + `
version: 1
package: support
scope: support-desk
operations:
  createThread:
    effect: ambiguous
    destructive: false
    key:
      scope: create-thread
      fields: {escalation_id: int64}
      format: "escalation:{escalation_id}"
    idempotency: {header: Idempotency-Key, max_length: 64, window: 24h}
    reference: {body: /external_reference}
    response: {is: receipt, id: /id}
    lookup: {operation: searchThreads, params: {external_reference: "{ref}"}, found: /items/0, consistency: strong}
    retry: {on: [not_sent, ambiguous, status_409, status_429, status_503], attempts: 4}
    dedupe: ledger
    owner: support-ops
exclude:
  uploadAttachment: not used by this connector
` + "```" + `
`

type referenceWriter struct {
	root *node
	b    strings.Builder
}

// resolve follows a local $ref.
func (r *referenceWriter) resolve(n *node) *node {
	for n != nil {
		ref := n.get("$ref").str()
		if ref == "" {
			return n
		}
		target := r.root
		for _, seg := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			target = target.get(seg)
		}
		if target == nil {
			return n
		}
		// Keep what the referring node says of itself.
		merged := &node{items: map[string]*node{}}
		for _, k := range target.keys {
			merged.keys, merged.items[k] = append(merged.keys, k), target.items[k]
		}
		for _, k := range n.keys {
			if k == "$ref" {
				continue
			}
			if _, ok := merged.items[k]; !ok {
				merged.keys = append(merged.keys, k)
			}
			merged.items[k] = n.items[k]
		}
		n = merged
	}
	return nil
}

// section writes the fields of object schema n under a heading.
func (r *referenceWriter) section(title, prefix string, n *node) {
	fmt.Fprintf(&r.b, "\n## %s\n", title)
	r.fields(prefix, n)
}

// fields writes each property of n, then the properties of those that are objects.
func (r *referenceWriter) fields(prefix string, n *node) {
	props := n.get("properties")
	if props == nil {
		return
	}
	for _, name := range props.keys {
		p := r.resolve(props.items[name])
		r.field(prefix+name, p, requiredIn(n, name))
		if obj := objectOf(r, p); obj != nil && name != "operations" && name != "defaults" {
			r.fields(prefix+name+".", obj)
		}
	}
}

// objectOf returns the object schema among p's alternatives, if it has properties.
func objectOf(r *referenceWriter, p *node) *node {
	if p.get("properties") != nil {
		return p
	}
	for _, alt := range p.get("oneOf").listOrNil() {
		if a := r.resolve(alt); a.get("properties") != nil {
			return a
		}
	}
	return nil
}

func (n *node) listOrNil() []*node {
	if n == nil {
		return nil
	}
	return n.list
}

func requiredIn(n *node, name string) bool {
	for _, e := range n.get("required").listOrNil() {
		if e.str() == name {
			return true
		}
	}
	return false
}

// field writes one field: its description, the values it takes, its default and an example.
func (r *referenceWriter) field(path string, p *node, required bool) {
	desc := p.get("description").str()
	def := ""
	if i := strings.Index(desc, "Default: "); i >= 0 {
		desc, def = strings.TrimSpace(desc[:i]), strings.TrimSuffix(desc[i+len("Default: "):], ".")
	}
	fmt.Fprintf(&r.b, "\n### `%s`\n\n%s\n", path, desc)
	if v := r.values(p); v != "" {
		fmt.Fprintf(&r.b, "\n- values: %s\n", v)
	} else {
		r.b.WriteString("\n")
	}
	if required {
		r.b.WriteString("- required\n")
	} else if def != "" {
		fmt.Fprintf(&r.b, "- default: %s\n", def)
	}
	if ex := p.get("examples").listOrNil(); len(ex) > 0 {
		fmt.Fprintf(&r.b, "- example: `%s`\n", ex[0].yaml())
	}
}

// values describes the values a field takes.
func (r *referenceWriter) values(p *node) string {
	if alts := p.get("oneOf").listOrNil(); len(alts) > 0 && p.get("properties") == nil {
		var parts []string
		for _, a := range alts {
			if v := r.values(r.resolve(a)); v != "" {
				parts = append(parts, v)
			}
		}
		return strings.Join(parts, ", or ")
	}
	if v := p.get("x-values").str(); v != "" {
		return v
	}
	if c := p.get("const"); c != nil {
		return "`" + c.raw() + "`"
	}
	if e := p.get("enum").listOrNil(); len(e) > 0 {
		var parts []string
		for _, v := range e {
			parts = append(parts, "`"+v.str()+"`")
		}
		return "one of " + strings.Join(parts, ", ")
	}
	t := p.get("type")
	typ := t.str()
	if t != nil && t.list != nil {
		var parts []string
		for _, v := range t.list {
			parts = append(parts, v.str())
		}
		typ = strings.Join(parts, " or ")
	}
	switch {
	case typ == "array":
		if it := r.resolve(p.get("items")); it != nil {
			v := r.values(it)
			if plural, ok := strings.CutPrefix(v, "a "); ok && !strings.Contains(plural, " ") {
				v = plural + "s"
			}
			return "a list of " + v
		}
		return "a list"
	case typ == "object" || strings.HasPrefix(typ, "object"):
		if ap := p.get("additionalProperties"); ap != nil && ap.items != nil {
			return "a mapping of names to " + r.values(r.resolve(ap))
		}
		return "a mapping"
	case typ == "string" && p.get("pattern") != nil:
		return "a string matching `" + p.get("pattern").str() + "`"
	case typ == "integer":
		if m := p.get("minimum"); m != nil {
			return "an integer, at least " + m.raw()
		}
		return "an integer"
	case typ != "":
		return "a " + typ
	}
	return ""
}
