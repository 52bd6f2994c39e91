package scenario

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/writegen/writegen/generated_example/simulator"
)

// Schedule is one run: the conversations that ask for a person and the faults they meet. Every
// choice is drawn from Seed and from what it concerns (an operation, an idempotency key, a
// conversation, an event id), so a schedule injects the same faults into the same requests
// whatever order they arrive in.
type Schedule struct {
	Seed        uint64
	Escalations int     // conversations that ask for a person
	Repeat      float64 // chance that a conversation asks twice (a second, distinct event)
	MaxReplies  int     // agents answering each thread at nearly the same moment: 0 to MaxReplies
	WriteFaults float64 // chance that a write request meets one of Faults
	Faults      []simulator.Fault
	// Stubborn is the chance that every attempt of a write fails the same way, so that its
	// attempts run out: the thread is then looked up, and what cannot be found ends uncertain
	// (or not applied, when the desk answered and the lookup proves nothing happened).
	Stubborn float64
	// StubbornFor is how many requests of a stubborn write fail, an outage of that write which
	// outlasts a call's attempts and then heals; 0 means every request fails.
	StubbornFor int
	// SearchDown has the desk's thread search answer 503 while the schedule runs, so that a
	// thread whose attempts all failed cannot be looked up: it ends uncertain.
	SearchDown bool
	// Pause is the chance that the connector is paused past the idempotency key's window
	// (24 hours) while a createThread is in flight: the client must look up, not re-send.
	Pause float64
	// Deliveries is the chance that a webhook event is delivered twice, late, or with its 2xx
	// lost.
	Deliveries float64
	// Rate is how many escalation requests are sent per second; 0 sends them all at once.
	Rate float64
	// SlowCommit, when not zero, is how long at least the commit of a SlowCommit fault runs
	// while its request waits unanswered (each runs from SlowCommit to twice as long); zero
	// keeps the simulators' default, a dropped connection and a commit within 50ms.
	SlowCommit time.Duration

	// What happens to the relay processes of an Env with Replicas (ignored without): at a
	// moment drawn from [0, Within) after the run starts, one of them is killed and started
	// again after a time drawn from [0, Down) (chance Crash), or else stopped for a time drawn
	// from [Stopped, 2·Stopped) and then continued (chance Stall), as a process stalls when its
	// machine or its collector stops it.
	Crash, Stall  float64
	Within        time.Duration
	Down, Stopped time.Duration
}

// AllFaults are the faults a schedule draws from: every Fault of the simulator.
var AllFaults = []simulator.Fault{
	simulator.LoseRequest, simulator.LoseResponse, simulator.SlowCommit,
	simulator.Unavailable, simulator.RotateToken, simulator.RotateAfterCommit,
}

// RandomSchedule draws a small schedule from seed, as the soak test runs them: up to
// escalations conversations and fault rates anywhere from none to harsh.
func RandomSchedule(seed uint64, escalations int) Schedule {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	faults := make([]simulator.Fault, 0, len(AllFaults))
	for _, f := range AllFaults {
		if r.IntN(4) > 0 {
			faults = append(faults, f)
		}
	}
	return Schedule{
		Seed:        seed,
		Escalations: 1 + r.IntN(escalations),
		Repeat:      r.Float64() * 0.5,
		MaxReplies:  r.IntN(4),
		WriteFaults: r.Float64() * 0.6,
		Faults:      faults,
		Stubborn:    r.Float64() * 0.1,
		StubbornFor: StubbornRequests,
		Pause:       r.Float64() * 0.05,
		Deliveries:  r.Float64() * 0.6,
	}
}

// RandomReplicaSchedule draws a schedule as RandomSchedule does, for relays in two processes
// whose claims are held under lease: slow commits run one to two leases, a stalled replica stays
// stopped for one to two leases, there is no pause (processes do not share a clock that jumps),
// and a replica is killed or stalled in about half the runs.
func RandomReplicaSchedule(seed uint64, escalations int, lease time.Duration) Schedule {
	s := RandomSchedule(seed, escalations)
	r := rand.New(rand.NewPCG(seed, 0x4e911ca))
	s.Pause = 0
	s.SlowCommit = lease
	s.Crash = r.Float64() * 0.6
	s.Stall = r.Float64() * 0.6
	s.Within = 50 * time.Millisecond
	s.Down, s.Stopped = lease, lease
	return s
}

// String sums the schedule up on one line, for failure messages.
func (s Schedule) String() string {
	str := fmt.Sprintf("seed %d: %d escalations, repeat %.2f, replies ≤%d, write faults %.2f %v, stubborn %.2f, pause %.2f, deliveries %.2f",
		s.Seed, s.Escalations, s.Repeat, s.MaxReplies, s.WriteFaults, s.Faults, s.Stubborn, s.Pause, s.Deliveries)
	if s.SlowCommit > 0 {
		str += fmt.Sprintf(", slow commits ≥%v", s.SlowCommit)
	}
	if rf := s.replicaFault(2); rf.kind != "" {
		str += fmt.Sprintf(", %s replica %d after %v for %v", rf.kind, rf.replica, rf.at, rf.length)
	}
	return str
}

// replicaFault is what happens to the relay processes during a run.
type replicaFault struct {
	kind    string // "crash", "stall" or "" for nothing
	replica int
	at      time.Duration // after the run starts
	length  time.Duration // how long the replica is down, or stopped
}

// replicaFault decides what happens to one of n relay processes during the run.
func (s Schedule) replicaFault(n int) replicaFault {
	if n < 2 || s.Within <= 0 {
		return replicaFault{}
	}
	var rf replicaFault
	switch u := s.chance("replica fault"); {
	case u < s.Crash:
		rf.kind = "crash"
		rf.length = time.Duration(s.chance("down") * float64(s.Down))
	case u < s.Crash+(1-s.Crash)*s.Stall:
		rf.kind = "stall"
		rf.length = time.Duration((1 + s.chance("stalled")) * float64(s.Stopped))
	default:
		return rf
	}
	rf.replica = s.pick(n, "which replica")
	rf.at = time.Duration(s.chance("when") * float64(s.Within))
	return rf
}

// slowCommit decides how long the commit of a slow commit runs (a simulator.SlowCommitFunc).
func (s Schedule) slowCommit(op, key string, n int) time.Duration {
	if s.SlowCommit <= 0 {
		return 0
	}
	return time.Duration((1 + s.chance("slow", op, key, n)) * float64(s.SlowCommit))
}

// chance returns a number in [0, 1) fixed by the seed and the parts.
func (s Schedule) chance(parts ...any) float64 {
	return float64(s.hash(parts...)>>11) / (1 << 53)
}

// pick returns a number in [0, n) fixed by the seed and the parts.
func (s Schedule) pick(n int, parts ...any) int {
	return int(s.hash(parts...) % uint64(n))
}

func (s Schedule) hash(parts ...any) uint64 {
	h := fnv.New64a()
	binary.Write(h, binary.LittleEndian, s.Seed)
	for _, p := range parts {
		fmt.Fprint(h, "\x00", p)
	}
	// FNV spreads a change in the last byte poorly over the high bits: finish with the
	// splitmix64 mixer.
	x := h.Sum64()
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// StubbornRequests is how many requests of a stubborn write fail in a random schedule and in
// the demo: more than the 4 attempts of one call, so that the call runs out of them and the
// write is settled later (by Resume, the inbox or the outbox trying again), or left uncertain.
const StubbornRequests = 6

// fault decides the fault of one write request (a simulator.FaultFunc).
func (s Schedule) fault(op, key string, n int) simulator.Fault {
	if len(s.Faults) == 0 {
		return simulator.NoFault
	}
	if (s.StubbornFor == 0 || n <= s.StubbornFor) && s.chance("stubborn", op, key) < s.Stubborn {
		return s.Faults[s.pick(len(s.Faults), "stubborn fault", op, key)]
	}
	if s.chance("fault", op, key, n) < s.WriteFaults {
		return s.Faults[s.pick(len(s.Faults), "which fault", op, key, n)]
	}
	return simulator.NoFault
}

// paused reports whether the connector is paused during this request.
func (s Schedule) paused(op, key string, n int) bool {
	return op == "createThread" && s.chance("pause", key, n) < s.Pause
}

// delivery decides how one webhook event is delivered (a simulator.DeliveryFunc).
func (s Schedule) delivery(eventID string) simulator.Delivery {
	if s.chance("delivery", eventID) >= s.Deliveries {
		return simulator.Once
	}
	return []simulator.Delivery{simulator.Twice, simulator.Late, simulator.AckLost}[s.pick(3, "how", eventID)]
}

// replies decides how many agents answer the conversation's thread.
func (s Schedule) replies(conversationID string) int {
	if s.MaxReplies <= 0 {
		return 0
	}
	return s.pick(s.MaxReplies+1, "replies", conversationID)
}

// asksTwice decides whether the conversation asks for a person twice.
func (s Schedule) asksTwice(conversationID string) bool {
	return s.chance("repeat", conversationID) < s.Repeat
}
