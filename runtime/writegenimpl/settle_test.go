package writegenimpl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/postgres"
	"github.com/writegen/writegen/runtime/ledger/postgres/pgtest"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// testLedger is a ledger the tests of promise 45 run on.
type testLedger struct {
	name string
	open func(t *testing.T, clk runtime.Clock) runtime.Ledger
}

// testLedgers returns the in-memory ledger, a SQLite file and, when
// WRITEGEN_PG_DSN names a server, a PostgreSQL schema of the test's own.
// The database ledgers stamp rows with clk, as the clients do.
func testLedgers() []testLedger {
	ls := []testLedger{
		{"memory", func(_ *testing.T, clk runtime.Clock) runtime.Ledger { return newMemLedgerOn(clk) }},
		{"sqlite", func(t *testing.T, clk runtime.Clock) runtime.Ledger {
			l, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"), ledger.WithClock(clk))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return l
		}},
	}
	if dsn := os.Getenv("WRITEGEN_PG_DSN"); dsn != "" {
		ls = append(ls, testLedger{"postgres", func(t *testing.T, clk runtime.Clock) runtime.Ledger {
			l, err := postgres.Open(context.Background(), pgtest.Schema(t, dsn, "settle"), ledger.WithClock(clk))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return l
		}})
	}
	return ls
}

// firstCallUncertain writes business key "1" of op through a client of l
// that makes one attempt only, and fails the test unless the call ends
// uncertain. lookupDown makes the lookup fail during the call.
func firstCallUncertain(t *testing.T, p *provider, l runtime.Ledger, clk *testClock, op *Operation, lookupDown bool) *runtime.UncertainError {
	t.Helper()
	c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithMaxAttempts(1), runtime.WithNotifier(&notes{}))
	call := thingCall(c, op, "x")
	if lookupDown {
		call.Lookup = func(context.Context, string) ([]runtime.Found[*thing], error) {
			return nil, errors.New("search is down")
		}
	}
	_, err := Write(context.Background(), c, op, thingKey{"1"}, call)
	uncertainReason(t, err)
	var ue *runtime.UncertainError
	errors.As(err, &ue)
	return ue
}

// TestPromise45_SecondCallDrivesUncertainRow: a call with the business key
// of a row left uncertain drives the row on at once, as Resume would,
// where its key is still inside its window or its strong lookup can
// answer; otherwise it returns the recorded uncertain outcome without
// calling the provider.
func TestPromise45_SecondCallDrivesUncertainRow(t *testing.T) {
	for _, tl := range testLedgers() {
		t.Run(tl.name, func(t *testing.T) {
			t.Run("key in its window", func(t *testing.T) {
				// The first call's only attempt committed and lost its answer.
				p := newProvider(t, step{loss: lostResponse})
				op := thingOp(withKey)
				op.Dedupe = true
				clk := newTestClock()
				l := tl.open(t, clk)
				firstCallUncertain(t, p, l, clk, op, false)
				clk.advance(time.Hour)
				c := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
				r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
				if err != nil || r.ID != "th_1" || r.Source != runtime.Created {
					t.Fatalf("second call: receipt %+v, err %v; want th_1, created (the provider replayed its key)", r, err)
				}
				w := p.seenWrites()
				if p.effectCount() != 1 || len(w) != 2 || w[1].key != w[0].key || string(w[1].body) != string(w[0].body) {
					t.Errorf("%d effects, writes %+v; want one effect, the stored request re-sent once with its key", p.effectCount(), w)
				}
				// The row is settled: a third call adopts it from the ledger.
				r, err = Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
				if err != nil || r.ID != "th_1" || r.Source != runtime.AdoptedLedger || len(p.seenWrites()) != 2 {
					t.Errorf("third call: receipt %+v, err %v, %d writes; want th_1 from the ledger", r, err, len(p.seenWrites()))
				}
			})
			t.Run("strong lookup after the window", func(t *testing.T) {
				p := newProvider(t, step{loss: lostResponse})
				op := thingOp(withKey)
				op.Dedupe, op.Lookup = true, runtime.Strong
				clk := newTestClock()
				l := tl.open(t, clk)
				firstCallUncertain(t, p, l, clk, op, true)
				clk.advance(25 * time.Hour) // the provider forgot the key
				c := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
				r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
				if err != nil || r.ID != "th_1" || r.Source != runtime.AdoptedLookup {
					t.Fatalf("second call: receipt %+v, err %v; want th_1 adopted by the lookup", r, err)
				}
				if p.effectCount() != 1 || len(p.seenWrites()) != 1 || p.lookupCount() != 1 {
					t.Errorf("%d effects, %d writes, %d lookups; want the effect found, nothing re-sent", p.effectCount(), len(p.seenWrites()), p.lookupCount())
				}
			})
			t.Run("cannot be driven on", func(t *testing.T) {
				for _, tc := range []struct {
					name  string
					s     strategy
					later time.Duration
				}{
					{"key window over", withKey, 25 * time.Hour},
					{"no key, no lookup", ledgerOnly, time.Minute},
				} {
					t.Run(tc.name, func(t *testing.T) {
						p := newProvider(t, step{loss: lostResponse})
						op := thingOp(tc.s)
						op.Dedupe = true
						clk := newTestClock()
						l := tl.open(t, clk)
						first := firstCallUncertain(t, p, l, clk, op, false)
						clk.advance(tc.later)
						conns := p.conns.Load()
						c := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
						_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
						if r := uncertainReason(t, err); r != first.Reason {
							t.Errorf("second call: reason %q, want the recorded %q", r, first.Reason)
						}
						if p.conns.Load() != conns || len(p.seenWrites()) != 1 {
							t.Errorf("%d connections, %d writes after the second call; want no provider call", p.conns.Load()-conns, len(p.seenWrites()))
						}
					})
				}
			})
			t.Run("another request", func(t *testing.T) {
				p := newProvider(t, step{loss: lostResponse})
				op := thingOp(withKey)
				op.Dedupe = true
				clk := newTestClock()
				l := tl.open(t, clk)
				firstCallUncertain(t, p, l, clk, op, false)
				c := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
				_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "another title"))
				only(t, err, runtime.ErrKeyConflict)
				if len(p.seenWrites()) != 1 {
					t.Errorf("%d writes, want the first only", len(p.seenWrites()))
				}
			})
			t.Run("concurrent calls and a Resume", func(t *testing.T) {
				// The first call's attempt was lost before it committed; the
				// re-send is held until every taker has tried for the row.
				p := newProvider(t, step{loss: lostRequest}, step{loss: held})
				op := thingOp(withKey)
				op.Dedupe = true
				clk := newTestClock()
				l := tl.open(t, clk)
				firstCallUncertain(t, p, l, clk, op, false)
				tl := &takers{Ledger: l, tried: make(chan struct{}, 16)}
				const callers = 2
				receipts := make([]*runtime.Receipt[thing], callers)
				errs := make([]error, callers)
				var rep runtime.ResumeReport
				var rerr error
				var wg sync.WaitGroup
				for i := range callers + 1 {
					c := newTestClient(t, p.URL, clk, runtime.WithLedger(tl))
					wg.Add(1)
					go func() {
						defer wg.Done()
						if i == callers {
							rep, rerr = Resume(context.Background(), c, op, thingCall(c, op, "x"))
							return
						}
						receipts[i], errs[i] = Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
					}()
				}
				<-p.read // one of them re-sends the row's request
				for range callers + 1 {
					<-tl.tried // each tried to take the row over, or waits for its taker
				}
				p.finishSlowCommit()
				wg.Wait()
				if rerr != nil {
					t.Fatal(rerr)
				}
				created := 0
				for i, r := range receipts {
					if errs[i] != nil || r.ID != "th_1" {
						t.Fatalf("caller %d: receipt %+v, err %v; want th_1", i, r, errs[i])
					}
					if r.Source == runtime.Created {
						created++
					}
				}
				if created+rep.Active != 1 || rep.Taken != rep.Active {
					t.Errorf("%d receipts created, resume report %+v; want one of them to have driven the row", created, rep)
				}
				if w := p.seenWrites(); len(w) != 2 || p.effectCount() != 1 {
					t.Errorf("%d writes, %d effects; want the request re-sent once, one effect", len(w), p.effectCount())
				}
			})
		})
	}
}

// takers is a ledger that tells when a caller has tried to take rows over,
// by TakeOverRow or TakeOver, and when one waits for a row (Await).
type takers struct {
	runtime.Ledger
	tried chan struct{}
}

func (l *takers) TakeOverRow(ctx context.Context, id int64, now time.Time, h runtime.Holder, lease time.Duration) (runtime.Record, bool, error) {
	defer func() { l.tried <- struct{}{} }()
	return l.Ledger.(runtime.RowTaker).TakeOverRow(ctx, id, now, h, lease)
}

func (l *takers) Await(ctx context.Context, id int64) (runtime.Record, error) {
	l.tried <- struct{}{}
	return l.Ledger.Await(ctx, id)
}

func (l *takers) TakeOver(ctx context.Context, scope, tenant, operation string, now time.Time, h runtime.Holder, lease time.Duration, limit int) ([]runtime.Record, error) {
	defer func() { l.tried <- struct{}{} }()
	return l.Ledger.TakeOver(ctx, scope, tenant, operation, now, h, lease, limit)
}

// TestStillInProgressIsWaitedFor: a provider's 409 "still in progress" on
// a keyed write is waited for, with a growing backoff that honours its
// Retry-After, beyond the operation's attempts and up to the attempt
// budget's time; never past the key's window.
func TestStillInProgressIsWaitedFor(t *testing.T) {
	retryAfter := func(p *provider) { p.conflict = map[string]string{"Retry-After": "1"} }
	t.Run("commits after many 409s", func(t *testing.T) {
		p := newProviderWith(t, retryAfter, step{loss: slowCommit})
		op := thingOp(withKey)
		op.Dedupe = true
		const conflicts = 9 // more than the operation's 4 attempts
		clk := newTestClock()
		clk.onSleep = func(n int) {
			if n == conflicts+1 { // the wait after the last 409: the first attempt commits
				p.finishSlowCommit()
				<-p.committed
			}
		}
		var a attempts
		c := newTestClient(t, p.URL, clk, runtime.WithLedger(newMemLedger()), runtime.WithHooks(a.hooks()))
		r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if err != nil || r.ID != "th_1" {
			t.Fatalf("receipt %+v, err %v; want th_1", r, err)
		}
		want := "ambiguous" + strings.Repeat(", status 409", conflicts) + ", ok 201"
		if got := a.classes(); got != want {
			t.Errorf("attempts: %s, want %s", got, want)
		}
		s := clk.slept()
		for i := 2; i < len(s); i++ {
			if s[i] < time.Second || s[i] < s[i-1] {
				t.Errorf("waits %v: want every wait after a 409 at least its Retry-After (1s), and not shorter than the one before", s)
				break
			}
		}
		if s[len(s)-1] <= time.Second {
			t.Errorf("waits %v: want them to grow past the Retry-After", s)
		}
		if n := p.effectCount(); n != 1 {
			t.Errorf("%d effects, want 1", n)
		}
	})
	t.Run("outlasts the budget", func(t *testing.T) {
		p := newProviderWith(t, retryAfter, step{loss: slowCommit})
		op := thingOp(withKey)
		clk := newTestClock()
		var n notes
		c := newTestClient(t, p.URL, clk, runtime.WithNotifier(&n))
		start := clk.Now()
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		r := uncertainReason(t, err)
		if !strings.HasPrefix(r, "still in progress (409) after ") || !strings.Contains(r, "attempt budget") {
			t.Errorf("reason %q, want that the 409s outlasted the attempt budget's time", r)
		}
		budget := time.Duration(op.Attempts) * defaultAttemptTimeout
		if waited := clk.Now().Sub(start); waited > budget || waited < budget/2 {
			t.Errorf("waited %v for the 409s, want up to the attempt budget's time (%v)", waited, budget)
		}
		if w := len(p.seenWrites()); w <= op.Attempts || p.effectCount() != 0 {
			t.Errorf("%d writes, %d effects; want more sends than the operation's attempts, no effect yet", w, p.effectCount())
		}
	})
	t.Run("never past the key window", func(t *testing.T) {
		p := newProviderWith(t, retryAfter, step{loss: slowCommit})
		op := thingOp(withKey)
		op.KeyWindow = 10 * time.Second
		clk := newTestClock()
		var sentAt []time.Duration
		start := clk.Now()
		c := newTestClient(t, p.URL, clk, runtime.WithNotifier(&notes{}), runtime.WithHooks(runtime.Hooks{
			AttemptStart: func(ctx context.Context, _ *runtime.CallInfo, _ int) context.Context {
				sentAt = append(sentAt, clk.Now().Sub(start))
				return ctx
			}}))
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if r := uncertainReason(t, err); r != "key window ends before the next attempt" {
			t.Errorf("reason %q, want the key window", r)
		}
		if len(sentAt) < 3 || sentAt[len(sentAt)-1] >= op.KeyWindow {
			t.Errorf("sent at %v; want the 409s waited for, none sent past the key's window (%v)", sentAt, op.KeyWindow)
		}
	})
}
