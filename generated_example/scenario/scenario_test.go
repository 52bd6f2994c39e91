package scenario

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/generated_example/relay"
	"github.com/writegen/writegen/generated_example/simulator"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

func TestMain(m *testing.M) {
	if code, ok := ReplicaMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func newEnv(t *testing.T) (*Env, string) {
	t.Helper()
	return newEnvWith(t, Options{})
}

// newEnvWith is newEnv with the options o, on a ledger of the test's own, with instant backoff.
func newEnvWith(t *testing.T, o Options) (*Env, string) {
	t.Helper()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "ledger.db")
	o.Ledger, o.Instant = dsn, true
	env, err := NewEnv(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env, dsn
}

func run(t *testing.T, env *Env, s Schedule) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	violations, err := env.Run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(violations) > 0 {
		t.Fatalf("%d checks did not hold:\n  %s", len(violations), strings.Join(violations, "\n  "))
	}
}

// Without faults every escalation gets one thread, every second request is answered from our
// records, the user's request reaches the thread and only the first reply reaches the user.
func TestWithoutFaults(t *testing.T) {
	env, _ := newEnv(t)
	run(t, env, Schedule{Seed: 7, Escalations: 6, Repeat: 1, MaxReplies: 3})
	f := env.Figures()
	if f.Conversations != 6 || f.Requests != 12 || f.Threads != 6 || f.Recorded != 6 || f.RepeatRequests != 6 || f.Openings != 6 {
		t.Errorf("escalations: %+v", f)
	}
	if f.Replies == 0 || f.Answers+f.LaterReplies != f.Replies || f.Answers > 6 {
		t.Errorf("replies: %d written, %d delivered, %d not relayed", f.Replies, f.Answers, f.LaterReplies)
	}
	if f.FaultsInjected() != 0 || f.Redeliveries != 0 || f.KeyReplays != 0 || len(f.Notices) != 0 {
		t.Errorf("faults or retries without faults: %+v", f)
	}
	if lost, err := env.Unhandled(t.Context()); err != nil || len(lost) > 0 || f.Events != 12+f.Replies {
		t.Errorf("%d events sent (want 12 requests and %d replies), unhandled %v, %v", f.Events, f.Replies, lost, err)
	}
}

// A thread that cannot be settled is uncertain, told to its owner and listed by
// "writegen ledger list"; nothing is created twice meanwhile, as Resume drives the rows on
// and they end uncertain again. Every request is lost and the desk's search is down with it,
// so nothing can tell whether a thread was made; with the search up, "not found" proves it
// was not (TestLostRequestsNotApplied).
func TestUncertainListed(t *testing.T) {
	env, dsn := newEnv(t)
	run(t, env, Schedule{Seed: 3, Escalations: 3, Stubborn: 1, SearchDown: true, Faults: []simulator.Fault{simulator.LoseRequest}})
	f := env.Figures()
	writes := make(map[string]bool)
	for _, n := range f.Notices {
		writes[n.BusinessKey] = true
	}
	if f.Threads != 0 || f.Uncertain != 3 || len(writes) != 3 || f.Lookups < 3 || f.Checked.Listed != 3 {
		t.Fatalf("want 3 uncertain escalations after 3 lookups or more, got %+v", f)
	}
	// Resume drives the rows on now and again: while it does, they are claimed, not uncertain.
	release, err := env.HoldResume(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, n := range f.Notices {
		if n.OperationID != "createThread" || n.Owner != "support-ops" || n.Attempts != 4 {
			t.Errorf("notice %+v", n)
		}
	}
	var out, errOut bytes.Buffer
	if code := ledgercli.Run(t.Context(), []string{"list", "-db", dsn}, &out, &errOut); code != 0 {
		t.Fatalf("writegen ledger list: exit %d: %s", code, errOut.String())
	}
	for _, n := range f.Notices {
		if !strings.Contains(out.String(), n.BusinessKey) {
			t.Errorf("writegen ledger list does not show %s:\n%s", n.BusinessKey, out.String())
		}
	}
	rows, err := env.Ledger().List(t.Context(), ledger.Filter{State: runtime.StateUncertain, Scope: "support-desk", AnyTenant: true})
	if err != nil || len(rows) != 3 {
		t.Errorf("uncertain rows: %d, %v", len(rows), err)
	}
}

// TestLostRequestsNotApplied: a thread whose requests were all lost on their way is not
// uncertain when the desk's search is strong and the clients wait its settle time: "not found"
// after it proves the thread was never created, the call ends not applied, and the relay sends
// it again with the same key once the desk heals: one thread each, no person involved.
func TestLostRequestsNotApplied(t *testing.T) {
	env, _ := newEnv(t)
	run(t, env, Schedule{Seed: 3, Escalations: 3, Stubborn: 1, StubbornFor: 4, Faults: []simulator.Fault{simulator.LoseRequest}})
	f := env.Figures()
	if f.Threads != 3 || f.Recorded != 3 || f.Uncertain != 0 || f.NotApplied < 3 || f.Lookups < 3 {
		t.Fatalf("want 3 threads, each after a call that ended not applied, none uncertain; got %+v", f)
	}
	for _, n := range f.Notices {
		if n.OperationID == "createThread" || n.OperationID == "addNote" {
			t.Errorf("told %v; want no uncertain thread or note (their lookups can answer)", n)
		}
	}
}

// Once the desk heals, the uncertain threads are driven on with their keys (by the periodic
// Resume, or by the relay's reconcile calling again and taking the row over, whichever comes
// first), and recorded on their escalations: one thread each, and the user's request posted
// into it.
func TestUncertainReconciled(t *testing.T) {
	env, _ := newEnv(t)
	run(t, env, Schedule{Seed: 3, Escalations: 3, Stubborn: 1, SearchDown: true, Faults: []simulator.Fault{simulator.LoseRequest}})
	if f := env.Figures(); f.Uncertain != 3 || f.Threads != 0 {
		t.Fatalf("want 3 uncertain escalations first, got %+v", f)
	}
	run(t, env, Schedule{Seed: 4}) // no faults from now on
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for i := 1; i <= 3; i++ {
		conv := env.prefix + "1-" + strconv.Itoa(i)
		for {
			es, _, err := relay.ReadEscalation(ctx, env.Ledger(), conv)
			if err != nil {
				t.Fatal(err)
			}
			if es.ThreadID != "" {
				break
			}
			if err := sleepUntil(ctx, time.Now().Add(10*time.Millisecond)); err != nil {
				t.Fatalf("%s: no thread recorded after the desk healed: %v (%+v)", conv, err, env.Figures())
			}
		}
	}
	run(t, env, Schedule{Seed: 5}) // checks the ledger at rest again
	f := env.Figures()
	if f.Threads != 3 || f.Reconciled != 3 || f.Uncertain != 0 || f.Openings != 3 || f.Duplicated != 0 {
		t.Errorf("want 3 threads, reconciled once the desk healed, with the requests posted; got %+v", f)
	}
}

// Webhooks whose signature does not verify are refused and never handled.
func TestWebhookSignature(t *testing.T) {
	env, _ := newEnv(t)
	body := []byte(`{"event_id":"forged","conversation_id":"c-forged","text":"hi"}`)
	for _, src := range []string{"chat", "support"} {
		h := simulator.Sign([]byte("not the secret"), "forged", time.Now(), body)
		req, _ := http.NewRequest(http.MethodPost, env.WebhookURL("forged")+src, bytes.NewReader(body))
		req.Header = h
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: forged delivery answered %d, want 401", src, resp.StatusCode)
		}
	}
	run(t, env, Schedule{Seed: 1})
	if _, found, err := relay.ReadEscalation(t.Context(), env.Ledger(), "c-forged"); err != nil || found {
		t.Errorf("forged escalation recorded: %v %v", found, err)
	}
}
