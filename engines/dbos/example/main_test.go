package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/writegen/writegen/engines/internal/enginetest"
)

// The example against a provider that loses the first answer: one
// payment; run again, the same workflow ID answers the same payment.
func TestExample(t *testing.T) {
	p := enginetest.NewProvider(1)
	defer p.Close()
	lost := false
	p.OnCommit(func(string, string) bool { lose := !lost; lost = true; return lose })
	dir := t.TempDir()
	var out bytes.Buffer
	for range 2 {
		if err := run(context.Background(), &out, p.URL, dir, "42"); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || lines[0] != lines[1] || !strings.HasPrefix(lines[0], "order 42 paid: pay_") {
		t.Errorf("printed %q, want the same payment twice", lines)
	}
	if n := p.Effects("/payments", "42"); n != 1 || p.Lost() != 1 {
		t.Errorf("%d payments, %d answers lost: want one payment after one lost answer", n, p.Lost())
	}
}
