package wgtemporal_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	wgtemporal "github.com/writegen/writegen/engines/temporal"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
)

// The orders in which an acknowledged write's activity and its event meet.
func TestAcksOrders(t *testing.T) {
	ctx := context.Background()
	l, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	acks, err := wgtemporal.NewAcks(ctx, l.Ledger)
	if err != nil {
		t.Fatal(err)
	}
	pending := func(key string) (wgtemporal.Settled, error) {
		var s testsuite.WorkflowTestSuite
		s.SetLogger(log.NewStructuredLogger(quiet))
		env := s.NewTestActivityEnvironment()
		wait := func(ctx context.Context) (wgtemporal.Settled, error) { return acks.Pending(ctx, key) }
		env.RegisterActivity(wait)
		v, err := env.ExecuteActivity(wait)
		var st wgtemporal.Settled
		if err == nil {
			err = v.Get(&st)
		}
		return st, err
	}
	calls := 0
	var answer error
	c := completerFunc(func(context.Context, []byte, any, error) error { calls++; return answer })

	// The event first: no activity to complete; the activity gets it at once.
	if err := acks.Complete(ctx, c, "k1", []byte(`{"n":1}`)); err != nil || calls != 0 {
		t.Fatalf("Complete before Pending: %v, %d completions", err, calls)
	}
	if s, err := pending("k1"); err != nil || string(s.Event) != `{"n":1}` || s.ProviderKey != "k1" {
		t.Fatalf("Pending after the event: %+v, %v", s, err)
	}

	// The activity first; the first completion fails (the service is
	// unreachable) and is retried; a repeated delivery completes nothing.
	if _, err := pending("k2"); !errors.Is(err, activity.ErrResultPending) {
		t.Fatalf("Pending before the event: %v, want ErrResultPending", err)
	}
	answer = errors.New("unavailable")
	if err := acks.Complete(ctx, c, "k2", []byte(`{"n":2}`)); err == nil {
		t.Fatal("a failed completion was not reported")
	}
	answer = nil
	for range 2 {
		if err := acks.Complete(ctx, c, "k2", []byte(`{"n":2}`)); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 {
		t.Errorf("%d completions, want 2 (one failed, one done)", calls)
	}

	// An activity Temporal no longer knows is not completed again.
	if _, err := pending("k3"); !errors.Is(err, activity.ErrResultPending) {
		t.Fatal(err)
	}
	answer = serviceerror.NewNotFound("activity not found")
	for range 2 {
		if err := acks.Complete(ctx, c, "k3", []byte(`{"n":3}`)); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 3 {
		t.Errorf("%d completions, want 3", calls)
	}
}
