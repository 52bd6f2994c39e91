package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommand builds the command and runs it on an SQLite ledger.
func TestCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "writegen-ledger")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(t.TempDir(), "ledger.db")
	cmd := exec.Command(bin, "list", "-db", "sqlite:"+db)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "no such file") {
		t.Fatalf("list of a missing file: %v\n%s", err, out)
	}
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin, "list")
	cmd.Env = append(os.Environ(), "WRITEGEN_LEDGER=sqlite:"+db)
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "no uncertain claims\n" {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "frobnicate").CombinedOutput()
	if e, ok := err.(*exec.ExitError); !ok || e.ExitCode() != 2 || !strings.Contains(string(out), "usage:") {
		t.Fatalf("an unknown command: %v\n%s", err, out)
	}
}
