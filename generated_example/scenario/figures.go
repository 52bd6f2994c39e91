package scenario

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

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
	FromLedger int // of those, handed over by the ledger from another call
	Reconciled int // of those, threads of escalations that were uncertain, settled since (by Resume or a repeated call)
	Uncertain  int // escalations whose thread could not be settled (and was not since)
	Failed     int // escalations the desk refused
	// NotApplied counts the calls that ended not applied (nothing happened at the desk, the
	// key is free): the relay tries them again later with the same key.
	NotApplied int

	Replies      int // replies the desk's agents wrote
	Answers      int // first replies delivered into conversations
	LaterReplies int // replies after the first, not relayed
	Openings     int // user requests posted into threads
	Notes        int // notes of where a thread came from, added to threads
	// NotesFaulted counts the notes that met a fault at the desk at least once: without their
	// lookup (the desk takes no key for them), each would have ended uncertain.
	NotesFaulted int
	NoteLists    int // pages of notes the lookups read

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

	Resumes int                  // Resume passes of the relays
	Resumed runtime.ResumeReport // what they did; Taken counts the rows taken over

	Checked Checks         // what the checks after each run found
	End     Checks         // what the check of every run's escalations at Settle found
	Replica ReplicaFigures // what happened to the relay processes, with Replicas

	// Notices are the uncertain outcomes the owner was told about, in order.
	Notices []*runtime.UncertainError
}

// Checks count what the checks after each run found.
type Checks struct {
	Escalations int // escalations checked
	// Duplicates counts second effects: threads of one conversation, posts of one request, and
	// replies delivered into one conversation, beyond the first. It must be 0.
	Duplicates int
	// Lost counts outcomes lost: an escalation, a request to post or a reply to deliver with
	// neither its effect recorded nor an uncertain row listed by the ledger. It must be 0.
	Lost int
	// Listed counts the writes of the runs that were uncertain when checked, each listed by the
	// ledger for a person, and Unnotified those nobody was told about (it must be 0).
	Listed, Unnotified int
	// Reasons counts Listed by operation and reason.
	Reasons map[string]int
	// Notices counts the uncertain outcomes told to the notifier. A write that Resume drives on
	// and that ends uncertain again is told again by another relay, or by one restarted.
	Notices int
	// CaughtUp counts the escalations whose thread a relay recorded at the reconcile made before
	// a check: a Resume had settled the thread since the last reconcile saw the escalation.
	CaughtUp int
	// StaleOutbox is, at the last check, how many outbox items were uncertain although a Resume
	// had since driven their write on to its receipt (see Env.staleOutbox).
	StaleOutbox int

	// Notes counts the notes of where a thread came from that the relay had to add (one per
	// escalation with its thread): AddNote, the write without a key whose lookup, a walk of the
	// desk's notes, is eventually consistent. NotesUncertain counts those whose ledger row was
	// uncertain when checked, NotesScheduled those of them that a later Resume asks again
	// (runtime.WithReask; the others are left to a person), and NoteDuplicates and NotesLost
	// the second notes and the notes missing without an uncertain row (both must be 0).
	Notes, NotesUncertain, NotesScheduled, NoteDuplicates, NotesLost int
	// NoteReasons counts NotesUncertain by the reason their rows carry.
	NoteReasons map[string]int
}

// noteReason counts an uncertain note under reason.
func (c *Checks) noteReason(r string) {
	if c.NoteReasons == nil {
		c.NoteReasons = make(map[string]int)
	}
	c.NoteReasons[r]++
}

// reason counts a listed write under reason.
func (c *Checks) reason(r string) {
	if c.Reasons == nil {
		c.Reasons = make(map[string]int)
	}
	c.Reasons[r]++
}

func (c *Checks) add(o Checks) {
	c.Escalations += o.Escalations
	c.Duplicates += o.Duplicates
	c.Lost += o.Lost
	c.Listed += o.Listed
	c.Unnotified += o.Unnotified
	c.Notices += o.Notices
	c.CaughtUp += o.CaughtUp
	c.Notes += o.Notes
	c.NotesUncertain += o.NotesUncertain
	c.NotesScheduled += o.NotesScheduled
	c.NoteDuplicates += o.NoteDuplicates
	c.NotesLost += o.NotesLost
	for r, n := range o.NoteReasons {
		if c.NoteReasons == nil {
			c.NoteReasons = make(map[string]int)
		}
		c.NoteReasons[r] += n
	}
	for r, n := range o.Reasons {
		if c.Reasons == nil {
			c.Reasons = make(map[string]int)
		}
		c.Reasons[r] += n
	}
}

// ReplicaFigures count what happened to the relay processes of an Env with Replicas.
type ReplicaFigures struct {
	Replicas int // relay processes
	Crashes  int // processes killed (each started again)
	Stalls   int // processes stopped for one to two leases, then continued
	// Orphaned counts the claims a process held when it was killed or stopped, and TakenOver
	// those of them another process took over, with a new fence (the others were settled by
	// their own caller, continued before anyone took them).
	Orphaned, TakenOver int
	// Fenced counts the calls whose settlement the ledger refused because another caller had
	// taken their claim over (the call then adopts the other's outcome, or ends uncertain), and
	// FencedLive those in a replica that was neither killed nor stopped in that run or the one
	// before: a live call whose heartbeat did not renew its lease in time (a machine too busy),
	// or a takeover of a live call. It is a figure, not a check: it depends on timing.
	Fenced, FencedLive int

	orphans []orphan // of the run in progress
}

// orphan is a claim held by a process that was killed or stopped.
type orphan struct {
	id, fence int64
}

// Duplicates is the number of second effects avoided.
func (f Figures) Duplicates() int {
	return f.Redeliveries + f.RepeatRequests + f.FromLookup + f.KeyReplays + f.StillRunning
}

// FaultsInjected is the number of write faults, pauses and webhook faults injected, and of
// relay processes killed or stopped.
func (f Figures) FaultsInjected() int {
	n := f.Paused + f.Duplicated + f.Late + f.AckLost + f.Replica.Crashes + f.Replica.Stalls
	for _, c := range f.Faults {
		n += c
	}
	return n
}

// Figures returns the counts so far. It reads no database and may be called while a run is in
// progress.
func (e *Env) Figures() Figures {
	desk, chat, rel := e.desk.Stats(), e.chat.Stats(), e.relays.stats()
	e.mu.Lock()
	f := Figures{
		Runs:          e.runs,
		Conversations: e.convs,
		Requests:      e.requests,
		Paused:        e.paused,
		Notices:       slices.Clone(e.uncertain),
		Checked:       e.checked,
		Replica:       e.replica,
	}
	f.Checked.Reasons = maps.Clone(e.checked.Reasons)
	f.Checked.NoteReasons = maps.Clone(e.checked.NoteReasons)
	f.End = e.end
	f.End.Reasons = maps.Clone(e.end.Reasons)
	f.End.NoteReasons = maps.Clone(e.end.NoteReasons)
	f.Replica.orphans = nil
	e.mu.Unlock()
	if e.opts.Replicas > 1 {
		f.Replica.Replicas = e.opts.Replicas
	}
	f.Threads, f.Replies, f.Openings, f.Lookups, f.Rotations = desk.Threads, desk.Replies, desk.Messages, desk.Lookups, desk.Refreshes
	f.Answers = chat.Messages
	f.Notes, f.NotesFaulted, f.NoteLists = desk.Notes, desk.Writes.Faulted["addNote"], desk.NoteLists
	f.Recorded, f.FromLookup, f.FromLedger, f.Reconciled = rel.Threads, rel.FromLookup, rel.FromLedger, rel.Reconciled
	f.Uncertain, f.Failed, f.LaterReplies = rel.Uncertain-rel.Reconciled, rel.Failed, rel.LaterReplies
	f.RepeatRequests = rel.Repeats
	f.NotApplied = rel.NotApplied
	f.Resumes, f.Resumed = rel.Resumes, rel.Resumed
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
	if f.Reconciled > 0 {
		p("  of those, uncertain first, then settled    %5d", f.Reconciled)
	}
	if f.NotApplied > 0 {
		p("  calls that ended not applied, sent again   %5d (a lookup proved nothing happened)", f.NotApplied)
	}
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
	p("Notes added        %5d to threads (no key at the desk); %d met a fault, looked up in %d pages of notes",
		f.Notes, f.NotesFaulted, f.NoteLists)
	if c := f.Checked; c.Notes > 0 {
		p("  notes to add, checked after their run      %5d: %d uncertain then (%d to be asked again by Resume, %d left to a person)",
			c.Notes, c.NotesUncertain, c.NotesScheduled, c.NotesUncertain-c.NotesScheduled)
	}
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
	if r := f.Replica; r.Replicas > 1 {
		p("  %-40s   %5d", "relay process killed, started again", r.Crashes)
		p("  %-40s   %5d", "relay process stopped for 1-2 leases", r.Stalls)
	}
	p("Token rotations    %5d (refreshes, one at a time, each persisted before use)", f.Rotations)
	p("Resume             %5d passes took over %d rows (expired leases, uncertain rows driven on, %d of them asked again): %d active, %d uncertain again (%d to be asked again later), %d not applied, %d rejected",
		f.Resumes, f.Resumed.Taken, f.Resumed.Reasked, f.Resumed.Active, f.Resumed.Uncertain, f.Resumed.Scheduled, f.Resumed.NotApplied, f.Resumed.Rejected)
	if r := f.Replica; r.Replicas > 1 {
		p("Replicas           %5d relay processes on one ledger; %d claims held by a process killed or stopped, %d of them taken over by another",
			r.Replicas, r.Orphaned, r.TakenOver)
		p("Fenced out         %5d calls whose claim was taken over while they ran (%d in a replica neither killed nor stopped)",
			r.Fenced, r.FencedLive)
	} else if r.Fenced > 0 {
		p("Fenced out         %5d calls whose claim was taken over while they ran (the connector was paused)", r.Fenced)
	}
	p("Uncertain outcomes %5d told to the owner; %d writes uncertain when checked, each listed for a person:",
		len(f.Notices), f.Checked.Listed)
	reasons := slices.Sorted(maps.Keys(f.Checked.Reasons))
	slices.SortStableFunc(reasons, func(a, b string) int { return f.Checked.Reasons[b] - f.Checked.Reasons[a] })
	for _, r := range reasons {
		p("  %-56s %5d", r, f.Checked.Reasons[r])
	}
	// One line per write, with its last notice: Resume drives some writes on, and a write that
	// ends uncertain again is told again by another relay, or by one restarted.
	var writes []string
	last := make(map[string]*runtime.UncertainError)
	told := make(map[string]int)
	for _, n := range f.Notices {
		w := writeOf(n.Identity)
		if told[w] == 0 {
			writes = append(writes, w)
		}
		last[w] = n
		told[w]++
	}
	for i, w := range writes {
		if i == 5 {
			p("  ... and %d more writes", len(writes)-5)
			break
		}
		n := last[w]
		cause, times := "", ""
		if n.Cause != nil {
			cause = " (" + strings.TrimPrefix(n.Cause.Error(), "writegen: ") + ")"
		}
		if told[w] > 1 {
			times = fmt.Sprintf("; told %d times", told[w])
		}
		p("  - %s %s after %d attempts: %s%s; owner %s%s", n.OperationID, n.BusinessKey, n.Attempts, n.Reason, cause, n.Owner, times)
	}
	p("Checked            %5d escalations: %d duplicates, %d outcomes lost, %d uncertain writes nobody was told about",
		f.Checked.Escalations, f.Checked.Duplicates, f.Checked.Lost, f.Checked.Unnotified)
	if f.Checked.StaleOutbox > 0 {
		p("  (%d obligations still listed uncertain by the outbox, although Resume has settled their write since)", f.Checked.StaleOutbox)
	}
	if f.Checked.CaughtUp > 0 {
		p("  (%d escalations caught up with a thread that Resume settled at the reconcile before a check)", f.Checked.CaughtUp)
	}
	if e := f.End; e.Escalations > 0 {
		p("Settled            %5d escalations checked again once Resume had asked again: %d duplicates, %d outcomes lost; %d writes uncertain, %d of %d notes (%d still to be asked again)",
			e.Escalations, e.Duplicates, e.Lost, e.Listed, e.NotesUncertain, e.Notes, e.NotesScheduled)
	}
}

// NoteFigure is one line of the notes' figure: how many of the notes a soak's relay added ended
// uncertain, AddNote being the write without a key whose lookup (a walk of the desk's notes,
// newest first) is eventually consistent, with a declared lag.
type NoteFigure struct {
	Soak   string // the ledger and the relay processes
	Resume string // how Resume asks again: "none" (runtime.WithReask(0, 0)) or "default"
	Seed   uint64 // the first seed; the schedules' are Seed, Seed+1, ...
	Runs   int    // schedules
	Notes  int    // notes the relay had to add
	// Faulted counts the notes that met at least one fault at the desk; AtChecks those whose row
	// was uncertain when their schedule was checked, and Scheduled those of them a later Resume
	// was to ask again.
	Faulted, AtChecks, Scheduled int
	// Uncertain counts the notes whose row was uncertain once Resume had asked again what it
	// was to ask (Env.Settle), and Pending those of them it was still to ask when Settle gave up
	// waiting; the others are left to a person, for the reasons in Reasons.
	Uncertain, Pending int
	Reasons            map[string]int
	// Duplicates and Lost are those of every write, checked once more after Settle; Failed
	// counts the checks that did not hold, after each schedule and after Settle.
	Duplicates, Lost, Failed int
	Wall                     time.Duration
}

// NoteFigureOf returns the line of a soak's figures.
func NoteFigureOf(soak, resume string, seed uint64, f Figures, wall time.Duration) NoteFigure {
	return NoteFigure{Soak: soak, Resume: resume, Seed: seed, Runs: f.Runs, Notes: f.End.Notes, Faulted: f.NotesFaulted,
		AtChecks: f.Checked.NotesUncertain, Scheduled: f.Checked.NotesScheduled, Uncertain: f.End.NotesUncertain,
		Pending: f.End.NotesScheduled, Reasons: maps.Clone(f.End.NoteReasons), Duplicates: f.End.Duplicates,
		Lost: f.End.Lost, Wall: wall}
}

// PerTenThousand is how many of every 10,000 notes ended uncertain.
func (n NoteFigure) PerTenThousand() float64 {
	if n.Notes == 0 {
		return 0
	}
	return float64(n.Uncertain) * 10000 / float64(n.Notes)
}

// WriteNoteFigures prints the notes' figure as a table, with the reasons of what stayed
// uncertain under it.
func WriteNoteFigures(w io.Writer, rows []NoteFigure) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("| soak | Resume asks again | seeds | schedules | notes | met a fault | uncertain when checked (to be asked again) | uncertain after Resume (still to be asked) | per 10,000 | duplicates | lost | checks failed | wall |")
	p("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range rows {
		p("| %s | %s | %d-%d | %d | %d | %d | %d (%d) | %d (%d) | %.1f | %d | %d | %d | %s |", n.Soak, n.Resume, n.Seed, n.Seed+uint64(max(n.Runs-1, 0)),
			n.Runs, n.Notes, n.Faulted, n.AtChecks, n.Scheduled, n.Uncertain, n.Pending, n.PerTenThousand(),
			n.Duplicates, n.Lost, n.Failed, n.Wall.Round(time.Second))
	}
	for _, n := range rows {
		if len(n.Reasons) == 0 {
			continue
		}
		p("%s, Resume asks again %s: the notes uncertain after Resume, by the reason their rows carry:", n.Soak, n.Resume)
		reasons := slices.Sorted(maps.Keys(n.Reasons))
		slices.SortStableFunc(reasons, func(a, b string) int { return n.Reasons[b] - n.Reasons[a] })
		for _, r := range reasons {
			p("  %5d  %s", n.Reasons[r], r)
		}
	}
}
