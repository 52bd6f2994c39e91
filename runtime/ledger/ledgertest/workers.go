package ledgertest

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

// ahead is how far the clock of the replica that runs ahead is off: more
// than the default worker lease (5 minutes).
const ahead = 6 * time.Minute

// ranLog records who ran what, in order.
type ranLog struct {
	mu  sync.Mutex
	ran []string // guarded by mu
}

func (r *ranLog) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ran = append(r.ran, s)
}

func (r *ranLog) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ran...)
}

// testWorkerLeasesByDatabaseClock: two replicas share the ledger, B's
// clock 6 minutes ahead of A's and of the database's, more than the
// default worker lease. While A's webhook handler runs for an event, B
// finds nothing due and does not run it; while A's outbox sender sends an
// item, B does not send it; an item B enqueues is due at once for A; and
// "writegen ledger list", run on B's machine, judges claims' leases by the
// database's clock (promise 53).
func testWorkerLeasesByDatabaseClock(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	la := open(t, dsn)
	lb := open(t, dsn, ledger.WithProcessClock(offsetClock{ahead}))
	var ran ranLog

	// The inbox: A's handler holds the event until released.
	started, release := make(chan struct{}), make(chan struct{})
	inbox := func(l *ledger.Ledger, name string, hold bool) *ledger.Inbox {
		t.Helper()
		v, err := ledger.NewStandardWebhooks(secret, 0)
		if err != nil {
			t.Fatal(err)
		}
		in, err := l.Inbox(ledger.InboxConfig{Source: "chat", Verifier: v, WorkerOptions: ledger.WorkerOptions{Name: name},
			Handle: func(ctx context.Context, e ledger.Event) error {
				ran.add(name + ":" + e.EventID)
				if hold {
					close(started)
					select {
					case <-release:
					case <-ctx.Done():
					}
				}
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	ina, inb := inbox(la, "A", true), inbox(lb, "B", false)
	if got := newSenderOfWebhooks(t, time.Now).deliver(serveTest(t, ina), "evt_1", []byte(`{}`)); got != 204 {
		t.Fatalf("delivery: status %d", got)
	}
	doneA := make(chan error, 1)
	go func() {
		_, err := ina.HandleDue(ctx)
		doneA <- err
	}()
	waitOrFail(t, started, "A's handler to start")
	if n, err := inb.HandleDue(ctx); err != nil || n != 0 {
		t.Errorf("B, 6 minutes ahead, handled %d events while A's handler ran, %v; want none", n, err)
	}
	close(release)
	if err := <-doneA; err != nil {
		t.Fatal(err)
	}
	if got := ran.get(); len(got) != 1 || got[0] != "A:evt_1" {
		t.Fatalf("handler runs %v; want A:evt_1 alone", got)
	}

	// The outbox: A's sender holds the item until released.
	sent, unblock := make(chan struct{}), make(chan struct{})
	outbox := func(l *ledger.Ledger, name string, hold bool) *ledger.Outbox {
		return l.Outbox(func(ctx context.Context, it ledger.OutboxItem) (ledger.Delivery, error) {
			ran.add(name + ":" + it.DedupeKey)
			if hold && it.DedupeKey == "ob_1" {
				close(sent)
				select {
				case <-unblock:
				case <-ctx.Done():
				}
			}
			return ledger.Delivery{ProviderID: "p_" + it.DedupeKey, Status: 201}, nil
		}, ledger.WorkerOptions{Name: name})
	}
	oa, ob := outbox(la, "A", true), outbox(lb, "B", false)
	if err := la.EnqueueOn(ctx, la.Querier(), ledger.Obligation{Scope: scope, Operation: "createThing", DedupeKey: "ob_1"}); err != nil {
		t.Fatal(err)
	}
	doneA2 := make(chan error, 1)
	go func() {
		_, err := oa.SendDue(ctx)
		doneA2 <- err
	}()
	waitOrFail(t, sent, "A's sender to start")
	if n, err := ob.SendDue(ctx); err != nil || n != 0 {
		t.Errorf("B, 6 minutes ahead, sent %d items while A's sender sent, %v; want none", n, err)
	}
	close(unblock)
	if err := <-doneA2; err != nil {
		t.Fatal(err)
	}
	// What B enqueues is due by the database's clock, at once for A.
	if err := lb.EnqueueOn(ctx, lb.Querier(), ledger.Obligation{Scope: scope, Operation: "createThing", DedupeKey: "ob_2"}); err != nil {
		t.Fatal(err)
	}
	if n, err := oa.SendDue(ctx); err != nil || n != 1 {
		t.Errorf("A sent %d items of B's, %v; want the one B enqueued, due at once", n, err)
	}
	if got := ran.get(); strings.Join(got, " ") != "A:evt_1 A:ob_1 A:ob_2" {
		t.Fatalf("runs %v; want A:evt_1 A:ob_1 A:ob_2", got)
	}

	// The commands, on B's machine: a claim's lease is expired when the
	// database's clock says so.
	for _, c := range []struct {
		k       string
		lease   time.Duration
		expired bool
	}{{"live", 5 * time.Minute, false}, {"dead", -time.Second, true}} {
		if _, _, err := la.Claim(ctx, claimOf(ident("thing", c.k), "req"), runtime.Holder{Owner: "holder-" + c.k}, c.lease); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if code := ledgercli.RunWith(ctx, []string{"list", "-db", dsn, "-state", "claimed"}, &stdout, &stderr,
			ledger.WithProcessClock(offsetClock{ahead})); code != 0 {
			t.Fatalf("list: exit %d: %s", code, stderr.String())
		}
		for _, line := range strings.Split(stdout.String(), "\n") {
			if strings.Contains(line, "holder-"+c.k) && strings.Contains(line, "(expired)") != c.expired {
				t.Errorf("list on a machine 6 minutes ahead shows the claim of %s with a %s lease as %q; want expired=%v",
					c.k, c.lease, line, c.expired)
			}
		}
	}
}

// waitOrFail waits until ch is closed, failing the test after a minute.
func waitOrFail(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("waited a minute for %s", what)
	}
}
