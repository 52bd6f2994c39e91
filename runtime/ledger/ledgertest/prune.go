package ledgertest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// testPruneKeepsHorizon: rows of every state, of one operation, settled at
// t0, are pruned with a retention of a day. Inside the day, by the
// database's clock, nothing is removed, whatever the pruning process's
// clock says; past it, the rows settled for good are removed (their keys
// may be claimed anew), but never an uncertain row, a claim (live or
// expired), a row a person resolved within the day, a row written by
// Record, nor a row of another operation or tenant; "writegen ledger
// prune" does the same (promise 55).
func testPruneKeepsHorizon(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	dsn := b.NewDSN(t)
	l := open(t, dsn, ledger.WithClock(clock))
	const keep = 24 * time.Hour
	claim := func(id runtime.Identity, d time.Duration) runtime.Record {
		t.Helper()
		r, won, err := l.Claim(ctx, claimOf(id, "req"), runtime.Holder{Owner: "me"}, d)
		if err != nil || !won {
			t.Fatalf("claim %+v: won=%v, %v", id, won, err)
		}
		return r
	}
	settled := func(k string, to runtime.State) runtime.Record {
		t.Helper()
		r := claim(ident("thing", k), lease)
		if err := l.Settle(ctx, r.ID, r.Fence, to, runtime.Settlement{ProviderID: "p_" + k, Status: 201}); err != nil {
			t.Fatal(err)
		}
		return r
	}
	gone := []runtime.Record{
		settled("active", runtime.StateActive), settled("rejected", runtime.StateRejected),
		settled("not-applied", runtime.StateNotApplied), settled("compensated", runtime.StateActive),
	}
	if err := l.Compensate(ctx, gone[3].ID, "a duplicate"); err != nil {
		t.Fatal(err)
	}
	kept := []runtime.Record{
		settled("uncertain", runtime.StateUncertain),
		settled("resolved-later", runtime.StateUncertain),
		claim(ident("thing", "claimed-live"), 10*keep),
		claim(ident("thing", "claimed-expired"), time.Minute),
	}
	other := claim(runtime.Identity{Scope: scope, Tenant: "acme", Operation: "thing", BusinessKey: "active"}, lease)
	if err := l.Settle(ctx, other.ID, other.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p"}); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, other)
	rec := claimOf(ident("thing", "recorded"), "req")
	rec.State = runtime.StateCompensated
	recorded, err := l.Record(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	kept = append(kept, runtime.Record{ID: recorded})
	otherOp := claim(ident("other", "active"), lease)
	if err := l.Settle(ctx, otherOp.ID, otherOp.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p"}); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, otherOp)

	prune := func(l *ledger.Ledger) int64 {
		t.Helper()
		n, err := l.Prune(ctx, scope, "", "thing", keep, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// A process whose clock runs two days ahead, on the database's clock.
	if n := prune(open(t, dsn, ledger.WithProcessClock(offsetClock{2 * keep}))); n != 0 {
		t.Fatalf("a process two days ahead pruned %d rows settled just now", n)
	}
	clock.Advance(keep - time.Second)
	if n := prune(l); n != 0 {
		t.Fatalf("pruned %d rows a second inside the retention", n)
	}
	if r, won, err := l.Claim(ctx, claimOf(ident("thing", "active"), "req"), runtime.Holder{Owner: "again"}, lease); err != nil || won || r.ID != gone[0].ID {
		t.Fatalf("a repeat inside the retention: %+v won=%v, %v; want the first row", r, won, err)
	}
	if err := l.Resolve(ctx, kept[1].ID, ledger.Resolution{Committed: true, ProviderID: "p_found", Reason: "seen at the provider"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	if n := prune(l); n != int64(len(gone)) {
		t.Fatalf("pruned %d rows past the retention, want %d", n, len(gone))
	}
	for _, r := range gone {
		if _, err := l.Get(ctx, r.ID); err == nil {
			t.Errorf("row %d (%s) is kept past the retention", r.ID, r.BusinessKey)
		}
	}
	for _, r := range kept {
		if g, err := l.Get(ctx, r.ID); err != nil {
			t.Errorf("row %d (%s) was pruned: %v", r.ID, r.BusinessKey, err)
		} else if g.State == runtime.StateUncertain && g.BusinessKey == "resolved-later" {
			t.Errorf("row %d is still uncertain", r.ID)
		}
	}
	if r, won, err := l.Claim(ctx, claimOf(ident("thing", "active"), "req"), runtime.Holder{Owner: "again"}, lease); err != nil || !won || r.ID == gone[0].ID {
		t.Fatalf("a repeat past the retention: %+v won=%v, %v; want a new claim", r, won, err)
	}
	// The row a person resolved is kept a day from the resolution.
	clock.Advance(keep)
	if n := prune(l); n != 1 {
		t.Fatalf("pruned %d rows a day after the resolution, want the resolved row", n)
	}

	// The command, on the database's own clock: nothing of a minute ago.
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := ledgercli.Run(ctx, append([]string{"prune", "-db", dsn}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, out, errOut := run("-scope", scope, "-operation", "other", "-keep", "1d"); code != 0 || out != "pruned 0 rows of things operation other settled more than 1d ago\n" {
		t.Fatalf("prune: exit %d: %s%s", code, out, errOut)
	}
	if code, out, errOut := run("-scope", scope, "-operation", "other", "-keep", "1ms"); code != 0 || !strings.HasPrefix(out, "pruned 1 rows") {
		t.Fatalf("prune -keep 1ms: exit %d: %s%s", code, out, errOut)
	}
	for _, usage := range [][]string{{}, {"-scope", scope, "-operation", "thing"}, {"-scope", scope, "-operation", "thing", "-keep", "0s"},
		{"-scope", scope, "-keep", "1d"}, {"-operation", "thing", "-keep", "-3d"}} {
		if code, _, _ := run(usage...); code != 2 {
			t.Errorf("prune %v: exit %d, want 2", usage, code)
		}
	}
}

// testResumePrunes: Resume prunes the keys of an operation that states a
// retention, by the database's clock; inside it a repeat of a write gets
// the first receipt, past it the write is made anew (promise 55).
func testResumePrunes(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	p := NewProvider(t)
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	c, err := writegenimpl.NewClient(scope, p.URL, []runtime.Option{runtime.WithLedger(l)})
	if err != nil {
		t.Fatal(err)
	}
	op := operation(withNothing, true) // no provider key: a write made anew is a new effect
	op.Retention = 30 * 24 * time.Hour
	write := func(k key) *runtime.Receipt[thing] {
		t.Helper()
		r, err := writegenimpl.Write(ctx, c, op, k, call(p.URL, withNothing, k))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	resume := func() {
		t.Helper()
		if _, err := writegenimpl.Resume(ctx, c, op, call(p.URL, withNothing, "")); err != nil {
			t.Fatal(err)
		}
	}
	var first []*runtime.Receipt[thing]
	for i := range 3 {
		first = append(first, write(key(fmt.Sprint("order:", i))))
	}
	clock.Advance(op.Retention - time.Minute)
	resume()
	if r := write("order:0"); r.ID != first[0].ID || r.Source != runtime.AdoptedLedger {
		t.Fatalf("a repeat inside the retention: %+v; want the first receipt %s from the ledger", r, first[0].ID)
	}
	clock.Advance(2 * time.Minute)
	resume()
	rows, err := l.List(ctx, ledger.Filter{Scope: scope})
	if err != nil || len(rows) != 0 {
		t.Fatalf("rows after a Resume past the retention: %+v, %v; want none", rows, err)
	}
	r := write("order:1")
	if r.Source != runtime.Created || slices.Contains(p.Effects()[:3], r.ID) || len(p.Effects()) != 4 {
		t.Fatalf("a repeat past the retention: %+v, effects %v; want a new effect", r, p.Effects())
	}
}
