package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/writegen/writegen/spec/ir"
)

// checkSame fails the test for any alias (Type.Same) whose declaration would differ from the
// one of the type it stands for. It compares the two as the emitters would declare them, with
// each named type they use written as the type declared for it: an independent reading of what
// sameTypes must preserve, which does not use its classes.
func checkSame(t *testing.T, api *ir.API) (aliases int) {
	t.Helper()
	for _, ty := range api.Types {
		decl := ty.Same
		if decl == nil {
			continue
		}
		aliases++
		switch {
		case decl.Same != nil:
			t.Errorf("type %s is an alias of %s, itself an alias of %s", ty.Name, decl.Name, decl.Same.Name)
		case ty.Kind != decl.Kind:
			t.Errorf("type %s (kind %v) is an alias of %s (kind %v)", ty.Name, ty.Kind, decl.Name, decl.Kind)
		default:
			if got, want := declaration(ty), declaration(decl); got != want {
				t.Errorf("type %s is an alias of %s, but their declarations differ:\n%s\n---\n%s", ty.Name, decl.Name, got, want)
			}
		}
	}
	return aliases
}

// declaration describes what the emitters declare for t, apart from its name and doc.
func declaration(t *ir.Type) string {
	var b strings.Builder
	switch t.Kind {
	case ir.KindEnum:
		fmt.Fprintf(&b, "enum %s", t.Base)
		for _, v := range t.Enum {
			fmt.Fprintf(&b, " %T:%#v", v.Value, v.Value)
		}
	case ir.KindUnion:
		fmt.Fprintf(&b, "union %q", t.Discriminator)
		for _, v := range t.Variants {
			fmt.Fprintf(&b, "\n%s %s %q", v.GoName, declaredRef(v.Type), v.Tags)
		}
	case ir.KindStruct:
		fmt.Fprintf(&b, "struct json methods %v", t.JSONMethods())
		for _, f := range t.Fields {
			fmt.Fprintf(&b, "\n%s %q %s required %v nullable %v read-only %v pointer %v omitempty %v untagged %v doc %q",
				f.GoName, f.Name, declaredRef(f.Type), f.Required, f.Nullable, f.ReadOnly, f.Pointer, f.OmitEmpty, f.Untagged, f.Doc)
		}
	default:
		fmt.Fprintf(&b, "kind %v", t.Kind)
	}
	return b.String()
}

// declaredRef writes r with each named type as the one declared for it.
func declaredRef(r *ir.TypeRef) string {
	switch r.Kind {
	case ir.RefNamed:
		t := r.Named
		for t.Same != nil {
			t = t.Same
		}
		return t.Name
	case ir.RefArray:
		return "[]" + declaredRef(r.Elem)
	case ir.RefMap:
		return "map[string]" + declaredRef(r.Elem)
	}
	return r.Builtin
}
