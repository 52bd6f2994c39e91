package load

import (
	"fmt"
	"strings"

	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// checkSwagger deals with what kin-openapi's conversion of a Swagger 2.0 document refuses
// without saying where, as defects: a host with a scheme or a path (cut), an OAuth2 flow it does
// not know (the scheme cut), an operation with two body parameters or with a body and form
// fields, its path's parameters included (its own body and form parameters cut; when the path's
// parameters alone have the defect, theirs after the first body).
func (d *Document) checkSwagger() {
	var cuts []cut
	record := func(holder *yaml.Node, e *ir.Error, c ...cut) {
		d.Defects = append(d.Defects, &Defect{Err: e, Holder: holder})
		cuts = append(cuts, c...)
	}
	if i, v := d.childIndex(d.Root, "host"); v != nil && v.Kind == yaml.ScalarNode && strings.Contains(v.Value, "/") {
		record(d.Root, d.Errorf(v, "", "host %q must be a host name, without a scheme or a path (write the path in basePath)", v.Value), cut{d.Root, i})
	}
	_, defs := d.Child(d.Root, "securityDefinitions")
	for _, name := range Keys(defs) {
		i, def := d.childIndex(defs, name)
		_, typ := d.Child(def, "type")
		_, flow := d.Child(def, "flow")
		if typ != nil && typ.Value == "oauth2" && flow != nil {
			switch flow.Value {
			case "implicit", "accessCode", "password", "application":
			default:
				record(defs, d.Errorf(flow, "", "security scheme %q: unknown OAuth2 flow %q (implicit, accessCode, password or application)", name, flow.Value), cut{defs, i})
			}
		}
	}
	_, paths := d.Child(d.Root, "paths")
	for _, path := range Keys(paths) {
		_, item := d.Child(paths, path)
		sk, shared := d.Child(item, "parameters")
		if in := d.paramPlaces(shared, nil); in["body"] > 1 || in["body"] > 0 && in["formData"] > 0 {
			msg := fmt.Sprintf("Swagger 2.0 allows one body parameter, not %d", in["body"])
			if in["body"] == 1 {
				msg = "Swagger 2.0 allows a body parameter or formData parameters, not both"
			}
			var extra []cut
			first := true
			for j, p := range shared.Content {
				switch _, where := d.paramIdentity(p); {
				case where == "body" && first:
					first = false
				case where == "body", where == "formData":
					extra = append(extra, cut{shared, j})
				}
			}
			record(item, d.Errorf(sk, "", "path %q: %s, and every operation of the path has these parameters", path, msg))
			d.remove(extra) // now, so that the operations below count what is left
		}
		for _, m := range Methods {
			k, op := d.Child(item, strings.ToLower(m))
			if op == nil {
				continue
			}
			id := m + " " + path
			if _, v := d.Child(op, "operationId"); v != nil && v.Value != "" {
				id = v.Value
			}
			_, own := d.Child(op, "parameters")
			in := d.paramPlaces(shared, own)
			var e *ir.Error
			switch {
			case in["body"] > 1:
				e = d.Errorf(k, id, "Swagger 2.0 allows one body parameter, not %d", in["body"])
			case in["body"] > 0 && in["formData"] > 0:
				e = d.Errorf(k, id, "Swagger 2.0 allows a body parameter or formData parameters, not both")
			default:
				continue
			}
			var extra []cut
			if own != nil {
				for j, p := range own.Content {
					if _, where := d.paramIdentity(p); where == "body" || where == "formData" {
						extra = append(extra, cut{own, j})
					}
				}
			}
			record(op, e, extra...)
		}
	}
	d.remove(cuts)
}

// childIndex returns the index of the value of key in mapping n, and the value, or -1 and nil.
func (d *Document) childIndex(n *yaml.Node, key string) (int, *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return -1, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return i + 1, n.Content[i+1]
		}
	}
	return -1, nil
}

// paramIdentity returns what identifies a parameter of a path or an operation (its reference,
// else where it travels and its name) and where it travels ("body", "formData" ...).
func (d *Document) paramIdentity(p *yaml.Node) (id, in string) {
	if _, ref := d.Child(p, "$ref"); ref != nil {
		p, _ = d.ResolvePointer(strings.TrimPrefix(ref.Value, "#"))
		id = ref.Value
	}
	_, inNode := d.Child(p, "in")
	_, name := d.Child(p, "name")
	if inNode != nil {
		in = inNode.Value
	}
	if id == "" && name != nil {
		id = in + "\x00" + name.Value
	}
	return id, in
}

// paramPlaces counts the parameters of an operation by where they travel ("body", "formData"
// ...): its own, and those of its path it does not redeclare.
func (d *Document) paramPlaces(shared, own *yaml.Node) map[string]int {
	counts := make(map[string]int)
	redeclared := make(map[string]bool)
	if own != nil && own.Kind == yaml.SequenceNode {
		for _, p := range own.Content {
			id, in := d.paramIdentity(p)
			redeclared[id] = true
			counts[in]++
		}
	}
	if shared != nil && shared.Kind == yaml.SequenceNode {
		for _, p := range shared.Content {
			if id, in := d.paramIdentity(p); !redeclared[id] {
				counts[in]++
			}
		}
	}
	return counts
}
