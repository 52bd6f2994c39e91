package ledgertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

// listedRow is a claim as "writegen ledger list -json" prints it.
type listedRow struct {
	ID          int64      `json:"id"`
	Scope       string     `json:"scope"`
	Tenant      string     `json:"tenant"`
	Operation   string     `json:"operation"`
	BusinessKey string     `json:"business_key"`
	ProviderKey string     `json:"provider_key"`
	Reference   string     `json:"reference"`
	State       string     `json:"state"`
	Owner       string     `json:"owner"`
	Attempts    int        `json:"attempts"`
	LastError   string     `json:"last_error"`
	Claim       bool       `json:"claim"`
	LeaseOwner  string     `json:"lease_owner"`
	LeaseUntil  *time.Time `json:"lease_until"`
	Redrive     bool       `json:"redrive"`

	LeaseInstance    string `json:"lease_instance"`
	LeaseIncarnation int64  `json:"lease_incarnation"`
}

// listCommand runs "writegen ledger list -json" on dsn with args.
func listCommand(t testing.TB, dsn string, args ...string) []listedRow {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := ledgercli.Run(context.Background(), append([]string{"list", "-db", dsn, "-json"}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("writegen ledger list: exit %d: %s", code, stderr.String())
	}
	var rows []listedRow
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		t.Fatalf("writegen ledger list -json printed %q: %v", stdout.String(), err)
	}
	return rows
}

// testCommands runs "writegen ledger list", "resolve", "redrive" and
// "compensate" on claims of two scopes and tenants, and lists outbox items
// and inbox events (promises 30 and 31).
func testCommands(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	l := open(t, dsn)
	mk := func(id runtime.Identity, reference string) runtime.Record {
		t.Helper()
		rec := claimOf(id, "req")
		rec.Reference = reference
		r, _, err := l.Claim(ctx, rec, runtime.Holder{Owner: "caller-7"}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var ids []int64
	for i := range 3 {
		r := mk(runtime.Identity{Scope: "desk", Tenant: "acme", Operation: "create-thing", BusinessKey: "order:" + strconv.Itoa(i)}, "ext-"+strconv.Itoa(i))
		if err := l.Settle(ctx, r.ID, r.Fence, runtime.StateUncertain, runtime.Settlement{Attempts: 1, LastError: "context ended after send"}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	other := mk(runtime.Identity{Scope: "chat", Operation: "create-thing", BusinessKey: "order:0"}, "")
	if err := l.Settle(ctx, other.ID, other.Fence, runtime.StateUncertain, runtime.Settlement{Attempts: 2, LastError: "ambiguous"}); err != nil {
		t.Fatal(err)
	}
	claimed := mk(runtime.Identity{Scope: "desk", Tenant: "acme", Operation: "create-thing", BusinessKey: "order:9"}, "")
	recorded, err := l.Record(ctx, runtime.Record{Identity: runtime.Identity{Scope: "desk", Operation: "create-thing", BusinessKey: "order:5"},
		OperationID: "createThing", State: runtime.StateUncertain, LastError: "ambiguous without key or lookup"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		if len(args) > 0 && args[0] != "frobnicate" && args[0] != "help" {
			args = append([]string{args[0], "-db", dsn}, args[1:]...)
		}
		code := ledgercli.Run(ctx, args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, out, errOut := run("list")
	for _, want := range []string{"SCOPE", "TENANT", "PROVIDER KEY", "REFERENCE", "desk", "acme", "ext-1", "desk/acme/create-thing:order:1",
		"context ended after send", "chat", "uncertain, recorded"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("list: exit %d, no %q in\n%s%s", code, want, out, errOut)
		}
	}
	if rows := listCommand(t, dsn); len(rows) != 5 {
		t.Fatalf("list -json: %d rows, want the 5 uncertain ones: %+v", len(rows), rows)
	}
	if rows := listCommand(t, dsn, "-scope", "desk", "-tenant", "acme"); len(rows) != 3 || rows[0].ID != ids[0] || rows[0].Reference != "ext-0" ||
		rows[0].ProviderKey != "desk/acme/create-thing:order:0" || rows[0].Tenant != "acme" || !rows[0].Claim {
		t.Fatalf("list -scope desk -tenant acme: %+v", rows)
	}
	if rows := listCommand(t, dsn, "-scope", "desk", "-tenant", ""); len(rows) != 1 || rows[0].ID != recorded || rows[0].Claim {
		t.Fatalf("list -scope desk -tenant '': %+v, want the recorded row", rows)
	}
	if rows := listCommand(t, dsn, "-scope", "chat"); len(rows) != 1 || rows[0].ID != other.ID {
		t.Fatalf("list -scope chat: %+v", rows)
	}
	if rows := listCommand(t, dsn, "-unscoped"); len(rows) != 0 {
		t.Fatalf("list -unscoped: %+v", rows)
	}
	rows := listCommand(t, dsn, "-state", "claimed")
	if len(rows) != 1 || rows[0].ID != claimed.ID || rows[0].LeaseOwner != "caller-7" || rows[0].LeaseUntil == nil || !rows[0].LeaseUntil.Equal(claimed.LeaseUntil) {
		t.Fatalf("list -state claimed: %+v, want the lease of %+v", rows, claimed)
	}
	if code, out, _ := run("list", "-state", "claimed"); code != 0 || !strings.Contains(out, "caller-7 until "+claimed.LeaseUntil.Format(time.RFC3339)) {
		t.Fatalf("list -state claimed: exit %d\n%s", code, out)
	}
	if rows := listCommand(t, dsn, "-state", "all"); len(rows) != 6 {
		t.Fatalf("list -state all: %d rows, want 6", len(rows))
	}

	// Outbox items and inbox events.
	if err := l.EnqueueOn(ctx, l.Querier(), ledger.Obligation{Operation: "createThing", DedupeKey: "order:77", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run("list", "-what", "outbox"); code != 0 || out != "no uncertain outbox items\n" {
		t.Fatalf("list -what outbox: exit %d: %q", code, out)
	}
	if code, out, _ := run("list", "-what", "outbox", "-state", "pending"); code != 0 || !strings.Contains(out, "order:77") {
		t.Fatalf("list -what outbox -state pending: exit %d\n%s", code, out)
	}
	// An item whose send ended uncertain, re-driven by a person.
	lost := l.Outbox(func(context.Context, ledger.OutboxItem) (ledger.Delivery, error) {
		return ledger.Delivery{}, fmt.Errorf("the answer was lost: %w", runtime.ErrUncertain)
	}, ledger.WorkerOptions{})
	if n, err := lost.SendDue(ctx); n != 1 || err != nil {
		t.Fatalf("outbox: sent %d, %v", n, err)
	}
	uncertain, err := l.OutboxItems(ctx, ledger.OutboxUncertain)
	if err != nil || len(uncertain) != 1 {
		t.Fatalf("uncertain outbox items %+v, %v", uncertain, err)
	}
	item := strconv.FormatInt(uncertain[0].ID, 10)
	if code, out, errOut := run("redrive", "-what", "outbox", "-id", item, "-reason", "the desk keeps keys for a day"); code != 0 ||
		out != "outbox item "+item+" (createThing \"order:77\") is now pending\n" {
		t.Fatalf("redrive -what outbox: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := run("redrive", "-what", "outbox", "-id", item, "-reason", "r"); code != 1 || !strings.Contains(errOut, "is pending, not uncertain") {
		t.Fatalf("redrive -what outbox of a pending item: exit %d: %s", code, errOut)
	}
	in, url, _ := countingInbox(t, l, ledger.InboxConfig{Source: "chat", Handle: func(context.Context, ledger.Event) error {
		return errTest
	}, WorkerOptions: ledger.WorkerOptions{MaxAttempts: 1}})
	if got := newSenderOfWebhooks(t, time.Now).deliver(url, "evt_9", []byte(`{}`)); got != http.StatusNoContent {
		t.Fatalf("status %d", got)
	}
	if _, err := in.HandleDue(ctx); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run("list", "-what", "inbox", "-json"); code != 0 || !strings.Contains(out, `"event_id": "evt_9"`) || !strings.Contains(out, errTest.Error()) {
		t.Fatalf("list -what inbox -json: exit %d\n%s", code, out)
	}
	if code, out, _ := run("list", "-what", "inbox", "-source", "desk"); code != 0 || out != "no failed inbox events\n" {
		t.Fatalf("list -what inbox -source desk: exit %d: %q", code, out)
	}

	id := strconv.FormatInt(ids[0], 10)
	for _, usage := range [][]string{
		{"resolve", "-id", id, "-committed", "-reason", "r"},                                      // no provider id
		{"resolve", "-id", id, "-not-applied"},                                                    // no reason
		{"resolve", "-id", id, "-committed", "-not-applied", "-provider-id", "x", "-reason", "r"}, // both
		{"resolve", "-committed", "-provider-id", "x", "-reason", "r"},                            // no id
		{"redrive", "-id", id},
		{"redrive", "-what", "inbox", "-id", id, "-reason", "r"},
		{"compensate", "-reason", "r"},
		{"list", "-state", "lost"},
		{"list", "-what", "everything"},
		{"list", "-what", "outbox", "-scope", "desk"},
		{"list", "-what", "inbox", "-operation", "x"},
		{"list", "-source", "chat"},
		{"list", "-scope", "desk", "-unscoped"},
		{"list", "-scope", ""},
		{"frobnicate"},
	} {
		if code, _, _ := run(usage...); code != 2 {
			t.Fatalf("%v: exit %d, want 2", usage, code)
		}
	}
	if code, _, _ := run(); code != 2 {
		t.Fatalf("no command: exit %d, want 2", code)
	}
	if code, out, _ := run("help"); code != 0 || !strings.Contains(out, "adopt assigns") {
		t.Fatalf("help: exit %d\n%s", code, out)
	}
	var stdout, stderr bytes.Buffer
	if code := ledgercli.Run(ctx, []string{"list", "-db", "mysql://x"}, &stdout, &stderr); code != 1 {
		t.Fatalf("list of an unknown database: exit %d, want 1", code)
	}

	// resolve -committed, once.
	if code, out, errOut := run("resolve", "-id", id, "-committed", "-provider-id", "thing_9", "-reason", "in the dashboard"); code != 0 ||
		!strings.Contains(out, "is now active") {
		t.Fatalf("resolve -committed: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := run("resolve", "-id", id, "-not-applied", "-reason", "again"); code != 1 || !strings.Contains(errOut, "is active") {
		t.Fatalf("second resolve: exit %d: %s; want a refusal", code, errOut)
	}
	// resolve -not-applied frees the business key: the next call writes.
	if code, out, errOut := run("resolve", "-id", strconv.FormatInt(ids[1], 10), "-not-applied", "-reason", "no such thing"); code != 0 ||
		!strings.Contains(out, "is now not_applied") {
		t.Fatalf("resolve -not-applied: exit %d\n%s%s", code, out, errOut)
	}
	r1, _ := l.Get(ctx, ids[1])
	again, won, err := l.Claim(ctx, claimOf(r1.Identity, "req"), runtime.Holder{Owner: "next"}, lease)
	if err != nil || !won || again.ID != ids[1] {
		t.Fatalf("claim after resolve -not-applied: %+v won=%v, %v; want the key claimed again", again, won, err)
	}
	// redrive: the next takeover of the scope drives the row on.
	if code, out, errOut := run("redrive", "-id", strconv.FormatInt(ids[2], 10), "-reason", "the key is good for 30 days"); code != 0 ||
		!strings.Contains(out, "is now uncertain, redrive") {
		t.Fatalf("redrive: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := run("redrive", "-id", strconv.FormatInt(claimed.ID, 10), "-reason", "r"); code != 1 || !strings.Contains(errOut, "is claimed") {
		t.Fatalf("redrive of a claimed row: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run("redrive", "-id", strconv.FormatInt(recorded, 10), "-reason", "r"); code != 1 || !strings.Contains(errOut, "without a claim") {
		t.Fatalf("redrive of a recorded row: exit %d: %s", code, errOut)
	}
	taken, err := l.TakeOver(ctx, "desk", "acme", "create-thing", time.Now(), runtime.Holder{Owner: "resumer"}, lease, 0)
	if err != nil || len(taken) != 1 || taken[0].ID != ids[2] {
		t.Fatalf("takeover after redrive: %+v, %v; want row %d", taken, err, ids[2])
	}
	// compensate: a person undid a duplicate.
	if code, out, errOut := run("compensate", "-id", strconv.FormatInt(recorded, 10), "-reason", "deleted the duplicate"); code != 0 ||
		!strings.Contains(out, "is now compensated") {
		t.Fatalf("compensate: exit %d\n%s%s", code, out, errOut)
	}
	if rows := listCommand(t, dsn); len(rows) != 1 || rows[0].ID != other.ID {
		t.Fatalf("uncertain rows after the commands: %+v; want the one of chat", rows)
	}
}
