package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// TestLedgerCommand runs "writegen ledger list" and "resolve" through the
// command's dispatcher on a real SQLite ledger.
func TestLedgerCommand(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := l.Claim(ctx, runtime.Record{Operation: "createThread", BusinessKey: "escalation:42", ProviderKey: "createThread:escalation:42", Owner: "support-ops"})
	if err == nil {
		err = l.Settle(ctx, rec.ID, runtime.StateUncertain, runtime.Settlement{Attempts: 2, LastError: "ambiguous without key or lookup: EOF"})
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
	db := "sqlite:" + path

	code, out, errOut := wg("ledger", "list", "-db", db)
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"OPERATION", "createThread", "escalation:42", "support-ops", "ambiguous without key or lookup: EOF"} {
		if !strings.Contains(out, want) {
			t.Errorf("list does not show %q:\n%s", want, out)
		}
	}

	t.Setenv("WRITEGEN_LEDGER", db)
	code, out, errOut = wg("ledger", "list", "-json")
	var rows []struct {
		ID       int64  `json:"id"`
		Attempts int    `json:"attempts"`
		Owner    string `json:"owner"`
	}
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) != 1 || rows[0].ID != rec.ID || rows[0].Attempts != 2 {
		t.Fatalf("list -json from $WRITEGEN_LEDGER: exit %d, %v: %s%s", code, err, out, errOut)
	}

	id := strconv.FormatInt(rec.ID, 10)
	if code, _, errOut := wg("ledger", "resolve", "-id", id, "-committed", "-reason", "seen in the desk"); code != 2 || !strings.Contains(errOut, "-provider-id") {
		t.Fatalf("resolve -committed without -provider-id: exit %d: %s", code, errOut)
	}
	if code, out, errOut := wg("ledger", "resolve", "-id", id, "-committed", "-provider-id", "thr_9", "-reason", "seen in the desk"); code != 0 || !strings.Contains(out, "active") {
		t.Fatalf("resolve: exit %d: %s%s", code, out, errOut)
	}
	if code, out, _ := wg("ledger", "list"); code != 0 || !strings.Contains(out, "no uncertain rows") {
		t.Fatalf("list after resolve: exit %d: %s", code, out)
	}
	if code, out, _ := wg("ledger", "list", "-state", "active"); code != 0 || !strings.Contains(out, "escalation:42") {
		t.Fatalf("list -state active: exit %d: %s", code, out)
	}

	if code, _, _ := wg("ledger"); code != 2 {
		t.Fatalf("ledger without a command: exit %d, want 2", code)
	}
	if code, _, errOut := wg("ledger", "list", "-db", "sqlite:"+filepath.Join(t.TempDir(), "missing.db")); code != 1 || !strings.Contains(errOut, "missing.db") {
		t.Fatalf("list of a missing file: exit %d: %s", code, errOut)
	}
}
