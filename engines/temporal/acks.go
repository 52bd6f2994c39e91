package wgtemporal

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/writegen/writegen/runtime/ledger"
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
	done INTEGER NOT NULL
)`
	// ackWait records a waiting activity's token, unless the event is in.
	ackWait = `INSERT INTO writegen_temporal_acks (provider_key, task_token, event, done) VALUES ($1, $2, '', 0)
ON CONFLICT (provider_key) DO UPDATE SET task_token = excluded.task_token WHERE writegen_temporal_acks.done = 0`
	// ackDone records the event and returns the token of who waits, if any.
	ackDone = `INSERT INTO writegen_temporal_acks (provider_key, task_token, event, done) VALUES ($1, '', $2, 1)
ON CONFLICT (provider_key) DO UPDATE SET event = excluded.event, done = 1
RETURNING task_token`
	ackGet = `SELECT task_token, event, done FROM writegen_temporal_acks WHERE provider_key = $1`
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
	_, event, done, err := a.get(ctx, providerKey)
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
// may be recorded later: Pending then returns the event at once). A
// delivery that arrives twice completes the activity once: the second
// completion finds the activity done, which Complete ignores.
func (a *Acks) Complete(ctx context.Context, c Completer, providerKey string, event []byte) error {
	rows, err := a.q.Query(ctx, ackDone, providerKey, string(event))
	if err != nil {
		return fmt.Errorf("wgtemporal: acks: record the event of %q: %w", providerKey, err)
	}
	var token string
	for rows.Next() {
		if err := rows.Scan(&token); err != nil {
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
	if token == "" {
		return nil
	}
	tt, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		return fmt.Errorf("wgtemporal: acks: task token of %q: %w", providerKey, err)
	}
	if err := c.CompleteActivity(ctx, tt, Settled{ProviderKey: providerKey, Event: event}, nil); err != nil {
		return fmt.Errorf("wgtemporal: acks: complete the activity of %q: %w", providerKey, err)
	}
	return nil
}

func (a *Acks) get(ctx context.Context, providerKey string) (token string, event []byte, done bool, err error) {
	rows, err := a.q.Query(ctx, ackGet, providerKey)
	if err != nil {
		return "", nil, false, fmt.Errorf("wgtemporal: acks: read %q: %w", providerKey, err)
	}
	defer rows.Close()
	var ev string
	var d int64
	for rows.Next() {
		if err := rows.Scan(&token, &ev, &d); err != nil {
			return "", nil, false, err
		}
	}
	return token, []byte(ev), d == 1, rows.Err()
}
