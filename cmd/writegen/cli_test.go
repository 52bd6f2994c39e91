package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writegen builds the command into a temporary directory and returns a function that runs it
// in dir, returning its exit status, stdout and stderr.
func writegen(t *testing.T) cmdline {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "writegen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return func(dir string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
}

// copyCase copies the inputs of a golden case into a new directory.
func copyCase(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"openapi.yaml", "writesafety.yaml"} {
		data, err := os.ReadFile(filepath.Join(goldenRoot(t), name, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// cmdline runs the built command.
type cmdline func(dir string, args ...string) (int, string, string)

// TestCommandLine builds the command once and runs it: generate, check, init, version and usage
// errors, with their exit statuses and what they leave on disk.
func TestCommandLine(t *testing.T) {
	wg := writegen(t)
	t.Run("generate and check", func(t *testing.T) { testGenerateCheck(t, wg) })
	t.Run("refused run writes nothing", func(t *testing.T) { testRefused(t, wg) })
	t.Run("init, version and usage", func(t *testing.T) { testInitVersionUsage(t, wg) })
	t.Run("config file", func(t *testing.T) { testConfig(t, wg) })
	t.Run("help", func(t *testing.T) { testHelp(t, wg) })
	t.Run("inputs that say what to do", func(t *testing.T) { testInputErrors(t, wg) })
	t.Run("check -diff", func(t *testing.T) { testCheckDiff(t, wg) })
	t.Run("tools package", func(t *testing.T) { testToolsPackage(t, wg) })
}

// testToolsPackage runs generate and check with -mcp, which write a second package (the tools,
// in DIR/<package>mcp) beside the client: it must be written whole or not at all, checked as
// the client is, removed when -mcp is dropped, and refused outside a Go module, where the tools
// package could not import the client.
func testToolsPackage(t *testing.T, wg cmdline) {
	dir := copyCase(t, "mcp-desk")
	in := []string{"-spec", "openapi.yaml", "-annotations", "writesafety.yaml", "-out", "pkg", "-mcp"}
	golden := readTree(t, filepath.Join(goldenRoot(t), "mcp-desk", "want"))
	leftBehind := func(what string) {
		t.Helper()
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".writegen-") || e.Name() == "pkg" {
				t.Errorf("%s left %s behind", what, e.Name())
			}
		}
	}

	// Outside a module: refused, naming the flag, and nothing written.
	code, _, stderr := wg(dir, append([]string{"generate"}, in...)...)
	if want := "writegen: -mcp: -out pkg is in no Go module (no go.mod in it or above it): the tools package imports the client by its import path\n"; code != exitRefused || stderr != want {
		t.Errorf("generate -mcp outside a module: exit %d, %q; want %q", code, stderr, want)
	}
	leftBehind("a run outside a module")

	writeFile(t, filepath.Join(dir, "go.mod"), "module golden.test/mcp-desk\n")
	// A file where the tools package goes: refused before anything is written.
	os.Mkdir(filepath.Join(dir, "pkg"), 0o755)
	writeFile(t, filepath.Join(dir, "pkg", "deskmcp"), "")
	code, _, stderr = wg(dir, append([]string{"generate"}, in...)...)
	if want := "pkg/deskmcp: is a file; want the directory of the tools package (-mcp)"; code != exitRefused || !strings.Contains(stderr, want) {
		t.Errorf("generate over a file deskmcp: exit %d, %q; want %q", code, stderr, want)
	}
	if got := readTree(t, filepath.Join(dir, "pkg")); len(got) != 1 {
		t.Errorf("a refused run wrote %d files beside client/deskmcp", len(got)-1)
	}
	// A hand-written file with the generated file's name in the tools package: refused, and
	// nothing written.
	os.Remove(filepath.Join(dir, "pkg", "deskmcp"))
	os.Mkdir(filepath.Join(dir, "pkg", "deskmcp"), 0o755)
	writeFile(t, filepath.Join(dir, "pkg", "deskmcp", "tools.go"), "package deskmcp\n")
	code, _, stderr = wg(dir, append([]string{"generate"}, in...)...)
	if code != exitRefused || !strings.Contains(stderr, filepath.Join("pkg", "deskmcp", "tools.go")+": not written by writegen") {
		t.Errorf("generate over a hand-written deskmcp/tools.go: exit %d, %q", code, stderr)
	}
	if got := readTree(t, filepath.Join(dir, "pkg")); len(got) != 1 {
		t.Errorf("a refused run wrote %d files beside the hand-written deskmcp/tools.go", len(got)-1)
	}
	os.RemoveAll(filepath.Join(dir, "pkg"))

	// In a module: both packages, as the golden case has them (generated in pkg of
	// goldenModule/mcp-desk); check agrees.
	if code, _, stderr := wg(dir, append([]string{"generate"}, in...)...); code != 0 {
		t.Fatalf("generate -mcp: exit %d: %s", code, stderr)
	}
	diffTrees(t, readTree(t, filepath.Join(dir, "pkg")), golden)
	if code, _, stderr := wg(dir, append([]string{"check"}, in...)...); code != 0 {
		t.Errorf("check -mcp: exit %d: %s", code, stderr)
	}
	// check sees a stale tools package, and a hand-written file there is left alone.
	tools := filepath.Join(dir, "pkg", "deskmcp", "tools.go")
	writeFile(t, tools, strings.Replace(readFile(t, tools), "package deskmcp", "package deskmcp\n\n// edited by hand", 1))
	writeFile(t, filepath.Join(dir, "pkg", "deskmcp", "server.go"), "package deskmcp\n")
	if code, _, stderr := wg(dir, append([]string{"check"}, in...)...); code != exitRefused || !strings.Contains(stderr, "stale: deskmcp/tools.go") {
		t.Errorf("check of an edited tools.go: exit %d: %s", code, stderr)
	}
	// Without -mcp, check finds the tools extra, and generate removes them.
	noMCP := in[:len(in)-1]
	if code, _, stderr := wg(dir, append([]string{"check"}, noMCP...)...); code != exitRefused || !strings.Contains(stderr, "extra: deskmcp/tools.go") {
		t.Errorf("check without -mcp: exit %d: %s", code, stderr)
	}
	if code, _, stderr := wg(dir, append([]string{"generate"}, noMCP...)...); code != 0 {
		t.Fatalf("generate without -mcp: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(tools); !os.IsNotExist(err) {
		t.Errorf("generate without -mcp left deskmcp/tools.go: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pkg", "deskmcp", "server.go")); err != nil {
		t.Errorf("generate without -mcp removed a hand-written file of the tools package: %v", err)
	}
	// Once the tools package holds nothing, its directory goes too.
	os.Remove(filepath.Join(dir, "pkg", "deskmcp", "server.go"))
	if code, _, stderr := wg(dir, append([]string{"generate"}, in...)...); code != 0 {
		t.Fatalf("generate -mcp again: exit %d: %s", code, stderr)
	}
	if code, _, stderr := wg(dir, append([]string{"generate"}, noMCP...)...); code != 0 {
		t.Fatalf("generate without -mcp again: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "pkg", "deskmcp")); !os.IsNotExist(err) {
		t.Errorf("the empty directory of the tools package is left: %v", err)
	}
}

// testInputErrors checks the messages of inputs given wrongly: each names the flag, says what is
// wrong and what to do, and leaves nothing behind.
func testInputErrors(t *testing.T, wg cmdline) {
	dir := copyCase(t, "ledger")
	writeFile(t, filepath.Join(dir, "afile"), "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-spec", "missing.yaml", "-annotations", "writesafety.yaml", "-out", "client"},
			"writegen: -spec missing.yaml: no such file\n"},
		{[]string{"-spec", "openapi.yaml", "-annotations", "missing.yaml", "-out", "client"},
			"writegen: -annotations missing.yaml: no such file\n"},
		{[]string{"-spec", ".", "-annotations", "writesafety.yaml", "-out", "client"},
			"writegen: -spec .: is a directory; want a file\n"},
		{[]string{"-spec", "writesafety.yaml", "-annotations", "openapi.yaml", "-out", "client"},
			"writegen: -spec writesafety.yaml is a write-safety annotation file and -annotations openapi.yaml an OpenAPI document: swap them\n"},
		{[]string{"-spec", "openapi.yaml", "-annotations", "writesafety.yaml", "-out", "afile"},
			"writegen: -out afile: is a file; want the directory of the generated package (it is created if absent)\n"},
	} {
		for _, cmd := range []string{"generate", "check"} {
			code, _, stderr := wg(dir, append([]string{cmd}, tt.args...)...)
			if code != exitRefused || stderr != tt.want {
				t.Errorf("writegen %s %q: exit %d, stderr %q; want exit 1, %q", cmd, tt.args, code, stderr, tt.want)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".writegen-") || e.Name() == "client" {
			t.Errorf("a refused run left %s behind", e.Name())
		}
	}

	// check refuses a hand-written file with a generated file's name as generate does.
	in := []string{"-spec", "openapi.yaml", "-annotations", "writesafety.yaml", "-out", "client"}
	if code, _, stderr := wg(dir, append([]string{"generate"}, in...)...); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	writeFile(t, filepath.Join(dir, "client", "client.go"), "package threads\n")
	_, _, genErr := wg(dir, append([]string{"generate"}, in...)...)
	code, _, checkErr := wg(dir, append([]string{"check"}, in...)...)
	if code != exitRefused || checkErr != genErr || !strings.Contains(checkErr, "client.go: not written by writegen") {
		t.Errorf("check over a hand-written client.go: exit %d, %q; generate said %q", code, checkErr, genErr)
	}
}

// testCheckDiff checks that check -diff prints a unified diff of what generate would change.
func testCheckDiff(t *testing.T, wg cmdline) {
	dir := copyCase(t, "ledger")
	in := []string{"-spec", "openapi.yaml", "-annotations", "writesafety.yaml", "-out", "client"}
	if code, _, stderr := wg(dir, append([]string{"generate"}, in...)...); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	models := filepath.Join(dir, "client", "models.go")
	writeFile(t, models, strings.Replace(readFile(t, models), "package threads", "package threads\n\n// edited by hand", 1))
	code, stdout, stderr := wg(dir, append([]string{"check", "-diff"}, in...)...)
	if code != exitRefused || !strings.Contains(stderr, "stale: models.go") {
		t.Fatalf("check -diff: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"--- a/client/models.go\n+++ b/client/models.go\n@@ -", "\n-// edited by hand\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check -diff prints no %q:\n%s", want, stdout)
		}
	}
	if code, stdout, _ := wg(dir, append([]string{"check"}, in...)...); code != exitRefused || stdout != "" {
		t.Errorf("check without -diff printed a diff: %q", stdout)
	}
}

// testConfig runs generate and check with their inputs in writegen.yaml, as a //go:generate line
// without flags does, and checks that flags win over the file and that a bad file is refused at
// the bad key.
func testConfig(t *testing.T, wg cmdline) {
	dir := copyCase(t, "ledger")
	os.Mkdir(filepath.Join(dir, "api"), 0o755)
	for _, f := range []string{"openapi.yaml", "writesafety.yaml"} {
		os.Rename(filepath.Join(dir, f), filepath.Join(dir, "api", f))
	}
	writeFile(t, filepath.Join(dir, configFile), "# inputs of writegen generate\nspec: api/openapi.yaml\nannotations: api/writesafety.yaml\nout: client\n")
	if code, _, stderr := wg(dir, "generate"); code != 0 {
		t.Fatalf("generate from %s: exit %d: %s", configFile, code, stderr)
	}
	diffTrees(t, readTree(t, filepath.Join(dir, "client")), readTree(t, filepath.Join(goldenRoot(t), "ledger", "want")))
	if code, _, stderr := wg(dir, "check"); code != 0 {
		t.Errorf("check from %s: exit %d: %s", configFile, code, stderr)
	}
	if code, _, stderr := wg(dir, "generate", "-out", "other"); code != 0 {
		t.Fatalf("generate -out other: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "other", "client.go")); err != nil {
		t.Errorf("-out did not win over %s: %v", configFile, err)
	}

	writeFile(t, filepath.Join(dir, configFile), "spec: api/openapi.yaml\nanotations: api/writesafety.yaml\nout: client\n")
	code, _, stderr := wg(dir, "generate")
	if want := `writegen: writegen.yaml:2:1: unknown key "anotations" (did you mean "annotations"?)`; code != exitRefused || !strings.HasPrefix(stderr, want) {
		t.Errorf("a misspelt key: exit %d, stderr %q; want %q", code, stderr, want)
	}
	if code, _, stderr := wg(dir, "generate", "-config", "missing.yaml"); code != exitRefused || !strings.Contains(stderr, "missing.yaml") {
		t.Errorf("-config of a missing file: exit %d, %q", code, stderr)
	}
}

// testHelp checks "writegen help": the usage, a command's flags, the annotation reference.
func testHelp(t *testing.T, wg cmdline) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "writegen generate"},
		{[]string{"help", "generate"}, "-annotations"},
		{[]string{"help", "generate"}, "supportmcp.AddTools(s, c)"},
		{[]string{"help", "init"}, "-spec"},
		{[]string{"help", "annotations"}, "### `operations.NAME.key.scope`"},
		{[]string{"-version"}, "writegen "},
		{[]string{"schema"}, `"$schema": "https://json-schema.org/draft/2020-12/schema"`},
	} {
		code, stdout, stderr := wg(dir, tt.args...)
		if code != 0 || !strings.Contains(stdout, tt.want) {
			t.Errorf("writegen %q: exit %d, stdout lacks %q (stderr %q)", tt.args, code, tt.want, stderr)
		}
	}
	if code, _, stderr := wg(dir, "help", "genrate"); code != exitUsage || !strings.Contains(stderr, `did you mean "generate"?`) {
		t.Errorf("help genrate: exit %d, %q", code, stderr)
	}
	if code, _, stderr := wg(dir, "generat"); code != exitUsage || !strings.Contains(stderr, `did you mean "generate"?`) {
		t.Errorf("generat: exit %d, %q", code, stderr)
	}
}

func testGenerateCheck(t *testing.T, wg cmdline) {
	dir := copyCase(t, "ledger")
	in := []string{"-spec", "openapi.yaml", "-annotations", "writesafety.yaml", "-out", "client"}

	if code, _, stderr := wg(dir, append([]string{"generate"}, in...)...); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	want := readTree(t, filepath.Join(goldenRoot(t), "ledger", "want"))
	diffTrees(t, readTree(t, filepath.Join(dir, "client")), want)
	if code, _, stderr := wg(dir, append([]string{"check"}, in...)...); code != 0 {
		t.Errorf("check of a fresh package: exit %d: %s", code, stderr)
	}

	// A hand-written file stays; a generated file no longer generated goes; check reports both
	// kinds of difference and a stale file.
	writeFile(t, filepath.Join(dir, "client", "lookups.go"), "package threads\n")
	writeFile(t, filepath.Join(dir, "client", "old.go"), "// Code generated by writegen. DO NOT EDIT.\n\npackage threads\n")
	writeFile(t, filepath.Join(dir, "client", "models.go"), readFile(t, filepath.Join(dir, "client", "models.go"))+"// edited\n")
	os.Remove(filepath.Join(dir, "client", "WRITE_SAFETY.md"))
	code, _, stderr := wg(dir, append([]string{"check"}, in...)...)
	for _, s := range []string{"stale: models.go", "missing: WRITE_SAFETY.md", "extra: old.go"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("check stderr lacks %q:\n%s", s, stderr)
		}
	}
	if code != exitRefused || strings.Contains(stderr, "lookups.go") {
		t.Errorf("check of a stale package: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := wg(dir, append([]string{"generate"}, in...)...); code != 0 {
		t.Fatalf("generate again: exit %d: %s", code, stderr)
	}
	got := readTree(t, filepath.Join(dir, "client"))
	if _, ok := got["old.go"]; ok {
		t.Error("generate left a stale generated file")
	}
	if string(got["lookups.go"]) != "package threads\n" {
		t.Error("generate changed a hand-written file")
	}
	delete(got, "lookups.go")
	diffTrees(t, got, want)

	// A hand-written file with the name of a generated one is never overwritten.
	writeFile(t, filepath.Join(dir, "client", "client.go"), "package threads\n")
	if code, _, stderr := wg(dir, append([]string{"generate"}, in...)...); code != exitRefused || !strings.Contains(stderr, "not written by writegen") {
		t.Errorf("generate over a hand-written client.go: exit %d: %s", code, stderr)
	}
	if readFile(t, filepath.Join(dir, "client", "client.go")) != "package threads\n" {
		t.Error("a hand-written client.go was overwritten")
	}
}

// testRefused checks that a refusal exits 1, prints located errors and leaves neither the
// output directory nor a temporary one behind.
func testRefused(t *testing.T, wg cmdline) {
	dir := copyCase(t, "refuse-no-entry")
	code, stdout, stderr := wg(dir, "generate", "-spec", "openapi.yaml", "-annotations", "writesafety.yaml", "-out", "client")
	if code != exitRefused || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	if !strings.HasPrefix(stderr, `writegen: openapi.yaml:46:5: operation "deleteThread": `) {
		t.Errorf("stderr = %q", stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("a refused run left files behind: %v", entries)
	}
	if code, _, _ := wg(dir, "check", "-spec", "openapi.yaml", "-annotations", "writesafety.yaml", "-out", "client"); code != exitRefused {
		t.Errorf("check of refused inputs: exit %d", code)
	}
}

func testInitVersionUsage(t *testing.T, wg cmdline) {
	dir := copyCase(t, "objects")
	code, stdout, stderr := wg(dir, "init", "-spec", "openapi.yaml", "-package", "things")
	if code != 0 || !strings.Contains(stdout, "package: things") {
		t.Errorf("init: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, _ := wg(dir, "version"); code != 0 || !strings.HasPrefix(stdout, "writegen ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
	for _, args := range [][]string{
		nil,
		{"frobnicate"},
		{"generate", "-spec", "openapi.yaml"},
		{"generate", "-nope"},
		{"check", "-spec", "a", "-annotations", "b", "-out", "c", "stray"},
		{"init"},
	} {
		if code, _, stderr := wg(dir, args...); code != exitUsage || !strings.Contains(stderr, "usage") {
			t.Errorf("writegen %q: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
	if code, _, stderr := wg(dir, "generate", "-h"); code != 0 || !strings.Contains(stderr, "-annotations") {
		t.Errorf("generate -h: exit %d, %q", code, stderr)
	}
	if code, _, stderr := wg(dir, "init", "-spec", "missing.yaml"); code != exitRefused || !strings.HasPrefix(stderr, "writegen: ") {
		t.Errorf("init of a missing spec: exit %d, %q", code, stderr)
	}
}
