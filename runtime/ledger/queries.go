package ledger

import (
	"regexp"
	"strconv"
	"strings"
)

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

// Claims. A row's identity is (scope, tenant, operation, business_key)
// among the rows with claim set; rows written by Record are not claims.
// Every statement that hands a row to a caller increments its fence, and
// every statement of the caller that holds it presents the fence.
const (
	recordColumns = `id, scope, tenant, operation, business_key, operation_id, provider_key, reference,
	owner, state, provider_id, status, body, request, digest, attempts, last_error, fence,
	lease_owner, lease_until, claim, redrive, redrive_until, created_at, updated_at,
	lease_instance, lease_incarnation, lease_left, redrives, redrive_at, claim_token`

	// Leases are set and compared by the ledger's clock, {now $n}: the
	// database's, unless a test gave the ledger one (WithClock), whose time
	// is then $n (0 otherwise). A caller gives the lease's length.

	claimInsert = `INSERT INTO writegen_claims
	(scope, tenant, operation, business_key, operation_id, provider_key, reference, owner, state,
	request, digest, fence, lease_owner, lease_until, lease_instance, lease_incarnation, claim,
	created_at, updated_at, claim_token)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'claimed', $9, $10, 1, $11, {now $14} + $12, $15, $16, TRUE, $13, $13, $17)
ON CONFLICT (scope, tenant, operation, business_key) WHERE claim DO NOTHING
RETURNING id, fence, created_at, lease_until`

	// claimRetake claims again a row of the identity whose call did not
	// apply: it takes the new request and starts over.
	claimRetake = `UPDATE writegen_claims
SET state = 'claimed', operation_id = $5, provider_key = $6, reference = $7, owner = $8,
	request = $9, digest = $10, provider_id = '', status = 0, body = $11, attempts = 0,
	last_error = '', fence = fence + 1, lease_owner = $12, lease_until = {now $15} + $13,
	lease_instance = $16, lease_incarnation = $17, redrive = FALSE, redrive_until = 0, updated_at = $14,
	lease_left = 0, redrives = 0, redrive_at = 0, claim_token = $18
WHERE scope = $1 AND tenant = $2 AND operation = $3 AND business_key = $4 AND claim
	AND state = 'not_applied'
RETURNING id, fence, created_at, lease_until`

	claimByIdentity = `SELECT ` + recordColumns + ` FROM writegen_claims
WHERE scope = $1 AND tenant = $2 AND operation = $3 AND business_key = $4 AND claim`

	claimByID = `SELECT ` + recordColumns + ` FROM writegen_claims WHERE id = $1`

	claimRenew = `UPDATE writegen_claims SET lease_until = {now $5} + $3, updated_at = $4
WHERE id = $1 AND fence = $2 AND state = 'claimed'`

	// claimSettle ends the row's lease at the settle, by the ledger's clock:
	// a row settled uncertain and taken over later tells its taker how long
	// ago that was (LeaseLeft). A re-drivable row is due again $13 after it.
	claimSettle = `UPDATE writegen_claims
SET state = $3, provider_id = $4, status = $5, body = $6, attempts = $7, last_error = $8,
	redrive = $9, redrive_until = $10, updated_at = $11, lease_until = {now $12},
	redrive_at = {now $12} + $13, claim_token = ''
WHERE id = $1 AND fence = $2 AND state = 'claimed'`

	// takeOverSet is what a takeover sets: the new holder, the next fence,
	// and from the row as it was (the right-hand sides of an UPDATE's SET
	// read the row before the update), how long its lease had left by the
	// ledger's clock, and one more redrive when it was uncertain. $N is
	// the ledger's clock, $L the lease, $O the owner, $I and $C the
	// holder's instance and incarnation, $U the caller's time.
	takeOverSet = `state = 'claimed', fence = fence + 1, lease_owner = $O, lease_until = {now $N} + $L,
	lease_instance = $I, lease_incarnation = $C, redrive = FALSE, updated_at = $U,
	lease_left = lease_until - {now $N},
	redrives = redrives + CASE WHEN state = 'uncertain' THEN 1 ELSE 0 END, claim_token = ''`

	// claimsTakeOver hands rows that need driving on to one caller: claims
	// whose lease has ended by the ledger's clock, or whose holder was an
	// earlier incarnation ($10) of the taker's instance ($9), and
	// uncertain claims marked re-drivable whose window has not passed at
	// the caller's $4 and which are due by the ledger's clock. A row is
	// picked and claimed anew in one statement, and the pick skips rows
	// another caller is taking.
	claimsTakeOver = `UPDATE writegen_claims
SET {takeover $11 $6 $5 $9 $10 $7}
WHERE id IN (
	SELECT id FROM writegen_claims
	WHERE claim AND scope = $1 AND tenant = $2 AND ($3 = '' OR operation = $3)
		AND ((state = 'claimed' AND (lease_until < {now $11}
				OR ($9 <> '' AND lease_instance = $9 AND lease_incarnation < $10)))
			OR (state = 'uncertain' AND redrive AND (redrive_until = 0 OR redrive_until > $4)
				AND redrive_at <= {now $11}))
	ORDER BY id
	LIMIT $8 /*skip locked*/)
RETURNING ` + recordColumns

	// claimTakeOverRow is claimsTakeOver for row $1 alone: a caller with
	// its business key drives it on, whether or not a re-drivable row is
	// due (the caller waits itself). Its condition is evaluated again on
	// the row as locked, so of two takers one gets it.
	claimTakeOverRow = `UPDATE writegen_claims
SET {takeover $8 $4 $3 $6 $7 $5}
WHERE id = $1 AND claim
	AND ((state = 'claimed' AND (lease_until < {now $8}
			OR ($6 <> '' AND lease_instance = $6 AND lease_incarnation < $7)))
		OR (state = 'uncertain' AND redrive AND (redrive_until = 0 OR redrive_until > $2)))
RETURNING ` + recordColumns

	// instanceIncarnate numbers a new run of instance $1.
	instanceIncarnate = `INSERT INTO writegen_instances (name, incarnation, started_at)
VALUES ($1, 1, {now $2})
ON CONFLICT (name) DO UPDATE SET incarnation = writegen_instances.incarnation + 1, started_at = {now $2}
RETURNING incarnation`

	// claimRecord inserts a settled row that is not a claim.
	claimRecord = `INSERT INTO writegen_claims
	(scope, tenant, operation, business_key, operation_id, provider_key, reference, owner, state,
	provider_id, status, body, request, digest, attempts, last_error, claim, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, FALSE, $17, $17)
RETURNING id`

	// A person's answer settles the row anew: its lease ends then, by the
	// ledger's clock, as Settle ends it (retention counts from it).
	claimResolve = `UPDATE writegen_claims
SET state = $2, provider_id = COALESCE(NULLIF($3, ''), provider_id), last_error = $4,
	redrive = FALSE, updated_at = $5, lease_until = {now $6}
WHERE id = $1 AND state = 'uncertain'`

	// claimRedrive marks an uncertain claim re-drivable, with no window,
	// due at once, its redrives counted anew: the runtime that takes it
	// over still keeps to the key's window.
	claimRedrive = `UPDATE writegen_claims
SET redrive = TRUE, redrive_until = 0, redrive_at = 0, redrives = 0, last_error = $2, updated_at = $3
WHERE id = $1 AND state = 'uncertain' AND claim`

	claimCompensate = `UPDATE writegen_claims
SET state = 'compensated', last_error = $2, redrive = FALSE, updated_at = $3, lease_until = {now $4}
WHERE id = $1 AND state IN ('uncertain', 'active')`

	// claimsPrune removes at most $5 claims of scope $1, tenant $2 and
	// operation $3 in state $7, one of those settled for good (active,
	// rejected, not_applied, compensated), settled more than $4
	// microseconds ago by the ledger's clock: the moment their lease ended
	// (the settle; for a row settled before version 5, its last lease's
	// end, which is later) and, for rows written before leases, by the time
	// they were last changed. Uncertain and claimed rows are never removed;
	// rows written by Record, which are not claims, neither. One state at a
	// time, oldest first, and the cutoff read once in a subquery, the
	// database seeks to the rows in the state index and reads no other:
	// compared as it is, PostgreSQL's clock_timestamp() changes from row to
	// row, and four states at once are not in the index's order.
	claimsPrune = `DELETE FROM writegen_claims
WHERE id IN (
	SELECT id FROM writegen_claims
	WHERE state = $7 AND scope = $1 AND tenant = $2 AND operation = $3
		AND lease_until < (SELECT {now $6} - $4) AND updated_at < (SELECT {now $6} - $4) AND claim
	ORDER BY lease_until
	LIMIT $5)`

	// claimsUnscopedOperations lists the operations of the rows written
	// before scopes.
	claimsUnscopedOperations = `SELECT operation, COUNT(*) FROM writegen_claims
WHERE scope = '' AND tenant = ''
GROUP BY operation ORDER BY operation`

	// claimsAdoptConflicts lists unscoped claims of operation $3 whose
	// identity, moved to scope $1, tenant $2 and operation $4, is claimed
	// already.
	claimsAdoptConflicts = `SELECT o.id, n.id FROM writegen_claims o
JOIN writegen_claims n ON n.scope = $1 AND n.tenant = $2 AND n.operation = $4
	AND n.business_key = o.business_key AND n.claim
WHERE o.scope = '' AND o.tenant = '' AND o.operation = $3 AND o.claim
ORDER BY o.id`

	claimsAdopt = `UPDATE writegen_claims SET scope = $1, tenant = $2, operation = $4, updated_at = $5
WHERE scope = '' AND tenant = '' AND operation = $3`
)

// Outbox.
const (
	outboxColumns = `id, scope, tenant, operation, dedupe_key, payload, state, attempts, last_error,
	provider_id, status, body, created_at, updated_at`

	// An outbox item's due time (next_at) and its worker's lease are set
	// and compared by the ledger's clock, {now $n}, as a claim's lease is:
	// a worker whose machine runs ahead never takes an item another
	// worker holds.

	outboxInsert = `INSERT INTO writegen_outbox
	(scope, tenant, operation, dedupe_key, payload, next_at, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, {now $7}, $6, $6)
ON CONFLICT (scope, tenant, operation, dedupe_key) DO NOTHING`

	// outboxLease leases a due item to worker $1 for $2 microseconds.
	outboxLease = `UPDATE writegen_outbox
SET lease_owner = $1, lease_until = {now $4} + $2, attempts = attempts + 1, updated_at = $3
WHERE id = (
	SELECT id FROM writegen_outbox
	WHERE state = 'pending' AND next_at <= {now $4} AND lease_until <= {now $4}
	ORDER BY next_at, id
	LIMIT 1 /*skip locked*/)
RETURNING ` + outboxColumns

	// outboxFinish stores the receipt (or the refusal) in the statement
	// that ends the item, so a sent item always has its receipt. Only the
	// worker $8 that holds the item's lease ends it: one whose lease passed
	// while it sent, and another worker took the item, ends nothing (the
	// other's outcome is the item's).
	outboxFinish = `UPDATE writegen_outbox
SET state = $2, provider_id = $3, status = $4, body = $5, last_error = $6,
	lease_owner = '', lease_until = 0, updated_at = $7
WHERE id = $1 AND state = 'pending' AND lease_owner = $8`

	// outboxRetry makes the item due again $4 microseconds from now.
	outboxRetry = `UPDATE writegen_outbox
SET last_error = $3, next_at = {now $6} + $4, lease_owner = '', lease_until = 0, updated_at = $5
WHERE id = $1 AND state = 'pending' AND lease_owner = $2`

	outboxByState = `SELECT ` + outboxColumns + ` FROM writegen_outbox WHERE state = $1 ORDER BY id`

	outboxByID = `SELECT ` + outboxColumns + ` FROM writegen_outbox WHERE id = $1`

	// outboxRedrive makes an uncertain item pending again, due at once.
	outboxRedrive = `UPDATE writegen_outbox
SET state = 'pending', last_error = $2, next_at = {now $4}, lease_owner = '', lease_until = 0, updated_at = $3
WHERE id = $1 AND state = 'uncertain'`
)

// Inbox.
const (
	eventColumns = `id, source, event_id, order_key, seq, body, state, attempts, last_error,
	received_at`

	// An event's arrival, due time and its worker's lease are set and
	// compared by the ledger's clock, as an outbox item's are.

	inboxInsert = `INSERT INTO writegen_inbox
	(source, event_id, order_key, seq, body, next_at, received_at, updated_at)
VALUES ($1, $2, $3, $4, $5, {now $7}, {now $7}, $6)
ON CONFLICT (source, event_id) DO NOTHING`

	// inboxLease leases a due event to worker $2 for $3 microseconds; of
	// the pending events that share an ordering key, only the one with the
	// lowest sequence is due.
	inboxLease = `UPDATE writegen_inbox
SET lease_owner = $2, lease_until = {now $5} + $3, attempts = attempts + 1, updated_at = $4
WHERE id = (
	SELECT e.id FROM writegen_inbox e
	WHERE e.source = $1 AND e.state = 'pending' AND e.next_at <= {now $5} AND e.lease_until <= {now $5}
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

	// inboxFinish ends an event, if worker $5 still holds its lease (as
	// outboxFinish).
	inboxFinish = `UPDATE writegen_inbox
SET state = $2, last_error = $3, lease_owner = '', lease_until = 0, updated_at = $4
WHERE id = $1 AND state = 'pending' AND lease_owner = $5`

	inboxRetry = `UPDATE writegen_inbox
SET last_error = $3, next_at = {now $6} + $4, lease_owner = '', lease_until = 0, updated_at = $5
WHERE id = $1 AND state = 'pending' AND lease_owner = $2`

	// inboxPrune forgets handled events received longer than $2
	// microseconds ago, except the newest handled event of each ordering
	// key, which later events of that key are compared with.
	inboxPrune = `DELETE FROM writegen_inbox
WHERE source = $1 AND received_at < {now $3} - $2 AND state IN ('done', 'skipped')
	AND NOT (order_key <> '' AND state = 'done' AND seq = (
		SELECT MAX(m.seq) FROM writegen_inbox m
		WHERE m.source = writegen_inbox.source AND m.order_key = writegen_inbox.order_key
			AND m.state = 'done'))`

	inboxByState = `SELECT ` + eventColumns + ` FROM writegen_inbox
WHERE source = $1 AND state = $2 ORDER BY id`

	inboxSources = `SELECT DISTINCT source FROM writegen_inbox ORDER BY source`
)

// claimsList returns the statement that lists the claims f selects,
// oldest first, with its arguments: a condition for each field f sets,
// and none for the others, so that the database reads the rows of the
// state asked for through its index (writegen_claims_state), not every
// row the ledger keeps.
func claimsList(f Filter) (string, []any) {
	var where []string
	var args []any
	cond := func(column string, v any) {
		args = append(args, v)
		where = append(where, column+" = $"+strconv.Itoa(len(args)))
	}
	if f.State != "" {
		cond("state", string(f.State))
	}
	if !f.AnyScope {
		cond("scope", f.Scope)
	}
	if !f.AnyTenant {
		cond("tenant", f.Tenant)
	}
	if f.Operation != "" {
		cond("operation", f.Operation)
	}
	q := `SELECT ` + recordColumns + ` FROM writegen_claims`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	return q + ` ORDER BY id`, args
}

// databaseNow reads the ledger's clock.
const databaseNow = `SELECT {now $1}`

// queries holds the statements whose text depends on the dialect.
type queries struct {
	outboxLease, inboxLease, claimsTakeOver                                                string
	claimInsert, claimRetake, claimRenew, claimSettle, claimTakeOverRow, instanceIncarnate string
	outboxInsert, outboxRetry, outboxRedrive, inboxInsert, inboxRetry, inboxPrune          string
	databaseNow, claimResolve, claimCompensate, claimsPrune                                string
}

var (
	// nowParam is {now $n} in a statement: the ledger's clock.
	nowParam = regexp.MustCompile(`\{now (\$[0-9]+)\}`)
	// takeOverParams is {takeover $N $L $O $I $C $U}: takeOverSet with
	// its parameters.
	takeOverParams = regexp.MustCompile(`\{takeover (\$[0-9]+) (\$[0-9]+) (\$[0-9]+) (\$[0-9]+) (\$[0-9]+) (\$[0-9]+)\}`)
)

func newQueries(d Dialect) queries {
	clock := func(q string) string {
		q = takeOverParams.ReplaceAllStringFunc(q, func(m string) string {
			p := takeOverParams.FindStringSubmatch(m)
			return strings.NewReplacer("$N", p[1], "$L", p[2], "$O", p[3], "$I", p[4], "$C", p[5], "$U", p[6]).Replace(takeOverSet)
		})
		return nowParam.ReplaceAllString(q, "COALESCE(NULLIF(CAST($1 AS BIGINT), 0), "+d.Now+")")
	}
	pick := func(q string) string { return strings.Replace(q, " /*skip locked*/", d.SkipLocked, 1) }
	return queries{
		outboxLease: clock(pick(outboxLease)), inboxLease: clock(pick(inboxLease)), claimsTakeOver: clock(pick(claimsTakeOver)),
		claimInsert: clock(claimInsert), claimRetake: clock(claimRetake), claimRenew: clock(claimRenew),
		claimSettle: clock(claimSettle), claimTakeOverRow: clock(claimTakeOverRow), instanceIncarnate: clock(instanceIncarnate),
		outboxInsert: clock(outboxInsert), outboxRetry: clock(outboxRetry), outboxRedrive: clock(outboxRedrive),
		inboxInsert: clock(inboxInsert), inboxRetry: clock(inboxRetry), inboxPrune: clock(inboxPrune),
		databaseNow: clock(databaseNow), claimResolve: clock(claimResolve), claimCompensate: clock(claimCompensate),
		claimsPrune: clock(claimsPrune),
	}
}
