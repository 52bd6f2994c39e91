package ir

import "strconv"

// OptionalBody reports whether op's body may be left out: the spec does not require it, and
// the generated code stores nothing in it (a body that carries the write's key or reference
// is taken as required: the key must travel). The generated method then takes it as nil for
// absent: a pointer, or the slice, map or []byte itself.
func OptionalBody(op *Operation) bool {
	if op.Body == nil || op.Body.Required {
		return false
	}
	if op.Call == CallWrite || op.Call == CallSubmit {
		for _, set := range op.Safety.Sets {
			if set.Body != nil {
				return false
			}
		}
	}
	return true
}

// HasResult reports whether op's response has a body.
func HasResult(op *Operation) bool { return op.Response != nil && op.Response.Type != nil }

// IsObject reports whether values of r are JSON objects: a struct or a map.
func IsObject(r *TypeRef) bool {
	u := Under(r)
	return u.Kind == RefMap || u.Kind == RefNamed && u.Named.Kind == KindStruct
}

// IsBytes reports whether t is raw bytes ([]byte): a body or a response that is not JSON.
func IsBytes(t *TypeRef) bool { return t.Kind == RefBuiltin && t.Builtin == "[]byte" }

// StatusText names a response's status for a message: "201", or "default".
func StatusText(status int) string {
	if status == 0 {
		return "default"
	}
	return strconv.Itoa(status)
}

// Nilable reports whether the zero value of r's Go type is nil.
func Nilable(r *TypeRef) bool {
	switch r.Kind {
	case RefArray, RefMap:
		return true
	case RefNamed:
		return r.Named.Kind == KindAlias && Nilable(r.Named.Elem)
	}
	switch r.Builtin {
	case "[]byte", "any", "json.RawMessage":
		return true
	}
	return false
}
