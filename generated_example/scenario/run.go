package scenario

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/writegen/writegen/generated_example/simulator"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// Run sends the schedule's escalation requests, waits until the relay and its peers are quiet,
// and returns what did not hold (nothing, when the relay is right). An error means the run could
// not be completed or checked.
func (e *Env) Run(ctx context.Context, s Schedule) (violations []string, err error) {
	e.mu.Lock()
	e.sched = s
	e.runs++
	run := e.runs
	e.mu.Unlock()

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
	if err := e.quiet(ctx); err != nil {
		return nil, err
	}
	return e.check(ctx, convs)
}

// quiet waits until every webhook event has been delivered and handled and every obligation
// sent or settled, with no new event on the way.
func (e *Env) quiet(ctx context.Context) error {
	for {
		before := e.eventsSent()
		e.desk.Wait()
		e.chat.Wait()
		n, err := e.relay.Pending(ctx)
		if err != nil {
			return err
		}
		if n == 0 && e.eventsSent() == before {
			return nil
		}
		if err := sleepUntil(ctx, time.Now().Add(time.Millisecond)); err != nil {
			return fmt.Errorf("scenario: %d events and obligations still pending: %w", n, err)
		}
	}
}

func (e *Env) eventsSent() int {
	return e.desk.Stats().Webhook.Events + e.chat.Stats().Webhook.Events
}

// check returns what does not hold for the conversations of a run, and for the ledger as a
// whole.
func (e *Env) check(ctx context.Context, convs []string) ([]string, error) {
	var v []string
	fail := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }

	threads := make(map[string][]simulator.Thread)
	for _, t := range e.desk.Threads() {
		threads[t.ConversationID] = append(threads[t.ConversationID], t)
	}
	listed := make(map[string]bool) // "operation business-key" of every uncertain row
	rows, err := e.ledger.List(ctx, ledger.Filter{State: runtime.StateUncertain, AnyScope: true, AnyTenant: true})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		listed[r.Scope+"/"+r.Operation+" "+r.BusinessKey] = true
	}

	for _, c := range convs {
		es, found, err := e.relay.Escalation(ctx, c)
		if err != nil {
			return nil, err
		}
		ts := threads[c]
		if len(ts) > 1 {
			fail("%s: %d threads at the desk (%s and %s)", c, len(ts), ts[0].ID, ts[1].ID)
		}
		if !found {
			fail("%s: asked for a person, but the relay has no escalation", c)
			continue
		}
		id := strconv.FormatInt(es.ID, 10)
		switch {
		case es.ThreadID != "":
			if len(ts) != 1 || ts[0].ID != es.ThreadID {
				fail("%s: the relay recorded thread %s, the desk has %d threads", c, es.ThreadID, len(ts))
				break
			}
			switch n := count(ts[0].Messages, func(m simulator.Message) bool { return m.Author == "customer" }); {
			case n > 1:
				fail("%s: the user's request was posted into the thread %d times", c, n)
			case n == 0 && !listed["support-desk/post-message escalation-opening:"+id]:
				fail("%s: the user's request was never posted into the thread, and is not listed uncertain", c)
			}
		case es.Status == "uncertain":
			if !listed["support-desk/create-thread escalation:"+id] {
				fail("%s: escalation %s is uncertain but not listed for reconciliation", c, id)
			}
		default:
			fail("%s: escalation %s ended %s without a thread or an uncertain record (%s)", c, id, es.Status, es.LastError)
		}

		answers := e.chat.Messages(c)
		agentReplies := 0
		for _, t := range ts {
			agentReplies += count(t.Messages, func(m simulator.Message) bool { return m.Author != "customer" })
		}
		switch {
		case len(answers) > 1:
			fail("%s: %d replies delivered into the conversation", c, len(answers))
		case agentReplies > 0 && es.FirstReplyID == "":
			fail("%s: %d agent replies, none handled", c, agentReplies)
		case es.FirstReplyID == "":
		case len(answers) == 1 && answers[0].InReplyTo != es.FirstReplyID:
			fail("%s: delivered reply %s, but the first was %s", c, answers[0].InReplyTo, es.FirstReplyID)
		case len(answers) == 0 && !listed["chat/post-conversation-message escalation-first-reply:"+id]:
			fail("%s: first reply %s never delivered, and not listed uncertain", c, es.FirstReplyID)
		}
	}

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
	e.mu.Unlock()
	if _, current, _ := e.desk.Credentials(); saved != current {
		fail("the refresh token persisted is %s, the desk's is %s: a restart would lose the credential", saved, current)
	}
	return v, nil
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
