package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// The shape of the workload and of the fault schedule.
const (
	concurrentShare = 0.05  // business operations asked twice at the same moment
	twiceShare      = 0.10  // business operations asked again later
	repeatGap       = 200   // how many operations later, at most, the second ask comes
	faultRate       = 0.10  // share of the create requests that meet a fault (-faults)
	crashEvery      = 500   // one crash of the caller per this many business operations (-crash-every)
	currency        = "eur" // every transfer's currency
	ticketOrders    = 4     // orders whose comments go to one ticket (comments profile)
	otherAmount     = 1_000 // what a second ask of an order adds to its amount (otherPayload)
)

// order is one business operation: pay out an order (or, in the comments profile, say so in a
// comment on the order's ticket). Its id is the business identity.
type order struct {
	id     string
	amount int64
	ticket string // the help-desk ticket its comment goes to (comments profile)
}

// task is what the caller is asked to do at one moment: one logical write of an order, or two
// at the same moment. Each logical write has a slot, its index in the whole workload.
type task struct {
	order int   // index in plan.orders
	slots []int // one slot, or two asked concurrently
}

// plan is the workload, derived from the seed alone so that the caller (a child process that
// may be restarted) and the parent that counts agree on it.
type plan struct {
	orders  []order
	tasks   []task
	slots   []int          // the order of each slot
	amounts []int64        // the amount each slot asks for
	replica []int          // the calling process each slot is given to, from 0
	index   map[string]int // order id -> index
}

// write returns the order a slot asks for, with the slot's amount.
func (p *plan) write(slot int) order {
	o := p.orders[p.slots[slot]]
	o.amount = p.amounts[slot]
	return o
}

// newPlan builds the workload of a profile: with pr.askAgain some orders are asked again later
// and some twice at once; with pr.otherPayload every ask of an order after its first carries
// another amount (the caller's bug); with pr.replicas, each ask goes to one of the replicas, and
// the two asks of an order to different ones; pr.idPrefix starts every order id.
func newPlan(seed uint64, n int, pr *profile) *plan {
	rng := rand.New(rand.NewPCG(seed, 0x706c616e))
	type placed struct {
		at    float64
		order int
		calls int
	}
	var ps []placed
	p := &plan{index: make(map[string]int, n)}
	for i := range n {
		o := order{id: fmt.Sprintf("%sord-%06d", pr.idPrefix, i+1), amount: 500 + rng.Int64N(100_000),
			ticket: fmt.Sprintf("ticket-%05d", i/ticketOrders+1)}
		p.orders = append(p.orders, o)
		p.index[o.id] = i
		calls := 1
		concurrent, twice := rng.Float64() < concurrentShare, rng.Float64() < twiceShare
		if concurrent && pr.askAgain {
			calls = 2
		}
		ps = append(ps, placed{float64(i), i, calls})
		if twice && pr.askAgain {
			ps = append(ps, placed{float64(i) + 1 + rng.Float64()*repeatGap, i, 1})
		}
	}
	slices.SortStableFunc(ps, func(a, b placed) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	// The replicas are drawn from a generator of their own, so that the plan of a profile with one
	// process is the same as before replicas existed.
	rrng := rand.New(rand.NewPCG(seed, 0x7265706c))
	asked := make(map[int]int)   // asks of each order so far
	firstOn := make(map[int]int) // the replica of each order's first ask
	for _, x := range ps {
		t := task{order: x.order}
		for range x.calls {
			amount := p.orders[x.order].amount
			if pr.otherPayload && asked[x.order] > 0 {
				amount += otherAmount
			}
			r := 0
			switch {
			case pr.replicas < 2:
			case asked[x.order] > 0:
				r = (firstOn[x.order] + 1) % pr.replicas // picked again: by another replica
			default:
				r = rrng.IntN(pr.replicas)
				firstOn[x.order] = r
			}
			asked[x.order]++
			t.slots = append(t.slots, len(p.slots))
			p.slots = append(p.slots, x.order)
			p.amounts = append(p.amounts, amount)
			p.replica = append(p.replica, r)
		}
		p.tasks = append(p.tasks, t)
	}
	return p
}

// fault is what the provider does to one create request.
type fault uint8

// The faults. Each random fault is as likely as any other; crashes are placed apart.
const (
	noFault fault = iota
	// requestLost: the provider's front end drops the connection before its handler runs;
	// nothing commits.
	requestLost
	// responseLost: the transfer commits, then the connection breaks while the answer is on its
	// way (a few bytes of the status line, then the end of the connection).
	responseLost
	// resetAfterCommit: the transfer commits, then the connection is reset (TCP RST).
	resetAfterCommit
	// slowCommit: the commit takes slowCommitTime, and the gateway drops the connection after
	// slowGatewayTime; a request with the same key meanwhile is answered 409.
	slowCommit
	// unavailable: 503 with Retry-After, nothing commits.
	unavailable
	// rateLimited: 429 with Retry-After, nothing commits.
	rateLimited
	// crash: the transfer commits, then the calling process is killed before it reads the
	// answer; it is restarted and does its unfinished work again.
	crash
	numFaults
)

// numRandom is the number of faults drawn at random (every fault but crash).
const numRandom = int(crash - 1)

var faultNames = [numFaults]string{"none", "request lost", "response lost", "reset after commit", "slow commit", "503", "429", "crash"}

func (f fault) String() string { return faultNames[f] }

// schedule decides the fault of each create request from the seed, the order it is for and how
// many requests for that order came before it, and nothing else: every client meets the same
// faults on its n-th request for an order, whatever order its requests arrive in.
type schedule struct {
	seed uint64
	// waitAfterLoss: the request after one whose answer was lost past the commit meets a 503
	// (with the profile's Retry-After), so that a retry comes after a short key window.
	waitAfterLoss bool
	rate          float64      // share of the create requests that meet a random fault
	crashes       map[int]bool // orders whose first request crashes the caller
}

// newSchedule places one crash in each stretch of every orders (at least one crash), and
// gives a share rate of the create requests a random fault.
func newSchedule(seed uint64, n int, rate float64, every int) *schedule {
	rng := rand.New(rand.NewPCG(seed, 0x6372617368))
	s := &schedule{seed: seed, rate: rate, crashes: make(map[int]bool)}
	every = max(every, 1)
	for i := range max(1, n/every) {
		// Past the first few orders of the stretch, so that the caller is busy when it dies.
		lo := i * every
		s.crashes[min(n-1, lo+min(10, every/2)+rng.IntN(max(1, every-10)))] = true
	}
	return s
}

// fault returns the fault of the n-th create request (1 for the first) for order o.
func (s *schedule) fault(o, n int) fault {
	if n == 1 && s.crashes[o] {
		return crash
	}
	if s.waitAfterLoss && n > 1 {
		switch s.fault(o, n-1) {
		case responseLost, resetAfterCommit, slowCommit, crash:
			return unavailable
		}
	}
	rng := rand.New(rand.NewPCG(s.seed, uint64(o)<<16|uint64(n)))
	if rng.Float64() >= s.rate {
		return noFault
	}
	return fault(1 + rng.IntN(numRandom))
}
