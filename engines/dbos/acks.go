package wgdbos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/writegen/writegen/runtime/ledger"
)

// Acks lets the workflows of acknowledged writes (runtime.Ack) wait for the
// provider's webhook that settles them. It keeps, in the ledger's database
// (table writegen_dbos_acks), the workflow waiting for each provider key
// and the events that arrived before their workflow waited; the event
// itself reaches the workflow as a DBOS message (dbos.Send, dbos.Recv),
// which DBOS keeps until the workflow receives it, across restarts.
type Acks struct {
	q ledger.Querier
}

// Settled is what Await returns: the provider key of an acknowledged
// write's request and the webhook event that settled it.
type Settled struct {
	ProviderKey string
	Event       json.RawMessage
}

const (
	createDBOSAcks = `CREATE TABLE IF NOT EXISTS writegen_dbos_acks (
	provider_key TEXT PRIMARY KEY,
	workflow_id TEXT NOT NULL,
	event TEXT NOT NULL,
	done INTEGER NOT NULL,
	sent INTEGER NOT NULL
)`
	// ackWait records the waiting workflow, unless the event is in.
	ackWait = `INSERT INTO writegen_dbos_acks (provider_key, workflow_id, event, done, sent) VALUES ($1, $2, '', 0, 0)
ON CONFLICT (provider_key) DO UPDATE SET workflow_id = excluded.workflow_id WHERE writegen_dbos_acks.done = 0`
	// ackDone records the event and returns the workflow that waits, if
	// any, and whether the event was sent to it already.
	ackDone = `INSERT INTO writegen_dbos_acks (provider_key, workflow_id, event, done, sent) VALUES ($1, '', $2, 1, 0)
ON CONFLICT (provider_key) DO UPDATE SET event = excluded.event, done = 1
RETURNING workflow_id, sent`
	ackSent = `UPDATE writegen_dbos_acks SET sent = 1 WHERE provider_key = $1 AND workflow_id = $2`
	ackGet  = `SELECT event, done FROM writegen_dbos_acks WHERE provider_key = $1`
)

// NewAcks returns the Acks kept in l's database, creating its table.
func NewAcks(ctx context.Context, l *ledger.Ledger) (*Acks, error) {
	if _, err := l.Querier().Exec(ctx, createDBOSAcks); err != nil {
		return nil, fmt.Errorf("wgdbos: acks: %w", err)
	}
	return &Acks{q: l.Querier()}, nil
}

// topic is the topic of the DBOS message that carries the event of
// providerKey.
func topic(providerKey string) string { return "writegen.ack:" + providerKey }

// waited is what the step of Await records.
type waited struct {
	Event string
	Done  bool
}

// Await waits, in the workflow of ctx, for the provider's event that
// settles the acknowledged write with providerKey (Ack.ProviderKey), at
// most timeout. A step records that the workflow waits, or finds the event
// in already; then the workflow receives it as a DBOS message. A workflow
// that DBOS recovers waits on where it was. When timeout passes first, the
// error is DBOS's timeout error; Await called again (a new step) waits on.
func (a *Acks) Await(ctx dbos.Context, providerKey string, timeout time.Duration) (Settled, error) {
	wf, err := dbos.GetWorkflowID(ctx)
	if err != nil {
		return Settled{}, fmt.Errorf("wgdbos: acks: %w", err)
	}
	w, err := dbos.RunAsStep(ctx, func(ctx context.Context) (waited, error) {
		if _, err := a.q.Exec(ctx, ackWait, providerKey, wf); err != nil {
			return waited{}, fmt.Errorf("wgdbos: acks: record the workflow waiting for %q: %w", providerKey, err)
		}
		ev, done, err := a.get(ctx, providerKey)
		return waited{Event: string(ev), Done: done}, err
	}, dbos.WithStepName("writegen.AckWait"))
	if err != nil {
		return Settled{}, err
	}
	if w.Done {
		return Settled{ProviderKey: providerKey, Event: json.RawMessage(w.Event)}, nil
	}
	s, err := dbos.Recv[Settled](ctx, topic(providerKey), timeout)
	if err != nil {
		return Settled{}, err
	}
	if s.ProviderKey != providerKey {
		return s, errors.New("wgdbos: acks: received no event for " + providerKey)
	}
	return s, nil
}

// Complete records that the provider's event settled the write with
// providerKey and sends it to the workflow waiting for it, if one waits
// (one that waits later finds it recorded). d is the DBOS context or
// client of the webhook's handler. An event delivered again is sent once:
// Complete remembers that it sent it, and DBOS keeps one message per
// provider key (dbos.WithIdempotencyKey). An error is returned for the
// inbox to retry the event.
func (a *Acks) Complete(ctx context.Context, d dbos.Client, providerKey string, event []byte) error {
	rows, err := a.q.Query(ctx, ackDone, providerKey, string(event))
	if err != nil {
		return fmt.Errorf("wgdbos: acks: record the event of %q: %w", providerKey, err)
	}
	var wf string
	var sent int64
	for rows.Next() {
		if err := rows.Scan(&wf, &sent); err != nil {
			rows.Close()
			return err
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if wf == "" || sent == 1 {
		return nil
	}
	s := Settled{ProviderKey: providerKey, Event: event}
	if err := dbos.Send(d, wf, s, topic(providerKey), dbos.WithIdempotencyKey(topic(providerKey))); err != nil {
		return fmt.Errorf("wgdbos: acks: send the event of %q to workflow %q: %w", providerKey, wf, err)
	}
	if _, err := a.q.Exec(ctx, ackSent, providerKey, wf); err != nil {
		return fmt.Errorf("wgdbos: acks: record the sending of %q: %w", providerKey, err)
	}
	return nil
}

func (a *Acks) get(ctx context.Context, providerKey string) (event []byte, done bool, err error) {
	rows, err := a.q.Query(ctx, ackGet, providerKey)
	if err != nil {
		return nil, false, fmt.Errorf("wgdbos: acks: read %q: %w", providerKey, err)
	}
	defer rows.Close()
	var ev string
	var d int64
	for rows.Next() {
		if err := rows.Scan(&ev, &d); err != nil {
			return nil, false, err
		}
	}
	return []byte(ev), d == 1, rows.Err()
}
