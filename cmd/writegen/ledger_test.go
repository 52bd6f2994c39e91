package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// TestLedgerCommand runs "writegen ledger" through the dispatcher, with writegen-ledger built
// and on PATH, on a real SQLite ledger: its output, and its exit statuses passed on.
func TestLedgerCommand(t *testing.T) {
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", bin, "../writegen-ledger").CombinedOutput(); err != nil {
		t.Fatalf("go build writegen-ledger: %v\n%s", err, out)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	id := runtime.Identity{Scope: "support-desk", Operation: "create-thread", BusinessKey: "escalation:42"}
	rec, _, err := l.Claim(ctx, runtime.Record{Identity: id, OperationID: "createThread", Owner: "support-ops",
		ProviderKey: runtime.ProviderKey(id, 64, nil)}, runtime.Holder{Owner: "test"}, time.Minute)
	if err == nil {
		err = l.Settle(ctx, rec.ID, rec.Fence, runtime.StateUncertain, runtime.Settlement{Attempts: 2, LastError: "ambiguous without key or lookup: EOF"})
	}
	l.Close()
	if err != nil {
		t.Fatal(err)
	}
	wg := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(ctx, args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, out, errOut := wg("ledger", "list", "-db", "sqlite:"+path)
	if code != 0 {
		t.Fatalf("ledger list: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"create-thread", "escalation:42", "support-desk", "support-ops", "ambiguous without key or lookup: EOF"} {
		if !strings.Contains(out, want) {
			t.Errorf("ledger list does not show %q:\n%s", want, out)
		}
	}
	if code, _, _ := wg("ledger"); code != exitUsage {
		t.Errorf("ledger without a command: exit %d, want %d", code, exitUsage)
	}
	if code, _, errOut := wg("ledger", "list", "-db", "sqlite:"+filepath.Join(t.TempDir(), "missing.db")); code != exitRefused || !strings.Contains(errOut, "missing.db") {
		t.Errorf("list of a missing file: exit %d: %s", code, errOut)
	}
	if code, out, _ := wg("help", "ledger"); code != 0 || !strings.Contains(out, "resolve") {
		t.Errorf("help ledger: exit %d: %s", code, out)
	}
}

// TestLedgerCommandFallback checks that without writegen-ledger on PATH the dispatcher runs it
// with "go run" in the current module, which pins its version.
func TestLedgerCommandFallback(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	cmd, viaGo := ledgerCmd(context.Background(), []string{"list", "-state", "uncertain"})
	if !viaGo {
		t.Error("without writegen-ledger on PATH, ledgerCmd does not go through the go command")
	}
	if want := []string{"run", ledgerPackage, "list", "-state", "uncertain"}; !slices.Equal(cmd.Args[1:], want) {
		t.Errorf("args %q, want go %q", cmd.Args, want)
	}
}

// TestLedgerOutsideModuleSaysGoGetTool runs "writegen ledger" without writegen-ledger on PATH in
// a module that does not require writegen: instead of Go's "no required module provides
// package", it says to add the command as a tool of the module, and exits refused.
func TestLedgerOutsideModuleSaysGoGetTool(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOROOT", strings.TrimSpace(string(goroot)))
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/connector\n\ngo 1.24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ledger", "list", "-db", "sqlite:ledger.db"}, &stdout, &stderr)
	if code != exitRefused {
		t.Errorf("exit %d, want %d", code, exitRefused)
	}
	msg := stderr.String()
	if want := "go get -tool " + ledgerPackage; !strings.Contains(msg, want) {
		t.Errorf("stderr does not say %q:\n%s", want, msg)
	}
	if !strings.Contains(msg, dir) {
		t.Errorf("stderr does not name the module's directory %s:\n%s", dir, msg)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout: %q", stdout.Bytes())
	}
}
