package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/writegen/writegen/engines/internal/enginetest"
	"github.com/writegen/writegen/engines/internal/payments"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// The example's workflow in the SDK's test environment, against a
// provider that loses the first answer: one payment.
func TestExample(t *testing.T) {
	p := enginetest.NewProvider(1)
	defer p.Close()
	lost := false
	p.OnCommit(func(string, string) bool { lose := !lost; lost = true; return lose })
	l, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := payments.NewClient(p.URL, l)
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute}) // a loaded machine may hold a task past the default second
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "order-42"})
	if err := Register(env, &Payer{Client: c}); err != nil {
		t.Fatal(err)
	}
	env.ExecuteWorkflow("pay", "42")
	var id string
	if err := env.GetWorkflowResult(&id); err != nil {
		t.Fatal(err)
	}
	if n := p.Effects("/payments", "42"); id == "" || n != 1 || p.Lost() != 1 {
		t.Fatalf("paid %q with %d payments and %d answers lost, want one payment after one lost answer", id, n, p.Lost())
	}
}
