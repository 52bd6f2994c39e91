package ledgertest

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

// The statements of version 1 of the ledger, as it ran them: rows were
// identified by (operationId, business key) and settled by id.
const (
	v1VersionTable = `CREATE TABLE IF NOT EXISTS writegen_schema_version (
	version    INTEGER PRIMARY KEY,
	applied_at BIGINT  NOT NULL
)`
	v1Version = `INSERT INTO writegen_schema_version (version, applied_at) VALUES (1, $1)`

	v1ClaimInsert = `INSERT INTO writegen_claims
	(operation, business_key, provider_key, owner, state, request, created_at, updated_at)
VALUES ($1, $2, $3, $4, 'claimed', $5, $6, $6)
ON CONFLICT (operation, business_key) DO NOTHING`

	v1ClaimSettle = `UPDATE writegen_claims
SET state = $2, provider_id = $3, status = $4, body = $5, attempts = $6, last_error = $7, updated_at = $8
WHERE id = $1 AND state = 'claimed'`

	v1ClaimResolve = `UPDATE writegen_claims
SET state = $2, provider_id = COALESCE(NULLIF($3, ''), provider_id), last_error = $4, updated_at = $5
WHERE id = $1 AND state = 'uncertain'`

	v1OutboxInsert = `INSERT INTO writegen_outbox
	(operation, dedupe_key, payload, next_at, created_at, updated_at)
VALUES ($1, $2, $3, $4, $4, $4)`

	v1OutboxSent = `UPDATE writegen_outbox
SET state = 'sent', provider_id = $2, status = 201, body = $3, attempts = 1, updated_at = $4
WHERE id = $1`
)

// v1Row is a row as version 1 wrote it, and what version 2 makes of it.
type v1Row struct {
	operation, key string
	settle         runtime.State // "" leaves it claimed; "not_sent" is version 1's
	resolve        string        // "committed" or "not-applied" after uncertain
	providerID     string
	status         int
	body, request  string
	attempts       int
	lastError      string
	want           runtime.State // its state in version 2
}

var v1Rows = []v1Row{
	{"createThread", "escalation:1", runtime.StateActive, "", "th_1", 201, `{"id":"th_1"}`, "req 1", 1, "", runtime.StateActive},
	{"createThread", "escalation:2", "", "", "", 0, "", "req 2", 0, "", runtime.StateClaimed},
	{"createThread", "escalation:3", "not_sent", "", "", 0, "", "req 3", 2, "connection refused", runtime.StateNotApplied},
	{"createThread", "escalation:4", runtime.StateUncertain, "", "", 0, "", "req 4", 3, "ambiguous without key or lookup", runtime.StateUncertain},
	{"createThread", "escalation:5", runtime.StateUncertain, "not-applied", "", 0, "", "req 5", 1, "ambiguous", runtime.StateNotApplied},
	{"createThread", "escalation:6", runtime.StateRejected, "", "", 422, `{"error":"invalid"}`, "req 6", 1, "status 422", runtime.StateRejected},
	{"createThread", "escalation:7", runtime.StateUncertain, "committed", "th_7", 0, "", "req 7", 1, "ambiguous", runtime.StateActive},
	{"sendReply", "msg:1", runtime.StateCompensated, "", "m_1", 201, `{}`, "req 8", 1, "", runtime.StateCompensated},
	{"sendReply", "msg:2", runtime.StateActive, "", "m_2", 201, `{"id":"m_2"}`, "req 9", 1, "", runtime.StateActive},
}

// v1Time is when the version 1 rows were written: row i at v1Time + i
// seconds, settled a millisecond later.
var v1Time = time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)

// v1Ledger makes a ledger of version 1 at dsn, with rows written as
// version 1 wrote them; row i of rows has id i+1.
func v1Ledger(t testing.TB, b Backend, dsn string, rows []v1Row) {
	t.Helper()
	ctx := context.Background()
	p, err := b.Plain(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if err := p.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	exec(v1VersionTable)
	exec(b.V1Schema)
	exec(v1Version, v1Time.UnixMicro())
	// Two obligations: one sent, one pending.
	exec(v1OutboxInsert, "postMessage", "opening:1", []byte(`{"thread":"th_1"}`), v1Time.UnixMicro())
	exec(v1OutboxSent, 1, "m_1", []byte(`{"id":"m_1"}`), v1Time.Add(time.Millisecond).UnixMicro())
	exec(v1OutboxInsert, "postMessage", "opening:2", []byte(`{"thread":"th_2"}`), v1Time.UnixMicro())
	for i, r := range rows {
		at := v1Time.Add(time.Duration(i) * time.Second)
		exec(v1ClaimInsert, r.operation, r.key, r.operation+":"+r.key, "desk-oncall", []byte(r.request), at.UnixMicro())
		if r.settle != "" {
			exec(v1ClaimSettle, i+1, string(r.settle), r.providerID, r.status, []byte(r.body), r.attempts, r.lastError, at.Add(time.Millisecond).UnixMicro())
		}
		switch r.resolve {
		case "committed":
			exec(v1ClaimResolve, i+1, "active", r.providerID, "resolved by a person as committed: seen", at.Add(2*time.Millisecond).UnixMicro())
		case "not-applied":
			exec(v1ClaimResolve, i+1, "rejected", "", "resolved by a person as not applied: not there", at.Add(2*time.Millisecond).UnixMicro())
		}
	}
}

// testMigrateFromV1: a ledger written by version 1 opens with the newest version;
// every row keeps its fields, unscoped, with the states of version 2; the
// adopt command assigns the rows to a scope, where the runtime claims,
// takes over and replays them (promise 23's migration). Its outbox items
// keep theirs, unscoped (version 3), and new ones continue their ids.
func testMigrateFromV1(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	v1Ledger(t, b, dsn, v1Rows)
	l := open(t, dsn)
	if v, err := l.SchemaVersion(ctx); err != nil || v != schemaVersion {
		t.Fatalf("schema version %d, %v; want %d", v, err, schemaVersion)
	}
	sent, pending := items(t, l, ledger.OutboxSent), items(t, l, ledger.OutboxPending)
	if len(sent) != 1 || len(pending) != 1 {
		t.Fatalf("outbox after the migration: sent %+v, pending %+v; want one of each", sent, pending)
	}
	if s, p := sent[0], pending[0]; s.ID != 1 || s.Scope != "" || s.Tenant != "" || s.DedupeKey != "opening:1" ||
		s.ProviderID != "m_1" || string(s.Body) != `{"id":"m_1"}` || s.Attempts != 1 || !s.CreatedAt.Equal(v1Time.Truncate(time.Microsecond)) ||
		p.ID != 2 || p.Scope != "" || p.DedupeKey != "opening:2" || string(p.Payload) != `{"thread":"th_2"}` {
		t.Fatalf("outbox items after the migration:\n%+v\n%+v", s, p)
	}
	// The same obligation unscoped is recorded once; scoped, it is another.
	for _, ob := range []ledger.Obligation{
		{Operation: "postMessage", DedupeKey: "opening:2", Payload: []byte(`{}`)},
		{Scope: "desk", Operation: "postMessage", DedupeKey: "opening:2", Payload: []byte(`{}`)},
	} {
		if err := l.EnqueueOn(ctx, l.Querier(), ob); err != nil {
			t.Fatal(err)
		}
	}
	if p := items(t, l, ledger.OutboxPending); len(p) != 2 || p[1].ID <= 2 || p[1].Scope != "desk" {
		t.Fatalf("pending after enqueueing the old obligation and a scoped one: %+v; want a new item of desk, after the old ids", p)
	}
	rows, err := l.List(ctx, ledger.Filter{AnyTenant: true})
	if err != nil || len(rows) != len(v1Rows) {
		t.Fatalf("%d unscoped rows, %v; want %d", len(rows), err, len(v1Rows))
	}
	for i, r := range rows {
		v := v1Rows[i]
		at := v1Time.Add(time.Duration(i) * time.Second).Truncate(time.Microsecond)
		updated := at
		switch {
		case v.resolve != "":
			updated = at.Add(2 * time.Millisecond)
		case v.settle != "":
			updated = at.Add(time.Millisecond)
		}
		lastError := v.lastError
		switch v.resolve {
		case "committed":
			lastError = "resolved by a person as committed: seen"
		case "not-applied":
			lastError = "resolved by a person as not applied: not there"
		}
		want := runtime.Record{
			ID: int64(i + 1), Identity: runtime.Identity{Operation: v.operation, BusinessKey: v.key},
			OperationID: v.operation, ProviderKey: v.operation + ":" + v.key, Owner: "desk-oncall", State: v.want,
			ProviderID: v.providerID, Status: v.status, Body: []byte(v.body), Request: []byte(v.request), Digest: []byte{},
			Attempts: v.attempts, LastError: lastError, CreatedAt: at, UpdatedAt: updated,
		}
		if !r.Claim || r.Redrive || !sameRecord(r.Record, want) {
			t.Errorf("row %d after the migration:\n got %+v (claim %v)\nwant %+v", i+1, r.Record, r.Claim, want)
		}
	}
	// New rows continue the ids.
	fresh, _, err := l.Claim(ctx, claimOf(runtime.Identity{Scope: "desk", Operation: "create-thread", BusinessKey: "escalation:100"}, "r"), runtime.Holder{Owner: "me"}, lease)
	if err != nil || fresh.ID <= int64(len(v1Rows)) {
		t.Fatalf("a new claim: %+v, %v; want an id after the old rows'", fresh, err)
	}

	var stdout, stderr bytes.Buffer
	if code := ledgercli.Run(ctx, []string{"adopt", "-db", dsn, "-scope", "desk", "-operation", "createThread=create-thread"}, &stdout, &stderr); code != 0 {
		t.Fatalf("adopt: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{
		"moved 7 rows of createThread to desk operation create-thread\n",
		"moved 2 rows of sendReply to desk operation sendreply (the default key scope",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Fatalf("adopt printed %q, want %q", stdout.String(), want)
		}
	}
	thread := func(k string) runtime.Identity {
		return runtime.Identity{Scope: "desk", Operation: "create-thread", BusinessKey: k}
	}
	if r, err := l.Find(ctx, thread("escalation:1")); err != nil || r.ID != 1 || r.ProviderID != "th_1" || string(r.Body) != `{"id":"th_1"}` {
		t.Fatalf("adopted active row: %+v, %v", r, err)
	}
	if r, err := l.Find(ctx, runtime.Identity{Scope: "desk", Operation: "sendreply", BusinessKey: "msg:2"}); err != nil || r.ID != 9 {
		t.Fatalf("adopted row of the default key scope: %+v, %v", r, err)
	}
	for _, tc := range []struct {
		key   string
		won   bool
		state runtime.State
	}{
		{"escalation:1", false, runtime.StateActive},
		{"escalation:3", true, runtime.StateClaimed},   // not sent in version 1
		{"escalation:5", true, runtime.StateClaimed},   // a person's "not applied" in version 1
		{"escalation:6", false, runtime.StateRejected}, // a definite answer
		{"escalation:7", false, runtime.StateActive},
	} {
		r, won, err := l.Claim(ctx, claimOf(thread(tc.key), "new request"), runtime.Holder{Owner: "me"}, lease)
		if err != nil || won != tc.won || r.State != tc.state {
			t.Fatalf("claim of adopted %s: %+v won=%v, %v; want won=%v, %s", tc.key, r, won, err, tc.won, tc.state)
		}
	}
	// The row version 1 left claimed is taken over with the first fence.
	taken, err := l.TakeOver(ctx, "desk", "", "create-thread", time.Now(), runtime.Holder{Owner: "resumer"}, lease, 0)
	if err != nil || len(taken) != 1 || taken[0].ID != 2 || taken[0].Fence != 1 || string(taken[0].Request) != "req 2" {
		t.Fatalf("takeover of adopted rows: %+v, %v; want row 2", taken, err)
	}
	if rows, err := l.List(ctx, ledger.Filter{AnyTenant: true}); err != nil || len(rows) != 0 {
		t.Fatalf("unscoped rows after the adoption: %+v, %v", rows, err)
	}
}

// sameRecord reports whether two records are equal.
func sameRecord(a, b runtime.Record) bool {
	if len(a.Body) == 0 && len(b.Body) == 0 {
		a.Body, b.Body = nil, nil
	}
	if len(a.Digest) == 0 && len(b.Digest) == 0 {
		a.Digest, b.Digest = nil, nil
	}
	a.CreatedAt, a.UpdatedAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	b.CreatedAt, b.UpdatedAt = b.CreatedAt.UTC(), b.UpdatedAt.UTC()
	return bytes.Equal(a.Body, b.Body) && bytes.Equal(a.Request, b.Request) && bytes.Equal(a.Digest, b.Digest) &&
		sameRow(withoutBytes(a), withoutBytes(b)) && a.UpdatedAt.Equal(b.UpdatedAt)
}

func withoutBytes(r runtime.Record) runtime.Record {
	r.Body, r.Request, r.Digest = nil, nil, nil
	return r
}

// testCommandsAdopt: adopt moves all the unscoped rows or none, refuses to
// move a row onto an identity claimed already in the scope, and shows what
// it would do with -dry-run.
func testCommandsAdopt(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	v1Ledger(t, b, dsn, v1Rows[:2])
	l := open(t, dsn)
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := ledgercli.Run(ctx, append([]string{args[0], "-db", dsn}, args[1:]...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	unscoped := func() int {
		t.Helper()
		rows, err := l.List(ctx, ledger.Filter{AnyTenant: true})
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	// A client of the new version wrote escalation:1 in desk already: an
	// old row of the same identity cannot join it.
	if _, won, err := l.Claim(ctx, claimOf(runtime.Identity{Scope: "desk", Operation: "createthread", BusinessKey: "escalation:1"}, "r"), runtime.Holder{Owner: "me"}, lease); err != nil || !won {
		t.Fatalf("a new claim beside the unscoped row of the same operation and key: won=%v, %v; want a claim of its own", won, err)
	}
	code, out, errOut := run("adopt", "-scope", "desk")
	if code != 1 || !strings.Contains(errOut, "row 1 (createThread) and row 3") || !strings.Contains(errOut, "nothing was moved") || unscoped() != 2 {
		t.Fatalf("adopt onto a claimed identity: exit %d\n%s%s; %d unscoped rows", code, out, errOut, unscoped())
	}
	code, out, errOut = run("adopt", "-scope", "desk", "-operation", "createThread=create-thread", "-dry-run")
	if code != 0 || out != "would move 2 rows of createThread to desk operation create-thread\n" || unscoped() != 2 {
		t.Fatalf("adopt -dry-run: exit %d\n%s%s; %d unscoped rows", code, out, errOut, unscoped())
	}
	code, out, errOut = run("adopt", "-scope", "desk", "-tenant", "acme", "-operation", "sendReply=send-reply")
	if code != 0 || !strings.Contains(out, `moved 2 rows of createThread to desk tenant "acme" operation createthread (the default key scope`) ||
		!strings.Contains(errOut, `no unscoped rows of operation "sendReply"`) || unscoped() != 0 {
		t.Fatalf("adopt: exit %d\n%s%s; %d unscoped rows", code, out, errOut, unscoped())
	}
	if r, err := l.Find(ctx, runtime.Identity{Scope: "desk", Tenant: "acme", Operation: "createthread", BusinessKey: "escalation:1"}); err != nil || r.ID != 1 {
		t.Fatalf("adopted row: %+v, %v", r, err)
	}
	if code, out, _ := run("adopt", "-scope", "desk"); code != 0 || out != "no unscoped rows\n" {
		t.Fatalf("adopt again: exit %d: %s", code, out)
	}
	for _, usage := range [][]string{
		{"adopt"},
		{"adopt", "-scope", "desk", "-operation", "createThread"},
		{"adopt", "-scope", "desk", "-operation", "a=b", "-operation", "a=c"},
	} {
		if code, _, _ := run(usage...); code != 2 {
			t.Fatalf("%v: exit %d, want 2", usage, code)
		}
	}
	if code, _, errOut := run("adopt", "-scope", "Desk"); code != 1 || !strings.Contains(errOut, `scope "Desk"`) {
		t.Fatalf("adopt into a malformed scope: exit %d: %s", code, errOut)
	}
}

// v4Insert writes a claim as version 4 wrote one.
const v4Insert = `INSERT INTO writegen_claims
	(scope, tenant, operation, business_key, operation_id, provider_key, reference, owner, state,
	request, digest, fence, lease_owner, lease_until, lease_instance, lease_incarnation, redrive,
	redrive_until, claim, created_at, updated_at)
VALUES ($1, '', $2, $3, $4, $5, '', 'things-oncall', $6, $7, $8, 1, $9, $10, $11, $12, $13, 0, TRUE, $14, $14)`

// oldLedger makes a ledger of schema version at dsn, from the backend's
// migrations.
func oldLedger(t testing.TB, b Backend, dsn string, version int) Plain {
	t.Helper()
	ctx := context.Background()
	files, err := fs.Glob(b.Migrations, "migrations/*.sql")
	if err != nil || len(files) < version {
		t.Fatalf("the backend's migrations: %v, %v", files, err)
	}
	p, err := b.Plain(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if err := p.Exec(ctx, v1VersionTable); err != nil {
		t.Fatal(err)
	}
	for v, f := range files[:version] {
		text, err := fs.ReadFile(b.Migrations, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Exec(ctx, string(text)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := p.Exec(ctx, `INSERT INTO writegen_schema_version (version, applied_at) VALUES ($1, $2)`, v+1, time.Now().UnixMicro()); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// testMigrateFromV4: a ledger of version 4 opens with the newest version:
// a live claim stays held, an uncertain row marked re-drivable is due at
// once, counted as its first redrive when it is handed over, with the time
// since its last lease ended.
func testMigrateFromV4(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	p := oldLedger(t, b, dsn, 4)
	now := time.Now()
	insert := func(k string, state runtime.State, until time.Time, redrive bool) {
		t.Helper()
		rec := claimOf(ident("thing", k), "req "+k)
		if err := p.Exec(ctx, v4Insert, scope, "thing", k, rec.OperationID, rec.ProviderKey, string(state), rec.Request, rec.Digest,
			"holder", until.UnixMicro(), "pod-1", int64(1), redrive, now.UnixMicro()); err != nil {
			t.Fatal(err)
		}
	}
	insert("live", runtime.StateClaimed, now.Add(time.Hour), false)
	insert("uncertain", runtime.StateUncertain, now.Add(-30*time.Second), true)
	insert("active", runtime.StateActive, now.Add(-time.Minute), false)
	p.Close()
	l := open(t, dsn)
	if v, err := l.SchemaVersion(ctx); err != nil || v != schemaVersion {
		t.Fatalf("schema version %d, %v; want %d", v, err, schemaVersion)
	}
	rows, err := l.List(ctx, ledger.Filter{Scope: scope})
	if err != nil || len(rows) != 3 {
		t.Fatalf("rows after the migration: %+v, %v", rows, err)
	}
	for _, r := range rows {
		if r.Redrives != 0 || !r.RedriveAt.IsZero() || r.LeaseLeft != 0 || r.Fence != 1 || r.LeaseInstance != "pod-1" {
			t.Fatalf("row %s after the migration: %+v", r.BusinessKey, r)
		}
	}
	got, err := l.TakeOver(ctx, scope, "", "thing", time.Now(), runtime.Holder{Owner: "resumer", Instance: "pod-2", Incarnation: 1}, lease, 0)
	if err != nil || len(got) != 1 || got[0].BusinessKey != "uncertain" || got[0].Redrives != 1 || got[0].LeaseLeft > -30*time.Second ||
		got[0].Fence != 2 || string(got[0].Request) != "req uncertain" {
		t.Fatalf("takeover after the migration: %+v, %v; want the uncertain row alone, its first redrive, its lease ended 30 s or more ago", got, err)
	}
}
