package load

import (
	"strings"

	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// reach returns every node of the tree that the operations ops reach, each mapped to the first
// of them to reach it: an operation reaches all it holds (parameters, bodies, responses of
// every status and media type, callbacks, examples), its path's parameters and servers, and
// all that what it reaches refers to, through $ref and aliases. The parts of the document the
// generated package reads whatever is in scope (the root, info, servers, Swagger 2.0's host,
// basePath and schemes) are mapped to nil.
func (d *Document) reach(ops []*ir.Operation) map[*yaml.Node]*ir.Operation {
	seen := make(map[*yaml.Node]*ir.Operation)
	var by *ir.Operation
	var visit func(n *yaml.Node, at place) bool
	visit = func(n *yaml.Node, at place) bool {
		if _, ok := seen[n]; ok {
			return false
		}
		seen[n] = by
		switch {
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			d.walk(n.Alias, at, visit)
		case at.role == roleRef && n.Kind == yaml.ScalarNode:
			if t, ok := d.ResolvePointer(strings.TrimPrefix(n.Value, "#")); ok {
				d.walk(t, place{role: roleObject}, visit)
			}
		}
		return true
	}
	seen[d.Root] = nil
	top := d.top()
	for _, key := range []string{"openapi", "swagger", "info", "servers", "host", "basePath", "schemes"} {
		if i, v := d.childIndex(d.Root, key); v != nil {
			r, of := d.childRole(top, key, v)
			d.walk(v, place{parent: d.Root, i: i, key: key, role: r, of: of}, visit)
		}
	}
	_, paths := d.Child(d.Root, "paths")
	for _, op := range ops {
		by = op
		_, item := d.Child(paths, op.SpecPath)
		d.reachOp(item, strings.ToLower(op.Method), seen, visit, 0)
	}
	return seen
}

// reachOp visits what the operation method of path item reaches: the item itself (whose
// defects are the path's), its parameters, servers and the like, and the operation; through
// the item's $ref, the same in the item it refers to.
func (d *Document) reachOp(item *yaml.Node, method string, seen map[*yaml.Node]*ir.Operation, visit func(*yaml.Node, place) bool, depth int) {
	if item == nil || item.Kind != yaml.MappingNode || depth > 32 {
		return
	}
	if _, ok := seen[item]; !ok {
		visit(item, place{role: roleObject}) // marks the item, not what it holds
	}
	at := place{role: roleObject}
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i].Value, item.Content[i+1]
		switch {
		case k == "$ref":
			if v.Kind == yaml.ScalarNode {
				if t, ok := d.ResolvePointer(strings.TrimPrefix(v.Value, "#")); ok {
					d.reachOp(t, method, seen, visit, depth+1)
				}
			}
		case k == method || !isMethod(k):
			r, of := d.childRole(at, k, v)
			d.walk(v, place{parent: item, i: i + 1, key: k, role: r, of: of}, visit)
		}
	}
}

// isMethod reports whether a key of a path item names an operation.
func isMethod(key string) bool {
	for _, m := range Methods {
		if strings.EqualFold(key, m) {
			return true
		}
	}
	return false
}

// SortDefects sorts the defects of the document into errors, the ones the operations in scope
// reach (each naming the first operation that reaches it), and warnings, the rest and what was
// read another way.
func (d *Document) SortDefects(inScope []*ir.Operation) (errs, warnings ir.ErrorList) {
	if len(d.Defects) == 0 {
		return nil, nil
	}
	reached := d.reach(inScope)
	for _, df := range d.Defects {
		e := *df.Err
		op, ok := reached[df.Holder]
		switch {
		case ok && df.mended:
			warnings = append(warnings, &e)
		case ok:
			if op != nil && e.Operation == "" {
				e.Operation = op.ID
				e.Msg += "; correct the spec, or leave the operation out of scope"
			}
			errs = append(errs, &e)
		default:
			if !df.mended {
				e.Msg += "; no operation in scope reaches it, so it is left out"
			}
			warnings = append(warnings, &e)
		}
	}
	return errs, warnings
}

// Methods in the order operations of one path are listed.
var Methods = [...]string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}
