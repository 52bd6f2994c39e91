package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/writegen/writegen/bench/conformance/drive"
)

// The conformance run is shared by the tests below: one generation, one build of the driver,
// and Prism started once per spec and mode.
var (
	runOnce sync.Once
	report  *Report
	runErr  error
)

// corpusRun runs the conformance suite over every corpus spec but Stripe, once per test binary,
// each tool once per argument set and mode (-calls 1: the argument sets and the two modes make
// several calls per operation). It skips when the corpus is absent, or when Prism is not
// installed, except on CI (CI set), where that is a failure: .ci/run installs it.
func corpusRun(t *testing.T) *Report {
	t.Helper()
	if testing.Short() {
		t.Skip("drives every corpus spec against Prism")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(CorpusDir(root)); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("corpus specs not found: %s is absent", CorpusDir(root))
	}
	prism, err := FindPrism()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	runOnce.Do(func() {
		var log strings.Builder
		report, runErr = Run(context.Background(), Options{Root: root, Prism: prism, Modes: "static,dynamic", Calls: 1, Jobs: 2}, &log)
		if runErr == nil {
			var table strings.Builder
			report.Print(&table, false)
			t.Logf("%s\n%s", log.String(), table.String())
		}
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	return report
}

// failures fails t for each failure of writegen's own (not in known.tsv) of the classes named.
func failures(t *testing.T, rep *Report, classes ...string) {
	t.Helper()
	n := 0
	for _, r := range rep.Unlisted() {
		for _, c := range classes {
			if r.Class == c {
				n++
				if n <= 40 {
					t.Errorf("%s, %s: tool %s (%s): %s: %s", r.Spec, r.Mode, r.Tool, r.Set, r.Class, r.Detail)
				}
			}
		}
	}
	if n > 40 {
		t.Errorf("... %d failures in all", n)
	}
}

// TestPromise56_CorpusAnswersDecode: every 2xx answer Prism gives from a corpus spec's examples
// (static) or from its schemas (dynamic) decodes into the generated types, for every operation
// in scope, except the failures known.tsv lists with their reasons.
func TestPromise56_CorpusAnswersDecode(t *testing.T) {
	failures(t, corpusRun(t), drive.ClassDecode)
}

// TestPromise57_CorpusRequestsMatchTheSpec: every call of every generated tool, its arguments
// filled from its own input schema (required properties only, and all of them once per member
// of its widest union), sends a request Prism finds no violation in, and is not refused by the
// tool, nor fails otherwise, except the failures known.tsv lists with their reasons.
func TestPromise57_CorpusRequestsMatchTheSpec(t *testing.T) {
	failures(t, corpusRun(t), drive.ClassViolation, drive.ClassRefused, drive.ClassAnswer, drive.ClassRejected, drive.ClassUncertain, drive.ClassFailed)
}

// TestKnownFileReads checks that known.tsv reads, each entry with its reason.
func TestKnownFileReads(t *testing.T) {
	known, err := ReadKnown(KnownFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range known {
		if k.Reason == "" || k.Class == "" || k.Spec == "" {
			t.Errorf("line %d: %+v", k.Line, k)
		}
	}
}

// TestModuleDirResolves writes the module the driver is built in and asks the go command, with
// its go.mod and go.sum as written, for the packages the driver and the generated packages
// import: each module of this repository is found in its directory, and go.sum holds the rest.
func TestModuleDirResolves(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := moduleDir(root, dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}} {{.Dir}}{{end}}",
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"github.com/writegen/writegen/bench/conformance/drive",
		"github.com/writegen/writegen/runtime",
		"github.com/writegen/writegen/runtime/mcptools",
		"github.com/writegen/writegen/runtime/writegenimpl")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	want := map[string]string{
		"github.com/writegen/writegen":       root,
		"github.com/writegen/writegen/bench": filepath.Join(root, "bench"),
	}
	for line := range strings.Lines(string(out)) {
		path, got, _ := strings.Cut(strings.TrimSpace(line), " ")
		if d, ok := want[path]; ok {
			if got != d {
				t.Errorf("module %s is in %s; want %s", path, got, d)
			}
			delete(want, path)
		}
	}
	for path := range want {
		t.Errorf("no package of module %s listed:\n%s", path, out)
	}
}
