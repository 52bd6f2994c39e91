package annot

import "go.yaml.in/yaml/v4"

// tenancyAnswer is the top-level tenancy of the annotation file, with its node.
type tenancyAnswer struct {
	PerAccount bool
	Node       *yaml.Node
}

// tenancy reads tenancy: single (the default) or per_account. A provider whose accounts are
// told apart only by the credential a request carries is per_account: two accounts' writes with
// one business key would otherwise share a ledger row and a provider key, and one account would
// adopt the other's receipt.
func (p *annotParser) tenancy(n *yaml.Node) tenancyAnswer {
	t := tenancyAnswer{Node: n}
	s, ok := p.str(n)
	if !ok || hasTODO(s) {
		return t
	}
	switch s {
	case "per_account":
		t.PerAccount = true
	case "single":
	default:
		p.errorf(n, "tenancy %q%s: want single (one account per client) or per_account (the provider serves several accounts, told apart by their credentials; NewClient then requires runtime.WithTenant)",
			s, Suggest(s, []string{"single", "per_account"}))
	}
	return t
}
