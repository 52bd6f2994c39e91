package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// groupKeys and groupCallers shape testGroupCommit: callers claim each of
// the keys at once.
const (
	groupKeys    = 16
	groupCallers = 4
)

// testGroupCommit: claims and settlements made at once share commits
// (issue 24), and sharing one changes nothing a caller sees. While a
// transaction of the caller's holds the claims table, goroutines claim 16
// keys, 4 callers each; once it ends, exactly one claim of each key wins,
// the others return the winner's row, fence and request (whether their
// claim shared the winner's transaction or not), and the writes took fewer
// commits than they were. Then the winners settle, together with
// settlements of a stale fence, which are refused alone without failing the
// others; a second round of claims on the rows settled not applied wins
// once each, with the next fence.
func testGroupCommit(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	before := l.Stats()

	type claimed struct {
		rec runtime.Record
		won bool
		err error
	}
	results := make([][groupCallers]claimed, groupKeys)
	claimAll := func(round string) {
		t.Helper()
		var wg sync.WaitGroup
		for k := range groupKeys {
			for c := range groupCallers {
				wg.Go(func() {
					id := ident("thing", fmt.Sprintf("order:%d", k))
					rec, won, err := l.Claim(ctx, claimOf(id, "req"), runtime.Holder{Owner: fmt.Sprintf("%s-%d", round, c)}, time.Hour)
					results[k][c] = claimed{rec, won, err}
				})
			}
		}
		wg.Wait()
	}

	// Hold the claims table, so that the claims queue behind the first.
	release := make(chan struct{})
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
			<-release
			return nil
		})
	}()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		claimAll("first")
		close(done)
	}()
	time.Sleep(300 * time.Millisecond) // let the claims reach the group: what they share depends on it, not whether they pass
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	<-done

	winners := make([]runtime.Record, groupKeys)
	for k, row := range results {
		wins := 0
		for c, r := range row {
			if r.err != nil {
				t.Fatalf("key %d, caller %d: %v", k, c, r.err)
			}
			if r.won {
				wins++
				winners[k] = r.rec
			}
		}
		if wins != 1 {
			t.Fatalf("key %d: %d of %d claims won, want exactly one", k, wins, groupCallers)
		}
		for c, r := range row {
			if r.rec.ID != winners[k].ID || r.rec.Fence != winners[k].Fence || string(r.rec.Request) != "req" {
				t.Fatalf("key %d, caller %d saw row %d fence %d request %q; the winner's is row %d fence %d",
					k, c, r.rec.ID, r.rec.Fence, r.rec.Request, winners[k].ID, winners[k].Fence)
			}
		}
	}
	s := l.Stats()
	writes, commits := s.Writes-before.Writes, s.Commits-before.Commits
	if writes != groupKeys*groupCallers {
		t.Fatalf("Stats counted %d writes for %d claims", writes, groupKeys*groupCallers)
	}
	if commits >= writes/2 {
		t.Errorf("%d claims made together took %d commits, want them grouped (at most %d)", writes, commits, writes/2-1)
	}
	t.Logf("%d claims, %d commits", writes, commits)

	// Settle: odd keys active, even keys not applied, each beside a stale
	// settlement of its row, all at once.
	var wg sync.WaitGroup
	errs := make([][2]error, groupKeys)
	for k, w := range winners {
		to := runtime.StateNotApplied
		if k%2 == 1 {
			to = runtime.StateActive
		}
		wg.Go(func() {
			errs[k][0] = l.Settle(ctx, w.ID, w.Fence, to, runtime.Settlement{ProviderID: fmt.Sprint("p", k), Status: 200})
		})
		wg.Go(func() {
			errs[k][1] = l.Settle(ctx, w.ID, w.Fence+1, runtime.StateActive, runtime.Settlement{ProviderID: "stale"})
		})
	}
	wg.Wait()
	for k, e := range errs {
		if e[0] != nil {
			t.Fatalf("key %d: settle: %v", k, e[0])
		}
		if e[1] == nil {
			t.Fatalf("key %d: a settlement with fence %d was taken for a row at fence %d", k, winners[k].Fence+1, winners[k].Fence)
		}
		row, err := l.Find(ctx, winners[k].Identity)
		if err != nil {
			t.Fatal(err)
		}
		want := runtime.StateNotApplied
		if k%2 == 1 {
			want = runtime.StateActive
		}
		if row.State != want || (want == runtime.StateActive && row.ProviderID != fmt.Sprint("p", k)) {
			t.Fatalf("key %d: row is %s with provider id %q, want %s", k, row.State, row.ProviderID, want)
		}
	}

	claimAll("second")
	for k, row := range results {
		wins := 0
		for _, r := range row {
			if r.err != nil && !errors.Is(r.err, ledger.ErrNotFound) {
				t.Fatalf("key %d, second round: %v", k, r.err)
			}
			if r.won {
				wins++
				if r.rec.Fence != winners[k].Fence+1 {
					t.Fatalf("key %d: claimed again with fence %d, want %d", k, r.rec.Fence, winners[k].Fence+1)
				}
			}
		}
		if want := 1 - k%2; wins != want {
			t.Fatalf("key %d (settled %s): %d claims won the second round, want %d", k, map[int]string{0: "not applied", 1: "active"}[k%2], wins, want)
		}
	}
}
