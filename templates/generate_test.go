package templates

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

// tempRoot returns a new directory under testdata (inside the module, so that generated code
// imports this module's runtime), removed when the test ends. The go command finds the packages
// below it with tempRoot + "/...".
func tempRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("testdata", "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return "./" + filepath.ToSlash(dir)
}

// writePackage writes files into a new directory under root, with the named extra files
// copied from testdata, and returns the directory.
func writePackage(t *testing.T, root string, files []File, extra map[string]string) string {
	t.Helper()
	dir, err := os.MkdirTemp(root, "pkg-")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for to, from := range extra {
		data, err := os.ReadFile(filepath.Join("testdata", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return "./" + filepath.ToSlash(dir)
}

// goCmd runs the go command in the templates directory.
func goCmd(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestGeneratedSampleBehaves generates the sample API, adds the lookup it names and a test of
// its behaviour against a local server, then vets and runs that test with the go command.
func TestGeneratedSampleBehaves(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	files, err := Generate(sampleAPI(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := writePackage(t, tempRoot(t), files, map[string]string{"lookups.go": "lookups.go.txt", "sample_test.go": "sample_test.go.txt"})
	goCmd(t, "vet", dir)
	goCmd(t, "test", "-count=1", dir)
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, err := Generate(sampleAPI(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(sampleAPI(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	var names []string
	for i := range a {
		names = append(names, a[i].Name)
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s differs between two runs", a[i].Name)
		}
	}
	if got := strings.Join(names, " "); got != "WRITE_SAFETY.json WRITE_SAFETY.md client.go inbox.go models.go operations.go" {
		t.Errorf("files %s", got)
	}
	for _, f := range a {
		if strings.HasSuffix(f.Name, ".go") && !bytes.HasPrefix(f.Data, []byte(Header+"\n\n")) {
			t.Errorf("%s does not start with the generated-code header", f.Name)
		}
	}
}

// TestHostileText checks that spec text cannot escape comments or string literals.
func TestHostileText(t *testing.T) {
	api := sampleAPI(t)
	hostile := "evil */ func init() { panic(1) } /*\n//go:generate rm -rf /\n\x00\u202e\ufeff\"` end"
	for _, ty := range api.Types {
		ty.Doc = hostile
		for _, f := range ty.Fields {
			f.Doc = hostile
		}
	}
	for _, op := range api.Operations {
		op.Summary, op.Doc = hostile, hostile
		if op.Safety != nil {
			op.Safety.Owner = hostile
		}
	}
	api.Title = hostile
	files, err := Generate(api, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		s := string(f.Data)
		for _, bad := range []string{"\x00", "\u202e", "\ufeff", "\n//go:generate", "\nfunc init"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s holds %q", f.Name, bad)
			}
		}
	}
	dir := writePackage(t, tempRoot(t), files, map[string]string{"lookups.go": "lookups.go.txt"})
	goCmd(t, "vet", dir)
}

func TestComment(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{" \t\n ", ""},
		{"a */ b", "// a */ b"},
		{"one\n\ntwo", "// one\n//\n// two"},
		{"line\r\nbreak", "// line break"},
		{"x\u202ey\u200bz\x07", "// xyz"},
		{"bad \xff byte", "// bad \ufffd byte"},
		{long, "// " + strings.TrimSpace(strings.Repeat("word ", 19)) + "\n// " + strings.TrimSpace(strings.Repeat("word ", 19)) + "\n// word word"},
	} {
		if got := comment(tc.in); got != tc.want {
			t.Errorf("comment(%q) =\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}

func TestFormatError(t *testing.T) {
	f := jen.NewFile("p")
	f.Func().Id("broken").Params().Block(jen.Id("x").Op(":=").Op("}"))
	_, err := render("broken.go", f)
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("render = %v, want a *FormatError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "generated broken.go does not parse") || !strings.Contains(msg, "     4\tfunc broken () {\n     5\tx := }\n     6\t}") {
		t.Errorf("error does not show the numbered source:\n%s", msg)
	}
	if !bytes.Contains(fe.Source, []byte("func broken")) {
		t.Error("Source does not hold the unformatted file")
	}
}
