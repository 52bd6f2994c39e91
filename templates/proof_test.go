package templates

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/ir"
)

// TestPromise51_ReportSaysWhatIsProven reads the WRITE_SAFETY.md of every golden package and of
// the sample, and holds what each write's section says of its lookup to what its answers and the
// spec prove: a walk is said to ask for newest first only with the params that ask for it (which
// the spec lists), a settle time or lag is shown with the source a person gave, an eventual
// lookup without a lag is said to prove nothing by not finding, a list read without pages is
// said to prove absence only by an empty page, and a walk by page number is said to be read
// twice.
func TestPromise51_ReportSaysWhatIsProven(t *testing.T) {
	root := filepath.Join("..", "testdata", "golden")
	cases, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	inputs := [][2]string{{"testdata/sample.yaml", "testdata/sample.writesafety.yaml"}}
	for _, c := range cases {
		dir := filepath.Join(root, c.Name())
		if _, err := os.Stat(filepath.Join(dir, "want")); err == nil {
			inputs = append(inputs, [2]string{filepath.Join(dir, "openapi.yaml"), filepath.Join(dir, "writesafety.yaml")})
		}
	}
	lookups := 0
	for _, in := range inputs {
		api, err := spec.Load(in[0], in[1], spec.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in[0], err)
		}
		files, err := Generate(api, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var report string
		for _, f := range files {
			if f.Name == SafetyReport {
				report = string(f.Data)
			}
		}
		for _, op := range api.Operations {
			if op.Safety == nil || op.Safety.Lookup == nil {
				continue
			}
			lookups++
			l := op.Safety.Lookup
			section := strings.Join(strings.Fields(sectionOf(report, op.ID)), " ") // unwrapped
			if section == "" {
				t.Errorf("%s: %s has no section in the report", in[1], op.ID)
				continue
			}
			claim := func(says bool, what string, holds bool) {
				t.Helper()
				if says != holds {
					t.Errorf("%s: %s: the report says %s: %v, the answers prove it: %v", in[1], op.ID, what, says, holds)
				}
			}
			claim(strings.Contains(section, "newest first"), "the list is asked for newest first", l.Since != nil && len(l.NewestFirst) > 0)
			claim(strings.Contains(section, "(source: "+cell(l.Source)+")"), "the source of its consistency", l.Consistency == runtime.Strong || l.Lag > 0)
			claim(strings.Contains(section, "not found proves nothing"), "not found proves nothing", l.Consistency == runtime.Eventual && l.Lag == 0)
			list := l.Found != nil && slices.ContainsFunc(l.Found.Steps, func(st ir.Step) bool { return st.Kind == ir.StepEach })
			claim(strings.Contains(section, "reads one page"), "it reads one page", list && l.Pages == nil && l.Func == "")
			claim(strings.Contains(section, "reads the same pages again"), "a walk by number is read twice", l.Pages != nil && l.Pages.Cursor == nil)
			if strings.Contains(section, "the params ask for it") {
				t.Errorf("%s: %s: the report says the params ask for newest first without naming them", in[1], op.ID)
			}
		}
	}
	if lookups < 20 {
		t.Errorf("%d lookups read, want the golden cases' (20 or more)", lookups)
	}
}

// sectionOf returns the section of the report about the write op, "" without one.
func sectionOf(report, op string) string {
	start := strings.Index(report, "\n## "+op+": ")
	if start < 0 {
		return ""
	}
	rest := report[start+1:]
	if end := strings.Index(rest[3:], "\n## "); end >= 0 {
		return rest[:end+3]
	}
	return rest
}
