package writegenimpl

import (
	"fmt"

	"github.com/writegen/writegen/runtime"
)

// NewTenantClient is NewClient for a provider that serves several accounts
// told apart only by their credentials (tenancy: per_account in the
// annotation file): it refuses to build a client whose options name no
// tenant (runtime.WithTenant). Without one, the writes of two accounts with
// one business key would share a ledger row and a provider key, and one
// account would be handed the other's receipt. Generated code calls it as
//
//	writegenimpl.NewTenantClient(scope, baseURL, opts)
func NewTenantClient(scope, baseURL string, opts []runtime.Option) (*Client, error) {
	c, err := NewClient(scope, baseURL, opts)
	if err != nil {
		return nil, err
	}
	if c.s.Tenant == "" {
		return nil, fmt.Errorf("writegen: provider scope %q serves several accounts (tenancy: per_account): name the account this client writes to with runtime.WithTenant(...), so that two accounts never share a ledger row or a provider key", scope)
	}
	return c, nil
}
