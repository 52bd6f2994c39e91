package load

import (
	"slices"
	"strconv"
	"strings"

	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// role says what a node of the document is, as far as references, defects and reachability
// care: OpenAPI structure, whose keys are keywords; a map of names; the value of a $ref; or data.
type role uint8

const (
	roleObject role = iota // an OpenAPI or JSON Schema object, or a list of them
	roleNames              // a map whose keys are names: properties, status codes, media types ...
	roleRef                // the value of a $ref keyword
	roleData               // literal data: an example, a default, an enum, an extension's value
)

// place is where the walk of the document is: what holds the node, under which key, and what
// the node is.
type place struct {
	parent     *yaml.Node // the mapping or sequence holding the node; nil at the top
	i          int        // the node's index in parent.Content
	key        string     // the mapping key the node is the value of; "" for an item of a sequence
	in         string     // the key the parent is the value of
	role       role
	of         string // roleNames: the keyword of the map; roleObject: the map it is a value of
	parentRole role
	parentOf   string
	base       string   // OpenAPI 3.1: the base URI in scope ($id), resolved; "" otherwise
	path       []string // the node's JSON pointer, unescaped segments (valid only during the visit)
}

// pointer returns the JSON pointer of the node at at.
func (at place) pointer() string {
	var b strings.Builder
	for _, seg := range at.path {
		b.WriteByte('/')
		b.WriteString(ir.EscapePointer(seg))
	}
	return b.String()
}

// nameMaps are the keywords whose value, when a mapping, is a map of names to objects.
var nameMaps = map[string]bool{
	"properties": true, "patternProperties": true, "definitions": true, "schemas": true, "$defs": true,
	"dependentSchemas": true, "parameters": true, "headers": true, "requestBodies": true,
	"securitySchemes": true, "securityDefinitions": true, "links": true, "callbacks": true,
	"responses": true, "content": true, "encoding": true, "variables": true, "mapping": true,
	"pathItems": true, "webhooks": true, "paths": true, "examples": true, "scopes": true,
}

// extensible are the maps of names that may also hold x- extensions: there an x- key is not a
// name. (A property or a component may well be called x-something.)
var extensible = map[string]bool{"paths": true, "responses": true, "callback": true}

// childRole is the role of the value v under key in a mapping at at.
func (d *Document) childRole(at place, key string, v *yaml.Node) (role, string) {
	switch at.role {
	case roleData, roleRef:
		return roleData, ""
	case roleNames:
		switch {
		case strings.HasPrefix(key, "x-") && extensible[at.of]:
			return roleData, ""
		case at.of == "callbacks":
			return roleNames, "callback" // a callback: expressions to path items
		}
		return roleObject, at.of
	}
	switch {
	case key == "$ref":
		return roleRef, ""
	case key == "example" || key == "default" || key == "enum" || key == "const" || strings.HasPrefix(key, "x-"):
		return roleData, ""
	case at.of == "examples" && key == "value", // an Example Object's value
		at.of == "links" && (key == "parameters" || key == "requestBody"): // a Link's runtime values
		return roleData, ""
	case key == "examples" && (v.Kind != yaml.MappingNode || d.V2):
		// A list of examples (JSON Schema), or Swagger 2.0's map of media types to examples.
		return roleData, ""
	case nameMaps[key] && v.Kind == yaml.MappingNode:
		return roleNames, key
	}
	return roleObject, ""
}

// walk visits n and, when visit returns true, what n holds, in document order. It does not
// follow aliases or references.
func (d *Document) walk(n *yaml.Node, at place, visit func(n *yaml.Node, at place) bool) {
	if !visit(n, at) {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		base := at.base
		if d.v31 && at.role == roleObject {
			if _, id := d.Child(n, "$id"); id != nil && id.Kind == yaml.ScalarNode {
				base = resolveURI(base, id.Value)
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			r, of := d.childRole(at, k.Value, v)
			d.walk(v, place{parent: n, i: i + 1, key: k.Value, in: at.key, role: r, of: of,
				parentRole: at.role, parentOf: at.of, base: base, path: append(at.path, k.Value)}, visit)
		}
	case yaml.SequenceNode:
		r := roleObject
		if at.role == roleData || at.role == roleRef {
			r = roleData
		}
		for i, c := range n.Content {
			d.walk(c, place{parent: n, i: i, in: at.key, role: r, parentRole: at.role, parentOf: at.of, base: at.base,
				path: append(at.path, strconv.Itoa(i))}, visit)
		}
	}
}

// top is the place of the document's root.
func (d *Document) top() place {
	return place{role: roleObject, base: documentBase}
}

// cut is a node to take out of the tree: Content[i] of parent, with its key when parent is a
// mapping (i may be the key's index or the value's).
type cut struct {
	parent *yaml.Node
	i      int
}

// remove takes the cuts out of the tree, the last of each parent first so that the indexes of
// the others still hold. Each parent is changed on its own, so their order does not matter.
func (d *Document) remove(cuts []cut) {
	byParent := make(map[*yaml.Node][]int)
	for _, c := range cuts {
		i := c.i
		if c.parent.Kind == yaml.MappingNode {
			i -= i % 2
		}
		byParent[c.parent] = append(byParent[c.parent], i)
	}
	for n, idx := range byParent {
		slices.Sort(idx)
		idx = slices.Compact(idx)
		for j := len(idx) - 1; j >= 0; j-- {
			switch i := idx[j]; n.Kind {
			case yaml.MappingNode:
				n.Content = slices.Delete(n.Content, i, i+2)
			case yaml.SequenceNode:
				n.Content = slices.Delete(n.Content, i, i+1)
			}
		}
		delete(d.index, n) // the key index of a large mapping is stale
		d.patched = true
	}
}

// locate returns the place of the node that starts at line and column (the outermost one, as
// a mapping and its first key start together), or ok false. The root has no place to cut.
func (d *Document) locate(line, col int) (at place, n *yaml.Node, ok bool) {
	var found *yaml.Node
	d.walk(d.Root, d.top(), func(c *yaml.Node, p place) bool {
		if found != nil {
			return false
		}
		if c.Line == line && c.Column == col && p.parent != nil {
			found, at = c, p
			return false
		}
		// Inside one file a node starts before what it holds; the files of a spec split
		// across several are interleaved in the tree.
		return len(d.Files) > 1 || !after(c, line, col)
	})
	if found == nil {
		// A key: the walk visits values only.
		d.walkKeys(d.Root, func(parent *yaml.Node, i int) bool {
			if k := parent.Content[i]; found == nil && k.Line == line && k.Column == col {
				found, at = k, place{parent: parent, i: i}
			}
			return found == nil
		})
	}
	return at, found, found != nil
}

// after reports whether node n starts after line and column, so nothing under it starts there.
func after(n *yaml.Node, line, col int) bool {
	return n.Line > line || n.Line == line && n.Column > col
}

// locateNode returns the place of node n in the tree, or ok false.
func (d *Document) locateNode(n *yaml.Node) (at place, ok bool) {
	d.walk(d.Root, d.top(), func(c *yaml.Node, p place) bool {
		if ok {
			return false
		}
		if c == n && p.parent != nil {
			at, ok = p, true
			return false
		}
		return true
	})
	return at, ok
}

// walkKeys calls visit with every mapping key of the tree (parent and index), through
// aliased keys, until visit returns false.
func (d *Document) walkKeys(n *yaml.Node, visit func(parent *yaml.Node, i int) bool) bool {
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 && !visit(n, i) {
			return false
		}
		if !d.walkKeys(c, visit) {
			return false
		}
	}
	return true
}
