package enginetest

import "fmt"

// Figures are the outcomes of a seeded run of workflows, each making one
// payment for an order of its own.
type Figures struct {
	Workflows  int
	Kills      int // workers or processes killed after the provider committed
	Lost       int // answers the provider lost, those of the kills included
	Effects    int // payments the provider committed
	Duplicates int // payments beyond the first of an order
	Missing    int // workflows that ended as paid without a payment
	Uncertain  int // workflows that ended uncertain: listed in the ledger for a person
	Failed     int // workflows that ended in another error, payment made or not
}

// Count adds one workflow: effects is what the provider committed for its
// order; paid, uncertain and failed say how the workflow ended.
func (f *Figures) Count(effects int, paid, uncertain bool) {
	f.Workflows++
	f.Effects += effects
	if effects > 1 {
		f.Duplicates += effects - 1
	}
	switch {
	case paid && effects == 0:
		f.Missing++
	case uncertain:
		f.Uncertain++
	case !paid:
		f.Failed++
	}
}

func (f Figures) String() string {
	return fmt.Sprintf("workflows %d, kills %d, lost answers %d: effects %d, duplicates %d, missing %d, uncertain %d, failed %d",
		f.Workflows, f.Kills, f.Lost, f.Effects, f.Duplicates, f.Missing, f.Uncertain, f.Failed)
}
