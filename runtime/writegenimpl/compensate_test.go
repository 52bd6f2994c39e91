package writegenimpl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// deleteThing is the compensation of createThing: DELETE /things/{id}.
func deleteThing(c *Client) func(ctx context.Context, d runtime.Found[*thing]) error {
	op := &Operation{ID: "deleteThing", Method: "DELETE", Path: "/things/{id}", Effect: runtime.EffectIdempotent,
		Retry: runtime.RetryNotSent | runtime.RetryAmbiguous, Attempts: 3}
	return func(ctx context.Context, d runtime.Found[*thing]) error {
		err := Do(ctx, c, op, NewRequest("DELETE", "/things/"+PathSegment(d.ID)), new(struct{}))
		return err
	}
}

// TestCompensation: a lookup that finds more than one effect for one
// reference keeps the first and compensates the others, recording them
// compensated; without a compensation, or when it fails, each duplicate is
// recorded uncertain and notified.
func TestCompensation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		compensate bool
		fail       bool
		state      runtime.State
	}{
		{"compensated", true, false, runtime.StateCompensated},
		{"no compensation", false, false, runtime.StateUncertain},
		{"compensation fails", true, true, runtime.StateUncertain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, step{loss: lostResponse})
			op := thingOp(withLookup)
			l := newMemLedger()
			var n notes
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l), runtime.WithNotifier(&n))
			// An earlier process's write of the same key committed: th_1.
			p.seed("x", pkOf(op, "thing:1"))
			call := thingCall(c, op, "x")
			if tc.compensate {
				call.Compensate = deleteThing(c)
				if tc.fail {
					call.Compensate = func(context.Context, runtime.Found[*thing]) error { return errors.New("refused") }
				}
			}
			r, err := Write(context.Background(), c, op, thingKey{"1"}, call)
			if err != nil || r.ID != "th_1" || r.Source != runtime.AdoptedLookup {
				t.Fatalf("receipt %+v, err %v; want the first effect adopted", r, err)
			}
			rows := l.all()
			if len(rows) != 1 || rows[0].claim || rows[0].State != tc.state || rows[0].ProviderID != "th_2" {
				t.Fatalf("ledger rows %+v; want th_2 recorded %s", rows, tc.state)
			}
			if tc.state == runtime.StateCompensated {
				if d := p.deletions(); len(d) != 1 || d[0] != "th_2" || len(n.list) != 0 {
					t.Errorf("deleted %v, %d notes; want th_2 deleted, no note", d, len(n.list))
				}
				return
			}
			if len(n.list) != 1 || !strings.Contains(n.list[0].Reason, "duplicate") || n.list[0].Recorded != "ledger row 1" {
				t.Errorf("notes %+v; want the duplicate told, recorded in ledger row 1", n.list)
			}
		})
	}
	// Resume, for code written by hand, and ResumeAll, with the table of
	// methods a generated client gives it, drive the row alike.
	for _, how := range []struct {
		name   string
		resume func(c *Client, op *Operation) (runtime.ResumeReport, error)
	}{
		{"Resume", func(c *Client, op *Operation) (runtime.ResumeReport, error) {
			call := thingCall(c, op, "x")
			call.Compensate = deleteThing(c)
			return Resume(context.Background(), c, op, call)
		}},
		{"ResumeAll", func(c *Client, op *Operation) (runtime.ResumeReport, error) {
			return ResumeAll(context.Background(), c, &thingClient{c}, []Resumable[*thingClient]{
				&ResumableWrite[*thingClient, *thing]{Op: op, ID: thingID, Lookup: (*thingClient).lookup, Compensate: (*thingClient).compensate},
			})
		}},
	} {
		t.Run("resume with "+how.name, func(t *testing.T) {
			p := newProvider(t)
			op := thingOp(withLookup)
			op.Dedupe = true
			l := newMemLedger()
			clk := newTestClock()
			c := newTestClient(t, p.URL, clk, runtime.WithLedger(l))
			row := claimFor(t, l, c, op, "1", "x", clk.Now().Add(-time.Second))
			p.seed("x", row.ProviderKey)
			p.seed("x", row.ProviderKey)
			rep, err := how.resume(c, op)
			if err != nil || rep.Taken != 1 || rep.Active != 1 || rep.Compensated != 1 || l.row(row.ID).ProviderID != "th_1" {
				t.Errorf("report %+v, err %v, row %+v; want th_1 adopted, th_2 compensated", rep, err, l.row(row.ID).Record)
			}
			if d := p.deletions(); len(d) != 1 || d[0] != "th_2" {
				t.Errorf("deleted %v; want th_2", d)
			}
		})
	}
}

// thingClient is a client of things as generated code has one: its lookup
// and its compensation are methods, which a Resumable names.
type thingClient struct{ c *Client }

func (tc *thingClient) lookup(ctx context.Context, ref string) ([]runtime.Found[*thing], error) {
	return lookupThings(tc.c, false)(ctx, ref)
}

func (tc *thingClient) compensate(ctx context.Context, d runtime.Found[*thing]) error {
	return deleteThing(tc.c)(ctx, d)
}
