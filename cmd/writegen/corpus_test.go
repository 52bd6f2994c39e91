package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// The corpus tests run writegen on real provider specs. The specs are other people's files and
// are not part of this repository: they are read from ../shared/corpus/specs beside the module
// root, and the tests skip when that folder is absent. The write-safety answers for each spec are
// in testdata/corpus/<spec name>.writesafety.yaml.

// corpusSpecs are the corpus specs that writegen must turn into a package that builds and passes
// go vet, for every operation its annotation file does not exclude.
var corpusSpecs = []string{
	"adyen-checkout.json",
	"intercom.yaml",
	"paypal-orders.json",
	"petstore-2.0.json",
	"petstore-3.0.yaml",
	"petstore-expanded-2.0.yaml",
	"square.json",
	"stripe.json",
	"twilio-api-v2010.json",
}

// moduleRoot is the root of this module, from this package's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// corpusDir returns the folder of the corpus specs; it skips the test when the folder is absent.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "..", "shared", "corpus", "specs")
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("corpus specs not found: %s is absent", dir)
	} else if err != nil {
		t.Fatal(err)
	}
	return dir
}

// corpusAnnotations is the annotation file of a corpus spec.
func corpusAnnotations(t *testing.T, specFile string) string {
	t.Helper()
	name := strings.TrimSuffix(specFile, filepath.Ext(specFile)) + ".writesafety.yaml"
	return filepath.Join(moduleRoot(t), "testdata", "corpus", name)
}

// corpusPackageDir is the directory name of the package generated from a spec: its base name
// without the extension and the characters an import path would rather not have.
func corpusPackageDir(specFile string) string {
	return strings.NewReplacer(".", "", "-", "").Replace(strings.TrimSuffix(specFile, filepath.Ext(specFile)))
}

// corpusModule is the module path of the module that corpusModuleDir makes.
const corpusModule = "writegencorpus"

// corpusModuleDir returns a new module in a temporary directory, for generated packages and the
// programs that use them: it requires this module, replaced by its root directory, with this
// module's own requirements and go.sum. The packages have the same import path in every test and
// run, so with -trimpath the go command reuses what it compiled for the same files before.
func corpusModuleDir(t *testing.T) string {
	t.Helper()
	root := moduleRoot(t)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	own, rest, ok := bytes.Cut(gomod, []byte("\n"))
	if !ok || !bytes.HasPrefix(own, []byte("module ")) {
		t.Fatalf("%s does not start with its module line", filepath.Join(root, "go.mod"))
	}
	mod := fmt.Sprintf("module %s\n%s\nrequire %s v0.0.0\n\nreplace %s => %s\n",
		corpusModule, rest, bytes.TrimPrefix(own, []byte("module ")), bytes.TrimPrefix(own, []byte("module ")), root)
	dir := t.TempDir()
	for name, data := range map[string][]byte{"go.mod": []byte(mod), "go.sum": gosum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// generateCorpus runs writegen generate on a corpus spec into out/<package dir>, then
// writegen check on the result, which generates again and fails unless every byte is the same.
// It returns the directory of the package.
func generateCorpus(t *testing.T, specsDir, specFile, out string) string {
	t.Helper()
	dir := filepath.Join(out, corpusPackageDir(specFile))
	args := []string{"-spec", filepath.Join(specsDir, specFile), "-annotations", corpusAnnotations(t, specFile), "-out", dir}
	for _, cmd := range []string{"generate", "check"} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{cmd}, args...), &stdout, &stderr); code != exitOK {
			t.Fatalf("writegen %s %s: exit status %d\n%s%s", cmd, specFile, code, stdout.String(), stderr.String())
		}
	}
	// The part of the package a person writes by hand (a lookup), when there is one.
	lookups := strings.TrimSuffix(corpusAnnotations(t, specFile), ".writesafety.yaml") + ".lookups.go.txt"
	if data, err := os.ReadFile(lookups); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "lookups.go"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goCommand runs the go command in dir and returns its combined output.
func goCommand(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TestCorpus generates a package for every operation of every corpus spec that its annotation
// file does not exclude, and checks that the packages build and pass go vet.
func TestCorpus(t *testing.T) {
	specsDir := corpusDir(t)
	mod := corpusModuleDir(t)
	for _, specFile := range corpusSpecs {
		dir := generateCorpus(t, specsDir, specFile, mod)
		want := specOperations(t, filepath.Join(specsDir, specFile)) - excludedOperations(t, corpusAnnotations(t, specFile))
		if got := generatedOperations(t, dir); got != want {
			t.Errorf("%s: %d operations generated, the spec has %d", specFile, got, want)
		}
		leakedPaths(t, dir, specsDir, moduleRoot(t), mod)
	}
	goCommand(t, mod, "build", "-trimpath", "./...")
	goCommand(t, mod, "vet", "-trimpath", "./...")
}

// TestCorpusRefusesSquare checks that the Square spec, which refers to a schema it does not
// define, is refused while the operations that reach the schema are in scope, with the file,
// the position, the reference and the first operation named, exit status 1, and nothing
// written.
func TestCorpusRefusesSquare(t *testing.T) {
	square := filepath.Join(corpusDir(t), "square.json")
	tmp := t.TempDir()
	annotations := filepath.Join(tmp, "square.writesafety.yaml")
	if err := os.WriteFile(annotations, []byte("version: 1\npackage: square\nscope: square\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "square")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"generate", "-spec", square, "-annotations", annotations, "-out", out}, &stdout, &stderr)
	if code != exitRefused {
		t.Errorf("exit status %d, want %d", code, exitRefused)
	}
	first := "writegen: " + square + `:9946:21: operation "BatchRetrieveCatalogObjects": unresolved reference "#/components/schemas/CatalogModifierToggleOverrideType": nothing in the file is at that path; correct the spec, or leave the operation out of scope`
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if lines[0] != first {
		t.Errorf("first line of stderr:\n%s\nwant:\n%s", lines[0], first)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "writegen: "+square+":") {
			t.Errorf("stderr line does not start with the file and its position: %s", l)
		}
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout: %s", stdout.String())
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("refused run left %s behind (stat: %v)", out, err)
	}
}

// excludedOperations counts the entries under exclude in an annotation file.
func excludedOperations(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Exclude map[string]string `yaml:"exclude"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return len(a.Exclude)
}

// httpMethods are the operations a path item may hold.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// specOperations counts the operations (path and method) of a spec, read on its own.
func specOperations(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths" yaml:"paths"`
	}
	if filepath.Ext(path) == ".json" {
		err = json.Unmarshal(data, &doc)
	} else {
		err = yaml.Unmarshal(data, &doc)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	n := 0
	for _, item := range doc.Paths {
		for _, m := range httpMethods {
			if _, ok := item[m]; ok {
				n++
			}
		}
	}
	return n
}

// operationDescriptor matches the descriptor generated for each operation.
var operationDescriptor = regexp.MustCompile(`(?m)^var \w+Op = &writegenimpl\.Operation\{$`)

// generatedOperations counts the operation descriptors in the Go files of dir.
func generatedOperations(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += len(operationDescriptor.FindAll(data, -1))
	}
	return n
}

// leakedPaths fails when a generated file names a directory of this machine.
func leakedPaths(t *testing.T, dir string, paths ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if bytes.Contains(data, []byte(p)) {
				t.Errorf("%s names %s: generated files must not hold paths of this machine", e.Name(), p)
			}
		}
	}
}
