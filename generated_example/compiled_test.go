package example

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	// Imported so that go test's cache knows the result depends on them and on the runtime.
	_ "github.com/writegen/writegen/generated_example/chat"
	_ "github.com/writegen/writegen/generated_example/support"
)

// executorShape matches a shaped instance of the executor's generic functions and types, with its
// type arguments.
var executorShape = regexp.MustCompile(`writegenimpl\.(WriteInto|SubmitInto|keyedOf|codecOf|ResumeAll|ResumableWrite)\[(go\.shape\..*)\]`)

// pointerShapes are type arguments that are all pointer shapes.
var pointerShapes = regexp.MustCompile(`^go\.shape\.\*uint8(,go\.shape\.\*uint8)*$`)

// TestCompiledOnce builds the generated clients and reads their symbols: what keeps a large
// generated package cheap to compile must hold. The executor's generic entry points are
// instantiated with pointer shapes only, so that the compiler makes one body of each for a
// whole package instead of one per response type; and the package's init is empty (the
// operation descriptors and the table Resume hands the runtime are data, not code that grows
// with the API). The MCP tools of support are in a package of their own (supportmcp), not in it.
func TestCompiledOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generated packages")
	}
	for _, pkg := range []string{"chat", "support"} {
		t.Run(pkg, func(t *testing.T) {
			archive := filepath.Join(t.TempDir(), pkg+".a")
			if out, err := exec.Command("go", "build", "-o", archive, "./"+pkg).CombinedOutput(); err != nil {
				t.Fatalf("go build ./%s: %v\n%s", pkg, err, out)
			}
			out, err := exec.Command("go", "tool", "nm", "-size", archive).Output()
			if err != nil {
				t.Fatalf("go tool nm: %v", err)
			}
			shaped := 0
			initSize := -1
			for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
				// address size type name; the name of a shape holds spaces.
				f := strings.Fields(sc.Text())
				if len(f) < 4 || f[2] != "T" {
					continue
				}
				name := strings.Join(f[3:], " ")
				if m := executorShape.FindStringSubmatch(name); m != nil {
					shaped++
					if !pointerShapes.MatchString(m[2]) {
						t.Errorf("%s is instantiated with a shape other than a pointer's, compiled once per such type: %.200s", m[1], m[2])
					}
				}
				if name == "github.com/writegen/writegen/generated_example/"+pkg+".init" {
					initSize, _ = strconv.Atoi(f[1])
				}
			}
			if shaped == 0 {
				t.Errorf("no shaped instance of the executor's entry points in %s: the symbols are not what this test reads", pkg)
			}
			if initSize > 16 {
				t.Errorf("%s's init is %d bytes: some package-level value is built by code at start-up", pkg, initSize)
			}
		})
	}
}
