package load

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// A defect of the spec does not stop the loading: it is cut out of the tree before kin-openapi
// reads it (or read another way, a mend), and kept with the node that held it. Once the
// operations in scope are known, a defect they reach is an error, and the others are warnings:
// a user who leaves a part of the spec out of scope need not repair it.
type Defect struct {
	Err    *ir.Error
	Holder *yaml.Node // the mapping or sequence the defect was in
	mended bool       // read another way rather than cut out: a warning even when reached
}

// cutOut records the defect e of the node at at and takes the node out (with its key).
func (d *Document) cutOut(at place, e *ir.Error) cut {
	d.Defects = append(d.Defects, &Defect{Err: e, Holder: at.parent})
	return cut{at.parent, at.i}
}

// prepareYAML reads the scalars of a YAML tree as kin-openapi's own YAML path does before it
// decodes one: a scalar with a tag of the author's own (!md) is a string, and so is a date (an
// example "2024-01-02" stays the text it is); a mapping key is the text it is written as, also
// when written as an alias. An infinity or a NaN, which JSON cannot hold, is a defect.
func (d *Document) prepareYAML(root *yaml.Node) {
	var cuts []cut
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind == yaml.AliasNode && k.Alias != nil && k.Alias.Kind == yaml.ScalarNode {
					named := *k.Alias
					named.Anchor = ""
					named.Line, named.Column = k.Line, k.Column
					n.Content[i], k = &named, &named
				}
				if k.Kind == yaml.ScalarNode && k.Tag != "!!str" && k.Tag != "!!null" && k.Tag != "!!merge" && k.Value != "<<" {
					k.Tag = "!!str"
				}
			}
		}
		for i, c := range n.Content {
			if c.Kind == yaml.ScalarNode {
				switch {
				case strings.HasPrefix(c.Tag, "!") && !strings.HasPrefix(c.Tag, "!!"), c.Tag == "!!timestamp":
					c.Tag = "!!str"
				case c.Tag == "!!float" && (strings.EqualFold(strings.TrimLeft(c.Value, "+-"), ".inf") || strings.EqualFold(c.Value, ".nan")):
					e := d.Errorf(c, "", "%s has no JSON representation: write a number", c.Value)
					d.Defects = append(d.Defects, &Defect{Err: e, Holder: n})
					cuts = append(cuts, cut{n, i})
				}
			}
			walk(c)
		}
	}
	walk(root)
	d.remove(cuts)
}

// aliasCycle returns an alias that leads back to a node it is inside of (e: &a {p: *a}), which
// would make every reader of the tree go round forever, or nil.
func aliasCycle(root *yaml.Node) *yaml.Node {
	const (
		onPath = iota + 1
		done
	)
	state := make(map[*yaml.Node]uint8)
	var walk func(n *yaml.Node) *yaml.Node
	walk = func(n *yaml.Node) *yaml.Node {
		switch state[n] {
		case onPath:
			return n
		case done:
			return nil
		}
		state[n] = onPath
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			if c := walk(n.Alias); c != nil {
				return n
			}
		}
		for _, c := range n.Content {
			if r := walk(c); r != nil {
				return r
			}
		}
		state[n] = done
		return nil
	}
	return walk(root)
}

// cutNullKeys takes out every mapping pair whose key is null (written ~, null or not at all),
// directly or through an alias: it names nothing.
func (d *Document) cutNullKeys() {
	var cuts []cut
	d.walkKeys(d.Root, func(parent *yaml.Node, i int) bool {
		key := parent.Content[i]
		if key.Kind == yaml.AliasNode && key.Alias != nil {
			key = key.Alias
		}
		if key.Kind == yaml.ScalarNode && key.Tag == "!!null" {
			e := d.Errorf(parent.Content[i], "", "a mapping key is null: it names nothing (quote it, or remove the entry)")
			d.Defects = append(d.Defects, &Defect{Err: e, Holder: parent})
			cuts = append(cuts, cut{parent, i})
		}
		return true
	})
	d.remove(cuts)
}

// nullNames are the maps of names kin-openapi refuses a null value in, by keyword, and what
// their values are; nullLists the same for lists.
var (
	nullNames = map[string]string{
		"schemas": "schema", "properties": "schema", "patternProperties": "schema", "$defs": "schema",
		"dependentSchemas": "schema", "definitions": "schema",
		"parameters": "parameter", "responses": "response", "headers": "header", "callbacks": "callback",
		"examples": "example", "links": "link", "securitySchemes": "security scheme", "requestBodies": "request body",
	}
	nullLists = map[string]string{"allOf": "schema", "oneOf": "schema", "anyOf": "schema", "prefixItems": "schema", "parameters": "parameter"}
)

// mend walks the structure of the document once and deals with what kin-openapi would refuse
// (or misread) about it: references that name nothing (cut; those to other files are bundled
// before), a $ref with no value (cut), a null where an object must be (cut), a parameter with
// both a schema and content (its content cut), and the tuple form of items (mended). In OpenAPI
// 3.1 a reference to an $id or an $anchor of the file is rewritten as the JSON pointer of what
// it names.
func (d *Document) mend() {
	if d.v31 {
		d.indexIDs()
	}
	var cuts []cut
	d.walk(d.Root, d.top(), func(n *yaml.Node, at place) bool {
		switch at.role {
		case roleData:
			return false
		case roleRef:
			if msg := d.refDefect(n, at); msg != "" {
				cuts = append(cuts, d.cutOut(at, d.Errorf(n, "", "%s", msg)))
			}
			return false
		}
		if n.Tag == "!!null" && at.parent != nil {
			what := ""
			switch {
			case at.parent.Kind == yaml.MappingNode && at.parentRole == roleNames:
				what = nullNames[at.parentOf]
			case at.parent.Kind == yaml.SequenceNode && at.parentRole == roleObject:
				what = nullLists[at.in]
			}
			if what != "" {
				cuts = append(cuts, d.cutOut(at, d.Errorf(n, "", "a %s is null here: write the object, or remove the entry", what)))
				return false
			}
		}
		if at.key == "items" && n.Kind == yaml.SequenceNode && at.parentRole == roleObject {
			return d.mendTuple(n, at)
		}
		if n.Kind == yaml.MappingNode && at.role == roleObject && (at.in == "parameters" && at.key == "" || at.of == "parameters") {
			ck, content := d.Child(n, "content")
			if _, schema := d.Child(n, "schema"); schema != nil && content != nil {
				i := 0
				for i < len(n.Content) && n.Content[i] != ck {
					i++
				}
				e := d.Errorf(ck, "", "a parameter has a schema or content, not both: remove one")
				d.Defects = append(d.Defects, &Defect{Err: e, Holder: n})
				cuts = append(cuts, cut{n, i})
			}
		}
		return true
	})
	d.remove(cuts)
}

// mendTuple reads the tuple form of items (a list of schemas, one per position, which neither
// Swagger 2.0 nor OpenAPI has) as an array whose every element may be any of them: one schema
// is that schema; in OpenAPI 3 several are their anyOf (a union); in Swagger 2.0, which has no
// anyOf, several are any JSON value. The reading is a warning at the list. It returns whether
// the schemas of the list are still read.
func (d *Document) mendTuple(n *yaml.Node, at place) bool {
	var repl *yaml.Node
	var how string
	kept := true
	switch {
	case len(n.Content) == 1:
		repl, how = n.Content[0], "an array of its one schema"
	case len(n.Content) == 0 || d.V2:
		repl = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
		how, kept = "an array of any JSON values (Swagger 2.0 has no anyOf to say which)", false
	default:
		repl = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "anyOf", Line: n.Line, Column: n.Column}, n,
		}}
		how = "an array whose elements are any of them (anyOf)"
	}
	at.parent.Content[at.i] = repl
	d.patched = true
	e := d.Errorf(n, "", "items is a list of schemas (a tuple, which OpenAPI does not have): read as %s; write one schema to say what the elements are", how)
	d.Defects = append(d.Defects, &Defect{Err: e, Holder: at.parent, mended: true})
	return kept
}

// documentBase is the base URI of the document itself, which has no $id: references are
// resolved against it, so one that stays in the document stays under it.
const documentBase = "writegen-document:///openapi"

// resolveURI resolves ref against base, both URI references; an unparsable one is taken as is.
func resolveURI(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}

// indexIDs records the JSON pointer of every schema of an OpenAPI 3.1 document that has an
// $id (by its resolved URI, without a fragment) or an $anchor (by URI#name).
func (d *Document) indexIDs() {
	d.ids = make(map[string]string)
	d.walk(d.Root, d.top(), func(n *yaml.Node, at place) bool {
		if at.role == roleData || at.role == roleRef {
			return false
		}
		if n.Kind != yaml.MappingNode || at.role != roleObject {
			return true
		}
		base := at.base
		_, id := d.Child(n, "$id")
		_, anchor := d.Child(n, "$anchor")
		if id == nil && anchor == nil {
			return true
		}
		ptr := at.pointer()
		if id != nil && id.Kind == yaml.ScalarNode {
			base = resolveURI(base, id.Value)
			if u, _, _ := strings.Cut(base, "#"); u != "" {
				if _, dup := d.ids[u]; !dup {
					d.ids[u] = ptr
				}
			}
		}
		if anchor != nil && anchor.Kind == yaml.ScalarNode {
			u, _, _ := strings.Cut(base, "#")
			if _, dup := d.ids[u+"#"+anchor.Value]; !dup {
				d.ids[u+"#"+anchor.Value] = ptr
			}
			// By name alone, when only one schema declares it: "#name" written in the
			// document for an anchor inside a schema with its own $id.
			if _, dup := d.ids["#"+anchor.Value]; dup {
				d.ids["#"+anchor.Value] = ""
			} else {
				d.ids["#"+anchor.Value] = ptr
			}
		}
		return true
	})
}

// refDefect says what is wrong with the $ref value n at at, or "" when it resolves in the file.
// An OpenAPI 3.1 reference to an $id or $anchor of the file is rewritten first as the JSON
// pointer of the schema it names.
func (d *Document) refDefect(n *yaml.Node, at place) string {
	switch {
	case n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == ""):
		return `a $ref with no value: write the reference ("#/components/schemas/Name"), or remove the $ref`
	case n.Kind != yaml.ScalarNode:
		return `a $ref must be a string: write the reference ("#/components/schemas/Name")`
	}
	ref := n.Value
	if _, err := url.Parse(ref); err != nil {
		return fmt.Sprintf("reference %q is not a URI (a %% starts an escape like %%2F; no control characters)", ref)
	}
	if d.v31 && !strings.HasPrefix(ref, "#/") {
		abs := resolveURI(at.base, ref)
		u, frag, _ := strings.Cut(abs, "#")
		ptr, ok := "", false
		switch {
		case frag == "" || strings.HasPrefix(frag, "/"):
			if ptr, ok = d.ids[u]; ok {
				ptr += frag
			} else if u == documentBase {
				ptr, ok = frag, true
			}
		default:
			if ptr, ok = d.ids[u+"#"+frag]; !ok {
				ptr, ok = d.ids["#"+frag]
				switch {
				case ok && ptr == "":
					return fmt.Sprintf("unresolved reference %q: several schemas have $anchor %q, none in the resource the reference is in: write the JSON pointer of one", ref, frag)
				case !ok:
					return fmt.Sprintf("unresolved reference %q: no schema in the file has $anchor %q", ref, frag)
				}
			}
		}
		if ok {
			ref = "#" + ptr
			n.Value = ref // what kin-openapi resolves, and types are named after
			d.patched = true
		}
	}
	frag, ok := strings.CutPrefix(ref, "#")
	switch {
	case !ok && d.v31 && at.base != documentBase:
		return fmt.Sprintf("unresolved reference %q: under the $id in scope it is %q, which no schema of the spec has as $id (a reference to another file is written outside any $id)", ref, resolveURI(at.base, ref))
	case !ok:
		// The references to other files were bundled (files.go): this one could not be read.
		return fmt.Sprintf("reference %q names nothing writegen can read", ref)
	}
	if frag != "" && frag[0] != '/' {
		return fmt.Sprintf("unresolved reference %q: a reference inside the file is a JSON pointer (\"#/components/schemas/Name\")", ref)
	}
	if _, ok := d.ResolvePointer(frag); !ok {
		return fmt.Sprintf("unresolved reference %q: nothing in the file is at that path", ref)
	}
	return ""
}
