package wgtemporal

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/writegen/writegen/runtime/ledger"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
)

// Acks completes the activities of acknowledged writes when the provider's
// webhook says the write took effect. It keeps, in the ledger's database
// (table writegen_temporal_acks), the task token of each activity waiting
// for a provider key, and the events that arrived before their activity
// waited.
type Acks struct {
	q ledger.Querier
}

// Settled is the result of the activity of an acknowledged write: the
// provider key its request carried and the webhook event that settled it.
type Settled struct {
	ProviderKey string
	Event       json.RawMessage
}

// Completer completes an activity by its task token: a client.Client.
type Completer interface {
	CompleteActivity(ctx context.Context, taskToken []byte, result any, err error) error
}

const (
	createAcks = `CREATE TABLE IF NOT EXISTS writegen_temporal_acks (
	provider_key TEXT PRIMARY KEY,
	task_token TEXT NOT NULL,
	event TEXT NOT NULL,
	done INTEGER NOT NULL,
	completed INTEGER NOT NULL
)`
	// ackWait records a waiting activity's token, unless the event is in.
	ackWait = `INSERT INTO writegen_temporal_acks (provider_key, task_token, event, done, completed) VALUES ($1, $2, '', 0, 0)
ON CONFLICT (provider_key) DO UPDATE SET task_token = excluded.task_token WHERE writegen_temporal_acks.done = 0`
	// ackDone records the event and returns the token of who waits, if
	// any, and whether that activity was completed already.
	ackDone = `INSERT INTO writegen_temporal_acks (provider_key, task_token, event, done, completed) VALUES ($1, '', $2, 1, 0)
ON CONFLICT (provider_key) DO UPDATE SET event = excluded.event, done = 1
RETURNING task_token, completed`
	ackCompleted = `UPDATE writegen_temporal_acks SET completed = 1 WHERE provider_key = $1 AND task_token = $2`
	ackGet       = `SELECT event, done FROM writegen_temporal_acks WHERE provider_key = $1`
)

// NewAcks returns the Acks kept in l's database, creating its table.
func NewAcks(ctx context.Context, l *ledger.Ledger) (*Acks, error) {
	if _, err := l.Querier().Exec(ctx, createAcks); err != nil {
		return nil, fmt.Errorf("wgtemporal: acks: %w", err)
	}
	return &Acks{q: l.Querier()}, nil
}

// Pending is what the activity of ctx returns after its write was
// acknowledged with providerKey (Ack.ProviderKey): activity.ErrResultPending
// once its task token is recorded, so that Complete finishes it, or the
// Settled result at once when the provider's event arrived first.
func (a *Acks) Pending(ctx context.Context, providerKey string) (Settled, error) {
	token := base64.StdEncoding.EncodeToString(activity.GetInfo(ctx).TaskToken)
	if _, err := a.q.Exec(ctx, ackWait, providerKey, token); err != nil {
		return Settled{}, fmt.Errorf("wgtemporal: acks: record the task token of %q: %w", providerKey, err)
	}
	event, done, err := a.get(ctx, providerKey)
	if err != nil {
		return Settled{}, err
	}
	if done {
		return Settled{ProviderKey: providerKey, Event: event}, nil
	}
	return Settled{}, activity.ErrResultPending
}

// Complete records that the provider's event settled the write with
// providerKey and completes the activity waiting for it, if one waits (it
// may be recorded later: Pending then returns the event at once). An
// event delivered again completes the activity once: Complete remembers
// that it did, and an activity that Temporal reports gone (completed, or
// timed out and retried, whose new attempt waits with a new token) is not
// completed again. An error (the Temporal service unreachable) is
// returned for the inbox to retry the event.
func (a *Acks) Complete(ctx context.Context, c Completer, providerKey string, event []byte) error {
	rows, err := a.q.Query(ctx, ackDone, providerKey, string(event))
	if err != nil {
		return fmt.Errorf("wgtemporal: acks: record the event of %q: %w", providerKey, err)
	}
	var token string
	var completed int64
	for rows.Next() {
		if err := rows.Scan(&token, &completed); err != nil {
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
	if token == "" || completed == 1 {
		return nil
	}
	tt, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		return fmt.Errorf("wgtemporal: acks: task token of %q: %w", providerKey, err)
	}
	err = c.CompleteActivity(ctx, tt, Settled{ProviderKey: providerKey, Event: event}, nil)
	var gone *serviceerror.NotFound
	if err != nil && !errors.As(err, &gone) {
		return fmt.Errorf("wgtemporal: acks: complete the activity of %q: %w", providerKey, err)
	}
	if _, err := a.q.Exec(ctx, ackCompleted, providerKey, token); err != nil {
		return fmt.Errorf("wgtemporal: acks: record the completion of %q: %w", providerKey, err)
	}
	return nil
}

func (a *Acks) get(ctx context.Context, providerKey string) (event []byte, done bool, err error) {
	rows, err := a.q.Query(ctx, ackGet, providerKey)
	if err != nil {
		return nil, false, fmt.Errorf("wgtemporal: acks: read %q: %w", providerKey, err)
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
