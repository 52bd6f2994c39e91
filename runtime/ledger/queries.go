package ledger

import "strings"

// The statements the ledger runs, each once, named after what it does.
// Both dialects accept them as written; the worker's pick ends with the
// dialect's SkipLocked (see queries.pick).

const (
	createVersionTable = `CREATE TABLE IF NOT EXISTS writegen_schema_version (
	version    INTEGER PRIMARY KEY,
	applied_at BIGINT  NOT NULL
)`
	selectVersion = `SELECT COALESCE(MAX(version), 0) FROM writegen_schema_version`
	insertVersion = `INSERT INTO writegen_schema_version (version, applied_at) VALUES ($1, $2)`
)

// Claims.
const (
	recordColumns = `id, operation, business_key, provider_key, owner, state, provider_id, status,
	body, request, attempts, last_error, created_at, updated_at`

	claimInsert = `INSERT INTO writegen_claims
	(operation, business_key, provider_key, owner, state, request, created_at, updated_at)
VALUES ($1, $2, $3, $4, 'claimed', $5, $6, $6)
ON CONFLICT (operation, business_key) DO NOTHING
RETURNING id`

	// claimRetake claims again a row whose call reached nobody.
	claimRetake = `UPDATE writegen_claims
SET state = 'claimed', provider_key = $3, owner = $4, request = $5, status = 0, body = $6,
	attempts = 0, last_error = '', updated_at = $7
WHERE operation = $1 AND business_key = $2 AND state = 'not_sent'
RETURNING id`

	claimByKey = `SELECT ` + recordColumns + ` FROM writegen_claims
WHERE operation = $1 AND business_key = $2`

	claimByID = `SELECT ` + recordColumns + ` FROM writegen_claims WHERE id = $1`

	claimsByState = `SELECT ` + recordColumns + ` FROM writegen_claims WHERE state = $1 ORDER BY id`

	claimSettle = `UPDATE writegen_claims
SET state = $2, provider_id = $3, status = $4, body = $5, attempts = $6, last_error = $7, updated_at = $8
WHERE id = $1 AND state = 'claimed'`

	// claimsTakePending hands rows left claimed to one caller: it touches
	// them, so a concurrent caller with the same threshold passes them by.
	claimsTakePending = `UPDATE writegen_claims SET updated_at = $3
WHERE state = 'claimed' AND ($1 = '' OR operation = $1) AND updated_at < $2
RETURNING ` + recordColumns

	claimResolve = `UPDATE writegen_claims
SET state = $2, provider_id = COALESCE(NULLIF($3, ''), provider_id), last_error = $4, updated_at = $5
WHERE id = $1 AND state = 'uncertain'`
)

// Outbox.
const (
	outboxColumns = `id, operation, dedupe_key, payload, state, attempts, last_error,
	provider_id, status, body, created_at, updated_at`

	outboxInsert = `INSERT INTO writegen_outbox
	(operation, dedupe_key, payload, next_at, created_at, updated_at)
VALUES ($1, $2, $3, $4, $4, $4)
ON CONFLICT (operation, dedupe_key) DO NOTHING`

	outboxLease = `UPDATE writegen_outbox
SET lease_owner = $1, lease_until = $2, attempts = attempts + 1, updated_at = $3
WHERE id = (
	SELECT id FROM writegen_outbox
	WHERE state = 'pending' AND next_at <= $3 AND lease_until <= $3
	ORDER BY next_at, id
	LIMIT 1 /*skip locked*/)
RETURNING ` + outboxColumns

	// outboxFinish stores the receipt (or the refusal) in the statement
	// that ends the item, so a sent item always has its receipt.
	outboxFinish = `UPDATE writegen_outbox
SET state = $2, provider_id = $3, status = $4, body = $5, last_error = $6,
	lease_owner = '', lease_until = 0, updated_at = $7
WHERE id = $1 AND state = 'pending'`

	outboxRetry = `UPDATE writegen_outbox
SET last_error = $3, next_at = $4, lease_owner = '', lease_until = 0, updated_at = $5
WHERE id = $1 AND state = 'pending' AND lease_owner = $2`

	outboxByState = `SELECT ` + outboxColumns + ` FROM writegen_outbox WHERE state = $1 ORDER BY id`
)

// Inbox.
const (
	eventColumns = `id, source, event_id, order_key, seq, body, state, attempts, last_error,
	received_at`

	inboxInsert = `INSERT INTO writegen_inbox
	(source, event_id, order_key, seq, body, next_at, received_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $6, $6)
ON CONFLICT (source, event_id) DO NOTHING`

	// inboxLease picks a due event; of the pending events that share an
	// ordering key, only the one with the lowest sequence is due.
	inboxLease = `UPDATE writegen_inbox
SET lease_owner = $2, lease_until = $3, attempts = attempts + 1, updated_at = $4
WHERE id = (
	SELECT e.id FROM writegen_inbox e
	WHERE e.source = $1 AND e.state = 'pending' AND e.next_at <= $4 AND e.lease_until <= $4
		AND NOT EXISTS (
			SELECT 1 FROM writegen_inbox o
			WHERE e.order_key <> '' AND o.source = e.source AND o.order_key = e.order_key
				AND o.state = 'pending' AND (o.seq < e.seq OR (o.seq = e.seq AND o.id < e.id)))
	ORDER BY e.next_at, e.id
	LIMIT 1 /*skip locked*/)
RETURNING ` + eventColumns

	// inboxHandledSince counts the handled events of an ordering key with a
	// sequence at or after the given one.
	inboxHandledSince = `SELECT COUNT(*) FROM writegen_inbox
WHERE source = $1 AND order_key = $2 AND state = 'done' AND seq >= $3`

	inboxFinish = `UPDATE writegen_inbox
SET state = $2, last_error = $3, lease_owner = '', lease_until = 0, updated_at = $4
WHERE id = $1 AND state = 'pending'`

	inboxRetry = `UPDATE writegen_inbox
SET last_error = $3, next_at = $4, lease_owner = '', lease_until = 0, updated_at = $5
WHERE id = $1 AND state = 'pending' AND lease_owner = $2`

	// inboxPrune forgets handled events received before a time, except the
	// newest handled event of each ordering key, which later events of
	// that key are compared with.
	inboxPrune = `DELETE FROM writegen_inbox
WHERE source = $1 AND received_at < $2 AND state IN ('done', 'skipped')
	AND NOT (order_key <> '' AND state = 'done' AND seq = (
		SELECT MAX(m.seq) FROM writegen_inbox m
		WHERE m.source = writegen_inbox.source AND m.order_key = writegen_inbox.order_key
			AND m.state = 'done'))`

	inboxByState = `SELECT ` + eventColumns + ` FROM writegen_inbox
WHERE source = $1 AND state = $2 ORDER BY id`
)

// queries holds the statements whose text depends on the dialect.
type queries struct {
	outboxLease, inboxLease string
}

func newQueries(d Dialect) queries {
	pick := func(q string) string { return strings.Replace(q, " /*skip locked*/", d.SkipLocked, 1) }
	return queries{outboxLease: pick(outboxLease), inboxLease: pick(inboxLease)}
}
