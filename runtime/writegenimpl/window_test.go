package writegenimpl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestPromise40_UnknownWindowIsNotForever: a provider key whose window no
// person declared (KeyWindow 0) is re-sent by the call that first sent it,
// and never after: the uncertain row it leaves is not re-drivable, Resume
// and a second caller with the business key do not send it again, and a
// claim that outlived its process is settled uncertain without a send. A
// window declared forever (KeyForever) is re-sent by all of them. The
// ledgers are the in-memory one, a SQLite file and, when WRITEGEN_PG_DSN is
// set, PostgreSQL.
func TestPromise40_UnknownWindowIsNotForever(t *testing.T) {
	for _, tl := range testLedgers() {
		for _, w := range []struct {
			name   string
			window time.Duration
		}{{"unknown", 0}, {"forever", KeyForever}} {
			t.Run(tl.name+"/"+w.name, func(t *testing.T) {
				clk := newTestClock()
				l := tl.open(t, clk)
				// Two attempts lose the request (read, not committed); then the
				// provider is well.
				p := newProvider(t, step{loss: lostRequest}, step{loss: lostRequest})
				op := thingOp(withKey)
				op.KeyWindow, op.Dedupe = w.window, true
				c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithMaxAttempts(2), runtime.WithNotifier(&notes{}))
				call := thingCall(c, op, "x")
				_, err := Write(context.Background(), c, op, thingKey{"1"}, call)
				uncertainReason(t, err)
				if n := len(p.seenWrites()); n != 2 || p.effectCount() != 0 {
					t.Fatalf("%d writes read, %d effects; want the call's own key re-sent once, nothing committed", n, p.effectCount())
				}
				clk.advance(time.Hour)
				rep, err := Resume(context.Background(), c, op, call)
				if err != nil {
					t.Fatal(err)
				}
				r, err2 := Write(context.Background(), c, op, thingKey{"1"}, call)
				if w.window == 0 {
					if rep.Taken != 0 || p.effectCount() != 0 {
						t.Errorf("resume: report %+v, %d effects; want the uncertain row left to a person", rep, p.effectCount())
					}
					if uncertainReason(t, err2); len(p.seenWrites()) != 2 {
						t.Errorf("a second caller sent the key of unknown window again (%d writes)", len(p.seenWrites()))
					}
					return
				}
				if rep.Taken != 1 || p.effectCount() != 1 {
					t.Errorf("resume: report %+v, %d effects; want the row re-sent with its key, one effect", rep, p.effectCount())
				}
				if err2 != nil || r.Source != runtime.AdoptedLedger {
					t.Errorf("second call: %+v, %v; want the receipt from the ledger", r, err2)
				}
			})
		}
	}
	t.Run("claim outlived its process", func(t *testing.T) {
		p := newProvider(t)
		op := thingOp(withKey)
		op.KeyWindow, op.Dedupe = 0, true
		l := newMemLedger()
		clk := newTestClock()
		c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithNotifier(&notes{}))
		claimFor(t, l, c, op, "1", "x", clk.Now().Add(-time.Second))
		rep, err := Resume(context.Background(), c, op, thingCall(c, op, "x"))
		if err != nil || rep.Taken != 1 || rep.Uncertain != 1 || len(p.seenWrites()) != 0 {
			t.Fatalf("report %+v, err %v, %d writes; want the row taken and settled uncertain without a send", rep, err, len(p.seenWrites()))
		}
		if got := l.row(1).LastError; !strings.Contains(got, "key window unknown") {
			t.Errorf("last error %q, want the unknown window named", got)
		}
	})
}
