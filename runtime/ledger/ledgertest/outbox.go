package ledgertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// outboxLease is the lease of the suite's outbox workers.
const outboxLease = time.Minute

// thingSender sends an outbox item as createThing through c, with the
// item's dedupe key as the business key, as a generated client's write
// method would.
func thingSender(c *writegenimpl.Client, providerURL string) ledger.Sender {
	op := operation(withKey, false)
	return func(ctx context.Context, it ledger.OutboxItem) (ledger.Delivery, error) {
		k := key(it.DedupeKey)
		r, err := writegenimpl.Write(ctx, c, op, k, call(providerURL, withKey, k))
		if err != nil {
			return ledger.Delivery{}, err
		}
		body, err := json.Marshal(r.Body)
		return ledger.Delivery{ProviderID: r.ID, Status: r.Status, Body: body}, err
	}
}

// newSender returns a thingSender whose runtime sleeps on clock.
func newSender(t testing.TB, providerURL string, clock runtime.Clock) ledger.Sender {
	c, err := writegenimpl.NewClient(scope, providerURL, []runtime.Option{runtime.WithClock(clock)})
	if err != nil {
		t.Fatal(err)
	}
	return thingSender(c, providerURL)
}

func obligation(i int) ledger.Obligation {
	return ledger.Obligation{Operation: "createThing", DedupeKey: fmt.Sprintf("order:%d", i), Payload: []byte(`{"order":1}`)}
}

// withObligations records n obligations in the outbox of a new database
// as the application does (each with a row of its own, in a transaction,
// in real time), then opens the ledger on a test clock that starts after
// them.
func withObligations(t testing.TB, b Backend, n int) (string, *ledger.Ledger, *Clock) {
	t.Helper()
	dsn := b.NewDSN(t)
	r := raw(t, b, dsn)
	for i := range n {
		if err := r.EnqueueTx(context.Background(), fmt.Sprint(i), obligation(i), true); err != nil {
			t.Fatal(err)
		}
	}
	clock := NewClock()
	return dsn, open(t, dsn, ledger.WithClock(clock)), clock
}

func items(t testing.TB, l *ledger.Ledger, state ledger.OutboxState) []ledger.OutboxItem {
	t.Helper()
	its, err := l.OutboxItems(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	return its
}

// testOutboxTransaction: an obligation is recorded with the caller's
// transaction, or not at all, and once per dedupe key.
func testOutboxTransaction(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	l := open(t, dsn)
	r := raw(t, b, dsn)
	if err := r.EnqueueTx(ctx, "o1", obligation(1), false); err != nil {
		t.Fatal(err)
	}
	if its := items(t, l, ledger.OutboxPending); len(its) != 0 {
		t.Fatalf("a rolled back transaction left %d items", len(its))
	}
	for range 2 {
		if err := r.EnqueueTx(ctx, "o1", obligation(1), true); err != nil {
			t.Fatal(err)
		}
	}
	its := items(t, l, ledger.OutboxPending)
	if len(its) != 1 || its[0].DedupeKey != "order:1" || string(its[0].Payload) != `{"order":1}` {
		t.Fatalf("items after two commits of one obligation: %+v", its)
	}
	if err := r.EnqueueTx(ctx, "o2", ledger.Obligation{Operation: "createThing"}, true); err == nil {
		t.Fatal("enqueued an obligation without a dedupe key")
	}
}

// testOutboxScopes: an obligation belongs to a scope and a tenant, as a
// claim does: the same operation and dedupe key of two tenants, or of two
// scopes, are two obligations (one of them was dropped as a repeat before
// version 3), and the sender is handed each item's scope and tenant to
// send it with the right client.
func testOutboxScopes(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	obs := []ledger.Obligation{
		{Scope: "desk", Tenant: "acme", Operation: "createThing", DedupeKey: "order:1", Payload: []byte(`{"for":"acme"}`)},
		{Scope: "desk", Tenant: "globex", Operation: "createThing", DedupeKey: "order:1", Payload: []byte(`{"for":"globex"}`)},
		{Scope: "chat", Tenant: "acme", Operation: "createThing", DedupeKey: "order:1", Payload: []byte(`{"for":"chat"}`)},
		{Scope: "desk", Tenant: "acme", Operation: "createThing", DedupeKey: "order:1", Payload: []byte(`{"again":true}`)}, // a repeat
	}
	for _, ob := range obs {
		if err := l.EnqueueOn(ctx, l.Querier(), ob); err != nil {
			t.Fatal(err)
		}
	}
	its := items(t, l, ledger.OutboxPending)
	if len(its) != 3 {
		t.Fatalf("%d items, want 3 (two tenants and two scopes of one key, and one repeat): %+v", len(its), its)
	}
	var mu sync.Mutex
	sent := map[string]string{}
	ob := l.Outbox(func(_ context.Context, it ledger.OutboxItem) (ledger.Delivery, error) {
		mu.Lock()
		defer mu.Unlock()
		sent[it.Scope+"/"+it.Tenant] = string(it.Payload)
		return ledger.Delivery{ProviderID: "fx_" + it.Scope + "_" + it.Tenant, Status: 201}, nil
	}, ledger.WorkerOptions{})
	if n, err := ob.SendDue(ctx); n != 3 || err != nil {
		t.Fatalf("sent %d, %v; want the three items", n, err)
	}
	want := map[string]string{"desk/acme": `{"for":"acme"}`, "desk/globex": `{"for":"globex"}`, "chat/acme": `{"for":"chat"}`}
	if fmt.Sprint(sent) != fmt.Sprint(want) {
		t.Errorf("the sender was handed %v, want %v", sent, want)
	}
	for _, it := range items(t, l, ledger.OutboxSent) {
		if it.ProviderID != "fx_"+it.Scope+"_"+it.Tenant {
			t.Errorf("item %d of %s/%s holds receipt %q", it.ID, it.Scope, it.Tenant, it.ProviderID)
		}
	}
}

// testOutboxDeliversOnce: an item is retried after failures with the same
// key until the provider holds its effect, and the receipt is stored when
// the item is marked sent (promise 18).
func testOutboxDeliversOnce(t *testing.T, b Backend) {
	ctx := context.Background()
	_, l, clock := withObligations(t, b, 1)
	p := NewProvider(t)
	// 429 (nothing done, retried later), then a commit whose answer is
	// lost (the runtime retries it at once with the same key).
	p.failNext(throttle, hangUpAfter)
	ob := l.Outbox(newSender(t, p.URL, clock), ledger.WorkerOptions{Backoff: func(int) time.Duration { return time.Minute }})
	if n, err := ob.SendDue(ctx); n != 1 || err != nil {
		t.Fatalf("first pass sent %d, %v", n, err)
	}
	pending := items(t, l, ledger.OutboxPending)
	if len(pending) != 1 || pending[0].Attempts != 1 || pending[0].LastError == "" || pending[0].ProviderID != "" {
		t.Fatalf("after a 429: %+v", pending)
	}
	if n, err := ob.SendDue(ctx); n != 0 || err != nil {
		t.Fatalf("sent %d items before the backoff passed (%v)", n, err)
	}
	clock.Advance(time.Minute)
	if n, err := ob.SendDue(ctx); n != 1 || err != nil {
		t.Fatalf("second pass sent %d, %v", n, err)
	}
	sent := items(t, l, ledger.OutboxSent)
	effects := p.Effects()
	if len(sent) != 1 || len(effects) != 1 || sent[0].ProviderID != effects[0] || sent[0].Attempts != 2 {
		t.Fatalf("sent items %+v; provider effects %v", sent, effects)
	}
	var body thing
	if err := json.Unmarshal(sent[0].Body, &body); err != nil || body.ID != effects[0] {
		t.Fatalf("stored receipt body %q: %v", sent[0].Body, err)
	}
	if uses := p.keyUses(); len(uses) != 1 || p.Requests() != 3 {
		t.Fatalf("keys sent: %v in %d requests; want one key on every try", uses, p.Requests())
	}
	clock.Advance(time.Hour)
	if n, err := ob.SendDue(ctx); n != 0 || err != nil || p.Requests() != 3 {
		t.Fatalf("a sent item was sent again: %d, %v", n, err)
	}
}

// testOutboxFinal: a refusal, or an outcome the runtime could not settle,
// ends the item; it is not sent again.
func testOutboxFinal(t *testing.T, b Backend) {
	ctx := context.Background()
	_, l, clock := withObligations(t, b, 2)
	p := NewProvider(t)
	// Item 0 is refused; item 1 commits and fails with a 500, which the
	// operation does not retry: the runtime cannot tell.
	p.failNext(reject, errorAfter)
	ob := l.Outbox(newSender(t, p.URL, clock), ledger.WorkerOptions{})
	if n, err := ob.SendDue(ctx); n != 2 || err != nil {
		t.Fatalf("sent %d, %v", n, err)
	}
	clock.Advance(24 * time.Hour)
	if n, err := ob.SendDue(ctx); n != 0 || err != nil {
		t.Fatalf("an ended item was sent again: %d, %v", n, err)
	}
	rejected, uncertain := items(t, l, ledger.OutboxRejected), items(t, l, ledger.OutboxUncertain)
	if len(rejected) != 1 || rejected[0].DedupeKey != "order:0" || rejected[0].Status != 422 || len(rejected[0].Body) == 0 {
		t.Fatalf("rejected items %+v", rejected)
	}
	if len(uncertain) != 1 || uncertain[0].DedupeKey != "order:1" || uncertain[0].LastError == "" {
		t.Fatalf("uncertain items %+v", uncertain)
	}
	if p.Requests() != 2 || len(p.Effects()) != 1 {
		t.Fatalf("%d requests, effects %v; want 2 requests and one effect", p.Requests(), p.Effects())
	}
}

// testOutboxRedrive: an uncertain item that a person re-drives is sent again
// with the same key, and the provider's answer to the key ends it sent with
// the one effect; a sent item cannot be re-driven.
func testOutboxRedrive(t *testing.T, b Backend) {
	ctx := context.Background()
	_, l, clock := withObligations(t, b, 1)
	p := NewProvider(t)
	p.failNext(errorAfter) // commits, then answers 500: the runtime cannot tell
	ob := l.Outbox(newSender(t, p.URL, clock), ledger.WorkerOptions{})
	if n, err := ob.SendDue(ctx); n != 1 || err != nil {
		t.Fatalf("sent %d, %v", n, err)
	}
	uncertain := items(t, l, ledger.OutboxUncertain)
	if len(uncertain) != 1 {
		t.Fatalf("uncertain items %+v", uncertain)
	}
	id := uncertain[0].ID
	if err := l.RedriveOutbox(ctx, id, " "); err == nil {
		t.Fatal("a re-drive without a reason was taken")
	}
	if err := l.RedriveOutbox(ctx, id+1000, "the desk keeps keys for a day"); err == nil {
		t.Fatal("a re-drive of no item was taken")
	}
	if err := l.RedriveOutbox(ctx, id, "the desk keeps keys for a day"); err != nil {
		t.Fatal(err)
	}
	it, err := l.OutboxItem(ctx, id)
	if err != nil || it.State != ledger.OutboxPending || !strings.Contains(it.LastError, "the desk keeps keys for a day") {
		t.Fatalf("re-driven item %+v, %v; want it pending with the reason", it, err)
	}
	if n, err := ob.SendDue(ctx); n != 1 || err != nil {
		t.Fatalf("the re-driven item: sent %d, %v", n, err)
	}
	it, err = l.OutboxItem(ctx, id)
	effects := p.Effects()
	if err != nil || it.State != ledger.OutboxSent || len(effects) != 1 || it.ProviderID != effects[0] {
		t.Fatalf("item %+v, %v; provider effects %v; want it sent with the one effect", it, err, effects)
	}
	if err := l.RedriveOutbox(ctx, id, "again"); !errors.Is(err, ledger.ErrTransition) {
		t.Fatalf("re-drive of a sent item: %v; want ErrTransition", err)
	}
}

// testOutboxLease: an item leased by a worker that stopped answering is
// sent by another once the lease has passed, with the same key.
func testOutboxLease(t *testing.T, b Backend) {
	ctx := context.Background()
	_, l, clock := withObligations(t, b, 1)
	p := NewProvider(t)
	send := newSender(t, p.URL, clock)
	leased, release := make(chan struct{}), make(chan struct{})
	stuck := l.Outbox(func(ctx context.Context, it ledger.OutboxItem) (ledger.Delivery, error) {
		close(leased)
		<-release
		return send(ctx, it)
	}, ledger.WorkerOptions{Name: "stuck", Lease: outboxLease})
	done := inBackground(ctx, stuck.SendDue)
	<-leased
	other := l.Outbox(send, ledger.WorkerOptions{Name: "other", Lease: outboxLease})
	if n, err := other.SendDue(ctx); n != 0 || err != nil {
		t.Fatalf("another worker took a leased item: %d, %v", n, err)
	}
	clock.Advance(outboxLease + time.Second)
	if n, err := other.SendDue(ctx); n != 1 || err != nil {
		t.Fatalf("another worker did not take an item whose lease passed: %d, %v", n, err)
	}
	close(release) // the stuck worker wakes up and sends too: same key
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sent := items(t, l, ledger.OutboxSent)
	if effects := p.Effects(); len(effects) != 1 || len(sent) != 1 || sent[0].ProviderID != effects[0] {
		t.Fatalf("sent %+v; provider effects %v; want one", sent, effects)
	}
}

// testOutboxCrash kills a real worker process after it leased an item and
// after the provider answered, before anything was recorded; once the lease
// has passed, another worker sends the item with the same key and the
// provider holds one effect (promises 16 and 18).
func testOutboxCrash(t *testing.T, b Backend) {
	ctx := context.Background()
	for _, boundary := range []string{"after-lease", "after-call"} {
		t.Run(boundary, func(t *testing.T) {
			dsn, l, clock := withObligations(t, b, 1)
			p := NewProvider(t)
			c := startChild(t, childArgs{Role: "outbox", DSN: dsn, URL: p.URL, Boundary: boundary})
			if got := c.line(); got != "at "+boundary {
				t.Fatalf("child said %q, want %q\n%s", got, "at "+boundary, c.stderr.String())
			}
			c.kill()
			ob := l.Outbox(newSender(t, p.URL, clock), ledger.WorkerOptions{Lease: outboxLease})
			if n, err := ob.SendDue(ctx); n != 0 || err != nil {
				t.Fatalf("an item leased by the dead worker was taken before its lease passed: %d, %v", n, err)
			}
			clock.Advance(outboxLease + time.Minute)
			if n, err := ob.SendDue(ctx); n != 1 || err != nil {
				t.Fatalf("after the lease: sent %d, %v", n, err)
			}
			sent := items(t, l, ledger.OutboxSent)
			effects := p.Effects()
			if len(effects) != 1 || len(sent) != 1 || sent[0].ProviderID != effects[0] || len(p.keyUses()) != 1 {
				t.Fatalf("sent %+v; provider effects %v, keys %v; want one effect, one key", sent, effects, p.keyUses())
			}
		})
	}
}

// outboxItems is how many obligations testOutboxWorkers shares out.
const outboxItems = 60

// testOutboxWorkers: several workers at once, in several processes where
// the database allows it, send every item exactly once.
func testOutboxWorkers(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn, l, _ := withObligations(t, b, outboxItems)
	p := NewProvider(t)
	workers := max(b.Processes, 4)
	counts := make([]int, workers)
	if b.Processes <= 1 {
		var wg sync.WaitGroup
		for i := range counts {
			ob := l.Outbox(newSender(t, p.URL, NewClock()), ledger.WorkerOptions{Name: fmt.Sprint("worker", i)})
			wg.Go(func() {
				var err error
				if counts[i], err = ob.SendDue(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	} else {
		var children []*child
		for range workers {
			c := startChild(t, childArgs{Role: "outbox", DSN: dsn, URL: p.URL})
			if got := c.line(); got != "ready" {
				t.Fatalf("child said %q\n%s", got, c.stderr.String())
			}
			children = append(children, c)
		}
		for _, c := range children {
			c.stdin.Write([]byte("go\n")) //nolint:errcheck // a dead child fails below
		}
		for i, c := range children {
			if _, err := fmt.Sscan(c.line(), &counts[i]); err != nil {
				t.Fatalf("child %d: %v\n%s", i, err, c.stderr.String())
			}
			c.finish()
		}
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	uses := p.keyUses()
	if total != outboxItems || len(uses) != outboxItems || len(p.Effects()) != outboxItems || p.Requests() != outboxItems {
		t.Fatalf("workers sent %v (total %d), provider saw %d keys in %d requests; want %d, each once",
			counts, total, len(uses), p.Requests(), outboxItems)
	}
	if sent := items(t, l, ledger.OutboxSent); len(sent) != outboxItems {
		t.Fatalf("%d items sent, want %d", len(sent), outboxItems)
	}
}
