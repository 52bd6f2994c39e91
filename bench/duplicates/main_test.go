package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"
)

// TestMain runs the calling process when the benchmark re-executes the test binary as it.
func TestMain(m *testing.M) {
	if len(os.Args) == childArgs && os.Args[1] == childMode {
		if err := child(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "duplicates:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBenchmark runs every profile small: the writegen rows show no duplicate effect, no lost
// outcome and no lie (and, with a ledger, no wrong effect), every client was killed and
// restarted once per crash of the schedule, and the baselines of the newer profiles do what the
// README says they do (expect).
func TestBenchmark(t *testing.T) {
	const n, seed = 100, 12
	for _, pr := range profiles {
		t.Run(pr.name, func(t *testing.T) {
			sc := newSchedule(seed, n, faultRate, crashEvery)
			sc.waitAfterLoss = pr.waitAfterLoss
			rows, ok, err := run(context.Background(), pr, sc, n, nil, false, false, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(pr.clients) {
				t.Fatalf("%d rows, want one per client of the profile (%d)", len(rows), len(pr.clients))
			}
			crashes := len(sc.crashes)
			pl := newPlan(seed, n, pr)
			byArg := make(map[string]row)
			for _, r := range rows {
				byArg[r.arg] = r
				if r.writegen && (r.dups > 0 || r.lost > 0 || r.lies > 0) {
					t.Errorf("%s: %d duplicate effects, %d lost outcomes, %d lies, want none", r.name, r.dups, r.lost, r.lies)
				}
				if r.ledger && r.wrong > 0 {
					t.Errorf("%s: %d wrong effects, want none", r.name, r.wrong)
				}
				if r.restarts != crashes {
					t.Errorf("%s: restarted %d times, want %d", r.name, r.restarts, crashes)
				}
				// A write may make no call: its claim was taken before a crash, and without key or
				// lookup Resume leaves it uncertain rather than guess whether it went out.
				if r.writes != len(pl.slots) || r.calls == 0 {
					t.Errorf("%s: %d logical writes, %d provider calls", r.name, r.writes, r.calls)
				}
				if r.lines == 0 {
					t.Errorf("%s: no hand-written line counted", r.name)
				}
			}
			if !ok {
				t.Error("run reported a writegen row with duplicates, lost outcomes or wrong effects")
			}
			if e := expect[pr.name]; e != nil {
				asks := make(map[int]int)
				for _, o := range pl.slots {
					asks[o]++
				}
				a := again{n: len(pl.slots) - n}
				for _, k := range asks {
					a.thrice += max(0, k-2)
				}
				e(t, byArg, a)
			}
		})
	}
}

// again counts the asks of an order after its first: n in all, thrice of them the third ask of
// an order (asked twice at once and again later).
type again struct{ n, thrice int }

// about reports whether k is what the same-key profiles make of every ask after an order's
// first: each is refused, or answered with the first one's receipt, except that when the two
// asks at once race and the second one's payload is made first, the third ask (the second's
// payload) is the one that matches it, and the first one's is refused instead.
func (a again) about(k int) bool { return k <= a.n && k >= a.n-a.thrice }

// expect checks, per profile, what the README says of its rows.
var expect = map[string]func(t *testing.T, rows map[string]row, a again){
	"comments": func(t *testing.T, rows map[string]row, _ again) {
		if r := rows["retryablehttp"]; r.dups == 0 {
			t.Errorf("%s: no duplicate, want some (a retry after a lost answer, work redone after a restart)", r.name)
		}
		if r := rows["once"]; r.dups == 0 || r.lies == 0 {
			t.Errorf("%s: %d duplicates and %d lies, want some of each", r.name, r.dups, r.lies)
		}
		if r := rows["writegen-comments"]; r.stats.Lookups == 0 {
			t.Errorf("%s: no page of comments read, want the lookup to walk them", r.name)
		}
	},
	"same-key-another-payload": func(t *testing.T, rows map[string]row, a again) {
		if r := rows["retryablehttp"]; r.dups < a.n {
			t.Errorf("%s: %d duplicates, want at least one per later ask (%d)", r.name, r.dups, a.n)
		}
		// The provider refuses the other payload: the derived key's client reports it failed.
		if r := rows["careful"]; r.dups > 0 || r.wrong > 0 || r.lies > 0 || !a.about(r.failed) || r.stats.KeyReused == 0 {
			t.Errorf("%s: %d duplicates, %d wrong effects, %d lies, %d failed, %d refusals of a reused key; want 0, 0, 0, about %d and some",
				r.name, r.dups, r.wrong, r.lies, r.failed, r.stats.KeyReused, a.n)
		}
		if r := rows["writegen"]; !a.about(r.uncertain) || r.wrong > 0 {
			t.Errorf("%s: %d uncertain, %d wrong effects, want about %d (key reused with another payload) and 0", r.name, r.uncertain, r.wrong, a.n)
		}
		// The ledger refuses the other payload before it is sent.
		if r := rows["writegen-ledger"]; !a.about(r.failed) || r.stats.KeyReused > 0 {
			t.Errorf("%s: %d failed, %d requests with a reused key; want about %d and none", r.name, r.failed, r.stats.KeyReused, a.n)
		}
	},
	"same-key-cached": func(t *testing.T, rows map[string]row, a again) {
		// The provider answers the other payload with the first one's receipt: a client without
		// a ledger reports it done.
		for _, arg := range []string{"careful", "writegen"} {
			if r := rows[arg]; !a.about(r.wrong) || r.dups > 0 {
				t.Errorf("%s: %d wrong effects and %d duplicates, want about %d and 0", r.name, r.wrong, r.dups, a.n)
			}
		}
		if r := rows["writegen-ledger"]; !a.about(r.failed) || r.stats.KeyReused > 0 {
			t.Errorf("%s: %d failed, %d requests with a reused key; want about %d and none", r.name, r.failed, r.stats.KeyReused, a.n)
		}
	},
	"two-replicas": func(t *testing.T, rows map[string]row, a again) {
		// The derived key's client, which retries until its write is made, pays every order the
		// two replicas both picked twice at least; send once pays some twice and reports some
		// made writes failed.
		if r := rows["careful"]; r.dups < a.n || r.causes[causeAskedAgain] == 0 {
			t.Errorf("%s: %d duplicates, %d of an order picked by both replicas; want at least %d and some",
				r.name, r.dups, r.causes[causeAskedAgain], a.n)
		}
		if r := rows["once"]; r.causes[causeAskedAgain] == 0 || r.lies == 0 {
			t.Errorf("%s: %d duplicates of an order picked by both replicas, %d lies; want some of each",
				r.name, r.causes[causeAskedAgain], r.lies)
		}
	},
	"two-replicas-keyed": func(t *testing.T, rows map[string]row, _ again) {
		if r := rows["careful"]; r.dups > 0 || r.lost > 0 || r.lies > 0 {
			t.Errorf("%s: %d duplicates, %d lost, %d lies; want none: the provider's key dedupes both replicas", r.name, r.dups, r.lost, r.lies)
		}
	},
}

// TestCountsSeeDuplicates checks that the counting sees what the baselines do: on the Stripe
// profile the client without keys duplicates the orders asked twice, and a client that sends
// the key header to a provider that ignores it is replayed by net/http at least once in a
// few hundred writes.
func TestCountsSeeDuplicates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two baselines")
	}
	const n, seed = 200, 7
	for _, tc := range []struct{ profile, client string }{{"stripe", "retryablehttp"}, {"lookup", "once-key"}} {
		pr := profileNamed(tc.profile)
		rows, _, err := run(context.Background(), pr, newSchedule(seed, n, faultRate, crashEvery), n, []string{tc.client}, false, false, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		r := rows[0]
		if r.dups == 0 {
			t.Errorf("%s on %s: no duplicate effect counted", r.name, tc.profile)
		}
		if tc.client == "once-key" && (r.stats.Replays == 0 || r.lies == 0) {
			t.Errorf("%s on %s: %d net/http replays and %d lies counted, want some of each", r.name, tc.profile, r.stats.Replays, r.lies)
		}
	}
}

// TestSchedule checks that the workload and the faults depend on the seed alone.
func TestSchedule(t *testing.T) {
	a, b := newSchedule(3, 1000, faultRate, crashEvery), newSchedule(3, 1000, faultRate, crashEvery)
	differs := false
	for o := range 1000 {
		for k := 1; k <= 4; k++ {
			if a.fault(o, k) != b.fault(o, k) {
				t.Fatalf("fault(%d, %d) differs for one seed", o, k)
			}
			differs = differs || a.fault(o, k) != newSchedule(4, 1000, faultRate, crashEvery).fault(o, k)
		}
	}
	if !differs {
		t.Error("seeds 3 and 4 give the same faults")
	}
	p, q := newPlan(3, 1000, profiles[0]), newPlan(3, 1000, profiles[0])
	if fmt.Sprint(p.tasks) != fmt.Sprint(q.tasks) || fmt.Sprint(p.orders) != fmt.Sprint(q.orders) {
		t.Error("the plan differs for one seed")
	}
	if len(p.slots) <= 1000 || len(p.tasks) <= 1000 {
		t.Errorf("%d slots in %d tasks: no order is asked twice", len(p.slots), len(p.tasks))
	}
}

// TestPlanAsksAgain checks the workloads of the newer profiles: with otherPayload every ask of an
// order after its first has another amount, and with replicas an order asked again goes to the
// other replica, while the orders themselves are those of a profile without either.
func TestPlanAsksAgain(t *testing.T) {
	base := newPlan(5, 1000, profileNamed("stripe"))
	for _, name := range []string{"same-key-another-payload", "two-replicas"} {
		pr := profileNamed(name)
		p := newPlan(5, 1000, pr)
		if fmt.Sprint(p.orders) != fmt.Sprint(base.orders) || fmt.Sprint(p.slots) != fmt.Sprint(base.slots) {
			t.Errorf("%s: the orders or slots differ from the stripe profile's", name)
		}
		first := make(map[int]int) // slot of each order's first ask
		used := make(map[int]bool) // replicas given work
		for slot, o := range p.slots {
			used[p.replica[slot]] = true
			f, seen := first[o]
			if !seen {
				first[o] = slot
				if p.amounts[slot] != p.orders[o].amount {
					t.Errorf("%s: slot %d, the first ask of its order, has amount %d, want %d", name, slot, p.amounts[slot], p.orders[o].amount)
				}
				continue
			}
			if pr.otherPayload == (p.amounts[slot] == p.amounts[f]) {
				t.Errorf("%s: slot %d asks %d, its order's first ask %d", name, slot, p.amounts[slot], p.amounts[f])
			}
			if pr.replicas > 1 && p.replica[slot] == p.replica[f] {
				t.Errorf("%s: slot %d is on replica %d as its order's first ask", name, slot, p.replica[slot])
			}
		}
		if len(used) != max(1, pr.replicas) {
			t.Errorf("%s: work on %d replicas, want %d", name, len(used), max(1, pr.replicas))
		}
	}
}
