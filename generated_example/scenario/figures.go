package scenario

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/writegen/writegen/generated_example/simulator"
	"github.com/writegen/writegen/runtime"
)

// Figures count what the runs of an Env did so far.
type Figures struct {
	Runs          int // schedules run
	Conversations int // conversations that asked for a person
	Requests      int // escalation requests sent (some conversations ask twice)

	Threads    int // threads the desk created
	Recorded   int // escalations whose thread the relay recorded
	FromLookup int // of those, found by searching the desk after the attempts ran out
	FromLedger int // of those, handed over by the ledger from another handler's call
	Uncertain  int // escalations whose thread could not be settled
	Failed     int // escalations the desk refused

	Replies      int // replies the desk's agents wrote
	Answers      int // first replies delivered into conversations
	LaterReplies int // replies after the first, not relayed
	Openings     int // user requests posted into threads

	// Duplicates avoided, by where.
	Redeliveries   int // deliveries of a webhook event already stored: answered, not handled again
	RepeatRequests int // requests whose outcome our records already held: nothing sent
	KeyReplays     int // retries the provider answered with the original response (same key)
	StillRunning   int // retries the provider answered 409: the first attempt was still running

	Lookups int // searches of the desk by external reference

	Faults     map[simulator.Fault]int // write faults injected, desk and chat
	Paused     int                     // pauses of the connector past the key window
	Rotations  int                     // token refreshes, each one rotating the token in use
	Duplicated int                     // webhook events delivered twice at once
	Late       int                     // webhook events overtaken by a later one
	AckLost    int                     // webhook events whose 2xx was lost
	Events     int                     // webhook events sent, desk and chat

	// Notices are the uncertain outcomes the owner was told about, in order.
	Notices []*runtime.UncertainError
}

// Duplicates is the number of second effects avoided.
func (f Figures) Duplicates() int {
	return f.Redeliveries + f.RepeatRequests + f.FromLookup + f.KeyReplays + f.StillRunning
}

// FaultsInjected is the number of write faults, pauses and webhook faults injected.
func (f Figures) FaultsInjected() int {
	n := f.Paused + f.Duplicated + f.Late + f.AckLost
	for _, c := range f.Faults {
		n += c
	}
	return n
}

// Figures returns the counts so far. It reads no database and may be called while a run is in
// progress.
func (e *Env) Figures() Figures {
	desk, chat, rel := e.desk.Stats(), e.chat.Stats(), e.relay.Stats()
	e.mu.Lock()
	f := Figures{
		Runs:          e.runs,
		Conversations: e.convs,
		Requests:      e.requests,
		Paused:        e.paused,
		Notices:       slices.Clone(e.uncertain),
	}
	e.mu.Unlock()
	f.Threads, f.Replies, f.Openings, f.Lookups, f.Rotations = desk.Threads, desk.Replies, desk.Messages, desk.Lookups, desk.Refreshes
	f.Answers = chat.Messages
	f.Recorded, f.FromLookup, f.FromLedger = rel.Threads, rel.FromLookup, rel.FromLedger
	f.Uncertain, f.Failed, f.LaterReplies = rel.Uncertain, rel.Failed, rel.LaterReplies
	f.RepeatRequests = rel.Repeats
	f.Faults = make(map[simulator.Fault]int)
	for _, w := range []simulator.WriteStats{desk.Writes, chat.Writes} {
		f.KeyReplays += w.Replayed
		f.StillRunning += w.InProgress
		for k, n := range w.Faults {
			f.Faults[k] += n
		}
	}
	for _, h := range []simulator.WebhookStats{desk.Webhook, chat.Webhook} {
		f.Events += h.Events
		f.Duplicated += h.Duplicated
		f.Late += h.Late
		f.AckLost += h.AckLost
		f.Redeliveries += h.Deliveries - h.Redelivered - h.Acked
	}
	return f
}

// Settled is how many escalations have their thread recorded, or ended uncertain or failed.
func (f Figures) Settled() int { return f.Recorded + f.Uncertain + f.Failed }

// Write prints the figures for a person.
func (f Figures) Write(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("Escalations        %5d conversations asked for a person (%d requests: %d asked again)",
		f.Conversations, f.Requests, f.Requests-f.Conversations)
	p("Threads created    %5d at the support desk; recorded on %d escalations", f.Threads, f.Recorded)
	p("  created by the call                        %5d", f.Recorded-f.FromLookup-f.FromLedger)
	p("  found by a lookup (the response was lost)  %5d", f.FromLookup)
	p("  handed over by the ledger                  %5d", f.FromLedger)
	p("Duplicates avoided %5d", f.Duplicates())
	p("  webhook re-deliveries stored once          %5d", f.Redeliveries)
	p("  repeat requests answered from our records  %5d", f.RepeatRequests)
	p("  lost responses found by a lookup           %5d", f.FromLookup)
	p("  retries answered with the original (key)   %5d", f.KeyReplays)
	p("  retries told the first is still running   %5d", f.StillRunning)
	p("Lookups used       %5d searches by external reference", f.Lookups)
	p("Replies            %5d written by agents; %d first replies delivered, %d later ones not relayed",
		f.Replies, f.Answers, f.LaterReplies)
	p("Requests relayed   %5d user requests posted into their threads", f.Openings)
	p("Faults injected    %5d", f.FaultsInjected())
	for _, k := range AllFaults {
		if n := f.Faults[k]; n > 0 {
			p("  %-40s   %5d", k, n)
		}
	}
	p("  %-40s   %5d", "connector paused past the key window", f.Paused)
	p("  %-40s   %5d", "webhook delivered twice at once", f.Duplicated)
	p("  %-40s   %5d", "webhook overtaken (out of order)", f.Late)
	p("  %-40s   %5d", "webhook 2xx lost, delivered again", f.AckLost)
	p("Token rotations    %5d (refreshes, one at a time, each persisted before use)", f.Rotations)
	p("Uncertain outcomes %5d, each listed for a person to reconcile:", len(f.Notices))
	reasons := make(map[string]int)
	var order []string
	for _, n := range f.Notices {
		r := n.OperationID + ": " + n.Reason
		if reasons[r] == 0 {
			order = append(order, r)
		}
		reasons[r]++
	}
	for _, r := range order {
		p("  %-56s %3d", r, reasons[r])
	}
	for i, n := range f.Notices {
		if i == 5 {
			p("  ... and %d more", len(f.Notices)-5)
			break
		}
		cause := ""
		if n.Cause != nil {
			cause = " (" + strings.TrimPrefix(n.Cause.Error(), "runtime: ") + ")"
		}
		p("  - %s %s after %d attempts: %s%s; owner %s", n.OperationID, n.BusinessKey, n.Attempts, n.Reason, cause, n.Owner)
	}
}
