package ledgertest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// offsetClock is the system clock shifted by d, as the clock of a machine
// that runs d ahead.
type offsetClock struct{ d time.Duration }

func (c offsetClock) Now() time.Time { return time.Now().Add(c.d) }
func (c offsetClock) Sleep(ctx context.Context, d time.Duration) error {
	return runtime.SystemClock.Sleep(ctx, d)
}

// gate is a transport that holds each POST before it reaches the provider
// (hold) or after the provider answered it (lose: the answer never comes
// back), telling reached of each one, until open is closed or the
// request's context ends.
type gate struct {
	lose    bool
	reached chan struct{}
	open    chan struct{}
}

func newGate(lose bool) *gate {
	return &gate{lose: lose, reached: make(chan struct{}, 16), open: make(chan struct{})}
}

func (g *gate) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost {
		return http.DefaultTransport.RoundTrip(r)
	}
	if g.lose {
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		g.reached <- struct{}{}
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	g.reached <- struct{}{}
	select {
	case <-g.open:
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
	return http.DefaultTransport.RoundTrip(r)
}

// testLeaseByDatabaseClock: two clients share one ledger, each through its
// own handle as two processes would; the second one's clock runs two
// minutes ahead, more than the lease. While the first one's call is live,
// the second one's Resume takes nothing over and its call with the same
// business key waits for the first one's outcome: leases are set and
// judged by the database's clock, not by either client's, and the
// provider ends with one effect (promise 37).
func testLeaseByDatabaseClock(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	p := NewProvider(t)
	g := newGate(false)
	first, err := writegenimpl.NewClient(scope, p.URL, []runtime.Option{runtime.WithLedger(open(t, dsn)),
		runtime.WithHTTPClient(&http.Client{Transport: g})})
	if err != nil {
		t.Fatal(err)
	}
	ahead, err := writegenimpl.NewClient(scope, p.URL, []runtime.Option{runtime.WithLedger(open(t, dsn)),
		runtime.WithClock(offsetClock{2 * time.Minute})})
	if err != nil {
		t.Fatal(err)
	}
	// A lookup would find nothing while the first call is held: a takeover
	// would send the write a second time.
	done := make(chan outcome, 1)
	go func() { done <- outcomeOf(writeThing(ctx, first, p.URL, withLookup, "order:1")) }()
	<-g.reached // the first call holds its claim and is sending
	rep, err := resumeThings(ctx, ahead, p.URL, withLookup)
	if err != nil || rep.Taken != 0 {
		t.Fatalf("resume by the client whose clock is ahead: %+v, %v; want nothing taken over", rep, err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute) // a hang fails the test instead of blocking it
	defer cancel()
	waited := make(chan outcome, 1)
	go func() { waited <- outcomeOf(writeThing(wctx, ahead, p.URL, withLookup, "order:1")) }()
	close(g.open)
	o1, o2 := <-done, <-waited
	if o1.ID == "" || o2 != o1 {
		t.Fatalf("the first call got %+v, the one ahead %+v; want one receipt for both", o1, o2)
	}
	if e := p.Effects(); len(e) != 1 {
		t.Fatalf("the provider holds %d effects %v, want 1", len(e), e)
	}
}

// testMinimumLease: the shortest lease NewClient accepts, 1.2 × the
// attempt timeout, works on the database: every write gets its receipt,
// the renewals' round trips included; a shorter one is refused when the
// client is built (promise 37).
func testMinimumLease(t *testing.T, b Backend) {
	ctx := context.Background()
	p := NewProvider(t)
	l := open(t, b.NewDSN(t))
	const attempt = time.Second
	if _, err := writegenimpl.NewClient(scope, p.URL, []runtime.Option{runtime.WithLedger(l), runtime.WithAttemptTimeout(attempt),
		runtime.WithLease(attempt*6/5 - time.Millisecond)}); err == nil || !strings.Contains(err.Error(), "WithLease") {
		t.Fatalf("a lease shorter than 1.2 × the attempt timeout: %v; want it refused", err)
	}
	c, err := writegenimpl.NewClient(scope, p.URL, []runtime.Option{runtime.WithLedger(l), runtime.WithAttemptTimeout(attempt),
		runtime.WithLease(attempt * 6 / 5)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strategies {
		for _, k := range []key{"order:1", "order:2", "order:3"} {
			k := key(string(s) + "/" + string(k))
			if r, err := writeThing(ctx, c, p.URL, s, k); err != nil || r.ID == "" {
				t.Fatalf("%s write %s at the minimum lease: %+v, %v; want a receipt", s, k, r, err)
			}
		}
	}
	if e := p.Effects(); len(e) != 3*len(strategies) {
		t.Fatalf("the provider holds %d effects, want %d", len(e), 3*len(strategies))
	}
}

// testRestartTakesOwnClaims: an instance (WithInstance "pod-7") dies with
// two calls whose answers it never got, each holding a claim with an hour
// of lease. Another instance's Resume waits for the lease and takes
// nothing. The same instance, restarted (a new handle of the ledger: a new
// incarnation), takes its own claims at once: a call repeating one of the
// writes drives its row on and gets the receipt, its Resume drives the
// other, and the provider holds one effect of each; the dead run, fenced
// out, could no longer settle them (promise 38).
func testRestartTakesOwnClaims(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	p := NewProvider(t)
	g := newGate(true)
	client := func(instance string, opts ...runtime.Option) *writegenimpl.Client {
		t.Helper()
		c, err := writegenimpl.NewClient(scope, p.URL, append([]runtime.Option{runtime.WithLedger(open(t, dsn)),
			runtime.WithInstance(instance), runtime.WithLease(time.Hour)}, opts...))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	dead := client("pod-7", runtime.WithHTTPClient(&http.Client{Transport: g}))
	dctx, kill := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var deadOutcomes [2]outcome
	for i, k := range []key{"order:1", "order:2"} {
		wg.Go(func() { deadOutcomes[i] = outcomeOf(writeThing(dctx, dead, p.URL, withKey, k)) })
		<-g.reached // committed at the provider; the answer is lost with the process
	}
	defer func() { kill(); wg.Wait() }()
	// "writegen ledger list" names the holder's instance and run.
	claimed := listCommand(t, dsn, "-state", "claimed")
	for _, r := range claimed {
		if r.LeaseInstance != "pod-7" || r.LeaseIncarnation != 1 {
			t.Fatalf("writegen ledger list shows %+v; want the claims of pod-7's first run", r)
		}
	}
	if len(claimed) != 2 {
		t.Fatalf("writegen ledger list shows %d claimed rows, want 2", len(claimed))
	}

	if rep, err := resumeThings(ctx, client("pod-8"), p.URL, withKey); err != nil || rep.Taken != 0 {
		t.Fatalf("another instance's resume: %+v, %v; want nothing taken inside the lease", rep, err)
	}
	restarted := client("pod-7")
	wctx, cancel := context.WithTimeout(ctx, time.Minute) // waiting out the lease fails the test
	defer cancel()
	r, err := writeThing(wctx, restarted, p.URL, withKey, "order:1")
	if err != nil || r.ID != p.Effects()[0] {
		t.Fatalf("the restarted instance's call: %+v, %v; want the receipt of the first effect %v", r, err, p.Effects())
	}
	rep, err := resumeThings(ctx, restarted, p.URL, withKey)
	if err != nil || rep.Taken != 1 || rep.Active != 1 {
		t.Fatalf("the restarted instance's resume: %+v, %v; want the other claim taken and active", rep, err)
	}
	if e := p.Effects(); len(e) != 2 {
		t.Fatalf("the provider holds %d effects %v, want 2", len(e), e)
	}
	kill()
	wg.Wait()
	l := open(t, dsn)
	for _, k := range []string{"order:1", "order:2"} {
		row, err := l.Find(ctx, runtime.Identity{Scope: scope, Operation: "create-thing", BusinessKey: k})
		if err != nil || row.State != runtime.StateActive || row.Fence != 2 || row.LeaseInstance != "pod-7" || row.LeaseIncarnation != 2 {
			t.Fatalf("row of %s: %+v, %v; want it active under the second run's fence", k, row.Record, err)
		}
	}
	for i, o := range deadOutcomes {
		if o.Err != "" && !o.Uncertain {
			t.Errorf("the dead run's call %d ended %+v; want a receipt or uncertain, never a plain error", i, o)
		}
	}
}

// settleFails is a ledger whose Settle fails while down is set, as a
// database that is unreachable when a call has its answer.
type settleFails struct {
	*ledger.Ledger
	down  atomic.Bool
	fails atomic.Int32
}

func (l *settleFails) Settle(ctx context.Context, id, fence int64, to runtime.State, s runtime.Settlement) error {
	if l.down.Load() {
		l.fails.Add(1)
		return errors.New("settle: the database is unreachable")
	}
	return l.Ledger.Settle(ctx, id, fence, to, s)
}

// testReceiptKeptWhenLedgerFails: a call gets its receipt, and the ledger
// fails to record it. The client keeps it and records it when the ledger
// is back: before its next claim, and at its Resume. The next caller with
// the business key, in this process or another, adopts the receipt: the
// row never ends uncertain, and the provider is called once per key
// (promises 28 and 31).
func testReceiptKeptWhenLedgerFails(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	p := NewProvider(t)
	l := &settleFails{Ledger: open(t, dsn)}
	c, err := writegenimpl.NewClient(scope, p.URL, []runtime.Option{runtime.WithLedger(l)})
	if err != nil {
		t.Fatal(err)
	}
	other, err := writegenimpl.NewClient(scope, p.URL, []runtime.Option{runtime.WithLedger(open(t, dsn))})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		k      key
		resume bool // the ledger is back at Resume, else at the next claim
	}{
		{"next claim", "order:1", false},
		{"resume", "order:2", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l.down.Store(true)
			first, err := writeThing(ctx, c, p.URL, withKey, tc.k)
			if err != nil || first.Source != runtime.Created || l.fails.Load() == 0 {
				t.Fatalf("the first call: %+v, %v, %d settles failed; want its receipt, the settle failed", first, err, l.fails.Load())
			}
			l.down.Store(false)
			id := runtime.Identity{Scope: scope, Operation: "create-thing", BusinessKey: string(tc.k)}
			if row, err := l.Find(ctx, id); err != nil || row.State != runtime.StateClaimed {
				t.Fatalf("row after the failed settle: %+v, %v; want it claimed", row.Record, err)
			}
			next := c
			if tc.resume {
				if rep, err := resumeThings(ctx, c, p.URL, withKey); err != nil || rep.Taken != 0 {
					t.Fatalf("resume: %+v, %v; want the kept receipt recorded, nothing taken over", rep, err)
				}
				if row, err := l.Find(ctx, id); err != nil || row.State != runtime.StateActive || row.ProviderID != first.ID {
					t.Fatalf("row after resume: %+v, %v; want it active with %s", row.Record, err, first.ID)
				}
				next = other
			}
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a row left claimed fails the test
			defer cancel()
			again, err := writeThing(wctx, next, p.URL, withKey, tc.k)
			if err != nil || again.ID != first.ID || again.Source != runtime.AdoptedLedger {
				t.Fatalf("the next call: %+v, %v; want %s adopted from the ledger", again, err, first.ID)
			}
		})
	}
	if n := p.Requests(); n != 2 {
		t.Fatalf("the provider was called %d times, want once per key", n)
	}
}
