package spec

import (
	"strings"

	"go.yaml.in/yaml/v4"
)

// checkSwagger reports what kin-openapi's conversion of a Swagger 2.0 document refuses without
// saying where: a host with a scheme or a path, an OAuth2 flow it does not know, an operation
// with two body parameters or with a body and form fields (parameters of its path included).
func (d *document) checkSwagger() ErrorList {
	var errs ErrorList
	if _, v := d.child(d.root, "host"); v != nil && v.Kind == yaml.ScalarNode && strings.Contains(v.Value, "/") {
		errs = append(errs, d.errorf(v, "", "host %q must be a host name, without a scheme or a path", v.Value))
	}
	_, defs := d.child(d.root, "securityDefinitions")
	for _, name := range keys(defs) {
		_, def := d.child(defs, name)
		_, typ := d.child(def, "type")
		_, flow := d.child(def, "flow")
		if typ != nil && typ.Value == "oauth2" && flow != nil {
			switch flow.Value {
			case "implicit", "accessCode", "password", "application":
			default:
				errs = append(errs, d.errorf(flow, "", "security scheme %q: unknown OAuth2 flow %q", name, flow.Value))
			}
		}
	}
	_, paths := d.child(d.root, "paths")
	for _, path := range keys(paths) {
		_, item := d.child(paths, path)
		_, shared := d.child(item, "parameters")
		for _, m := range methods {
			k, op := d.child(item, strings.ToLower(m))
			if op == nil {
				continue
			}
			id := m + " " + path
			if _, v := d.child(op, "operationId"); v != nil && v.Value != "" {
				id = v.Value
			}
			_, own := d.child(op, "parameters")
			in := d.paramPlaces(shared, own)
			switch {
			case in["body"] > 1:
				errs = append(errs, d.errorf(k, id, "Swagger 2.0 allows one body parameter, not %d", in["body"]))
			case in["body"] > 0 && in["formData"] > 0:
				errs = append(errs, d.errorf(k, id, "Swagger 2.0 allows a body parameter or formData parameters, not both"))
			}
		}
	}
	return errs
}

// paramPlaces counts the parameters of an operation by where they travel ("body", "formData"
// ...): its own, and those of its path it does not redeclare.
func (d *document) paramPlaces(shared, own *yaml.Node) map[string]int {
	identity := func(p *yaml.Node) (id, in string) {
		if _, ref := d.child(p, "$ref"); ref != nil {
			p, _ = d.resolvePointer(strings.TrimPrefix(ref.Value, "#"))
			id = ref.Value
		}
		_, inNode := d.child(p, "in")
		_, name := d.child(p, "name")
		if inNode != nil {
			in = inNode.Value
		}
		if id == "" && name != nil {
			id = in + "\x00" + name.Value
		}
		return id, in
	}
	counts := make(map[string]int)
	redeclared := make(map[string]bool)
	if own != nil && own.Kind == yaml.SequenceNode {
		for _, p := range own.Content {
			id, in := identity(p)
			redeclared[id] = true
			counts[in]++
		}
	}
	if shared != nil && shared.Kind == yaml.SequenceNode {
		for _, p := range shared.Content {
			if id, in := identity(p); !redeclared[id] {
				counts[in]++
			}
		}
	}
	return counts
}
