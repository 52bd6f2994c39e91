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
	if len(os.Args) == 7 && os.Args[1] == childMode {
		if err := child(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "duplicates:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBenchmark runs the benchmark small: the writegen rows show no duplicate effect and no lost
// outcome, while the row of the client without keys shows duplicates (so the counting can see
// them), and every client was killed and restarted once per crash of the schedule.
func TestBenchmark(t *testing.T) {
	const n, seed = 200, 12
	sc := newSchedule(seed, n, faultRate, crashEvery)
	rows, ok, err := run(context.Background(), sc, n, nil, false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	crashes := len(sc.crashes)
	for _, r := range rows {
		if r.writegen && (r.dups > 0 || r.lost > 0) {
			t.Errorf("%s: %d duplicate effects, %d lost outcomes, want none", r.name, r.dups, r.lost)
		}
		if r.restarts != crashes {
			t.Errorf("%s: restarted %d times, want %d", r.name, r.restarts, crashes)
		}
		if r.writes != len(newPlan(seed, n).slots) || r.calls == 0 {
			t.Errorf("%s: %d logical writes, %d provider calls", r.name, r.writes, r.calls)
		}
	}
	if !ok {
		t.Error("run reported a writegen row with duplicates or lost outcomes")
	}
	if rows[0].dups == 0 {
		t.Errorf("%s: no duplicate effect counted; the orders asked twice alone make some", rows[0].name)
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
	p, q := newPlan(3, 1000), newPlan(3, 1000)
	if fmt.Sprint(p.tasks) != fmt.Sprint(q.tasks) || fmt.Sprint(p.orders) != fmt.Sprint(q.orders) {
		t.Error("the plan differs for one seed")
	}
	if len(p.slots) <= 1000 || len(p.tasks) <= 1000 {
		t.Errorf("%d slots in %d tasks: no order is asked twice", len(p.slots), len(p.tasks))
	}
}
