package writegenimpl

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// answering is a provider that reads every write and answers it with
// status and body.
func answering(t *testing.T, status int, body string) (*provider, *atomic.Int64) {
	var writes atomic.Int64
	p := newProviderWith(t, func(p *provider) {
		p.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			writes.Add(1)
			w.WriteHeader(status)
			io.WriteString(w, body)
		})
	})
	return p, &writes
}

// twoHundreds are 2xx answers a receipt operation cannot take as a receipt.
var twoHundreds = []struct {
	name   string
	status int
	body   string
	reason string
}{
	{"not json", 201, `{"id": "th_1", "title": `, reasonUndecoded},
	{"204", 204, ``, reasonNoID},
	{"202 empty", 202, ``, reasonNoID},
	{"missing id", 201, `{"title": "x"}`, reasonNoID},
	{"null id", 201, `{"id": null, "title": "x"}`, reasonNoID},
}

// TestPromise28_UnreadableReceipt: a 2xx that does not decode, or a receipt
// without an id, is uncertain with its status and raw body kept, recorded
// where the report says and notified, never a plain error nor a receipt
// without an id.
func TestPromise28_UnreadableReceipt(t *testing.T) {
	for _, a := range twoHundreds {
		t.Run(a.name, func(t *testing.T) {
			for _, where := range []string{"ledger row", "ledger record", "notifier", "log"} {
				p, writes := answering(t, a.status, a.body)
				op := thingOp(withKey)
				var opts []runtime.Option
				l := newMemLedger()
				var n notes
				switch where {
				case "ledger row":
					op.Dedupe = true
					opts = append(opts, runtime.WithLedger(l), runtime.WithNotifier(&n))
				case "ledger record":
					opts = append(opts, runtime.WithLedger(l), runtime.WithNotifier(&n))
				case "notifier":
					opts = append(opts, runtime.WithNotifier(&n))
				}
				var log bytes.Buffer
				if where == "log" {
					defer slog.SetDefault(slog.Default())
					slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
				}
				c := newTestClient(t, p.URL, newTestClock(), opts...)
				r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
				var ue *runtime.UncertainError
				if r != nil || !errors.As(err, &ue) {
					t.Fatalf("%s: receipt %+v, err %v; want an *UncertainError", where, r, err)
				}
				only(t, err, runtime.ErrUncertain)
				if ue.Reason != a.reason || ue.Status != a.status || string(ue.Body) != a.body || writes.Load() != 1 {
					t.Errorf("%s: %+v after %d writes; want %q with status %d and the body kept, one write", where, ue, writes.Load(), a.reason, a.status)
				}
				want := map[string]string{"ledger row": "ledger row 1", "ledger record": "ledger row 1", "notifier": "notifier", "log": "log"}[where]
				if ue.Recorded != want {
					t.Errorf("%s: recorded in %q, want %q", where, ue.Recorded, want)
				}
				switch where {
				case "ledger row", "ledger record":
					row := l.row(1)
					if row.State != runtime.StateUncertain || row.claim != (where == "ledger row") || string(row.Body) != a.body || row.Status != a.status {
						t.Errorf("%s: row %+v (claim %v), want it uncertain with the 2xx kept", where, row.Record, row.claim)
					}
					if row.redrive {
						t.Errorf("%s: re-drivable, but the provider would give the same answer", where)
					}
				case "log":
					if !strings.Contains(log.String(), "level=ERROR") || !strings.Contains(log.String(), a.reason) {
						t.Errorf("logged %q, want an ERROR with the reason", log.String())
					}
				}
				if where != "log" && len(n.list) != 1 {
					t.Errorf("%s: %d notes, want 1", where, len(n.list))
				}
			}
		})
	}
	t.Run("a later caller", func(t *testing.T) {
		p, writes := answering(t, 201, `{"id": "th_1", "title": `)
		op := thingOp(ledgerOnly)
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(newMemLedger()))
		Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		var ue *runtime.UncertainError
		if !errors.As(err, &ue) || ue.Reason != reasonUndecoded || ue.Status != 201 || writes.Load() != 1 {
			t.Errorf("err %v after %d writes; want the same uncertain outcome from the ledger", err, writes.Load())
		}
	})
	t.Run("unkeyed write", func(t *testing.T) {
		// A 2xx took effect, read or not: the idempotent write says so, and nothing is left
		// uncertain (promise 56).
		p, writes := answering(t, 200, `not json`)
		l := newMemLedger()
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
		op := &Operation{ID: "putThing", Method: "PUT", Path: "/things", Effect: runtime.EffectIdempotent, Attempts: 3,
			Retry: runtime.RetryNotSent | runtime.RetryAmbiguous}
		r := NewRequest("PUT", "/things")
		r.JSON(thing{Title: "x"})
		err := Do(context.Background(), c, op, r, new(thing))
		var de *runtime.DecodeError
		if !errors.As(err, &de) || de.Status != 200 || string(de.Body) != "not json" || writes.Load() != 1 || len(l.all()) != 0 {
			t.Errorf("err %v after %d writes, rows %+v; want a *runtime.DecodeError with the body, one write, no row", err, writes.Load(), l.all())
		}
		only(t, err, runtime.ErrDecode)
	})
}

// TestPromise29_Acknowledgements: a 2xx without an id is an
// acknowledgement where the operation declares one.
func TestPromise29_Acknowledgements(t *testing.T) {
	for _, a := range twoHundreds {
		t.Run(a.name, func(t *testing.T) {
			p, _ := answering(t, a.status, a.body)
			op := thingOp(withKey)
			op.Receipt, op.Dedupe = false, true
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(newMemLedger()))
			ack, err := Submit(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if a.reason == reasonUndecoded {
				// Accepted, though the answer did not decode (promise 56).
				only(t, err, runtime.ErrDecode)
				if ack == nil || ack.Status != a.status || string(ack.Raw) != a.body {
					t.Errorf("ack %+v; want it with the raw answer", ack)
				}
				return
			}
			if err != nil || ack.Status != a.status || ack.Source != runtime.Created || string(ack.Raw) != a.body {
				t.Fatalf("ack %+v, err %v; want the %d acknowledged", ack, err, a.status)
			}
			again, err := Submit(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
			if err != nil || again.Source != runtime.AdoptedLedger || again.Status != a.status {
				t.Errorf("second call: ack %+v, err %v; want it from the ledger", again, err)
			}
		})
	}
}

// TestPromise28_LedgerFails: a receipt whose settle fails is still
// returned, Hooks.LedgerFailed is told, the settle is tried again within
// the lease, and the row stays claimed; the client keeps the receipt and
// records it when the ledger is back, at its Resume, so that the row never
// ends uncertain for an effect whose receipt a caller got.
func TestPromise28_LedgerFails(t *testing.T) {
	t.Run("database down", func(t *testing.T) {
		p := newProvider(t)
		op := thingOp(withKey)
		op.Dedupe = true
		l := newMemLedger()
		var tries atomic.Int64
		l.settle = func(int64, runtime.State) error {
			tries.Add(1)
			return errors.New("database is down")
		}
		clk := newTestClock()
		var fails ledgerFailures
		c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithHooks(fails.hooks()))
		r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if err != nil || r.ID != "th_1" || r.Source != runtime.Created {
			t.Fatalf("receipt %+v, err %v; want the receipt", r, err)
		}
		if fails.count() != 1 || tries.Load() != settleTries || l.row(1).State != runtime.StateClaimed {
			t.Errorf("LedgerFailed told %d times, %d settles tried, row %s; want 1, %d, claimed",
				fails.count(), tries.Load(), l.row(1).State, settleTries)
		}
		// The database is back; the lease has run out. Resume records the
		// receipt the client kept, and has nothing left to take over.
		l.settle = nil
		clk.advance(2 * time.Minute)
		rep, err := Resume(context.Background(), c, op, thingCall(c, op, "x"))
		if err != nil || rep.Taken != 0 || l.row(1).State != runtime.StateActive || l.row(1).ProviderID != "th_1" || p.effectCount() != 1 {
			t.Errorf("report %+v, err %v, row %+v, %d effects; want th_1 active, nothing taken, one effect", rep, err, l.row(1).Record, p.effectCount())
		}
	})
	t.Run("database back at the second try", func(t *testing.T) {
		p := newProvider(t)
		op := thingOp(ledgerOnly)
		l := newMemLedger()
		var tries atomic.Int64
		l.settle = func(int64, runtime.State) error {
			if tries.Add(1) == 1 {
				return errors.New("database is locked")
			}
			return nil
		}
		var fails ledgerFailures
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l), runtime.WithHooks(fails.hooks()))
		r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if err != nil || r.ID != "th_1" || l.row(1).State != runtime.StateActive || fails.count() != 0 {
			t.Errorf("receipt %+v, err %v, row %s, %d failures told; want th_1 active", r, err, l.row(1).State, fails.count())
		}
	})
	t.Run("uncertain outcome", func(t *testing.T) {
		p := newProvider(t, step{loss: lostResponse})
		op := thingOp(ledgerOnly)
		l := newMemLedger()
		l.settle = func(int64, runtime.State) error { return errors.New("database is down") }
		var n notes
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l), runtime.WithNotifier(&n))
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		var ue *runtime.UncertainError
		if !errors.As(err, &ue) || ue.Recorded != "ledger row 2" || len(n.list) != 1 {
			t.Errorf("err %v, %d notes; want uncertain, recorded by Ledger.Record and notified", err, len(n.list))
		}
	})
}

// TestPromise28_KeptReceiptOfARowTakenOver: a receipt kept because the
// ledger failed is not forced onto a row that another replica took over
// meanwhile (its lease ran out): the replica's outcome stands, the kept
// one is dropped at the next claim, and Hooks.LedgerFailed says so.
func TestPromise28_KeptReceiptOfARowTakenOver(t *testing.T) {
	p := newProvider(t)
	op := thingOp(withKey)
	op.Dedupe = true
	clk := newTestClock()
	l := newMemLedgerOn(clk)
	down := true
	l.settle = func(int64, runtime.State) error {
		if down {
			return errors.New("database is down")
		}
		return nil
	}
	var fails ledgerFailures
	c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithHooks(fails.hooks()))
	replica := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
	if r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil || r.ID != "th_1" {
		t.Fatalf("receipt %+v, err %v; want th_1", r, err)
	}
	down = false
	clk.advance(2 * time.Minute)
	if rep, err := Resume(context.Background(), replica, op, thingCall(replica, op, "x")); err != nil || rep.Taken != 1 || rep.Active != 1 {
		t.Fatalf("the replica's resume: %+v, %v; want the row taken over and active", rep, err)
	}
	before := fails.count()
	if r, err := Write(context.Background(), c, op, thingKey{"2"}, thingCall(c, op, "y")); err != nil || r.ID != "th_2" {
		t.Fatalf("the next write: %+v, %v", r, err)
	}
	if row := l.row(1); row.State != runtime.StateActive || row.Fence != 2 || row.ProviderID != "th_1" {
		t.Errorf("row %+v; want the replica's settlement under fence 2", row.Record)
	}
	if fails.count() != before+1 || c.pending.n.Load() != 0 {
		t.Errorf("LedgerFailed told %d times at the next claim, %d outcomes still kept; want once, none", fails.count()-before, c.pending.n.Load())
	}
	if p.effectCount() != 2 {
		t.Errorf("%d effects, want 2", p.effectCount())
	}
}
