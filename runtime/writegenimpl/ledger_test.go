package writegenimpl

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// concurrently runs n writes of one business key and returns their results.
func concurrently(n int, c *Client, op *Operation) ([]*runtime.Receipt[thing], []error) {
	receipts, errs := make([]*runtime.Receipt[thing], n), make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			receipts[i], errs[i] = Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		}()
	}
	start.Done()
	done.Wait()
	return receipts, errs
}

// TestLedgerOneCallPerKey: concurrent writes of one business key claim it
// once; one caller calls the provider, the others get the same receipt, or
// the same uncertain outcome, from the ledger.
func TestLedgerOneCallPerKey(t *testing.T) {
	const n = 100
	t.Run("receipt", func(t *testing.T) {
		p := newProvider(t)
		op := thingOp(ledgerOnly)
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(newMemLedger()))
		receipts, errs := concurrently(n, c, op)
		created := 0
		for i, r := range receipts {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if r.ID != "th_1" || r.Body.Title != "x" || r.ProviderKey != pkOf(op, "thing:1") {
				t.Errorf("receipt %+v", r)
			}
			if r.Source == runtime.Created {
				created++
			} else if r.Source != runtime.AdoptedLedger {
				t.Errorf("source %d", r.Source)
			}
		}
		if w := len(p.seenWrites()); w != 1 || created != 1 {
			t.Errorf("%d provider calls, %d receipts created; want 1 and 1", w, created)
		}
	})
	t.Run("uncertain", func(t *testing.T) {
		p := newProvider(t, step{loss: lostResponse})
		op := thingOp(ledgerOnly)
		var notes notes
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(newMemLedger()), runtime.WithNotifier(&notes))
		_, errs := concurrently(n, c, op)
		for _, err := range errs {
			if r := uncertainReason(t, err); r != "ambiguous without key or lookup" {
				t.Errorf("reason %q", r)
			}
		}
		if w := len(p.seenWrites()); w != 1 || len(notes.list) != 1 {
			t.Errorf("%d provider calls, %d notes; want 1 and 1", w, len(notes.list))
		}
	})
	t.Run("rejected and not sent", func(t *testing.T) {
		for _, tc := range []struct {
			url  func(p *provider) string
			want error
		}{
			{func(p *provider) string { return p.URL }, runtime.ErrRejected},
			{func(*provider) string { return "http://" + refusedAddr(t) }, runtime.ErrNotApplied},
		} {
			p := newProvider(t, step{status: 400})
			op := thingOp(ledgerOnly)
			c := newTestClient(t, tc.url(p), newTestClock(), runtime.WithLedger(newMemLedger()))
			_, errs := concurrently(10, c, op)
			for _, err := range errs {
				if !errors.Is(err, tc.want) {
					t.Errorf("err = %v, want %v", err, tc.want)
				}
			}
			if w := len(p.seenWrites()); w > 1 {
				t.Errorf("%d provider calls, want at most 1", w)
			}
		}
	})
	t.Run("not sent, then sent", func(t *testing.T) {
		// A call that reached nobody does not spend its business key.
		p := newProvider(t)
		op := thingOp(ledgerOnly)
		l := newMemLedger()
		down := newTestClient(t, "http://"+refusedAddr(t), newTestClock(), runtime.WithLedger(l))
		if _, err := Write(context.Background(), down, op, thingKey{"1"}, thingCall(down, op, "x")); !errors.Is(err, runtime.ErrNotApplied) {
			t.Fatalf("err = %v, want ErrNotApplied", err)
		}
		up := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
		r, err := Write(context.Background(), up, op, thingKey{"1"}, thingCall(up, op, "x"))
		if err != nil || r.Source != runtime.Created || p.effectCount() != 1 {
			t.Fatalf("receipt %+v, err %v, %d effects; want the key claimed again and one effect", r, err, p.effectCount())
		}
	})
	t.Run("no ledger", func(t *testing.T) {
		p := newProvider(t)
		c := newTestClient(t, p.URL, newTestClock())
		op := thingOp(ledgerOnly)
		if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err == nil || p.conns.Load() != 0 {
			t.Errorf("err %v, %d connections: a dedupe operation ran without a ledger", err, p.conns.Load())
		}
	})
	t.Run("await ends with the context", func(t *testing.T) {
		l := newMemLedger()
		op := thingOp(ledgerOnly)
		c := newTestClient(t, "http://"+refusedAddr(t), newTestClock(), runtime.WithLedger(l))
		claimFor(t, l, c, op, "1", "x", time.Now().Add(time.Hour))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Write(ctx, c, op, thingKey{"1"}, thingCall(c, op, "x"))
		if !errors.Is(err, runtime.ErrInProgress) || errors.Is(err, runtime.ErrUncertain) || errors.Is(err, runtime.ErrNotApplied) {
			t.Errorf("err = %v, want ErrInProgress only", err)
		}
	})
}

// claimFor claims business key "thing:"+key of op in l, as a caller of c
// writing a thing titled title would, with a lease until until, and
// returns the row. It stands for a process that claimed the key (and maybe
// sent the write) and then died or stalled.
func claimFor(t *testing.T, l runtime.Ledger, c *Client, op *Operation, key, title string, until time.Time) runtime.Record {
	t.Helper()
	id := runtime.Identity{Scope: c.scope, Tenant: c.s.Tenant, Operation: op.keyScope(), BusinessKey: "thing:" + key}
	pk := runtime.ProviderKey(id, op.KeyMaxLength, c.s.KeySecret)
	r, err := thingCall(c, op, title).Build(pk, pk)
	if err != nil {
		t.Fatal(err)
	}
	enc := EncodeRequest(r)
	sum := sha256.Sum256(enc)
	row, won, err := l.Claim(context.Background(), runtime.Record{Identity: id, OperationID: op.ID, ProviderKey: pk,
		Owner: op.Owner, Request: enc, Digest: sum[:], CreatedAt: until.Add(-time.Minute)}, runtime.Holder{Owner: "another-process"}, until.Sub(c.s.Clock.Now()))
	if err != nil || !won {
		t.Fatal(won, err)
	}
	return row
}

// TestResume: rows whose claim's lease expired are driven on with the
// stored request: re-sent with the same key inside its window, looked up,
// or settled uncertain. A row whose lease is still valid is left alone.
func TestResume(t *testing.T) {
	cases := []struct {
		name    string
		s       strategy
		age     time.Duration
		pre     bool // the crashed process's write reached the provider
		state   runtime.State
		writes  int
		reason  string
		adopted bool
	}{
		{"key, not sent before", withKey, 2 * time.Minute, false, runtime.StateActive, 1, "", false},
		{"key, sent before", withKey, 2 * time.Minute, true, runtime.StateActive, 2, "", false},
		{"key window expired", withKey, 48 * time.Hour, true, runtime.StateUncertain, 1, "key window expired", false},
		{"strong lookup finds it", withLookup, 2 * time.Minute, true, runtime.StateActive, 1, "", true},
		{"strong lookup finds nothing", withLookup, 2 * time.Minute, false, runtime.StateActive, 1, "", false},
		{"neither", ledgerOnly, 2 * time.Minute, true, runtime.StateUncertain, 1, "ambiguous without key or lookup", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t)
			op := thingOp(tc.s)
			op.Dedupe = true
			l := newMemLedger()
			clk := newTestClock()
			var notes notes
			c := newTestClient(t, p.URL, clk, runtime.WithLedger(l), runtime.WithNotifier(&notes))
			// The lease of the crashed process ended a minute after its claim.
			row := claimFor(t, l, c, op, "1", "x", clk.Now().Add(-tc.age+time.Minute))
			if tc.pre {
				req, _ := DecodeRequest(row.Request)
				if op.KeyHeader != "" {
					req.SetHeader(op.KeyHeader, row.ProviderKey)
				}
				if err := Do(context.Background(), c, &Operation{ID: "replay", Retry: 0}, req, new(thing)); err != nil {
					t.Fatal(err)
				}
			}
			fresh := claimFor(t, l, c, op, "2", "x", clk.Now().Add(time.Minute)) // a live caller's claim
			rep, err := Resume(context.Background(), c, op, thingCall(c, op, "x"))
			if err != nil {
				t.Fatal(err)
			}
			got := l.row(row.ID)
			if got.State != tc.state || rep.Taken != 1 || l.row(fresh.ID).State != runtime.StateClaimed {
				t.Fatalf("row %+v, report %+v, fresh row %s; want %s, 1 taken, fresh row left claimed", got, rep, l.row(fresh.ID).State, tc.state)
			}
			if got.Fence != row.Fence+1 {
				t.Errorf("row fence %d after a takeover, want %d", got.Fence, row.Fence+1)
			}
			w := p.seenWrites()
			if len(w) != tc.writes || p.effectCount() != 1 && tc.state == runtime.StateActive {
				t.Errorf("%d writes, %d effects; want %d writes and one effect", len(w), p.effectCount(), tc.writes)
			}
			for _, s := range w {
				if !bytes.Equal(s.body, w[0].body) {
					t.Errorf("resume sent %s, first send was %s", s.body, w[0].body)
				}
			}
			switch tc.state {
			case runtime.StateActive:
				if got.ProviderID != "th_1" || rep.Active != 1 {
					t.Errorf("row %+v, report %+v; want th_1 active", got, rep)
				}
				r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
				if err != nil || r.Source != runtime.AdoptedLedger || r.ID != "th_1" || r.Body.Title != "x" {
					t.Errorf("after resume: receipt %+v, err %v; want th_1 from the ledger", r, err)
				}
			case runtime.StateUncertain:
				if rep.Uncertain != 1 || len(notes.list) != 1 || notes.list[0].Reason != tc.reason {
					t.Errorf("report %+v, notes %v; want one uncertain: %s", rep, notes.list, tc.reason)
				}
				_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
				if r := uncertainReason(t, err); r != tc.reason {
					t.Errorf("after resume: reason %q, want %q", r, tc.reason)
				}
			}
		})
	}
}

// TestResumeWithoutLedger: a client without a ledger has nothing to
// resume.
func TestResumeWithoutLedger(t *testing.T) {
	p := newProvider(t)
	c := newTestClient(t, p.URL, newTestClock())
	op := thingOp(withKey)
	rep, err := Resume(context.Background(), c, op, thingCall(c, op, "x"))
	if err != nil || rep != (runtime.ResumeReport{}) || p.conns.Load() != 0 {
		t.Errorf("report %+v, err %v, %d connections; want nothing done", rep, err, p.conns.Load())
	}
}
