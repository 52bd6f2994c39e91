package main

import (
	"bytes"
	"context"
	"flag"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// The golden cases live in testdata/golden/<case>/ at the root of the module: openapi.yaml and
// writesafety.yaml are the inputs, with the other files of a spec split across several in
// subdirectories beside them (every directory but want/ and old/); want/ is the whole package that writegen generate must
// write, and stderr.txt what it must print (its warnings, or the refusal of a case without
// want/). An old/ directory is the package as a previous generation left it (its
// WRITE_SAFETY.json is the record the answers are compared with): it is copied into the output
// directory first, and writegen check must then print what generate prints. A lookups.go.txt
// beside them is the part of the package a person writes by hand (a lookup), added when the
// package is compiled.
//
// After a deliberate change of the generated code, rewrite want/ and stderr.txt with
//
//	go test ./cmd/writegen -run Golden -update
//
// and review the diff before committing it.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenRoot is testdata/golden, from this package's directory.
func goldenRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// goldenCases lists the case directories.
func goldenCases(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(goldenRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	return cases
}

// readTree reads every file of dir, and of its subdirectories (the tools package of a case
// generated with -mcp), by its slash-separated path relative to dir; a missing dir is empty.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	readSubtree(t, dir, "", files)
	return files
}

func readSubtree(t *testing.T, dir, sub string, files map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, sub))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := path.Join(sub, e.Name())
		if e.IsDir() {
			readSubtree(t, dir, name, files)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
}

// inputTree reads the inputs of a case: the files of its directory and its subdirectories (the
// other files of a spec split across several), without want/ and old/.
func inputTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for name, data := range readTree(t, dir) {
		if !strings.HasPrefix(name, "want/") && !strings.HasPrefix(name, "old/") {
			files[name] = data
		}
	}
	return files
}

// goldenModule is the module path of the directory each case runs in (followed by the case's
// name): the tools package of a case generated with -mcp imports the client as
// goldenModule/<case>/pkg, which TestGoldenPackagesCompile builds in a module of that name.
const goldenModule = "golden.test"

// diffTrees reports every difference between the generated tree and the golden one.
func diffTrees(t *testing.T, got, want map[string][]byte) {
	t.Helper()
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		g, gok := got[n]
		w, wok := want[n]
		switch {
		case !gok:
			t.Errorf("%s: not generated", n)
		case !wok:
			t.Errorf("%s: generated, not in want/", n)
		case !bytes.Equal(g, w):
			gl, wl := strings.Split(string(g), "\n"), strings.Split(string(w), "\n")
			i := 0
			for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
				i++
			}
			line := func(l []string) string {
				if i < len(l) {
					return l[i]
				}
				return "(end of file)"
			}
			t.Errorf("%s differs from line %d:\n got: %s\nwant: %s", n, i+1, line(gl), line(wl))
		}
	}
}

// TestGolden runs writegen generate on every case, in process, and compares the whole output
// tree with want/ (or what it prints with stderr.txt). It then runs writegen check against
// want/, which generates again: the output must be byte-identical from run to run. A case with
// old/ runs writegen check against a copy of old/ too: a refusal must be the same.
func TestGolden(t *testing.T) {
	root := goldenRoot(t)
	for _, name := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			// The case runs in a copy of its inputs, so that messages name the files as a user
			// would: openapi.yaml, pkg/WRITE_SAFETY.json.
			caseDir := filepath.Join(root, name)
			inputs := inputTree(t, caseDir) // want/ and old/ are read below
			tmp := t.TempDir()
			writeTree(t, tmp, inputs)
			// The case runs in a module of its own, as a connector's package does.
			writeTree(t, tmp, map[string][]byte{"go.mod": []byte("module " + goldenModule + "/" + name + "\n")})
			t.Chdir(tmp)
			old := readTree(t, filepath.Join(caseDir, "old"))
			const out = "pkg"
			writeTree(t, out, old)
			args := []string{"-spec", "openapi.yaml", "-annotations", "writesafety.yaml", "-out", out}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"generate"}, args...), &stdout, &stderr)
			if *update {
				rewrite(t, caseDir, code, out, stderr.Bytes())
			}
			wantErr := inputs["stderr.txt"]
			if *update {
				wantErr, _ = os.ReadFile(filepath.Join(caseDir, "stderr.txt"))
			}
			want := readTree(t, filepath.Join(caseDir, "want"))
			refused := len(want) == 0
			switch {
			case refused && code != exitRefused:
				t.Fatalf("generate: exit %d, want %d (refused)", code, exitRefused)
			case !refused && code != exitOK:
				t.Fatalf("generate: exit %d:\n%s", code, stderr.Bytes())
			}
			if got := stderr.String(); got != string(wantErr) {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, wantErr)
			}
			if stdout.Len() > 0 {
				t.Errorf("generate printed %q", stdout.Bytes())
			}
			if refused {
				diffTrees(t, readTree(t, out), old) // nothing written
			} else {
				diffTrees(t, readTree(t, out), want)
			}
			var checkDir string
			if refused {
				if len(old) == 0 {
					return
				}
				checkDir = "old"
				writeTree(t, checkDir, old)
				args[len(args)-1] = checkDir
				wantErr = bytes.ReplaceAll(wantErr, []byte(out+"/"), []byte(checkDir+"/"))
			} else {
				// Against want/ as the package's own directory: the tools package imports the
				// client by its directory's import path.
				checkDir = out
				if err := os.RemoveAll(out); err != nil {
					t.Fatal(err)
				}
				writeTree(t, checkDir, want)
			}
			stderr.Reset()
			code = run(context.Background(), append([]string{"check"}, args...), &stdout, &stderr)
			switch {
			case refused && (code != exitRefused || stderr.String() != string(wantErr)):
				t.Errorf("check against old/: exit %d:\n%s\nwant exit %d:\n%s", code, stderr.Bytes(), exitRefused, wantErr)
			case !refused && code != exitOK:
				t.Errorf("check against want/: exit %d:\n%s", code, stderr.Bytes())
			}
		})
	}
}

// writeTree writes files, by their slash-separated paths, into dir, which it creates (with the
// subdirectories the paths name) when there are files.
func writeTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rewrite updates the golden files of the case in caseDir after a generate into out that ended
// with code, having printed stderr.
func rewrite(t *testing.T, caseDir string, code int, out string, stderr []byte) {
	t.Helper()
	want := filepath.Join(caseDir, "want")
	if err := os.RemoveAll(want); err != nil {
		t.Fatal(err)
	}
	switch code {
	case exitOK:
		writeTree(t, want, readTree(t, out))
	case exitRefused:
	default:
		t.Fatalf("generate: exit %d:\n%s", code, stderr)
	}
	var err error
	if len(stderr) == 0 {
		err = os.Remove(filepath.Join(caseDir, "stderr.txt"))
	} else {
		err = os.WriteFile(filepath.Join(caseDir, "stderr.txt"), stderr, 0o644)
	}
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// TestGoldenPackagesCompile vets every golden package, with its hand-written lookups, with the
// go command: the packages must compile and be vet-clean. They are copied into a module of
// their own (goldenModule), each case's at <case>/pkg as TestGolden generates it, in a
// temporary directory inside this module's testdata, whose go.mod requires this module by a
// replace directive to its directory: the packages import this module's runtime, and a tools
// package its client, as a connector's do. A case with a provider_test.go.txt holds a test of
// the generated package against a provider behind a real HTTP server: it is added as
// provider_test.go, and the packages that have one are tested.
func TestGoldenPackagesCompile(t *testing.T) {
	root := goldenRoot(t)
	module := filepath.Join(root, "..", "..")
	tmp, err := os.MkdirTemp(filepath.Join(module, "testdata"), "vet-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	n := 0
	var tested []string // the packages with a provider test, relative to tmp
	for _, name := range goldenCases(t) {
		want := readTree(t, filepath.Join(root, name, "want"))
		if len(want) == 0 {
			continue
		}
		if lookups, err := os.ReadFile(filepath.Join(root, name, "lookups.go.txt")); err == nil {
			want["lookups.go"] = lookups
		}
		if test, err := os.ReadFile(filepath.Join(root, name, "provider_test.go.txt")); err == nil {
			want["provider_test.go"] = test
			tested = append(tested, "./"+name+"/pkg")
		}
		writeTree(t, filepath.Join(tmp, name, "pkg"), want)
		for file, data := range want {
			if path.Base(file) == "tools.go" && path.Dir(file) != "." {
				writeTree(t, filepath.Join(tmp, name), map[string][]byte{"server/main.go": docServer(t, name, path.Dir(file), data)})
			}
		}
		n++
	}
	if n == 0 {
		t.Fatal("no golden package")
	}
	writeTree(t, tmp, goldenModuleFiles(t, module))
	goIn := func(args ...string) ([]byte, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = tmp
		// The module is not published: resolve it from the replace directive and the module
		// cache, which this repository's own build filled.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
		return cmd.CombinedOutput()
	}
	if out, err := goIn("vet", "./..."); err != nil {
		t.Fatalf("go vet of the golden packages: %v\n%s", err, out)
	}
	if len(tested) == 0 {
		return
	}
	out, err := goIn(append([]string{"test", "-count=1"}, tested...)...)
	if err != nil {
		t.Fatalf("go test of the golden packages against their providers: %v\n%s", err, out)
	}
	t.Logf("go test of the golden packages against their providers:\n%s", out)
}

// docServer is a program made of the MCP server that the doc comment of the tools package
// (tools, its directory in pkg) shows, so that the lines the doc gives the user compile.
func docServer(t *testing.T, name, tools string, src []byte) []byte {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "tools.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, line := range strings.Split(f.Doc.Text(), "\n") {
		if strings.HasPrefix(line, "\t") {
			code = append(code, line)
		}
	}
	client := goldenModule + "/" + name + "/pkg"
	var alias string
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == client && imp.Name != nil {
			alias = imp.Name.Name + " "
		}
	}
	if len(code) == 0 {
		t.Fatalf("%s: the doc of %s shows no server", name, tools)
	}
	return []byte(`package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/writegen/writegen/runtime"

	` + alias + strconv.Quote(client) + `
	` + strconv.Quote(client+"/"+tools) + `
)

func main() {
	ctx := context.Background()
	var baseURL string
	var ledger runtime.Ledger
	_ = ledger
` + strings.Join(code, "\n") + `
	_ = err
}
`)
}

// goldenModuleFiles are the go.mod and go.sum of the module the golden packages are built in:
// this module's requirements and checksums, and this module itself, replaced by its directory.
func goldenModuleFiles(t *testing.T, module string) map[string][]byte {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(module, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(module, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", mod, nil)
	if err != nil {
		t.Fatal(err)
	}
	self := f.Module.Mod.Path
	if err := f.AddModuleStmt(goldenModule); err != nil {
		t.Fatal(err)
	}
	if err := f.AddRequire(self, "v0.0.0"); err != nil {
		t.Fatal(err)
	}
	if err := f.AddReplace(self, "", "../..", ""); err != nil { // from testdata/vet-*
		t.Fatal(err)
	}
	mod, err = f.Format()
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{"go.mod": mod, "go.sum": sum}
}

// TestGoldenInit runs writegen init on the spec of every case that has an init.yaml, with the
// package its writesafety.yaml names, and compares what it prints with init.yaml: a case's
// writesafety.yaml is then init's output as a person answered it.
func TestGoldenInit(t *testing.T) {
	root := goldenRoot(t)
	for _, name := range goldenCases(t) {
		want, err := os.ReadFile(filepath.Join(root, name, "init.yaml"))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			t.Chdir(filepath.Join(root, name))
			answers, err := os.ReadFile("writesafety.yaml")
			if err != nil {
				t.Fatal(err)
			}
			pkg := regexp.MustCompile(`(?m)^package: (\S+)$`).FindSubmatch(answers)
			if pkg == nil {
				t.Fatal("writesafety.yaml names no package")
			}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), []string{"init", "-spec", "openapi.yaml", "-package", string(pkg[1])}, &stdout, &stderr); code != exitOK {
				t.Fatalf("init: exit %d\n%s", code, stderr.Bytes())
			}
			if *update {
				if err := os.WriteFile("init.yaml", stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				want = stdout.Bytes()
			}
			diffTrees(t, map[string][]byte{"init.yaml": stdout.Bytes()}, map[string][]byte{"init.yaml": want})
		})
	}
}
