package wgdbos_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	wgdbos "github.com/writegen/writegen/engines/dbos"
	"github.com/writegen/writegen/engines/internal/enginetest"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

const webhookSecret = "whsec_dGVzdCBzZWNyZXQgb2YgdGhlIHBheW91dHM="

// countingClient counts the messages sent through it.
type countingClient struct {
	dbos.Client
	sent atomic.Int32
}

func (c *countingClient) Send(_ dbos.Client, destinationID string, message any, topic string, opts ...dbos.SendOption) error {
	c.sent.Add(1)
	return c.Client.Send(c.Client, destinationID, message, topic, opts...)
}

// waiting returns once a workflow waits for the event of providerKey (of
// any provider key when "").
func waiting(q ledger.Querier, providerKey string) error {
	for {
		rows, err := q.Query(context.Background(), `SELECT workflow_id FROM writegen_dbos_acks WHERE provider_key = $1 OR $1 = ''`, providerKey)
		if err != nil {
			return err
		}
		var wf string
		for rows.Next() {
			if err := rows.Scan(&wf); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if wf != "" {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The orders in which a workflow waiting for an acknowledged write and its
// event meet: the event first (the workflow finds it recorded and receives
// no message), and the workflow first, with the event delivered twice
// (one message).
func TestAcksOrders(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l, err := sqlite.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	acks, err := wgdbos.NewAcks(ctx, l.Ledger)
	if err != nil {
		t.Fatal(err)
	}
	dctx, err := dbos.NewContext(ctx, dbos.Config{AppName: "wgdbos-acks", DatabaseURL: "sqlite:" + filepath.Join(dir, "dbos.db"),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	wait := func(ctx dbos.Context, key string) (wgdbos.Settled, error) { return acks.Await(ctx, key, time.Minute) }
	dbos.RegisterWorkflow(dctx, wait, dbos.WithWorkflowName("wait"))
	if err := dbos.Launch(dctx); err != nil {
		t.Fatal(err)
	}
	defer dbos.Shutdown(dctx, 5*time.Second)
	c := &countingClient{Client: dctx}

	if err := acks.Complete(ctx, c, "k1", []byte(`{"n":1}`)); err != nil || c.sent.Load() != 0 {
		t.Fatalf("Complete before Await: %v, %d messages", err, c.sent.Load())
	}
	h, err := dbos.RunWorkflow(dctx, wait, "k1", dbos.WithWorkflowID("wait-k1"))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := h.GetResult(); err != nil || string(s.Event) != `{"n":1}` || s.ProviderKey != "k1" {
		t.Fatalf("Await after the event: %+v, %v", s, err)
	}

	h, err = dbos.RunWorkflow(dctx, wait, "k2", dbos.WithWorkflowID("wait-k2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := waiting(l.Querier(), "k2"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := acks.Complete(ctx, c, "k2", []byte(`{"n":2}`)); err != nil {
			t.Fatal(err)
		}
	}
	if s, err := h.GetResult(); err != nil || string(s.Event) != `{"n":2}` || s.ProviderKey != "k2" {
		t.Fatalf("Await before the event: %+v, %v", s, err)
	}
	if n := c.sent.Load(); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}

// An acknowledged payout, end to end: the workflow's step requests it, the
// workflow waits, its process is killed (SIGKILL) while it waits, the
// provider's payout.paid webhook reaches the inbox, whose handler sends the
// event to the workflow, and the process started next recovers the workflow,
// which receives it. One payout.
func TestAckCompletedByWebhook(t *testing.T) {
	for _, pg := range []bool{false, true} {
		name := map[bool]string{false: "sqlite", true: "postgres"}[pg]
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			f := newFleet(t, pg, true, 1, 6)
			f.cfg.Payouts = true
			l, closeLedger, err := openLedger(ctx, f.cfg.Ledger)
			if err != nil {
				t.Fatal(err)
			}
			defer closeLedger()
			acks, err := wgdbos.NewAcks(ctx, l)
			if err != nil {
				t.Fatal(err)
			}
			var dc dbos.Client // the inbox's, once a child made the system database
			v, err := ledger.NewStandardWebhooks(webhookSecret, 5*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			inbox, err := l.Inbox(ledger.InboxConfig{
				Source: "payments", Verifier: v, Order: ledger.AnyOrder,
				WorkerOptions: ledger.WorkerOptions{Poll: 10 * time.Millisecond},
				Handle: func(ctx context.Context, e ledger.Event) error {
					var ev enginetest.PayoutEvent
					if err := json.Unmarshal(e.Body, &ev); err != nil {
						return err
					}
					return acks.Complete(ctx, dc, ev.Key, e.Body)
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(inbox) // records events; they are handled once Run starts
			defer srv.Close()
			if err := f.provider.Webhooks(srv.URL, webhookSecret); err != nil {
				t.Fatal(err)
			}
			ran := make(chan struct{})
			defer func() { cancel(); <-ran }() // before the ledger closes
			go func() {
				defer close(ran)
				if err := waiting(l.Querier(), ""); err != nil {
					t.Error(err)
					return
				}
				f.kill()
				var err error
				dc, err = dbos.NewClient(ctx, dbos.ClientConfig{DatabaseURL: f.cfg.SystemDB, AppName: "wgdbos-test",
					Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					t.Error(err)
					return
				}
				defer dc.Shutdown(dc, 5*time.Second)
				inbox.Run(ctx) //nolint:errcheck // ends with ctx
			}()
			r := f.run()["0"]
			var ev enginetest.PayoutEvent
			if err := json.Unmarshal([]byte(r.Event), &ev); err != nil || r.Err != "" || ev.Type != "payout.paid" || ev.Key != r.ID || r.ID == "" {
				t.Fatalf("%+v (%v), want the payout.paid event of its provider key", r, err)
			}
			if f.killed() != 1 {
				t.Errorf("%d kills, want 1 (while the workflow waited)", f.killed())
			}
			if n := f.provider.Effects("/payouts", "0"); n != 1 {
				t.Errorf("%d payouts, want 1", n)
			}
		})
	}
}
