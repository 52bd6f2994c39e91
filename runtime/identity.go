package runtime

// Identity names one logical write. It is the ledger's identity of a row and what the provider
// key is derived from. Scope and Operation come from the annotation file and are stable across
// operationId renames and spec versions; Tenant comes from WithTenant.
type Identity struct {
	Scope       string // the provider scope (annotation file, top-level "scope"), e.g. "support-desk"
	Tenant      string // the tenant or account of the provider, "" for a client that serves one
	Operation   string // the operation's key scope (key.scope; default the operationId)
	BusinessKey string // the formatted business key, "escalation:42"
}
