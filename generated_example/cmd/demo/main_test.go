package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegen/writegen/generated_example/scenario"
	"github.com/writegen/writegen/runtime/ledger/postgres/pgtest"
)

func TestMain(m *testing.M) {
	if code, ok := scenario.ReplicaMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

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

// With -replicas 2 on PostgreSQL the demo runs two relay processes and still checks out.
func TestDemoReplicas(t *testing.T) {
	dsn := os.Getenv("WRITEGEN_PG_DSN")
	if dsn == "" {
		t.Skip(`WRITEGEN_PG_DSN is not set: run eval "$(.ci/pg start)" to run the demo with replicas`)
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ok, err := run(t.Context(), out, config{n: 20, seed: 5, rate: 100, faults: 0.3, db: pgtest.Schema(t, dsn, "demo"), replicas: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !ok || !strings.Contains(string(b), "2 relay processes") || !strings.Contains(string(b), "Checked: ") {
		t.Errorf("demo failed or printed no summary:\n%s", b)
	}
}
