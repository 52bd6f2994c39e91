package scenario

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writegen/writegen/generated_example/relay"
	"github.com/writegen/writegen/generated_example/simulator"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// Run sends the schedule's escalation requests, waits until the relays and their peers are
// quiet, and returns what did not hold (nothing, when the relay is right). An error means the run
// could not be completed or checked.
func (e *Env) Run(ctx context.Context, s Schedule) (violations []string, err error) {
	e.mu.Lock()
	e.sched = s
	e.runs++
	run := e.runs
	e.mu.Unlock()

	var struck sync.WaitGroup
	var strikeErr error
	if rs, ok := e.relays.(*replicas); ok {
		rf := s.replicaFault(len(rs.procs))
		e.mu.Lock()
		e.struck = map[int]bool{e.lastStruck: e.lastStruck >= 0}
		e.lastStruck = -1
		if rf.kind != "" {
			e.struck[rf.replica], e.lastStruck = true, rf.replica
		}
		e.mu.Unlock()
		if rf.kind != "" {
			struck.Go(func() { strikeErr = rs.strike(ctx, rf, 4*s.Within) })
		}
	}
	convs := make([]string, s.Escalations)
	start := time.Now()
	for i := range convs {
		if s.Rate > 0 {
			due := start.Add(time.Duration(float64(i) / s.Rate * float64(time.Second)))
			if err := sleepUntil(ctx, due); err != nil {
				return nil, err
			}
		}
		c := e.prefix + strconv.Itoa(run) + "-" + strconv.Itoa(i+1)
		convs[i] = c
		e.mu.Lock()
		e.all = append(e.all, c)
		e.mu.Unlock()
		e.chat.RequestEscalation(c, "I would like to talk to a person about order "+strconv.Itoa(1000+i)+".")
		n := 1
		if s.asksTwice(c) {
			e.chat.RequestEscalation(c, "Hello? I asked for a person.")
			n++
		}
		e.mu.Lock()
		e.convs++
		e.requests += n
		e.mu.Unlock()
	}
	struck.Wait()
	if strikeErr != nil {
		return nil, strikeErr
	}
	release, err := e.quiet(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return e.check(ctx, convs)
}

// Settle lets the relays' periodic Resume ask again, on its schedule (runtime.WithReask), the
// lookup of every note whose lookup could not answer yet when its call ended, for at most limit
// of real time; then it checks the escalations of every run so far again, as Run checks those
// of one (Figures.End counts what it found), so that what Resume settled after a run was
// checked is checked too, and what stays uncertain is left to a person. With an instant clock,
// the clock jumps to the next ask whenever the relays are at rest.
func (e *Env) Settle(ctx context.Context, limit time.Duration) ([]string, error) {
	stop := time.Now().Add(limit)
	for {
		release, err := e.quiet(ctx)
		if err != nil {
			return nil, err
		}
		next, n, err := e.nextReask(ctx)
		if err != nil || n == 0 || !time.Now().Before(stop) {
			var v []string
			if err == nil {
				e.mu.Lock()
				all := slices.Clone(e.all)
				e.mu.Unlock()
				var c Checks
				if c, v, err = e.checkEscalations(ctx, all); err == nil {
					// The relays' reconcile sends again what the outbox gave up on and
					// Resume settled since.
					if c.StaleOutbox, err = e.staleOutbox(ctx); c.StaleOutbox > 0 {
						v = append(v, fmt.Sprintf("%d outbox items are uncertain although their write is active", c.StaleOutbox))
					}
					e.mu.Lock()
					e.end = c
					e.mu.Unlock()
				}
			}
			release()
			return v, err
		}
		wait := e.opts.ResumeEvery // for the next periodic Resume
		if d := next.Sub(e.clock.Now()); d > 0 {
			if e.opts.Instant {
				e.clock.Jump(d) // nothing runs: the relays are at rest, their Resume held
			} else {
				wait += d
			}
		}
		release()
		if err := sleepUntil(ctx, time.Now().Add(wait)); err != nil {
			return nil, err
		}
	}
}

// nextReask returns how many notes' rows a later Resume asks again, and when the first of them
// is due, by the ledger's clock.
func (e *Env) nextReask(ctx context.Context) (next time.Time, n int, err error) {
	rows, err := e.ledger.List(ctx, ledger.Filter{State: runtime.StateUncertain, Scope: "support-desk", Operation: "add-note", AnyTenant: true})
	for _, r := range rows {
		if r.Redrive {
			if n == 0 || r.RedriveAt.Before(next) {
				next = r.RedriveAt
			}
			n++
		}
	}
	return next, n, err
}

// strike crashes or stalls a replica as rf says: as soon after rf.at as the replica holds a
// claim (a call in flight), or at rf.at + within if it holds none until then.
func (rs *replicas) strike(ctx context.Context, rf replicaFault, within time.Duration) error {
	start := time.Now()
	if err := sleepUntil(ctx, start.Add(rf.at)); err != nil {
		return err
	}
	owner := rs.proc(rf.replica).owner()
	for limit := time.Now().Add(within); time.Now().Before(limit); {
		rows, err := rs.e.ledger.List(ctx, ledger.Filter{State: runtime.StateClaimed, AnyScope: true, AnyTenant: true})
		if err != nil {
			return err
		}
		if slices.ContainsFunc(rows, func(r ledger.Row) bool { return strings.Contains(r.LeaseOwner, owner) }) {
			break
		}
		if err := sleepUntil(ctx, time.Now().Add(2*time.Millisecond)); err != nil {
			return err
		}
	}
	if rf.kind == "crash" {
		return rs.crash(ctx, rf.replica, rf.length)
	}
	return rs.stall(ctx, rf.replica, rf.length)
}

// quiet waits until the relays and their peers are at rest: every webhook event delivered and
// handled, every obligation sent or settled, no claim open, no commit running and no event on
// the way, and every relay has reconciled its uncertain escalations with the ledger as it is
// then. It returns with the periodic Resume of every relay held, so that none claims a row
// while the run is checked; release lets them go on.
func (e *Env) quiet(ctx context.Context) (release func(), err error) {
	var lastErr error // of the last reconcile that failed
	for {
		before := e.eventsSent()
		e.desk.Wait()
		e.chat.Wait()
		n, err := relay.Pending(ctx, e.ledger)
		if err != nil {
			return nil, err
		}
		claims := -1
		if n == 0 && e.eventsSent() == before {
			release, err := e.relays.hold(ctx)
			if err != nil {
				return nil, err
			}
			// A Resume that ran until the hold may have left a commit running at a peer.
			e.desk.Wait()
			e.chat.Wait()
			claims, err = e.claims(ctx)
			if err == nil && claims == 0 {
				// The escalations catch up with what a Resume settled at the relays' next
				// reconcile; with every claim settled, this one sees the ledger as it stays.
				// An escalation it could not reconcile (the ledger too slow to answer, say) is
				// tried again in the next round.
				caught, rerr := e.relays.reconcile(ctx)
				e.mu.Lock()
				e.checked.CaughtUp += caught
				e.mu.Unlock()
				if rerr != nil {
					lastErr = rerr
					claims = -1
				}
			}
			if err == nil {
				n, err = relay.Pending(ctx, e.ledger)
			}
			if err == nil && n == 0 && claims == 0 && e.eventsSent() == before {
				return release, nil
			}
			release()
			if err != nil {
				return nil, err
			}
		}
		if err := sleepUntil(ctx, time.Now().Add(time.Millisecond)); err != nil {
			if lastErr != nil {
				err = fmt.Errorf("%w (the last reconcile failed: %v)", err, lastErr)
			}
			return nil, fmt.Errorf("scenario: %d events and obligations, %d claims still pending: %w", n, claims, err)
		}
	}
}

// claims counts the ledger's rows that are claimed: calls running, or left by a process that
// stopped until a Resume takes them over.
func (e *Env) claims(ctx context.Context) (int, error) {
	rows, err := e.ledger.List(ctx, ledger.Filter{State: runtime.StateClaimed, AnyScope: true, AnyTenant: true})
	return len(rows), err
}

func (e *Env) eventsSent() int {
	return e.desk.Stats().Webhook.Events + e.chat.Stats().Webhook.Events
}

// moreWait matches the part of a reason that says how much longer a call had to wait, different
// for each row: "(880.4ms more) ".
var moreWait = regexp.MustCompile(`\([0-9.]+[a-zµ]*s more\) `)

// The identities of an escalation's writes, as "scope/key-scope business-key".
func threadWrite(id string) string  { return "support-desk/create-thread escalation:" + id }
func openingWrite(id string) string { return "support-desk/post-message escalation-opening:" + id }
func noteWrite(id string) string    { return "support-desk/add-note escalation-note:" + id }
func answerWrite(id string) string {
	return "chat/post-conversation-message escalation-first-reply:" + id
}

func writeOf(id runtime.Identity) string { return id.Scope + "/" + id.Operation + " " + id.BusinessKey }

// claimOf describes the ledger's claim of a write ("scope/key-scope business-key"), for a
// failure message.
func (e *Env) claimOf(ctx context.Context, write string) string {
	scopeOp, key, _ := strings.Cut(write, " ")
	scope, op, _ := strings.Cut(scopeOp, "/")
	r, err := e.ledger.Find(ctx, runtime.Identity{Scope: scope, Operation: op, BusinessKey: key})
	if err != nil {
		return "its claim: " + err.Error()
	}
	return fmt.Sprintf("its claim, ledger row %d, is %s (fence %d, %d attempts, last error %q)", r.ID, r.State, r.Fence, r.Attempts, r.LastError)
}

// check returns what does not hold for the conversations of a run, and for the ledger as a
// whole, and counts it.
func (e *Env) check(ctx context.Context, convs []string) ([]string, error) {
	c, v, err := e.checkEscalations(ctx, convs)
	if err != nil {
		return nil, err
	}
	fail := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	e.mu.Lock()
	notices := slices.Clone(e.uncertain)
	e.mu.Unlock()
	for _, n := range notices[e.checked.Notices:] {
		if !strings.HasPrefix(n.Recorded, "ledger row ") {
			fail("%s %s ended uncertain, recorded in %q, not in the ledger", n.OperationID, n.BusinessKey, n.Recorded)
		}
	}
	c.Notices = len(notices) - e.checked.Notices

	for _, src := range []string{"chat", "support"} {
		for _, st := range []ledger.EventState{ledger.EventPending, ledger.EventFailed} {
			evs, err := e.ledger.Events(ctx, src, st)
			if err != nil {
				return nil, err
			}
			for _, ev := range evs {
				fail("%s event %s is %s: %s", src, ev.EventID, st, ev.LastError)
			}
		}
	}
	stale, err := e.staleOutbox(ctx)
	if err != nil {
		return nil, err
	}
	if stale > 0 {
		fail("%d outbox items are uncertain although their write is active: the relays' reconcile sends them again", stale)
	}
	for _, st := range []ledger.OutboxState{ledger.OutboxPending, ledger.OutboxFailed, ledger.OutboxRejected} {
		items, err := e.ledger.OutboxItems(ctx, st)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			fail("obligation %s %s is %s: %s", it.Operation, it.DedupeKey, st, it.LastError)
		}
	}
	desk, chat := e.desk.Stats(), e.chat.Stats()
	if n := desk.Webhook.Abandoned + chat.Webhook.Abandoned; n > 0 {
		fail("%d webhook events were never answered 2xx", n)
	}
	if desk.BadRefresh > 0 {
		fail("%d token refreshes were refused: a refresh token was used twice", desk.BadRefresh)
	}
	e.mu.Lock()
	saved := e.token.Refresh
	orphans := e.replica.orphans
	e.replica.orphans = nil
	e.mu.Unlock()
	if _, current, _ := e.desk.Credentials(); saved != current {
		fail("the refresh token persisted is %s, the desk's is %s: a restart would lose the credential", saved, current)
	}
	var takenOver int
	for _, o := range orphans {
		r, err := e.ledger.Get(ctx, o.id)
		if err != nil {
			return nil, err
		}
		if r.Fence > o.fence {
			takenOver++
		}
	}

	e.mu.Lock()
	e.checked.add(c)
	e.checked.StaleOutbox = stale
	e.replica.Orphaned += len(orphans)
	e.replica.TakenOver += takenOver
	e.mu.Unlock()
	return v, nil
}

// checkEscalations returns what does not hold for the escalations of the conversations convs,
// and counts it: their threads, the requests posted and notes added to them, and the replies
// delivered; each effect once, or its write uncertain, listed and told.
func (e *Env) checkEscalations(ctx context.Context, convs []string) (Checks, []string, error) {
	var v []string
	fail := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	var c Checks

	threads := make(map[string][]simulator.Thread)
	for _, t := range e.desk.Threads() {
		threads[t.ConversationID] = append(threads[t.ConversationID], t)
	}
	listed := make(map[string]ledger.Row) // the uncertain rows, by write
	rows, err := e.ledger.List(ctx, ledger.Filter{State: runtime.StateUncertain, AnyScope: true, AnyTenant: true})
	if err != nil {
		return c, nil, err
	}
	for _, r := range rows {
		listed[writeOf(r.Identity)] = r
	}
	e.mu.Lock()
	notices := slices.Clone(e.uncertain)
	e.mu.Unlock()
	told := make(map[string]bool)
	for _, n := range notices {
		told[writeOf(n.Identity)] = true
	}
	// uncertain checks that a write of the run that ended uncertain is listed and was told.
	uncertain := func(c *Checks, conv, write string) bool {
		r, ok := listed[write]
		if !ok {
			return false
		}
		c.Listed++
		reason, _, _ := strings.Cut(r.LastError, ": ")
		c.reason(r.OperationID + ": " + reason)
		if !told[write] {
			c.Unnotified++
			fail("%s: %s is uncertain in ledger row %d, but nobody was told", conv, write, r.ID)
		}
		return true
	}

	for _, conv := range convs {
		es, found, err := relay.ReadEscalation(ctx, e.ledger, conv)
		if err != nil {
			return c, nil, err
		}
		ts := threads[conv]
		if len(ts) > 1 {
			c.Duplicates += len(ts) - 1
			fail("%s: %d threads at the desk (%s and %s)", conv, len(ts), ts[0].ID, ts[1].ID)
		}
		if !found {
			c.Lost++
			fail("%s: asked for a person, but the relay has no escalation", conv)
			continue
		}
		c.Escalations++
		id := strconv.FormatInt(es.ID, 10)
		switch {
		case es.ThreadID != "":
			if len(ts) != 1 || ts[0].ID != es.ThreadID {
				fail("%s: the relay recorded thread %s, the desk has %d threads", conv, es.ThreadID, len(ts))
				break
			}
			switch n := count(ts[0].Messages, func(m simulator.Message) bool { return m.Author == "customer" }); {
			case n > 1:
				c.Duplicates += n - 1
				fail("%s: the user's request was posted into the thread %d times", conv, n)
			case n == 0 && !uncertain(&c, conv, openingWrite(id)):
				c.Lost++
				fail("%s: the user's request was never posted into the thread, and is not listed uncertain; %s", conv, e.claimOf(ctx, openingWrite(id)))
			}
			// The note is the keyless write whose lookup is eventual: counted on its own.
			c.Notes++
			if r, ok := listed[noteWrite(id)]; ok {
				c.NotesUncertain++
				if r.Redrive {
					c.NotesScheduled++
				}
				reason, _, _ := strings.Cut(r.LastError, ": ")
				c.noteReason(moreWait.ReplaceAllString(reason, ""))
			}
			switch n := len(ts[0].Notes); {
			case n > 1:
				c.Duplicates += n - 1
				c.NoteDuplicates += n - 1
				fail("%s: %d notes of where the thread came from (%s and %s)", conv, n, ts[0].Notes[0].ID, ts[0].Notes[1].ID)
			case n == 0 && !uncertain(&c, conv, noteWrite(id)):
				c.Lost++
				c.NotesLost++
				fail("%s: the thread has no note of where it came from, and it is not listed uncertain; %s", conv, e.claimOf(ctx, noteWrite(id)))
			}
		case es.Status == "uncertain":
			if !uncertain(&c, conv, threadWrite(id)) {
				c.Lost++
				fail("%s: escalation %s is uncertain but not listed for reconciliation; %s", conv, id, e.claimOf(ctx, threadWrite(id)))
			}
		default:
			c.Lost++
			fail("%s: escalation %s ended %s without a thread or an uncertain record (%s); %s", conv, id, es.Status, es.LastError, e.claimOf(ctx, threadWrite(id)))
		}

		answers := e.chat.Messages(conv)
		agentReplies := 0
		for _, t := range ts {
			agentReplies += count(t.Messages, func(m simulator.Message) bool { return m.Author != "customer" })
		}
		switch {
		case len(answers) > 1:
			c.Duplicates += len(answers) - 1
			fail("%s: %d replies delivered into the conversation", conv, len(answers))
		case agentReplies > 0 && es.FirstReplyID == "":
			c.Lost++
			fail("%s: %d agent replies, none handled", conv, agentReplies)
		case es.FirstReplyID == "":
		case len(answers) == 1 && answers[0].InReplyTo != es.FirstReplyID:
			fail("%s: delivered reply %s, but the first was %s", conv, answers[0].InReplyTo, es.FirstReplyID)
		case len(answers) == 0 && !uncertain(&c, conv, answerWrite(id)):
			c.Lost++
			fail("%s: first reply %s never delivered, and not listed uncertain; %s", conv, es.FirstReplyID, e.claimOf(ctx, answerWrite(id)))
		}
	}
	return c, v, nil
}

// staleOutbox counts the outbox items that ended uncertain although their write's claim is
// active now: a Resume drove the write on to its receipt after the outbox gave up on it, and
// no reconcile has sent the item again since (it answers from the write's row).
func (e *Env) staleOutbox(ctx context.Context) (int, error) {
	items, err := e.ledger.OutboxItems(ctx, ledger.OutboxUncertain)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, it := range items {
		id := runtime.Identity{Scope: "support-desk", Operation: "post-message", BusinessKey: it.DedupeKey}
		if it.Operation == "postConversationMessage" {
			id.Scope, id.Operation = "chat", "post-conversation-message"
		}
		r, err := e.ledger.Find(ctx, id)
		if err == nil && r.State == runtime.StateActive {
			n++
		}
	}
	return n, nil
}

// Unhandled returns the ids of the webhook events the simulators sent that the relay's inbox
// does not hold as handled: none, when nothing was lost.
func (e *Env) Unhandled(ctx context.Context) ([]string, error) {
	var lost []string
	for src, sent := range map[string][]string{"chat": e.chat.Events(), "support": e.desk.Events()} {
		done, err := e.ledger.Events(ctx, src, ledger.EventDone)
		if err != nil {
			return nil, err
		}
		handled := make(map[string]bool, len(done))
		for _, ev := range done {
			handled[ev.EventID] = true
		}
		for _, id := range sent {
			if !handled[id] {
				lost = append(lost, src+" "+id)
			}
		}
	}
	slices.Sort(lost)
	return lost, nil
}

func count[T any](xs []T, f func(T) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
