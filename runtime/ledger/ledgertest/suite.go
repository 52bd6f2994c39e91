// Package ledgertest is the conformance suite of writegen's ledgers: one
// set of tests that every database passes (promises 15 to 20, 23 to 25,
// 28, 30, 31, 33, 37 and 38), run by the sqlite and postgres packages' tests, and the
// benchmark that compares a claim and its settlement with the database's
// own commits.
//
// The tests drive the runtime.Ledger interface directly, from goroutines
// and from several OS processes that share one database, and the runtime's
// executor end to end against a provider on 127.0.0.1. Tests that need
// several OS processes re-execute the test binary; the package's TestMain
// must call Main so that such a process does its part.
package ledgertest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"sync"
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
	// Raw opens the ledger at dsn with the backend's own driver, with opts.
	Raw func(ctx context.Context, dsn string, opts ...ledger.Option) (Raw, error)
	// Plain opens the database at dsn with the backend's driver alone,
	// without the ledger: nothing is migrated.
	Plain func(ctx context.Context, dsn string) (Plain, error)
	// V1Schema is the backend's first migration, migrations/001_tables.sql:
	// the schema of ledgers written before scopes and leases.
	V1Schema string
	// Migrations holds the backend's migrations/NNN_name.sql, from which
	// the tests build the schemas of older versions.
	Migrations fs.FS
	// Terminate terminates the database connections of the ledgers opened
	// with dsn that wait for a lock, as the database does to the
	// connections it kills (pg_terminate_backend), and returns how many it
	// terminated; nil for a database without connections of its own.
	Terminate func(ctx context.Context, dsn string) (int, error)
	// Reroute returns the address of the database dsn names and a function
	// that returns a DSN of the same database reached at another address
	// (a proxy's); nil for a database that is not reached over a network.
	Reroute func(dsn string) (target string, via func(addr string) string)
	// Processes is how many OS processes the tests of concurrent callers
	// spread them over; at least 2 for the tests that need another process.
	Processes int
}

// Raw is a ledger opened with a backend's own driver.
type Raw interface {
	// Exec runs a statement of the caller's, prepared once.
	Exec(ctx context.Context, query string, args ...any) error
	// EnqueueTx inserts the order into a table of the caller's (orders,
	// created if absent) and enqueues ob, in one transaction of the
	// driver's own (a *sql.Tx, a pgx.Tx), which it commits when commit is
	// true and rolls back otherwise.
	EnqueueTx(ctx context.Context, order string, ob ledger.Obligation, commit bool) error
	Close() error
}

// Plain is a database opened without the ledger.
type Plain interface {
	// Exec runs a statement, or several without arguments.
	Exec(ctx context.Context, query string, args ...any) error
	Close() error
}

// Run runs the suite.
func Run(t *testing.T, b Backend) {
	tests := []struct {
		name string
		test func(*testing.T, Backend)
	}{
		{"Schema", testSchema},
		{"MigrateFromV1", testMigrateFromV1},
		{"MigrateFromV4", testMigrateFromV4},
		{"Claim", testClaim},
		{"Scopes", testScopes},
		{"Lease", testLease},
		{"SettleRefusesSettledRows", testSettleRefuses},
		{"NotAppliedClaimedAgain", testNotAppliedClaimedAgain},
		{"Record", testRecord},
		{"Redrive", testRedrive},
		{"TakeOverRow", testTakeOverRow},
		{"LeaseLeft", testLeaseLeft},
		{"RedriveAfter", testRedriveAfter},
		{"InTx", testInTx},
		{"Await", testAwait},
		{"Resolve", testResolve},
		{"Compensate", testCompensate},
		{"Promise55_PruneKeepsHorizon", testPruneKeepsHorizon},
		{"Promise55_ResumePrunes", testResumePrunes},
		{"LeaseAcrossProcesses", testLeaseAcrossProcesses},
		{"Promise37_LeaseByDatabaseClock", testLeaseByDatabaseClock},
		{"Promise37_MinimumLease", testMinimumLease},
		{"Promise38_RestartTakesOwnClaims", testRestartTakesOwnClaims},
		{"Promise28_ReceiptKeptWhenLedgerFails", testReceiptKeptWhenLedgerFails},
		{"ConcurrentClaims", testConcurrentClaims},
		{"ConcurrentTakeOver", testConcurrentTakeOver},
		{"GroupCommit", testGroupCommit},
		{"Promise52_NotAppliedWhileLocked", testNotAppliedWhileLocked},
		{"Promise52_NotAppliedConnectionKilled", testNotAppliedConnectionKilled},
		{"Promise52_NotAppliedUnrecorded", testNotAppliedUnrecorded},
		{"Promise52_ClaimCommitLost", testClaimCommitLost},
		{"ConcurrentCallers", testConcurrentCallers},
		{"Crash", testCrash},
		{"Promise54_WaiterTakesDeadClaim", testWaiterTakesDeadClaim},
		{"Commands", testCommands},
		{"CommandsAdopt", testCommandsAdopt},
		{"OutboxTransaction", testOutboxTransaction},
		{"OutboxScopes", testOutboxScopes},
		{"OutboxDeliversOnce", testOutboxDeliversOnce},
		{"OutboxFinal", testOutboxFinal},
		{"OutboxRedrive", testOutboxRedrive},
		{"OutboxLease", testOutboxLease},
		{"OutboxStaleFinish", testOutboxStaleFinish},
		{"InboxStaleFinish", testInboxStaleFinish},
		{"OutboxCrash", testOutboxCrash},
		{"OutboxWorkers", testOutboxWorkers},
		{"InboxSignature", testInboxSignature},
		{"InboxConcurrentDeliveries", testInboxConcurrentDeliveries},
		{"InboxAnswersBeforeWork", testInboxAnswersBeforeWork},
		{"InboxRetries", testInboxRetries},
		{"InboxPanics", testInboxPanics},
		{"InboxRetentionAndTolerance", testInboxRetentionAndTolerance},
		{"InboxOrder", testInboxOrder},
		{"InboxRetention", testInboxRetention},
		{"InboxNodes", testInboxNodes},
		{"Promise53_WorkerLeasesByDatabaseClock", testWorkerLeasesByDatabaseClock},
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

func raw(t testing.TB, b Backend, dsn string, opts ...ledger.Option) Raw {
	t.Helper()
	r, err := b.Raw(context.Background(), dsn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// scope is the provider scope of the suite's rows.
const scope = "things"

// ident returns the identity of business key k of operation op in the
// suite's scope, for no tenant.
func ident(op, k string) runtime.Identity {
	return runtime.Identity{Scope: scope, Operation: op, BusinessKey: k}
}

// claimOf returns the record a caller claims for id with request req.
func claimOf(id runtime.Identity, req string) runtime.Record {
	d := sha256.Sum256([]byte(req))
	return runtime.Record{Identity: id, OperationID: "create" + id.Operation, ProviderKey: providerKey(id),
		Owner: "things-oncall", Request: []byte(req), Digest: d[:]}
}

// providerKey is the provider key of id, as a client without a key secret
// derives it.
func providerKey(id runtime.Identity) string {
	if id.Tenant != "" {
		return id.Scope + "/" + id.Tenant + "/" + id.Operation + ":" + id.BusinessKey
	}
	return id.Scope + "/" + id.Operation + ":" + id.BusinessKey
}

// schemaVersion is the newest version of the ledger's schema.
const schemaVersion = 7

// lease is the suite's lease.
const lease = time.Minute

func testSchema(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	l := open(t, dsn)
	v, err := l.SchemaVersion(ctx)
	if err != nil || v != schemaVersion {
		t.Fatalf("schema version = %d, %v; want %d", v, err, schemaVersion)
	}
	// Opening again migrates nothing and keeps the rows.
	id := ident("thing", "k")
	if _, _, err := l.Claim(ctx, claimOf(id, "r"), runtime.Holder{Owner: "me"}, lease); err != nil {
		t.Fatal(err)
	}
	again := open(t, dsn)
	if v, err := again.SchemaVersion(ctx); err != nil || v != schemaVersion {
		t.Fatalf("schema version after reopening = %d, %v; want %d", v, err, schemaVersion)
	}
	if _, won, err := again.Claim(ctx, claimOf(id, "r"), runtime.Holder{Owner: "me"}, lease); err != nil || won {
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
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	until := clock.Now().Add(lease)
	id := ident("thing", "order:1")
	rec := claimOf(id, "req")
	rec.Reference = "ref-1"
	first, won, err := l.Claim(ctx, rec, runtime.Holder{Owner: "caller-1"}, until.Sub(clock.Now()))
	if err != nil || !won {
		t.Fatalf("first claim: won=%v, %v", won, err)
	}
	if first.ID == 0 || first.State != runtime.StateClaimed || first.Fence != 1 || first.LeaseOwner != "caller-1" ||
		!first.LeaseUntil.Equal(until.Truncate(time.Microsecond)) || first.ProviderKey != rec.ProviderKey ||
		string(first.Request) != "req" || string(first.Digest) != string(rec.Digest) || first.Reference != "ref-1" {
		t.Fatalf("first claim returned %+v", first)
	}
	stored, err := l.Get(ctx, first.ID)
	if err != nil || !sameRow(stored.Record, first) || !stored.Claim {
		t.Fatalf("stored row %+v, %v; want %+v", stored, err, first)
	}
	// The loser gets the row as stored, with the winner's digest to compare.
	second, won, err := l.Claim(ctx, claimOf(id, "another request"), runtime.Holder{Owner: "caller-2"}, until.Sub(clock.Now()))
	if err != nil || won {
		t.Fatalf("second claim of one identity: won=%v, %v", won, err)
	}
	if !sameRow(second, first) {
		t.Fatalf("second claim returned %+v, want the first row %+v", second, first)
	}
	// The same business key of another operation is another write.
	other, won, err := l.Claim(ctx, claimOf(ident("other", "order:1"), "req"), runtime.Holder{Owner: "caller-1"}, until.Sub(clock.Now()))
	if err != nil || !won || other.ID == first.ID {
		t.Fatalf("claim for another operation: %+v won=%v, %v", other, won, err)
	}
	// Provider ids are attributes: two rows may carry the same one.
	for _, r := range []runtime.Record{first, other} {
		if err := l.Settle(ctx, r.ID, r.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p_1", Status: 201, Body: []byte(`{}`), Attempts: 1}); err != nil {
			t.Fatalf("settle row %d: %v", r.ID, err)
		}
	}
	got, err := l.Get(ctx, first.ID)
	if err != nil || got.State != runtime.StateActive || got.ProviderID != "p_1" || got.Status != 201 || got.Attempts != 1 || string(got.Body) != `{}` {
		t.Fatalf("settled row = %+v, %v", got, err)
	}
	for _, bad := range []runtime.Identity{{Scope: scope, Operation: "thing"}, {Scope: scope, BusinessKey: "k"}} {
		if _, _, err := l.Claim(ctx, claimOf(bad, "r"), runtime.Holder{Owner: "me"}, until.Sub(clock.Now())); err == nil {
			t.Fatalf("claimed %+v", bad)
		}
	}
	if _, err := l.Get(ctx, 99999); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("get of a missing row: %v, want ErrNotFound", err)
	}
	if _, err := l.Find(ctx, ident("thing", "order:2")); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("find of a missing identity: %v, want ErrNotFound", err)
	}
}

// sameRow reports whether two records are one row in one state, ignoring
// UpdatedAt.
func sameRow(a, b runtime.Record) bool {
	a.UpdatedAt, b.UpdatedAt = time.Time{}, time.Time{}
	return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b)
}

// testScopes: two scopes and two tenants of one of them, with the same
// operation and business key, are four independent writes: a claim, a
// settlement, a takeover or a listing of one never touches another's row
// (promise 23).
func testScopes(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	ids := []runtime.Identity{
		{Scope: "desk", Operation: "create-thread", BusinessKey: "escalation:42"},
		{Scope: "desk", Tenant: "acme", Operation: "create-thread", BusinessKey: "escalation:42"},
		{Scope: "desk", Tenant: "globex", Operation: "create-thread", BusinessKey: "escalation:42"},
		{Scope: "chat", Operation: "create-thread", BusinessKey: "escalation:42"},
	}
	rows := map[runtime.Identity]runtime.Record{}
	for i, id := range ids {
		rec, won, err := l.Claim(ctx, claimOf(id, fmt.Sprint("request of ", i)), runtime.Holder{Owner: "caller"}, lease)
		if err != nil || !won {
			t.Fatalf("claim of %+v: won=%v, %v; want a claim of its own", id, won, err)
		}
		rows[id] = rec
	}
	// Settling one leaves the others claimed.
	desk := rows[ids[0]]
	if err := l.Settle(ctx, desk.ID, desk.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "t_1", Body: []byte(`{"id":"t_1"}`)}); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		got, err := l.Find(ctx, id)
		if err != nil || got.ID != rows[id].ID || string(got.Request) != string(rows[id].Request) {
			t.Fatalf("find %+v: %+v, %v; want its own row", id, got, err)
		}
		if want := id == ids[0]; (got.State == runtime.StateActive) != want {
			t.Fatalf("find %+v: state %s", id, got.State)
		}
		// A later claim of each identity sees its own row only.
		again, won, err := l.Claim(ctx, claimOf(id, "again"), runtime.Holder{Owner: "later"}, lease)
		if err != nil || won || again.ID != rows[id].ID {
			t.Fatalf("claim of %+v again: %+v won=%v, %v; want its own row", id, again, won, err)
		}
	}
	// Takeovers of one scope and tenant hand out nothing of another.
	clock.Advance(2 * lease)
	for _, id := range ids[1:] {
		got, err := l.TakeOver(ctx, id.Scope, id.Tenant, "", clock.Now(), runtime.Holder{Owner: "resumer"}, lease, 0)
		if err != nil || len(got) != 1 || got[0].ID != rows[id].ID || got[0].Identity != id {
			t.Fatalf("take over %q/%q: %+v, %v; want only the row of %+v", id.Scope, id.Tenant, got, err, id)
		}
	}
	if got, err := l.TakeOver(ctx, "desk", "", "", clock.Now(), runtime.Holder{Owner: "resumer"}, lease, 0); err != nil || len(got) != 0 {
		t.Fatalf("take over desk without a tenant: %+v, %v; want nothing (its row is settled)", got, err)
	}
	// Listings select by scope and tenant.
	for _, tc := range []struct {
		f    ledger.Filter
		want int
	}{
		{ledger.Filter{AnyScope: true, AnyTenant: true}, 4},
		{ledger.Filter{Scope: "desk", AnyTenant: true}, 3},
		{ledger.Filter{Scope: "desk"}, 1},
		{ledger.Filter{Scope: "desk", Tenant: "acme"}, 1},
		{ledger.Filter{Scope: "chat", AnyTenant: true}, 1},
		{ledger.Filter{Scope: "desk", AnyTenant: true, State: runtime.StateClaimed}, 2},
		{ledger.Filter{AnyScope: true, AnyTenant: true, Operation: "other"}, 0},
		{ledger.Filter{AnyTenant: true}, 0}, // unscoped rows
	} {
		got, err := l.List(ctx, tc.f)
		if err != nil || len(got) != tc.want {
			t.Fatalf("list %+v: %d rows, %v; want %d", tc.f, len(got), err, tc.want)
		}
		for _, r := range got {
			if !tc.f.AnyScope && r.Scope != tc.f.Scope || !tc.f.AnyTenant && r.Tenant != tc.f.Tenant {
				t.Fatalf("list %+v returned %+v", tc.f, r)
			}
		}
	}
}

// testLease: a claim is taken over only once its lease has passed, and
// renewing it keeps it; the taker's fence shuts the old holder out, whose
// renewal and settlement fail with ErrLeaseLost, and a waiter gets the new
// holder's outcome (promise 24).
func testLease(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	t0 := clock.Now()
	// take takes rows over when the ledger's clock, which judges leases,
	// says at.
	take := func(at time.Time) []runtime.Record {
		t.Helper()
		clock.Advance(at.Sub(clock.Now()))
		got, err := l.TakeOver(ctx, scope, "", "thing", at, runtime.Holder{Owner: "taker"}, lease, 0)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	row, _, err := l.Claim(ctx, claimOf(ident("thing", "k"), "req"), runtime.Holder{Owner: "holder"}, lease)
	if err != nil {
		t.Fatal(err)
	}
	if got := take(t0.Add(lease - time.Second)); len(got) != 0 {
		t.Fatalf("took over a live lease: %+v", got)
	}
	if got := take(t0.Add(lease)); len(got) != 0 {
		t.Fatalf("took over a lease at the instant it ends: %+v", got)
	}
	if err := l.Renew(ctx, row.ID, row.Fence, lease); err != nil { // at t0+lease: until t0+2·lease
		t.Fatal(err)
	}
	if got := take(t0.Add(lease + time.Second)); len(got) != 0 {
		t.Fatalf("took over a renewed lease: %+v", got)
	}
	waited := make(chan runtime.Record)
	go func() {
		got, err := l.Await(ctx, row.ID)
		if err != nil {
			t.Error(err)
		}
		waited <- got
	}()
	taken := take(t0.Add(2*lease + time.Second))
	if len(taken) != 1 || taken[0].ID != row.ID || taken[0].Fence != row.Fence+1 || taken[0].LeaseOwner != "taker" ||
		taken[0].State != runtime.StateClaimed || string(taken[0].Request) != "req" || taken[0].ProviderKey != row.ProviderKey {
		t.Fatalf("takeover after the lease: %+v; want the row with the next fence", taken)
	}
	if got := take(t0.Add(2*lease + 2*time.Second)); len(got) != 0 {
		t.Fatalf("took over a row taken over already: %+v", got)
	}
	if err := l.Renew(ctx, row.ID, row.Fence, 3*lease); !errors.Is(err, runtime.ErrLeaseLost) {
		t.Fatalf("renew with the old fence: %v, want ErrLeaseLost", err)
	}
	if err := l.Settle(ctx, row.ID, row.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "old"}); !errors.Is(err, runtime.ErrLeaseLost) {
		t.Fatalf("settle with the old fence: %v, want ErrLeaseLost", err)
	}
	if err := l.Renew(ctx, taken[0].ID, taken[0].Fence, 4*lease); err != nil {
		t.Fatal(err)
	}
	if err := l.Settle(ctx, taken[0].ID, taken[0].Fence, runtime.StateActive, runtime.Settlement{ProviderID: "new"}); err != nil {
		t.Fatal(err)
	}
	if got := <-waited; got.State != runtime.StateActive || got.ProviderID != "new" {
		t.Fatalf("the waiter got %+v; want the taker's outcome", got)
	}
	if err := l.Settle(ctx, row.ID, row.Fence, runtime.StateUncertain, runtime.Settlement{}); !errors.Is(err, runtime.ErrLeaseLost) {
		t.Fatalf("settle of a row settled by its taker, with the old fence: %v, want ErrLeaseLost", err)
	}
	if err := l.Renew(ctx, taken[0].ID, taken[0].Fence, 5*lease); !errors.Is(err, runtime.ErrLeaseLost) {
		t.Fatalf("renew of a settled row: %v, want ErrLeaseLost", err)
	}
	if err := l.Renew(ctx, 99999, 1, lease); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("renew of a missing row: %v, want ErrNotFound", err)
	}
	// TakeOver hands out at most limit rows, oldest first.
	var ids []int64
	for i := range 3 {
		r, _, err := l.Claim(ctx, claimOf(ident("thing", fmt.Sprint("n", i)), "req"), runtime.Holder{Owner: "holder"}, -time.Second)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	now := t0.Add(time.Second)
	if got, err := l.TakeOver(ctx, scope, "", "", now, runtime.Holder{Owner: "taker"}, lease, 2); err != nil || len(got) != 2 || got[0].ID != ids[0] || got[1].ID != ids[1] {
		t.Fatalf("take over 2: %+v, %v; want rows %v", got, err, ids[:2])
	}
}

// testSettleRefuses: a claimed row is never turned back into permission
// to create (promise 17).
func testSettleRefuses(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	finals := []runtime.State{runtime.StateActive, runtime.StateRejected, runtime.StateUncertain, runtime.StateCompensated}
	for _, from := range finals {
		id := ident("thing", "key-"+string(from))
		rec, _, err := l.Claim(ctx, claimOf(id, "r"), runtime.Holder{Owner: "me"}, lease)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Settle(ctx, rec.ID, rec.Fence, runtime.StateClaimed, runtime.Settlement{}); !errors.Is(err, ledger.ErrTransition) {
			t.Fatalf("settle to claimed: %v, want ErrTransition", err)
		}
		if err := l.Settle(ctx, rec.ID, rec.Fence, from, runtime.Settlement{ProviderID: "first"}); err != nil {
			t.Fatalf("settle claimed → %s: %v", from, err)
		}
		// The holder may make its settlement again, as it is.
		if err := l.Settle(ctx, rec.ID, rec.Fence, from, runtime.Settlement{ProviderID: "first"}); err != nil {
			t.Fatalf("settle %s again, as it is: %v", from, err)
		}
		for _, to := range append(finals, runtime.StateNotApplied) {
			err := l.Settle(ctx, rec.ID, rec.Fence, to, runtime.Settlement{ProviderID: "second"})
			var te *ledger.TransitionError
			if !errors.As(err, &te) || te.From != from || te.To != to {
				t.Fatalf("settle %s → %s: %v, want a refusal", from, to, err)
			}
		}
		again, won, err := l.Claim(ctx, claimOf(id, "r"), runtime.Holder{Owner: "me"}, lease)
		if err != nil || won || again.State != from || again.ProviderID != "first" {
			t.Fatalf("claim of a %s row: %+v won=%v, %v; want the settled row, not a new claim", from, again, won, err)
		}
		if got, err := l.TakeOver(ctx, scope, "", "", time.Now().Add(time.Hour), runtime.Holder{Owner: "taker"}, 2*time.Hour, 0); err != nil || len(got) != 0 {
			t.Fatalf("take over of a %s row: %+v, %v; want nothing", from, got, err)
		}
	}
	if err := l.Settle(ctx, 99999, 1, runtime.StateActive, runtime.Settlement{}); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("settle of a missing row: %v, want ErrNotFound", err)
	}
}

// testNotAppliedClaimedAgain: a row whose call applied nothing is the
// only settled row a later call may claim again, and only one caller wins
// it, with the next fence (promise 30).
func testNotAppliedClaimedAgain(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	id := ident("thing", "k")
	first, won, err := l.Claim(ctx, claimOf(id, "one"), runtime.Holder{Owner: "first"}, lease)
	if err != nil || !won {
		t.Fatalf("claim: won=%v, %v", won, err)
	}
	if _, won, _ := l.Claim(ctx, claimOf(id, "one"), runtime.Holder{Owner: "second"}, lease); won {
		t.Fatal("a claimed row was claimed again")
	}
	if err := l.Settle(ctx, first.ID, first.Fence, runtime.StateNotApplied, runtime.Settlement{Status: 429, Attempts: 2, LastError: "throttled", Body: []byte("slow down")}); err != nil {
		t.Fatal(err)
	}
	again, won, err := l.Claim(ctx, claimOf(id, "two"), runtime.Holder{Owner: "third"}, lease)
	if err != nil || !won || again.ID != first.ID || again.State != runtime.StateClaimed || again.Fence != first.Fence+1 ||
		string(again.Digest) != string(claimOf(id, "two").Digest) || !again.CreatedAt.Equal(first.CreatedAt) {
		t.Fatalf("claim of a not_applied row: %+v won=%v, %v; want the same row claimed again with the next fence", again, won, err)
	}
	row, err := l.Get(ctx, first.ID)
	if err != nil || row.State != runtime.StateClaimed || string(row.Request) != "two" || row.Attempts != 0 || row.LastError != "" ||
		row.Status != 0 || len(row.Body) != 0 || row.LeaseOwner != "third" || row.Fence != again.Fence {
		t.Fatalf("row after the second claim: %+v, %v", row, err)
	}
	if _, won, _ := l.Claim(ctx, claimOf(id, "two"), runtime.Holder{Owner: "fourth"}, lease); won {
		t.Fatal("the row claimed again was claimed a third time")
	}
	if err := l.Settle(ctx, first.ID, first.Fence, runtime.StateActive, runtime.Settlement{}); !errors.Is(err, runtime.ErrLeaseLost) {
		t.Fatalf("settle with the fence of the first claim: %v, want ErrLeaseLost", err)
	}
}

// testRecord: a row recorded settled is listed, is not a claim (its
// identity repeats and does not block a claim) and is never taken over.
func testRecord(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	id := ident("thing", "k")
	rec := claimOf(id, "req")
	rec.State, rec.LastError, rec.Attempts, rec.Status, rec.Body = runtime.StateUncertain, "ambiguous without key or lookup", 2, 200, []byte("not json")
	var recorded []int64
	for range 2 {
		n, err := l.Record(ctx, rec)
		if err != nil {
			t.Fatal(err)
		}
		recorded = append(recorded, n)
	}
	for _, bad := range []runtime.State{"", runtime.StateClaimed, "lost"} {
		r := rec
		r.State = bad
		if _, err := l.Record(ctx, r); err == nil {
			t.Fatalf("recorded a row in state %q", bad)
		}
	}
	unkeyed := runtime.Record{Identity: runtime.Identity{Scope: scope}, OperationID: "updateThing", State: runtime.StateUncertain}
	if _, err := l.Record(ctx, unkeyed); err != nil {
		t.Fatalf("record an unkeyed write: %v", err)
	}
	claimed, won, err := l.Claim(ctx, claimOf(id, "req"), runtime.Holder{Owner: "me"}, -time.Second)
	if err != nil || !won {
		t.Fatalf("claim of an identity that has recorded rows: won=%v, %v; want a claim", won, err)
	}
	if got, err := l.TakeOver(ctx, scope, "", "", time.Now().Add(time.Hour), runtime.Holder{Owner: "taker"}, 2*time.Hour, 0); err != nil ||
		len(got) != 1 || got[0].ID != claimed.ID {
		t.Fatalf("take over: %+v, %v; want the claim alone", got, err)
	}
	list, err := l.List(ctx, ledger.Filter{Scope: scope, State: runtime.StateUncertain})
	if err != nil || len(list) != 3 || list[0].ID != recorded[0] || list[0].Claim || list[0].LastError != rec.LastError ||
		list[0].Status != 200 || string(list[0].Body) != "not json" || list[0].Attempts != 2 {
		t.Fatalf("uncertain rows %+v, %v", list, err)
	}
	if err := l.Redrive(ctx, recorded[0], "try it"); err == nil {
		t.Fatal("a recorded row was marked re-drivable")
	}
}

// testRedrive: an uncertain claim settled re-drivable, or marked so by a
// person, is taken over once, while its window lasts (promise 31).
func testRedrive(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	now := clock.Now()
	settle := func(k string, s runtime.Settlement) runtime.Record {
		t.Helper()
		r, _, err := l.Claim(ctx, claimOf(ident("thing", k), "req"), runtime.Holder{Owner: "me"}, lease)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Settle(ctx, r.ID, r.Fence, runtime.StateUncertain, s); err != nil {
			t.Fatal(err)
		}
		return r
	}
	window := settle("window", runtime.Settlement{Attempts: 1, LastError: "ambiguous", Redrive: true, RedriveUntil: now.Add(time.Hour)})
	forever := settle("forever", runtime.Settlement{Attempts: 1, LastError: "ambiguous", Redrive: true})
	person := settle("person", runtime.Settlement{Attempts: 1, LastError: "ambiguous without key or lookup"})
	// take takes rows over at at, and settles them active.
	take := func(at time.Time) []int64 {
		t.Helper()
		got, err := l.TakeOver(ctx, scope, "", "thing", at, runtime.Holder{Owner: "resumer"}, lease, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, r := range got {
			if r.State != runtime.StateClaimed || r.LeaseOwner != "resumer" {
				t.Fatalf("taken row %+v", r)
			}
			if g, _ := l.Get(ctx, r.ID); g.Redrive {
				t.Fatalf("a row taken over is still marked re-drivable: %+v", g)
			}
			if err := l.Settle(ctx, r.ID, r.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p"}); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID)
		}
		return ids
	}
	if got, _ := l.Get(ctx, window.ID); !got.Redrive || !got.RedriveUntil.Equal(now.Add(time.Hour).Truncate(time.Microsecond)) {
		t.Fatalf("row settled re-drivable: %+v", got)
	}
	// Past its window, a row is not driven on; the others are, once.
	if got := take(now.Add(2 * time.Hour)); fmt.Sprint(got) != fmt.Sprint([]int64{forever.ID}) {
		t.Fatalf("takeover after the window: rows %v, want %v", got, []int64{forever.ID})
	}
	if got := take(now.Add(3 * time.Hour)); len(got) != 0 {
		t.Fatalf("takeover again: rows %v, want none", got)
	}
	// A person marks an uncertain row re-drivable.
	if err := l.Redrive(ctx, person.ID, "the provider keeps keys for 30 days"); err != nil {
		t.Fatal(err)
	}
	row, err := l.Get(ctx, person.ID)
	if err != nil || !row.Redrive || row.LastError != "re-drive asked by a person: the provider keeps keys for 30 days; was: ambiguous without key or lookup" {
		t.Fatalf("row marked by a person: %+v, %v", row, err)
	}
	if err := l.Redrive(ctx, forever.ID, "again"); !errors.Is(err, ledger.ErrTransition) {
		t.Fatalf("redrive of an active row: %v, want ErrTransition", err)
	}
	if err := l.Redrive(ctx, window.ID, ""); err == nil {
		t.Fatal("redrive without a reason")
	}
	if got := take(now.Add(4 * time.Hour)); fmt.Sprint(got) != fmt.Sprint([]int64{person.ID}) {
		t.Fatalf("takeover after a person's redrive: rows %v, want %v", got, []int64{person.ID})
	}
}

// testTakeOverRow: one row is handed over by its id on the terms of
// TakeOver, and of the callers taking it at once, through TakeOverRow or
// TakeOver, on two handles of the database, one alone gets it (promise 45).
func testTakeOverRow(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	dsn := b.NewDSN(t)
	l, other := open(t, dsn, ledger.WithClock(clock)), open(t, dsn, ledger.WithClock(clock))
	now := clock.Now()
	claim := func(k string, until time.Time) runtime.Record {
		t.Helper()
		r, won, err := l.Claim(ctx, claimOf(ident("thing", k), "req"), runtime.Holder{Owner: "me"}, until.Sub(clock.Now()))
		if err != nil || !won {
			t.Fatal(won, err)
		}
		return r
	}
	uncertain := func(k string, s runtime.Settlement) runtime.Record {
		t.Helper()
		r := claim(k, now.Add(lease))
		if err := l.Settle(ctx, r.ID, r.Fence, runtime.StateUncertain, s); err != nil {
			t.Fatal(err)
		}
		return r
	}
	window := uncertain("window", runtime.Settlement{Attempts: 1, LastError: "ambiguous", Redrive: true, RedriveUntil: now.Add(time.Hour)})
	person := uncertain("person", runtime.Settlement{Attempts: 1, LastError: "ambiguous without key or lookup"})
	live := claim("live", now.Add(lease))
	dead := claim("dead", now.Add(-time.Second))
	for _, tc := range []struct {
		row  runtime.Record
		at   time.Time
		want bool
	}{
		{person, now, false},
		{window, now.Add(2 * time.Hour), false},
		{live, now, false},
		{dead, now, true},
	} {
		got, won, err := l.TakeOverRow(ctx, tc.row.ID, tc.at, runtime.Holder{Owner: "taker"}, lease)
		if err != nil || won != tc.want || got.ID != tc.row.ID {
			t.Fatalf("take over row %d (%s) at %v: %+v won=%v, %v; want won=%v", tc.row.ID, tc.row.BusinessKey, tc.at.Sub(now), got, won, err, tc.want)
		}
		if !won && (got.Fence != tc.row.Fence || got.LeaseOwner == "taker") {
			t.Fatalf("a row not taken over changed: %+v", got)
		}
		if won && (got.State != runtime.StateClaimed || got.Fence != tc.row.Fence+1 || got.LeaseOwner != "taker") {
			t.Fatalf("row taken over: %+v", got)
		}
	}
	if _, _, err := l.TakeOverRow(ctx, 99999, now, runtime.Holder{Owner: "taker"}, lease); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("take over of a missing row: %v, want ErrNotFound", err)
	}
	// Callers race for the row inside its window: one gets it.
	const takers = 8
	var mu sync.Mutex
	var winners []string
	var wg sync.WaitGroup
	for i := range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := []*ledger.Ledger{l, other}[i%2]
			owner := fmt.Sprint("taker-", i)
			var won bool
			var err error
			if i == 0 { // a Resume, taking the rows of the operation
				var rows []runtime.Record
				rows, err = h.TakeOver(ctx, scope, "", "thing", now, runtime.Holder{Owner: owner}, lease, 0)
				for _, r := range rows {
					won = won || r.ID == window.ID
				}
			} else {
				_, won, err = h.TakeOverRow(ctx, window.ID, now, runtime.Holder{Owner: owner}, lease)
			}
			if err != nil {
				t.Error(err)
			}
			if won {
				mu.Lock()
				winners = append(winners, owner)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	row, err := l.Get(ctx, window.ID)
	if err != nil || len(winners) != 1 || row.State != runtime.StateClaimed || row.Fence != window.Fence+1 ||
		row.LeaseOwner != winners[0] || row.Redrive {
		t.Fatalf("winners %v, row %+v, %v; want one winner holding the row with the next fence", winners, row, err)
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
		rec, _, err := l.Claim(ctx, claimOf(ident("thing", fmt.Sprint("k", i)), "r"), runtime.Holder{Owner: "me"}, lease)
		if err != nil {
			t.Fatal(err)
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := waiter.Await(cancelled, rec.ID); !errors.Is(err, runtime.ErrInProgress) {
			t.Fatalf("await with an ended context: %v; want ErrInProgress", err)
		}
		done := make(chan runtime.Record)
		go func() {
			got, err := waiter.Await(ctx, rec.ID)
			if err != nil {
				t.Error(err)
			}
			done <- got
		}()
		if err := l.Settle(ctx, rec.ID, rec.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p"}); err != nil {
			t.Fatal(err)
		}
		if got := <-done; got.State != runtime.StateActive || got.ProviderID != "p" {
			t.Fatalf("await returned %+v", got)
		}
	}
	if _, err := l.Await(ctx, 99999); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("await of a missing row: %v, want ErrNotFound", err)
	}
}

// uncertainRows claims and settles uncertain one row per key.
func uncertainRows(t testing.TB, l *ledger.Ledger, keys ...string) []int64 {
	t.Helper()
	var ids []int64
	for _, k := range keys {
		rec, _, err := l.Claim(context.Background(), claimOf(ident("thing", k), "req"), runtime.Holder{Owner: "me"}, lease)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Settle(context.Background(), rec.ID, rec.Fence, runtime.StateUncertain,
			runtime.Settlement{LastError: "ambiguous without key or lookup", Attempts: 2}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	return ids
}

// testResolve: a person's answer settles an uncertain row; "not applied"
// frees the business key (promise 30).
func testResolve(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	u := uncertainRows(t, l, "u1", "u2", "u3")
	claimed, _, err := l.Claim(ctx, claimOf(ident("thing", "c"), "r"), runtime.Holder{Owner: "me"}, lease)
	if err != nil {
		t.Fatal(err)
	}
	list, err := l.List(ctx, ledger.Filter{State: runtime.StateUncertain, Scope: scope})
	if err != nil || len(list) != 3 || list[0].ID != u[0] || list[0].LastError != "ambiguous without key or lookup" || list[0].Attempts != 2 {
		t.Fatalf("list of uncertain rows = %+v, %v", list, err)
	}
	for _, bad := range []ledger.Resolution{
		{Committed: true, Reason: "seen in the dashboard"}, // no provider id
		{Committed: true, ProviderID: "p"},                 // no reason
		{ProviderID: "p", Reason: "not in the dashboard"},  // not applied, with an id
	} {
		if err := l.Resolve(ctx, u[0], bad); err == nil {
			t.Fatalf("resolve with %+v succeeded", bad)
		}
	}
	if err := l.Resolve(ctx, claimed.ID, ledger.Resolution{Committed: true, ProviderID: "p", Reason: "r"}); !errors.Is(err, ledger.ErrTransition) {
		t.Fatalf("resolve of a claimed row: %v, want ErrTransition", err)
	}
	if err := l.Resolve(ctx, u[0], ledger.Resolution{Committed: true, ProviderID: "thing_7", Reason: "found in the dashboard"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Resolve(ctx, u[1], ledger.Resolution{Reason: "the provider has no such thing"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Resolve(ctx, u[0], ledger.Resolution{Reason: "changed my mind"}); !errors.Is(err, ledger.ErrTransition) {
		t.Fatalf("second resolve: %v, want ErrTransition", err)
	}
	r0, _ := l.Get(ctx, u[0])
	r1, _ := l.Get(ctx, u[1])
	if r0.State != runtime.StateActive || r0.ProviderID != "thing_7" || r1.State != runtime.StateNotApplied || r1.ProviderID != "" ||
		r1.LastError != "resolved by a person as not applied: the provider has no such thing" {
		t.Fatalf("resolved rows: %+v, %+v", r0, r1)
	}
	// Not applied: the next call claims the business key and writes again.
	again, won, err := l.Claim(ctx, claimOf(ident("thing", "u2"), "req"), runtime.Holder{Owner: "next"}, lease)
	if err != nil || !won || again.ID != u[1] {
		t.Fatalf("claim after a person's not applied: %+v won=%v, %v; want the row claimed again", again, won, err)
	}
	if _, won, _ := l.Claim(ctx, claimOf(ident("thing", "u1"), "req"), runtime.Holder{Owner: "next"}, lease); won {
		t.Fatal("a row resolved committed was claimed again")
	}
	if list, err := l.List(ctx, ledger.Filter{State: runtime.StateUncertain, Scope: scope}); err != nil || len(list) != 1 || list[0].ID != u[2] {
		t.Fatalf("uncertain rows after resolving two: %+v, %v", list, err)
	}
}

// testCompensate: a person's compensation settles an uncertain or active
// row for good.
func testCompensate(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	u := uncertainRows(t, l, "dup")
	if err := l.Compensate(ctx, u[0], ""); err == nil {
		t.Fatal("compensated without a reason")
	}
	if err := l.Compensate(ctx, u[0], "deleted the second thread"); err != nil {
		t.Fatal(err)
	}
	row, err := l.Get(ctx, u[0])
	if err != nil || row.State != runtime.StateCompensated || row.LastError != "compensated by a person: deleted the second thread" {
		t.Fatalf("compensated row %+v, %v", row, err)
	}
	if err := l.Compensate(ctx, u[0], "again"); !errors.Is(err, ledger.ErrTransition) {
		t.Fatalf("compensate twice: %v, want ErrTransition", err)
	}
	if _, won, _ := l.Claim(ctx, claimOf(ident("thing", "dup"), "req"), runtime.Holder{Owner: "next"}, lease); won {
		t.Fatal("a compensated row was claimed again")
	}
}
