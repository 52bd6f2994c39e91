package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// The ledger's word is final (promise 52): a caller told ErrNotApplied was
// told that its key is free and that nothing will be sent; no claim may
// commit behind it, to be sent later by someone's Resume.

// Short leases, so that a replica's Resume takes over what was left
// claimed within the test: the shortest NewClient accepts for the attempt
// timeout.
const (
	wordAttempt = time.Second
	wordLease   = wordAttempt * 6 / 5
)

// told is what one caller of a write was told.
type told struct {
	k   key
	r   *runtime.Receipt[thing]
	err error
}

// holdClaims holds the claims table of l in a transaction of its own (the
// write lock on SQLite, an exclusive lock on PostgreSQL) until release is
// called, as another connection or process would.
func holdClaims(t testing.TB, l *ledger.Ledger) (release func()) {
	t.Helper()
	ctx := context.Background()
	free := make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- l.InTx(ctx, func(tx ledger.Querier) error {
			if l.Dialect() == "postgres" {
				if _, err := tx.Exec(ctx, "LOCK TABLE writegen_claims IN EXCLUSIVE MODE"); err != nil {
					return err
				}
			} else if _, err := tx.Exec(ctx, "UPDATE writegen_claims SET owner = owner WHERE 0"); err != nil {
				return err // BEGIN IMMEDIATE took the write lock; this only proves the transaction runs
			}
			held <- nil
			<-free
			return nil
		})
	}()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(free)
			if err := <-held; err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// wordClient is a client of the ledger at dsn, on a handle of its own,
// with short leases.
func wordClient(t testing.TB, l *ledger.Ledger, providerURL string) *writegenimpl.Client {
	t.Helper()
	c, err := writegenimpl.NewClient(scope, providerURL, []runtime.Option{runtime.WithLedger(l),
		runtime.WithAttemptTimeout(wordAttempt), runtime.WithLease(wordLease)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeAll writes key order:i with deadline deadlines[i] (0: none), all at
// once, and returns what each caller was told once all have returned.
// During starts once they were started.
func writeAll(c *writegenimpl.Client, providerURL string, deadlines []time.Duration, during func()) []told {
	out := make([]told, len(deadlines))
	var wg sync.WaitGroup
	for i, d := range deadlines {
		k := key(fmt.Sprint("order:", i))
		wg.Go(func() {
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if d > 0 {
				ctx, cancel = context.WithTimeout(ctx, d)
			}
			defer cancel()
			r, err := writeThing(ctx, c, providerURL, withKey, k)
			out[i] = told{k, r, err}
		})
	}
	during()
	wg.Wait()
	return out
}

// resumeUntilSettled runs a replica's Resume (another handle of the
// ledger, another client) until no row is left claimed, for three leases
// at least, so that a claim that commits after its caller returned is
// found too: the claims of the callers, whose leases end, are taken over
// and driven on, their requests sent.
func resumeUntilSettled(t testing.TB, dsn, providerURL string) {
	t.Helper()
	ctx := context.Background()
	l := open(t, dsn)
	replica := wordClient(t, l, providerURL)
	start := time.Now()
	deadline := start.Add(time.Minute) // a row never taken over fails the test
	for {
		if _, err := resumeThings(ctx, replica, providerURL, withKey); err != nil {
			t.Logf("the replica's resume: %v", err)
		}
		claimed, err := l.List(ctx, ledger.Filter{Scope: scope, State: runtime.StateClaimed})
		if err != nil {
			t.Fatal(err)
		}
		if len(claimed) == 0 && time.Since(start) > 3*wordLease {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rows are still claimed a minute on: %+v", len(claimed), claimed)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkWord checks promise 52 once every row is settled: every effect at
// the provider has a row that is not not_applied, no key has two effects,
// and no caller told ErrNotApplied has an effect, or a row other than
// not_applied. It returns how many callers were told not applied, and how
// many got a receipt.
func checkWord(t testing.TB, l *ledger.Ledger, p *Provider, got []told) (notApplied, receipts int) {
	t.Helper()
	ctx := context.Background()
	rows, err := l.List(ctx, ledger.Filter{Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]ledger.Row{}
	for _, r := range rows {
		byKey[r.ProviderKey] = r
	}
	refs := p.refs()
	for ref, n := range refs {
		if n > 1 {
			t.Errorf("the provider holds %d effects of %s", n, ref)
		}
		if r, ok := byKey[ref]; !ok || r.State == runtime.StateNotApplied {
			t.Errorf("an effect of %s is at the provider, and its row is %+v", ref, r.Record)
		}
	}
	for _, g := range got {
		pk := providerKey(ident("create-thing", string(g.k)))
		switch {
		case g.err == nil:
			receipts++
		case errors.Is(g.err, runtime.ErrNotApplied):
			notApplied++
			if refs[pk] > 0 {
				t.Errorf("%s: the caller was told %v; the write was sent and is at the provider", g.k, g.err)
			}
			if r, ok := byKey[pk]; ok && r.State != runtime.StateNotApplied {
				t.Errorf("%s: the caller was told %v; its row is %s", g.k, g.err, r.State)
			}
		}
	}
	return notApplied, receipts
}

// testNotAppliedWhileLocked: another connection holds the claims table
// for 3 s while 8 callers, with deadlines of 0.3 s and 1.5 s, write 8
// keys. Every caller ends before the lock does; each is told "not
// applied" only if its claim never commits or is released before anyone
// can send it: a replica's Resume, once the leases end, finds nothing to
// send, and each key is free for the next call (promise 52).
func testNotAppliedWhileLocked(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	p := NewProvider(t)
	l := open(t, dsn)
	c := wordClient(t, l, p.URL)
	release := holdClaims(t, l)
	deadlines := make([]time.Duration, 8)
	for i := range deadlines {
		deadlines[i] = []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond}[i%2]
	}
	got := writeAll(c, p.URL, deadlines, func() {
		time.Sleep(3 * time.Second)
		release()
	})
	for _, g := range got {
		if g.err == nil {
			t.Fatalf("%s: a receipt while the ledger was locked past the deadline: %+v", g.k, g.r)
		}
		t.Logf("%s: %v", g.k, g.err)
	}
	resumeUntilSettled(t, dsn, p.URL)
	if n, _ := checkWord(t, l, p, got); n == 0 {
		t.Fatalf("no caller was told not applied: the test proves nothing")
	}
	// Whoever was told "not applied" writes again, and is not held up.
	for _, g := range got {
		if !errors.Is(g.err, runtime.ErrNotApplied) {
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute) // a key that is not free fails the test
		r, err := writeThing(wctx, c, p.URL, withKey, g.k)
		cancel()
		if err != nil || r.Source != runtime.Created {
			t.Fatalf("%s told not applied, written again: %+v, %v; want a receipt of an effect made now", g.k, r, err)
		}
	}
}

// testNotAppliedConnectionKilled: on PostgreSQL, the claims of 8 callers
// wait for a lock another connection holds, in groups; the database
// terminates the connections they wait on (pg_terminate_backend). The
// callers whose deadline (1.5 s) ends are told the truth; those with time
// left claim again and make their writes. Once a replica's Resume has
// driven on whatever was left claimed, every effect has its row and no
// caller told "not applied" has one (promise 52).
func testNotAppliedConnectionKilled(t *testing.T, b Backend) {
	if b.Terminate == nil {
		t.Skip("the database has no connections to kill")
	}
	ctx := context.Background()
	dsn := b.NewDSN(t)
	p := NewProvider(t)
	l := open(t, dsn)
	c := wordClient(t, l, p.URL)
	release := holdClaims(t, l)
	deadlines := make([]time.Duration, 8)
	for i := range deadlines {
		deadlines[i] = []time.Duration{1500 * time.Millisecond, 0}[i%2]
	}
	killed := 0
	got := writeAll(c, p.URL, deadlines, func() {
		for end := time.Now().Add(30 * time.Second); killed == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			n, err := b.Terminate(ctx, dsn)
			if err != nil {
				t.Error(err)
				break
			}
			killed += n
		}
		time.Sleep(2 * time.Second)
		release()
	})
	if killed == 0 {
		t.Fatal("no connection of the ledger waited on the lock: the test proves nothing")
	}
	for _, g := range got {
		t.Logf("%s: %+v, %v", g.k, g.r, g.err)
	}
	resumeUntilSettled(t, dsn, p.URL)
	notApplied, receipts := checkWord(t, l, p, got)
	t.Logf("%d connections killed; %d callers told not applied, %d receipts", killed, notApplied, receipts)
	if receipts == 0 {
		t.Fatalf("no caller without a deadline got its receipt")
	}
}

// settleDown is a ledger whose settlements fail, as a database that is
// unreachable when calls have their answers.
type settleDown struct{ *ledger.Ledger }

func (settleDown) Settle(context.Context, int64, int64, runtime.State, runtime.Settlement) error {
	return errors.New("settle: the database is unreachable")
}

// testNotAppliedUnrecorded: a call's answer is a 429 (nothing applied),
// and the ledger cannot record it: the row stays claimed, and once its
// lease ends a replica's Resume takes it over and sends the request. The
// caller is not told "not applied" (promise 52).
func testNotAppliedUnrecorded(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	p := NewProvider(t)
	l := open(t, dsn)
	c, err := writegenimpl.NewClient(scope, p.URL, []runtime.Option{runtime.WithLedger(settleDown{l}),
		runtime.WithAttemptTimeout(wordAttempt), runtime.WithLease(wordLease), runtime.WithHTTPClient(&http.Client{})})
	if err != nil {
		t.Fatal(err)
	}
	p.failNext(throttle)
	r, err := writeThing(ctx, c, p.URL, withKey, "order:1")
	if err == nil {
		t.Fatalf("a receipt %+v for a throttled call", r)
	}
	if !errors.Is(err, runtime.ErrInProgress) {
		t.Errorf("a 429 the ledger could not record: %v; want ErrInProgress (the claim stands)", err)
	}
	resumeUntilSettled(t, dsn, p.URL)
	if n, _ := checkWord(t, l, p, []told{{"order:1", r, err}}); n != 0 {
		t.Fatalf("the caller was told not applied")
	}
	if e := p.Effects(); len(e) != 1 {
		t.Fatalf("the provider holds %d effects, want the one the replica's Resume made", len(e))
	}
}
