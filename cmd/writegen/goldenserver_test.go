package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenServers runs, for every golden case with a server_test.go.txt, that test beside the
// case's generated package (want/, with its lookups.go.txt): a real HTTP server that commits the
// writes, loses their answers and answers the lookups, driven through the generated client.
func TestGoldenServers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the golden packages")
	}
	root := goldenRoot(t)
	module := filepath.Join(root, "..", "..")
	tmp, err := os.MkdirTemp(filepath.Join(module, "testdata"), "server-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	n := 0
	for _, name := range goldenCases(t) {
		test, err := os.ReadFile(filepath.Join(root, name, "server_test.go.txt"))
		if err != nil {
			continue
		}
		want := readTree(t, filepath.Join(root, name, "want"))
		if len(want) == 0 {
			t.Fatalf("%s: a server test without want/", name)
		}
		for name := range want {
			if strings.Contains(name, "/") {
				// The tools package (-mcp) imports the client by the golden cases' own module
				// path: the test runs the client alone.
				delete(want, name)
			}
		}
		want["server_test.go"] = test
		if lookups, err := os.ReadFile(filepath.Join(root, name, "lookups.go.txt")); err == nil {
			want["lookups.go"] = lookups
		}
		writeTree(t, filepath.Join(tmp, name), want)
		n++
	}
	if n == 0 {
		t.Fatal("no golden case has a server test")
	}
	rel, err := filepath.Rel(module, tmp)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-count=1", "-timeout=3m", "./"+filepath.ToSlash(rel)+"/...")
	cmd.Dir = module
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test of the golden server tests: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
