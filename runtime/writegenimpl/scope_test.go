package writegenimpl

import (
	"context"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestPromise23_Scopes: clients of two providers whose specs share an
// operationId, and clients of two tenants of one provider, share one
// ledger without adopting each other's rows; the provider key is derived
// inside the scope and tenant; Resume takes and sends only its own rows.
func TestPromise23_Scopes(t *testing.T) {
	t.Run("two providers", func(t *testing.T) {
		l := newMemLedger()
		op := thingOp(ledgerOnly) // the same operationId and key scope in both specs
		var got []*runtime.Receipt[thing]
		var provs []*provider
		for i, scope := range []string{"desk-a", "desk-b"} {
			p := newProvider(t)
			c, err := NewClient(scope, p.URL, []runtime.Option{runtime.WithClock(newTestClock()), runtime.WithLedger(l)})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, []string{"ticket", "chat"}[i]))
			if err != nil {
				t.Fatal(err)
			}
			got, provs = append(got, r), append(provs, p)
		}
		for i, r := range got {
			if r.Source != runtime.Created || r.Body.Title != []string{"ticket", "chat"}[i] || provs[i].effectCount() != 1 {
				t.Errorf("client %d: receipt %+v, %d effects; want its own write created", i, r, provs[i].effectCount())
			}
		}
		if got[0].ProviderKey == got[1].ProviderKey {
			t.Errorf("both scopes use the provider key %q", got[0].ProviderKey)
		}
		if n := len(l.all()); n != 2 {
			t.Errorf("%d ledger rows, want one per scope", n)
		}
	})
	t.Run("two tenants", func(t *testing.T) {
		l := newMemLedger()
		p := newProvider(t)
		op := thingOp(withKey)
		op.Dedupe = true
		var keys []string
		for _, tenant := range []string{"acme", "globex"} {
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l), runtime.WithTenant(tenant))
			r, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, tenant))
			if err != nil {
				t.Fatal(err)
			}
			if r.Source != runtime.Created || r.Body.Title != tenant {
				t.Errorf("tenant %s: receipt %+v, want its own write created", tenant, r)
			}
			keys = append(keys, r.ProviderKey)
		}
		if w := p.seenWrites(); len(w) != 2 || w[0].key == w[1].key || p.effectCount() != 2 {
			t.Errorf("%d writes, %d effects, keys %q; want one write per tenant under its own key", len(w), p.effectCount(), keys)
		}
	})
	t.Run("resume takes its own rows only", func(t *testing.T) {
		l := newMemLedger()
		clk := newTestClock()
		op := thingOp(withKey)
		op.Dedupe = true
		provs := map[string]*provider{}
		clients := map[string]*Client{}
		for _, name := range []string{"desk-a", "desk-b", "desk-a/globex"} {
			scope, tenant, _ := cut(name)
			p := newProvider(t)
			c, err := NewClient(scope, p.URL, []runtime.Option{runtime.WithClock(clk), runtime.WithLedger(l), runtime.WithTenant(tenant)})
			if err != nil {
				t.Fatal(err)
			}
			provs[name], clients[name] = p, c
		}
		// desk-a's caller died holding a claim.
		row := claimFor(t, l, clients["desk-a"], op, "1", "x", clk.Now().Add(-time.Second))
		for _, other := range []string{"desk-b", "desk-a/globex"} {
			rep, err := Resume(context.Background(), clients[other], op, thingCall(clients[other], op, "x"))
			if err != nil || rep.Taken != 0 || len(provs[other].seenWrites()) != 0 {
				t.Errorf("%s: resume took %d rows and sent %d writes (err %v); want none of desk-a's", other, rep.Taken,
					len(provs[other].seenWrites()), err)
			}
		}
		rep, err := Resume(context.Background(), clients["desk-a"], op, thingCall(clients["desk-a"], op, "x"))
		if err != nil || rep.Taken != 1 || rep.Active != 1 || l.row(row.ID).State != runtime.StateActive {
			t.Errorf("desk-a: report %+v, err %v, row %s; want its row driven to active", rep, err, l.row(row.ID).State)
		}
	})
	t.Run("a ledger that mixes scopes", func(t *testing.T) {
		// A ledger that answers with a row of another scope: the executor
		// sends nothing of it.
		l := &leakyLedger{memLedger: newMemLedger()}
		clk := newTestClock()
		op := thingOp(withKey)
		op.Dedupe = true
		pa, pb := newProvider(t), newProvider(t)
		a, _ := NewClient("desk-a", pa.URL, []runtime.Option{runtime.WithClock(clk), runtime.WithLedger(l)})
		b, _ := NewClient("desk-b", pb.URL, []runtime.Option{runtime.WithClock(clk), runtime.WithLedger(l)})
		claimFor(t, l, a, op, "1", "x", clk.Now().Add(-time.Second))
		if _, err := Resume(context.Background(), b, op, thingCall(b, op, "x")); err == nil || len(pb.seenWrites()) != 0 {
			t.Errorf("resume of desk-b sent %d writes of desk-a's row (err %v)", len(pb.seenWrites()), err)
		}
		// A reference of the user's own makes both scopes' requests the same
		// bytes: only the identity tells the rows apart.
		call := func(c *Client) Call[*thing] {
			call := thingCall(c, op, "x")
			call.Reference = "order-7"
			return call
		}
		if _, err := Write(context.Background(), a, op, thingKey{"2"}, call(a)); err != nil {
			t.Fatal(err)
		}
		r, err := Write(context.Background(), b, op, thingKey{"2"}, call(b))
		if err == nil || len(pb.seenWrites()) != 0 {
			t.Errorf("desk-b adopted or sent desk-a's row: receipt %+v, err %v", r, err)
		}
	})
}

// cut splits "scope/tenant".
func cut(name string) (scope, tenant string, ok bool) {
	for i := range name {
		if name[i] == '/' {
			return name[:i], name[i+1:], true
		}
	}
	return name, "", false
}

// leakyLedger is a broken ledger that ignores scope and tenant.
type leakyLedger struct{ *memLedger }

func (l *leakyLedger) TakeOver(ctx context.Context, _, _, operation string, now time.Time, h runtime.Holder, lease time.Duration, limit int) ([]runtime.Record, error) {
	var out []runtime.Record
	for _, r := range l.all() {
		scoped, err := l.memLedger.TakeOver(ctx, r.Scope, r.Tenant, operation, now, h, lease, limit)
		if err != nil {
			return nil, err
		}
		out = append(out, scoped...)
	}
	return out, nil
}

func (l *leakyLedger) Claim(ctx context.Context, rec runtime.Record, h runtime.Holder, lease time.Duration) (runtime.Record, bool, error) {
	for _, r := range l.all() {
		if r.Operation == rec.Operation && r.BusinessKey == rec.BusinessKey && r.Scope != rec.Scope {
			return r.Record, false, nil
		}
	}
	return l.memLedger.Claim(ctx, rec, h, lease)
}
