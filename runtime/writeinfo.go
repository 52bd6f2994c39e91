package runtime

// WriteInfo describes one write of a generated client: the answers of its
// annotation that decide what running it again does, as the client carries
// them out. A generated package lists its writes with its function Writes,
// which an engine integration checks the retry policies it runs them with
// against (wgtemporal.NewWrites).
type WriteInfo struct {
	Scope       string // the provider scope, as in Identity
	OperationID string // the operationId, as in CallInfo
	KeyScope    string // the key scope, as in Identity; "" for a write without a business key
	Effect      Effect // what repeating it does
	// Retry is the set of failures after which a call sends the write again,
	// within the call's attempts (client options can only narrow it).
	Retry Retry
	// ProviderKey reports that the provider honours an idempotency key (a
	// header, a body field or a query parameter) derived from the business
	// key: every attempt sends the same one.
	ProviderKey bool
	// Lookup is the consistency of the lookup that finds whether an
	// ambiguous attempt took effect; NoLookup when the write declares none.
	Lookup Consistency
	// Dedupe reports that the ledger claims the write's business key before
	// the call (dedupe: ledger): a later call with the key, within the
	// write's retention, gets the first one's outcome instead of sending it.
	Dedupe bool
}
