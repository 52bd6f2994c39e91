package templates

import (
	"strings"
	"testing"

	"github.com/writegen/writegen/spec"
)

// TestEmittersReadTheIRNames renames, in the IR, what the generated code declares for the
// variants of unions, and checks that the generated code declares and calls those names: the
// emitters make up no identifier of their own (spec settles them, apart from the others).
func TestEmittersReadTheIRNames(t *testing.T) {
	api := sampleAPI(t)
	var unions []*spec.Type
	for _, ty := range api.Types {
		if ty.Kind == spec.KindUnion && ty.Same == nil {
			unions = append(unions, ty)
			for _, v := range ty.Variants {
				v.AsName, v.FromName = "Decode"+v.GoName, "Set"+v.GoName
			}
		}
	}
	if len(unions) == 0 {
		t.Fatal("the sample has no union")
	}
	files, err := Generate(api, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".go") {
			src.Write(f.Data)
		}
	}
	all := src.String()
	for _, ty := range unions {
		for _, v := range ty.Variants {
			if want := "func (u *" + ty.Name + ") Decode" + v.GoName + "()"; !strings.Contains(all, want) {
				t.Errorf("no %q", want)
			}
			if ty.Sent {
				if want := "func (u *" + ty.Name + ") Set" + v.GoName + "("; !strings.Contains(all, want) {
					t.Errorf("no %q", want)
				}
			}
			for _, old := range []string{") As" + v.GoName + "()", ") From" + v.GoName + "(", ".As" + v.GoName + "()", ".From" + v.GoName + "("} {
				if strings.Contains(all, old) {
					t.Errorf("the generated code writes %q, a name the IR does not hold", old)
				}
			}
		}
	}
}
