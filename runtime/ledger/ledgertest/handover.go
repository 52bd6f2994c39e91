package ledgertest

import (
	"context"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// testLeaseLeft: a row handed over tells its taker how long the previous
// holder's lease still had to run, by the ledger's clock: positive for a
// claim of an earlier run of the taker's instance taken before its lease
// ended, negative for a lease that had ended, and for an uncertain row the
// time since its settle. On the database's own clock, a same-instance
// takeover made at once sees nearly the whole lease.
func testLeaseLeft(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	takeOne := func(op string, h runtime.Holder) runtime.Record {
		t.Helper()
		got, err := l.TakeOver(ctx, scope, "", op, clock.Now(), h, lease, 0)
		if err != nil || len(got) != 1 {
			t.Fatalf("take over the rows of %s: %+v, %v; want one", op, got, err)
		}
		return got[0]
	}
	claim := func(op, k string, h runtime.Holder, d time.Duration) runtime.Record {
		t.Helper()
		r, won, err := l.Claim(ctx, claimOf(ident(op, k), "req"), h, d)
		if err != nil || !won {
			t.Fatalf("claim %s %s: won=%v, %v", op, k, won, err)
		}
		return r
	}

	// A claim of the first run of pod-1, taken by its second run 10 s into
	// a minute's lease: 50 s were left.
	run1, run2 := runtime.Holder{Owner: "a", Instance: "pod-1", Incarnation: 1}, runtime.Holder{Owner: "b", Instance: "pod-1", Incarnation: 2}
	claim("restart", "k", run1, time.Minute)
	clock.Advance(10 * time.Second)
	if r := takeOne("restart", run2); r.LeaseLeft != 50*time.Second || r.Redrives != 0 {
		t.Fatalf("a claim of an earlier run taken 10 s into its 1 min lease: LeaseLeft %v, Redrives %d; want 50s, 0", r.LeaseLeft, r.Redrives)
	}
	// A claim whose lease ended a minute ago.
	claim("expired", "k", runtime.Holder{Owner: "a"}, time.Minute) // until t0+70s
	clock.Advance(2 * time.Minute)                                 // t0+130s
	if r := takeOne("expired", runtime.Holder{Owner: "b"}); r.LeaseLeft != -time.Minute || r.Redrives != 0 {
		t.Fatalf("a claim whose lease ended 1 min ago: LeaseLeft %v, Redrives %d; want -1m0s, 0", r.LeaseLeft, r.Redrives)
	}

	// An uncertain row, settled re-drivable, taken a minute after its
	// settle: -1 min, and its first redrive; again, a second; a person's
	// redrive counts them anew.
	u := claim("uncertain", "k", runtime.Holder{Owner: "a"}, lease)
	clock.Advance(5 * time.Second)
	redrivable := runtime.Settlement{Attempts: 1, LastError: "ambiguous", Redrive: true}
	if err := l.Settle(ctx, u.ID, u.Fence, runtime.StateUncertain, redrivable); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	r := takeOne("uncertain", runtime.Holder{Owner: "resumer"})
	if r.ID != u.ID || r.LeaseLeft != -time.Minute || r.Redrives != 1 {
		t.Fatalf("an uncertain row taken 1 min after its settle: LeaseLeft %v, Redrives %d; want -1m0s, 1", r.LeaseLeft, r.Redrives)
	}
	if err := l.Settle(ctx, r.ID, r.Fence, runtime.StateUncertain, redrivable); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	rt, won, err := l.TakeOverRow(ctx, u.ID, clock.Now(), runtime.Holder{Owner: "caller"}, lease)
	if err != nil || !won || rt.LeaseLeft != -time.Second || rt.Redrives != 2 {
		t.Fatalf("the row taken by its id 1 s after its second settle: %+v won=%v, %v; want LeaseLeft -1s, Redrives 2", rt, won, err)
	}
	if err := l.Settle(ctx, rt.ID, rt.Fence, runtime.StateUncertain, runtime.Settlement{Attempts: 1, LastError: "ambiguous"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Redrive(ctx, u.ID, "the provider keeps keys for 30 days"); err != nil {
		t.Fatal(err)
	}
	if g, err := l.Get(ctx, u.ID); err != nil || g.Redrives != 0 || !g.Redrive {
		t.Fatalf("row after a person's redrive: %+v, %v; want Redrives 0, re-drivable", g.Record, err)
	}
	if r := takeOne("uncertain", runtime.Holder{Owner: "resumer"}); r.Redrives != 1 {
		t.Fatalf("the row taken after a person's redrive: Redrives %d, want 1", r.Redrives)
	}
	// A not_applied row claimed again starts anew.
	na := claim("again", "k", runtime.Holder{Owner: "a"}, lease)
	if err := l.Settle(ctx, na.ID, na.Fence, runtime.StateNotApplied, runtime.Settlement{Status: 429}); err != nil {
		t.Fatal(err)
	}
	if again := claim("again", "k", runtime.Holder{Owner: "b"}, lease); again.Redrives != 0 || again.LeaseLeft != 0 {
		t.Fatalf("a not_applied row claimed again: %+v; want no redrives, no lease left", again)
	}

	// By the database's own clock: taken at once, nearly the whole hour.
	db := open(t, b.NewDSN(t))
	if _, won, err := db.Claim(ctx, claimOf(ident("restart", "k"), "req"), run1, time.Hour); err != nil || !won {
		t.Fatalf("claim: won=%v, %v", won, err)
	}
	got, err := db.TakeOver(ctx, scope, "", "restart", time.Now(), run2, lease, 0)
	if err != nil || len(got) != 1 || got[0].LeaseLeft <= 59*time.Minute || got[0].LeaseLeft > time.Hour {
		t.Fatalf("a claim of an earlier run taken at once, on the database's clock: %+v, %v; want LeaseLeft in (59m, 1h]", got, err)
	}
}

// testRedriveAfter: an uncertain row settled re-drivable with a
// RedriveAfter is handed over by TakeOver only once that long has passed
// since its settle by the ledger's clock, however far ahead the caller's
// time is; TakeOverRow does not wait; a person's redrive makes it due at
// once.
func testRedriveAfter(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	settle := func(l *ledger.Ledger, k string, after time.Duration) runtime.Record {
		t.Helper()
		r, won, err := l.Claim(ctx, claimOf(ident("thing", k), "req"), runtime.Holder{Owner: "me"}, lease)
		if err != nil || !won {
			t.Fatalf("claim %s: won=%v, %v", k, won, err)
		}
		if err := l.Settle(ctx, r.ID, r.Fence, runtime.StateUncertain,
			runtime.Settlement{Attempts: 1, LastError: "ambiguous", Redrive: true, RedriveAfter: after}); err != nil {
			t.Fatal(err)
		}
		return r
	}
	take := func(l *ledger.Ledger, callerNow time.Time) []int64 {
		t.Helper()
		got, err := l.TakeOver(ctx, scope, "", "thing", callerNow, runtime.Holder{Owner: "resumer"}, lease, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, r := range got {
			ids = append(ids, r.ID)
		}
		return ids
	}
	t0 := clock.Now()
	u := settle(l, "u", 10*time.Minute)
	if g, err := l.Get(ctx, u.ID); err != nil || !g.RedriveAt.Equal(t0.Add(10*time.Minute).Truncate(time.Microsecond)) {
		t.Fatalf("row settled with RedriveAfter 10m: RedriveAt %v, %v; want %v", g.RedriveAt, err, t0.Add(10*time.Minute))
	}
	if got := take(l, t0.Add(24*time.Hour)); len(got) != 0 {
		t.Fatalf("taken at once with the caller's time a day ahead: rows %v; want none before its RedriveAfter", got)
	}
	clock.Advance(10*time.Minute - time.Second)
	if got := take(l, clock.Now()); len(got) != 0 {
		t.Fatalf("taken 1 s before its RedriveAfter: rows %v", got)
	}
	clock.Advance(2 * time.Second)
	if got := take(l, clock.Now()); len(got) != 1 || got[0] != u.ID {
		t.Fatalf("taken after its RedriveAfter: rows %v, want [%d]", got, u.ID)
	}
	// TakeOverRow does not wait.
	v := settle(l, "v", time.Hour)
	if r, won, err := l.TakeOverRow(ctx, v.ID, clock.Now(), runtime.Holder{Owner: "caller"}, lease); err != nil || !won || r.LeaseLeft != 0 {
		t.Fatalf("TakeOverRow at once: %+v won=%v, %v; want the row, settled 0s ago", r, won, err)
	}
	// A person's redrive is due at once.
	w := settle(l, "w", time.Hour)
	if got := take(l, clock.Now()); len(got) != 0 {
		t.Fatalf("taken before its RedriveAfter: rows %v", got)
	}
	if err := l.Redrive(ctx, w.ID, "asked by the owner"); err != nil {
		t.Fatal(err)
	}
	if got := take(l, clock.Now()); len(got) != 1 || got[0] != w.ID {
		t.Fatalf("taken after a person's redrive: rows %v, want [%d]", got, w.ID)
	}

	// On the database's own clock, with the caller's time two days ahead.
	db := open(t, b.NewDSN(t))
	x := settle(db, "x", time.Hour)
	if got := take(db, time.Now().Add(48*time.Hour)); len(got) != 0 {
		t.Fatalf("taken by a caller two days ahead, on the database's clock: rows %v; want none inside the hour", got)
	}
	if _, won, err := db.TakeOverRow(ctx, x.ID, time.Now(), runtime.Holder{Owner: "caller"}, lease); err != nil || !won {
		t.Fatalf("TakeOverRow on the database's clock: won=%v, %v", won, err)
	}
}
