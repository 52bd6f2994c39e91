package ledgertest

// The tests of a worker whose lease passed while it worked, and another
// worker took its item or event.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// testOutboxStaleFinish: a worker whose lease passed while it sent cannot end
// the item another worker took meanwhile. Its outcome (here uncertain: its
// answer was lost) is not the item's; the worker that holds the item now
// sends with the same key, and what it records is.
func testOutboxStaleFinish(t *testing.T, b Backend) {
	ctx := context.Background()
	_, l, clock := withObligations(t, b, 1)
	p := NewProvider(t)
	send := newSender(t, p.URL, clock)
	leased, release := make(chan struct{}), make(chan struct{})
	stale := l.Outbox(func(ctx context.Context, it ledger.OutboxItem) (ledger.Delivery, error) {
		close(leased)
		<-release
		return ledger.Delivery{}, fmt.Errorf("the answer was lost: %w", runtime.ErrUncertain)
	}, ledger.WorkerOptions{Name: "stale", Lease: outboxLease})
	staleDone := inBackground(ctx, stale.SendDue)
	<-leased
	clock.Advance(outboxLease + time.Second)
	taken, finish := make(chan struct{}), make(chan struct{})
	other := l.Outbox(func(ctx context.Context, it ledger.OutboxItem) (ledger.Delivery, error) {
		close(taken)
		<-finish
		return send(ctx, it)
	}, ledger.WorkerOptions{Name: "other", Lease: outboxLease})
	otherDone := inBackground(ctx, other.SendDue)
	<-taken
	close(release)
	if err := <-staleDone; err != nil {
		t.Fatal(err)
	}
	if got := items(t, l, ledger.OutboxUncertain); len(got) != 0 {
		t.Fatalf("a worker whose lease had passed ended the item another worker holds: %+v", got)
	}
	close(finish)
	if err := <-otherDone; err != nil {
		t.Fatal(err)
	}
	sent := items(t, l, ledger.OutboxSent)
	if effects := p.Effects(); len(effects) != 1 || len(sent) != 1 || sent[0].ProviderID != effects[0] {
		t.Fatalf("sent %+v; provider effects %v; want the one the holder recorded", sent, effects)
	}
}

// testInboxStaleFinish: a worker whose lease passed while it handled an event
// cannot end the event another worker took meanwhile (as
// testOutboxStaleFinish): its failure is not the event's; the holder's
// outcome is.
func testInboxStaleFinish(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	const lease = time.Minute
	leased, release := make(chan struct{}), make(chan struct{})
	stale, url, _ := countingInbox(t, l, ledger.InboxConfig{
		Handle: func(ctx context.Context, e ledger.Event) error {
			close(leased)
			<-release
			return errors.New("the stale handler failed")
		},
		WorkerOptions: ledger.WorkerOptions{Name: "stale", MaxAttempts: 1, Lease: lease},
	})
	if got := newSenderOfWebhooks(t, clock.Now).deliver(url, "evt_1", []byte(`{}`)); got != http.StatusNoContent {
		t.Fatalf("status %d", got)
	}
	staleDone := inBackground(ctx, stale.HandleDue)
	<-leased
	clock.Advance(lease + time.Second)
	taken, finish := make(chan struct{}), make(chan struct{})
	other, _, _ := countingInbox(t, l, ledger.InboxConfig{
		Handle: func(ctx context.Context, e ledger.Event) error {
			close(taken)
			<-finish
			return nil
		},
		WorkerOptions: ledger.WorkerOptions{Name: "other", Lease: lease},
	})
	otherDone := inBackground(ctx, other.HandleDue)
	<-taken
	close(release)
	if err := <-staleDone; err != nil {
		t.Fatal(err)
	}
	if failed := events(t, l, ledger.EventFailed); len(failed) != 0 {
		t.Fatalf("a worker whose lease had passed ended the event another worker holds: %+v", failed)
	}
	close(finish)
	if err := <-otherDone; err != nil {
		t.Fatal(err)
	}
	if done := events(t, l, ledger.EventDone); len(done) != 1 || done[0].EventID != "evt_1" {
		t.Fatalf("done events %+v, want evt_1 as its holder recorded it", done)
	}
}

// inBackground runs work on a goroutine and returns where its error arrives.
func inBackground(ctx context.Context, work func(context.Context) (int, error)) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := work(ctx)
		done <- err
	}()
	return done
}
