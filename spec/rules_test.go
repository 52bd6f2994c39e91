package spec

import (
	"errors"
	"sync"
	"testing"

	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/safety"
)

// refusedBy records the rules of the safety check that refused an answer in the refusal tests.
var refusedBy sync.Map

// noteRules records the rules of the defects in err.
func noteRules(err error) {
	var l ir.ErrorList
	if errors.As(err, &l) {
		for _, e := range l {
			if e.Rule != "" {
				refusedBy.Store(e.Rule, true)
			}
		}
	}
}

// TestEveryRuleHasARefusal: every rule of the safety check that can refuse is shown refusing,
// its exact message at its position, by a case of TestRefusals or TestSafetyRefusals, which it
// runs.
func TestEveryRuleHasARefusal(t *testing.T) {
	t.Run("refusals", TestRefusals)
	t.Run("safety", TestSafetyRefusals)
	for _, r := range safety.Rules() {
		_, ok := refusedBy.Load(r.Name)
		switch {
		case r.Refuses && !ok:
			t.Errorf("rule %s refuses, and no refusal case shows it: add one to TestRefusals", r.Name)
		case !r.Refuses && ok:
			t.Errorf("rule %s is listed as never refusing, and a case shows it refusing: mark it refuses", r.Name)
		}
	}
}
