package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The demo runs to its checks and prints its summary.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ok, err := run(t.Context(), out, config{n: 20, seed: 5, faults: 0.3, db: filepath.Join(dir, "ledger.db"), instant: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !ok || !strings.Contains(string(b), "20 conversations asked for a person") || !strings.Contains(string(b), "Checked: ") {
		t.Errorf("demo failed or printed no summary:\n%s", b)
	}
}
