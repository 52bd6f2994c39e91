// Package ledgertest is the conformance suite of writegen's ledgers: one
// set of tests that every database passes (promises 15 to 20), run by the
// sqlite and postgres packages' tests, and the benchmark that compares
// claims with plain inserts on the same database.
//
// Tests that need several OS processes re-execute the test binary; the
// package's TestMain must call Main so that such a process does its part.
package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

// Backend is a database the suite runs against.
type Backend struct {
	// NewDSN returns the DSN, as ledgercli.Open takes it, of an empty
	// database for one test.
	NewDSN func(t testing.TB) string
	// Raw opens the database at dsn with the backend's own driver.
	Raw func(ctx context.Context, dsn string) (Raw, error)
	// Processes is how many OS processes the tests of concurrent callers
	// spread them over; 1 keeps them in the test's process as goroutines.
	Processes int
}

// Raw is a database opened with a backend's own driver, beside the ledger.
type Raw interface {
	// Exec runs a statement.
	Exec(ctx context.Context, query string, args ...any) error
	// EnqueueTx inserts the order into a table of the caller's (orders,
	// created if absent) and enqueues ob, in one transaction of the
	// driver's own (a *sql.Tx, a pgx.Tx), which it commits when commit is
	// true and rolls back otherwise.
	EnqueueTx(ctx context.Context, order string, ob ledger.Obligation, commit bool) error
	Close() error
}

// Run runs the suite.
func Run(t *testing.T, b Backend) {
	tests := []struct {
		name string
		test func(*testing.T, Backend)
	}{
		{"Schema", testSchema},
		{"Claim", testClaim},
		{"SettleRefusesSettledRows", testSettleRefuses},
		{"NotSentClaimedAgain", testNotSentClaimedAgain},
		{"InTx", testInTx},
		{"Await", testAwait},
		{"Pending", testPending},
		{"Resolve", testResolve},
		{"ConcurrentCallers", testConcurrentCallers},
		{"Crash", testCrash},
		{"Commands", testCommands},
		{"OutboxTransaction", testOutboxTransaction},
		{"OutboxDeliversOnce", testOutboxDeliversOnce},
		{"OutboxFinal", testOutboxFinal},
		{"OutboxLease", testOutboxLease},
		{"OutboxCrash", testOutboxCrash},
		{"OutboxWorkers", testOutboxWorkers},
		{"InboxSignature", testInboxSignature},
		{"InboxConcurrentDeliveries", testInboxConcurrentDeliveries},
		{"InboxAnswersBeforeWork", testInboxAnswersBeforeWork},
		{"InboxRetries", testInboxRetries},
		{"InboxOrder", testInboxOrder},
		{"InboxRetention", testInboxRetention},
		{"InboxNodes", testInboxNodes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, b) })
	}
}

// open opens the ledger at dsn for the rest of the test.
func open(t testing.TB, dsn string, opts ...ledger.Option) *ledger.Ledger {
	t.Helper()
	l, err := ledgercli.Open(context.Background(), dsn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func raw(t testing.TB, b Backend, dsn string) Raw {
	t.Helper()
	r, err := b.Raw(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func testSchema(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	l := open(t, dsn)
	v, err := l.SchemaVersion(ctx)
	if err != nil || v != 1 {
		t.Fatalf("schema version = %d, %v; want 1", v, err)
	}
	// Opening again migrates nothing and keeps the rows.
	if _, _, err := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: "k"}); err != nil {
		t.Fatal(err)
	}
	again := open(t, dsn)
	if v, err := again.SchemaVersion(ctx); err != nil || v != 1 {
		t.Fatalf("schema version after reopening = %d, %v; want 1", v, err)
	}
	if _, won, err := again.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: "k"}); err != nil || won {
		t.Fatalf("claim after reopening: won=%v, %v; want the row kept", won, err)
	}
	// A database migrated by a newer program is refused.
	r := raw(t, b, dsn)
	if err := r.Exec(ctx, "INSERT INTO writegen_schema_version (version, applied_at) VALUES (99, 0)"); err != nil {
		t.Fatal(err)
	}
	if l, err := ledgercli.Open(ctx, dsn); err == nil {
		l.Close()
		t.Fatal("opened a ledger whose schema is newer than the program")
	}
}

func testClaim(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	rec := runtime.Record{Operation: "createThing", BusinessKey: "order:1", ProviderKey: "pk1", Owner: "ops", Request: []byte("req")}
	first, won, err := l.Claim(ctx, rec)
	if err != nil || !won {
		t.Fatalf("first claim: won=%v, %v", won, err)
	}
	if first.ID == 0 || first.State != runtime.StateClaimed || first.ProviderKey != "pk1" || string(first.Request) != "req" {
		t.Fatalf("first claim returned %+v", first)
	}
	second, won, err := l.Claim(ctx, runtime.Record{Operation: "createThing", BusinessKey: "order:1", ProviderKey: "other"})
	if err != nil || won {
		t.Fatalf("second claim of one key: won=%v, %v", won, err)
	}
	if second.ID != first.ID || second.ProviderKey != "pk1" || second.Owner != "ops" || string(second.Request) != "req" {
		t.Fatalf("second claim returned %+v, want the first row %+v", second, first)
	}
	// The same business key of another operation is another write.
	other, won, err := l.Claim(ctx, runtime.Record{Operation: "createOther", BusinessKey: "order:1"})
	if err != nil || !won || other.ID == first.ID {
		t.Fatalf("claim for another operation: %+v won=%v, %v", other, won, err)
	}
	// Provider ids are attributes: two rows may carry the same one.
	for _, id := range []int64{first.ID, other.ID} {
		if err := l.Settle(ctx, id, runtime.StateActive, runtime.Settlement{ProviderID: "p_1", Status: 201, Body: []byte(`{}`), Attempts: 1}); err != nil {
			t.Fatalf("settle row %d: %v", id, err)
		}
	}
	got, err := l.Get(ctx, first.ID)
	if err != nil || got.State != runtime.StateActive || got.ProviderID != "p_1" || got.Status != 201 || got.Attempts != 1 {
		t.Fatalf("settled row = %+v, %v", got, err)
	}
	if _, _, err := l.Claim(ctx, runtime.Record{Operation: "createThing"}); err == nil {
		t.Fatal("claimed an empty business key")
	}
	if _, err := l.Get(ctx, 99999); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("get of a missing row: %v, want ErrNotFound", err)
	}
}

// testSettleRefuses: a claimed row is never turned back into permission
// to create (promise 17).
func testSettleRefuses(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	finals := []runtime.State{runtime.StateActive, runtime.StateRejected, runtime.StateUncertain, runtime.StateCompensated}
	for _, from := range finals {
		rec, _, err := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: "key-" + string(from)})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Settle(ctx, rec.ID, runtime.StateClaimed, runtime.Settlement{}); !errors.Is(err, ledger.ErrTransition) {
			t.Fatalf("settle to claimed: %v, want ErrTransition", err)
		}
		if err := l.Settle(ctx, rec.ID, from, runtime.Settlement{ProviderID: "first"}); err != nil {
			t.Fatalf("settle claimed → %s: %v", from, err)
		}
		for _, to := range finals {
			err := l.Settle(ctx, rec.ID, to, runtime.Settlement{ProviderID: "second"})
			var te *ledger.TransitionError
			if !errors.As(err, &te) || te.From != from || te.To != to {
				t.Fatalf("settle %s → %s: %v, want a refusal", from, to, err)
			}
		}
		again, won, err := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: "key-" + string(from)})
		if err != nil || won || again.State != from || again.ProviderID != "first" {
			t.Fatalf("claim of a %s row: %+v won=%v, %v; want the settled row, not a new claim", from, again, won, err)
		}
	}
	if err := l.Settle(ctx, 99999, runtime.StateActive, runtime.Settlement{}); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("settle of a missing row: %v, want ErrNotFound", err)
	}
}

// testNotSentClaimedAgain: a row whose call reached nobody is the only
// settled row that a later call may claim again, and only one caller wins it.
func testNotSentClaimedAgain(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	first, won, err := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: "k", ProviderKey: "op:k", Request: []byte("one")})
	if err != nil || !won {
		t.Fatalf("claim: won=%v, %v", won, err)
	}
	if _, won, _ := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: "k"}); won {
		t.Fatal("a claimed row was claimed again")
	}
	if err := l.Settle(ctx, first.ID, runtime.StateNotSent, runtime.Settlement{Attempts: 2, LastError: "connection refused"}); err != nil {
		t.Fatal(err)
	}
	again, won, err := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: "k", ProviderKey: "op:k", Request: []byte("two")})
	if err != nil || !won || again.ID != first.ID || again.State != runtime.StateClaimed {
		t.Fatalf("claim of a not_sent row: %+v won=%v, %v; want the same row claimed again", again, won, err)
	}
	row, err := l.Get(ctx, first.ID)
	if err != nil || row.State != runtime.StateClaimed || string(row.Request) != "two" || row.Attempts != 0 || row.LastError != "" {
		t.Fatalf("row after the second claim: %+v, %v", row, err)
	}
	if _, won, _ := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: "k"}); won {
		t.Fatal("the row claimed again was claimed a third time")
	}
}

// testInTx: what a caller writes in InTx, its own rows and outbox
// obligations alike, commits or vanishes together.
func testInTx(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	if _, err := l.Querier().Exec(ctx, `CREATE TABLE mine (k TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	write := func(k string, fail error) error {
		return l.InTx(ctx, func(tx ledger.Querier) error {
			if _, err := tx.Exec(ctx, `INSERT INTO mine (k) VALUES ($1)`, k); err != nil {
				return err
			}
			if err := l.EnqueueOn(ctx, tx, ledger.Obligation{Operation: "op", DedupeKey: k}); err != nil {
				return err
			}
			return fail
		})
	}
	failed := errors.New("the caller's work failed")
	if err := write("rolled-back", failed); !errors.Is(err, failed) {
		t.Fatalf("InTx returned %v, want the caller's error", err)
	}
	if err := write("committed", nil); err != nil {
		t.Fatal(err)
	}
	items, err := l.OutboxItems(ctx, ledger.OutboxPending)
	if err != nil || len(items) != 1 || items[0].DedupeKey != "committed" {
		t.Fatalf("pending obligations %+v, %v; want only the committed one", items, err)
	}
	var n int
	if err := scanOne(l.Querier(), `SELECT COUNT(*) FROM mine`, &n); err != nil || n != 1 {
		t.Fatalf("%d rows of the caller's own, %v; want 1", n, err)
	}
}

// scanOne runs a query of one row and scans it.
func scanOne(q ledger.Querier, query string, dest ...any) error {
	rows, err := q.Query(context.Background(), query)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		return errors.New("no row")
	}
	return rows.Scan(dest...)
}

func testAwait(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	l, other := open(t, dsn), open(t, dsn) // other is another handle, as another process has
	for i, waiter := range []*ledger.Ledger{l, other} {
		k := fmt.Sprint("k", i)
		rec, _, err := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: k})
		if err != nil {
			t.Fatal(err)
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := waiter.Await(cancelled, "op", k); !errors.Is(err, runtime.ErrInProgress) {
			t.Fatalf("await with an ended context: %v; want ErrInProgress", err)
		}
		done := make(chan runtime.Record)
		go func() {
			got, err := waiter.Await(ctx, "op", k)
			if err != nil {
				t.Error(err)
			}
			done <- got
		}()
		if err := l.Settle(ctx, rec.ID, runtime.StateActive, runtime.Settlement{ProviderID: "p"}); err != nil {
			t.Fatal(err)
		}
		if got := <-done; got.State != runtime.StateActive || got.ProviderID != "p" {
			t.Fatalf("await returned %+v", got)
		}
	}
	if _, err := l.Await(ctx, "op", "missing"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("await of a missing row: %v, want ErrNotFound", err)
	}
}

func testPending(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	var ids []int64
	for _, k := range []string{"a", "b", "c"} {
		rec, _, err := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: k})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	if _, _, err := l.Claim(ctx, runtime.Record{Operation: "other", BusinessKey: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Settle(ctx, ids[1], runtime.StateActive, runtime.Settlement{}); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Pending(ctx, "op", clock.Now()); err != nil || len(got) != 0 {
		t.Fatalf("pending before the threshold passed: %v, %v; want none", got, err)
	}
	clock.Advance(time.Minute)
	threshold := clock.Now()
	got, err := l.Pending(ctx, "op", threshold)
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs []int64
	for _, r := range got {
		gotIDs = append(gotIDs, r.ID)
	}
	if want := []int64{ids[0], ids[2]}; !slices.Equal(gotIDs, want) {
		t.Fatalf("pending = %v, want the rows left claimed %v", gotIDs, want)
	}
	// Each row is handed to one caller.
	if again, err := l.Pending(ctx, "op", threshold); err != nil || len(again) != 0 {
		t.Fatalf("pending again with the same threshold: %v, %v; want none", again, err)
	}
	clock.Advance(time.Minute)
	if all, err := l.Pending(ctx, "", clock.Now()); err != nil || len(all) != 3 {
		t.Fatalf("pending of every operation later: %d rows, %v; want 3", len(all), err)
	}
}

func testResolve(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	mk := func(k string, to runtime.State) int64 {
		rec, _, err := l.Claim(ctx, runtime.Record{Operation: "op", BusinessKey: k, Owner: "ops"})
		if err != nil {
			t.Fatal(err)
		}
		if to != runtime.StateClaimed {
			if err := l.Settle(ctx, rec.ID, to, runtime.Settlement{LastError: "ambiguous without key or lookup", Attempts: 2}); err != nil {
				t.Fatal(err)
			}
		}
		return rec.ID
	}
	u1, u2, u3 := mk("u1", runtime.StateUncertain), mk("u2", runtime.StateUncertain), mk("u3", runtime.StateUncertain)
	active, claimed := mk("a", runtime.StateActive), mk("c", runtime.StateClaimed)
	list, err := l.List(ctx, runtime.StateUncertain)
	if err != nil || len(list) != 3 || list[0].ID != u1 || list[0].LastError != "ambiguous without key or lookup" || list[0].Attempts != 2 {
		t.Fatalf("list of uncertain rows = %+v, %v", list, err)
	}
	for _, bad := range []ledger.Resolution{
		{Committed: true, Reason: "seen in the dashboard"}, // no provider id
		{Committed: true, ProviderID: "p"},                 // no reason
		{ProviderID: "p", Reason: "not in the dashboard"},  // not applied, with an id
	} {
		if err := l.Resolve(ctx, u1, bad); err == nil {
			t.Fatalf("resolve with %+v succeeded", bad)
		}
	}
	for _, id := range []int64{active, claimed} {
		if err := l.Resolve(ctx, id, ledger.Resolution{Committed: true, ProviderID: "p", Reason: "r"}); !errors.Is(err, ledger.ErrTransition) {
			t.Fatalf("resolve of a row that is not uncertain: %v, want ErrTransition", err)
		}
	}
	if err := l.Resolve(ctx, u1, ledger.Resolution{Committed: true, ProviderID: "thing_7", Reason: "found in the dashboard"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Resolve(ctx, u2, ledger.Resolution{Reason: "the provider has no such thing"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Resolve(ctx, u1, ledger.Resolution{Reason: "changed my mind"}); !errors.Is(err, ledger.ErrTransition) {
		t.Fatalf("second resolve: %v, want ErrTransition", err)
	}
	r1, _ := l.Get(ctx, u1)
	r2, _ := l.Get(ctx, u2)
	if r1.State != runtime.StateActive || r1.ProviderID != "thing_7" || r2.State != runtime.StateRejected || r2.ProviderID != "" {
		t.Fatalf("resolved rows: %+v, %+v", r1, r2)
	}
	if list, err := l.List(ctx, runtime.StateUncertain); err != nil || len(list) != 1 || list[0].ID != u3 {
		t.Fatalf("uncertain rows after resolving two: %+v, %v", list, err)
	}
}
