package ledgertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime/ledger"
)

// secret is the inboxes' webhook secret.
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// newThingInbox returns an inbox whose handler creates one thing per event
// at the provider, without a key, so that a second run of the handler for
// one event shows as a second effect.
func newThingInbox(l *ledger.Ledger, source, secret, providerURL string) (*ledger.Inbox, error) {
	v, err := ledger.NewStandardWebhooks(secret, 0)
	if err != nil {
		return nil, err
	}
	return l.Inbox(ledger.InboxConfig{
		Source: source, Verifier: v, Handle: func(ctx context.Context, e ledger.Event) error {
			return postThing(ctx, providerURL, e.EventID)
		},
		WorkerOptions: ledger.WorkerOptions{Workers: 2, Poll: 20 * time.Millisecond},
	})
}

func postThing(ctx context.Context, providerURL, ref string) error {
	body, _ := json.Marshal(thing{Ref: ref})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, providerURL+"/things", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("provider answered %d", resp.StatusCode)
	}
	return nil
}

// serve serves h on 127.0.0.1 and returns its URL and a function that
// stops it.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// serveTest serves h on 127.0.0.1 until the test ends and returns its URL.
func serveTest(t testing.TB, h http.Handler) string {
	t.Helper()
	url, stop, err := serve(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url
}

// sender signs deliveries as a provider would.
type sender struct {
	t   testing.TB
	v   *ledger.StandardWebhooks
	now func() time.Time
}

func newSenderOfWebhooks(t testing.TB, now func() time.Time) sender {
	v, err := ledger.NewStandardWebhooks(secret, 0)
	if err != nil {
		t.Fatal(err)
	}
	return sender{t: t, v: v, now: now}
}

// deliver posts one signed delivery of event id to url and returns the
// status.
func (s sender) deliver(url, id string, body []byte) int {
	return s.post(url, id, body, func(h http.Header) {})
}

func (s sender) post(url, id string, body []byte, edit func(http.Header)) int {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		s.t.Error(err)
		return 0
	}
	at := s.now()
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	req.Header.Set("webhook-signature", s.v.Sign(id, at, body))
	edit(req.Header)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Error(err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// countingInbox returns an inbox at a URL whose handler counts its runs
// per event id.
func countingInbox(t testing.TB, l *ledger.Ledger, cfg ledger.InboxConfig) (*ledger.Inbox, string, *runs) {
	t.Helper()
	r := &runs{n: map[string]int{}}
	if cfg.Verifier == nil {
		v, err := ledger.NewStandardWebhooks(secret, 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Verifier = v
	}
	if cfg.Source == "" {
		cfg.Source = "chat"
	}
	inner := cfg.Handle
	cfg.Handle = func(ctx context.Context, e ledger.Event) error {
		r.add(e.EventID)
		if inner != nil {
			return inner(ctx, e)
		}
		return nil
	}
	in, err := l.Inbox(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return in, serveTest(t, in), r
}

// runs counts handler runs per event id, in order.
type runs struct {
	mu    sync.Mutex
	n     map[string]int // guarded by mu
	order []string       // guarded by mu
}

func (r *runs) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n[id]++
	r.order = append(r.order, id)
}

func (r *runs) get() (map[string]int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := make(map[string]int, len(r.n))
	for k, v := range r.n {
		n[k] = v
	}
	return n, append([]string(nil), r.order...)
}

func events(t testing.TB, l *ledger.Ledger, state ledger.EventState) []ledger.Event {
	t.Helper()
	es, err := l.Events(context.Background(), "chat", state)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func testInboxSignature(t *testing.T, b Backend) {
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	_, url, _ := countingInbox(t, l, ledger.InboxConfig{})
	s := newSenderOfWebhooks(t, clock.Now)
	body := []byte(`{"type":"message.created"}`)
	for name, edit := range map[string]func(http.Header){
		"no signature": func(h http.Header) { h.Del("webhook-signature") },
		"no id":        func(h http.Header) { h.Del("webhook-id") },
		"another id":   func(h http.Header) { h.Set("webhook-id", "evt_2") },
		"another timestamp": func(h http.Header) {
			h.Set("webhook-timestamp", strconv.FormatInt(clock.Now().Add(-time.Second).Unix(), 10))
		},
		"bad signature":    func(h http.Header) { h.Set("webhook-signature", "v1,"+h.Get("webhook-signature")[4:8]+"AAAA") },
		"another version":  func(h http.Header) { h.Set("webhook-signature", "v2"+h.Get("webhook-signature")[2:]) },
		"another secret's": func(h http.Header) { h.Set("webhook-signature", "v1,K4pF2pN3nmPMOUn5uGZgBAiZMSoLcPfVQ1jR1fCJGZ0=") },
	} {
		if got := s.post(url, "evt_1", body, edit); got != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, got)
		}
	}
	// Signed right, but too long ago or ahead (the tolerance is 5 minutes).
	for _, skew := range []time.Duration{-time.Hour, -6 * time.Minute, 6 * time.Minute} {
		skewed := newSenderOfWebhooks(t, func() time.Time { return clock.Now().Add(skew) })
		if got := skewed.deliver(url, "evt_1", body); got != http.StatusUnauthorized {
			t.Errorf("signed %s from now: status %d, want 401", skew, got)
		}
	}
	if got := events(t, l, ledger.EventPending); len(got) != 0 {
		t.Fatalf("refused deliveries stored %d events", len(got))
	}
	early := newSenderOfWebhooks(t, func() time.Time { return clock.Now().Add(-4 * time.Minute) })
	if got := early.deliver(url, "evt_0", body); got != http.StatusNoContent {
		t.Fatalf("signed 4 minutes ago: status %d, want 204", got)
	}
	// Several signatures, one of them right, as during a secret rotation.
	if got := s.post(url, "evt_1", body, func(h http.Header) {
		h.Set("webhook-signature", "v1,bm90IGl0 "+h.Get("webhook-signature"))
	}); got != http.StatusNoContent {
		t.Fatalf("good delivery: status %d, want 204", got)
	}
	if _, err := ledger.NewStandardWebhooks("whsec_not base64!", 0); err == nil {
		t.Fatal("accepted a secret that is not base64")
	}
}

// testInboxConcurrentDeliveries: concurrent deliveries of one event id are
// all answered 2xx and run the handler once (promise 19).
func testInboxConcurrentDeliveries(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	in, url, r := countingInbox(t, l, ledger.InboxConfig{WorkerOptions: ledger.WorkerOptions{Workers: 4, Poll: 10 * time.Millisecond}})
	s := newSenderOfWebhooks(t, time.Now)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- in.Run(ctx) }()
	var wg sync.WaitGroup
	var ok atomic.Int32
	for range callers {
		wg.Go(func() {
			if s.deliver(url, "evt_1", []byte(`{"n":1}`)) == http.StatusNoContent {
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	waitFor(t, func() bool { return len(events(t, l, ledger.EventDone)) == 1 })
	// The provider's retries of an event already handled.
	for range 10 {
		if s.deliver(url, "evt_1", []byte(`{"n":1}`)) != http.StatusNoContent {
			t.Fatal("a retry of a handled event was not answered 204")
		}
	}
	if n, err := in.HandleDue(ctx); n != 0 || err != nil {
		t.Fatalf("retries of a handled event made %d events due (%v)", n, err)
	}
	cancel()
	<-done
	if n, _ := r.get(); ok.Load() != callers || n["evt_1"] != 1 || len(n) != 1 {
		t.Fatalf("%d of %d deliveries answered 204; handler runs %v; want all, and one run", ok.Load(), callers, n)
	}
}

// waitFor polls cond until it holds; the test's deadline bounds it.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	for !cond() {
		time.Sleep(5 * time.Millisecond)
	}
}

// testInboxAnswersBeforeWork: the delivery is answered while the handler
// has not run, and while it runs (promise 19).
func testInboxAnswersBeforeWork(t *testing.T, b Backend) {
	ctx := context.Background()
	l := open(t, b.NewDSN(t))
	started, release := make(chan string, 2), make(chan struct{})
	in, url, r := countingInbox(t, l, ledger.InboxConfig{Handle: func(ctx context.Context, e ledger.Event) error {
		started <- e.EventID
		<-release
		return nil
	}})
	s := newSenderOfWebhooks(t, time.Now)
	if got := s.deliver(url, "evt_1", []byte(`{}`)); got != http.StatusNoContent {
		t.Fatalf("status %d, want 204", got)
	}
	if n, _ := r.get(); len(n) != 0 {
		t.Fatalf("the handler ran before the delivery was answered: %v", n)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- in.Run(ctx) }()
	<-started // the handler is at work, and stays so until released
	if got := s.deliver(url, "evt_2", []byte(`{}`)); got != http.StatusNoContent {
		t.Fatalf("status %d while a handler works, want 204", got)
	}
	if got := s.deliver(url, "evt_1", []byte(`{}`)); got != http.StatusNoContent {
		t.Fatalf("status %d for a duplicate delivery, want 204", got)
	}
	close(release)
	waitFor(t, func() bool { return len(events(t, l, ledger.EventDone)) == 2 })
	cancel()
	<-done
	if n, _ := r.get(); n["evt_1"] != 1 || n["evt_2"] != 1 {
		t.Fatalf("handler runs %v, want one per event", n)
	}
}

// testInboxRetries: a failing handler is retried after a backoff, the
// attempts recorded, until it succeeds or the attempts are spent.
func testInboxRetries(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	fails := map[string]int{"evt_ok": 2, "evt_dead": 100}
	in, url, r := countingInbox(t, l, ledger.InboxConfig{
		Handle: func(ctx context.Context, e ledger.Event) error {
			if fails[e.EventID] >= e.Attempts {
				return fmt.Errorf("attempt %d failed", e.Attempts)
			}
			return nil
		},
		WorkerOptions: ledger.WorkerOptions{MaxAttempts: 4, Backoff: func(n int) time.Duration { return time.Duration(n) * time.Minute }},
	})
	s := newSenderOfWebhooks(t, clock.Now)
	for _, id := range []string{"evt_ok", "evt_dead"} {
		if got := s.deliver(url, id, []byte(`{}`)); got != http.StatusNoContent {
			t.Fatalf("status %d", got)
		}
	}
	// Handled per pass; the clock moves after each second pass, past the
	// backoffs of 1, 2 and 3 minutes.
	want := []int{2, 0, 2, 0, 2, 0, 1}
	var got []int
	for i := range want {
		n, err := in.HandleDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
		if i%2 == 1 {
			clock.Advance(time.Duration(i/2+1) * time.Minute)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("passes handled %v, want %v", got, want)
	}
	// The last pass ran evt_dead's fourth attempt; evt_ok was done at its third.
	done, failed := events(t, l, ledger.EventDone), events(t, l, ledger.EventFailed)
	if len(done) != 1 || done[0].EventID != "evt_ok" || done[0].Attempts != 3 {
		t.Fatalf("passes handled %v; done events %+v", got, done)
	}
	if len(failed) != 1 || failed[0].Attempts != 4 || failed[0].LastError != "attempt 4 failed" {
		t.Fatalf("passes handled %v; failed events %+v", got, failed)
	}
	if n, _ := r.get(); n["evt_ok"] != 3 || n["evt_dead"] != 4 {
		t.Fatalf("handler runs %v", n)
	}
}

// testInboxOrder: events that arrive out of order are handled as the
// inbox declares (promise 19).
func testInboxOrder(t *testing.T, b Backend) {
	ctx := context.Background()
	seq := func(body []byte) (string, int64, error) {
		var e struct {
			Thread string `json:"thread"`
			Seq    int64  `json:"seq"`
		}
		err := json.Unmarshal(body, &e)
		return e.Thread, e.Seq, err
	}
	event := func(thread string, n int) []byte { return fmt.Appendf(nil, `{"thread":%q,"seq":%d}`, thread, n) }
	for _, tc := range []struct {
		order ledger.Order
		want  []string // handler runs, in order
		skip  []string // events skipped
	}{
		{ledger.AnyOrder, []string{"t1-3", "t1-1", "t1-2", "t2-1", "t1-0"}, nil},
		{ledger.InOrder, []string{"t1-1", "t1-2", "t1-3", "t2-1", "t1-0"}, nil},
		{ledger.Latest, []string{"t1-1", "t1-2", "t1-3", "t2-1"}, []string{"t1-0"}},
	} {
		t.Run(tc.order.String(), func(t *testing.T) {
			l := open(t, b.NewDSN(t))
			in, url, r := countingInbox(t, l, ledger.InboxConfig{Order: tc.order, Sequence: seq})
			s := newSenderOfWebhooks(t, time.Now)
			// t1's events arrive as 3, 1, 2; then t2's; t1-0 after all
			// of t1 was handled.
			for _, e := range []struct {
				id     string
				thread string
				n      int
			}{{"t1-3", "t1", 3}, {"t1-1", "t1", 1}, {"t1-2", "t1", 2}, {"t2-1", "t2", 1}} {
				if got := s.deliver(url, e.id, event(e.thread, e.n)); got != http.StatusNoContent {
					t.Fatalf("status %d", got)
				}
			}
			if _, err := in.HandleDue(ctx); err != nil {
				t.Fatal(err)
			}
			if got := s.deliver(url, "t1-0", event("t1", 0)); got != http.StatusNoContent {
				t.Fatalf("status %d", got)
			}
			if _, err := in.HandleDue(ctx); err != nil {
				t.Fatal(err)
			}
			_, order := r.get()
			if fmt.Sprint(order) != fmt.Sprint(tc.want) {
				t.Fatalf("handled %v, want %v", order, tc.want)
			}
			var skipped []string
			for _, e := range events(t, l, ledger.EventSkipped) {
				skipped = append(skipped, e.EventID)
			}
			if fmt.Sprint(skipped) != fmt.Sprint(tc.skip) {
				t.Fatalf("skipped %v, want %v", skipped, tc.skip)
			}
			if got := s.deliver(url, "bad", []byte(`not json`)); got != http.StatusBadRequest && tc.order != ledger.AnyOrder {
				t.Fatalf("an event without a sequence: status %d, want 400", got)
			}
		})
	}
	if _, err := open(t, b.NewDSN(t)).Inbox(ledger.InboxConfig{Source: "chat", Verifier: &ledger.StandardWebhooks{},
		Handle: func(context.Context, ledger.Event) error { return nil }, Order: ledger.Latest}); err == nil {
		t.Fatal("an ordered inbox without a Sequence function was accepted")
	}
}

// testInboxRetention: event ids are kept for the retention, so a late
// retry of the provider is recognised, and pruned after it.
func testInboxRetention(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	seq := func(body []byte) (string, int64, error) {
		n, err := strconv.ParseInt(string(body), 10, 64)
		return "thread", n, err
	}
	in, url, r := countingInbox(t, l, ledger.InboxConfig{Order: ledger.Latest, Sequence: seq})
	s := newSenderOfWebhooks(t, clock.Now)
	for i, id := range []string{"evt_1", "evt_2"} {
		if got := s.deliver(url, id, []byte(strconv.Itoa(i+1))); got != http.StatusNoContent {
			t.Fatalf("status %d", got)
		}
	}
	if n, err := in.HandleDue(ctx); n != 2 || err != nil {
		t.Fatalf("handled %d, %v", n, err)
	}
	clock.Advance(71 * time.Hour)
	if got := s.deliver(url, "evt_1", []byte("1")); got != http.StatusNoContent {
		t.Fatalf("late retry: status %d", got)
	}
	if n, err := in.Prune(ctx); n != 0 || err != nil {
		t.Fatalf("pruned %d events inside the retention (%v)", n, err)
	}
	if n, err := in.HandleDue(ctx); n != 0 || err != nil {
		t.Fatalf("a late retry was handled again: %d, %v", n, err)
	}
	clock.Advance(2 * time.Hour)
	// evt_1 goes; evt_2, the newest handled event of its ordering key, stays.
	if n, err := in.Prune(ctx); n != 1 || err != nil {
		t.Fatalf("pruned %d events after the retention, want 1 (%v)", n, err)
	}
	if done := events(t, l, ledger.EventDone); len(done) != 1 || done[0].EventID != "evt_2" {
		t.Fatalf("kept %+v, want evt_2", done)
	}
	if n, _ := r.get(); n["evt_1"] != 1 || n["evt_2"] != 1 {
		t.Fatalf("handler runs %v", n)
	}
}

// inboxEvents is how many events testInboxNodes delivers.
const inboxEvents = 20

// testInboxNodes: several inboxes on one database (OS processes where the
// database allows it), each event delivered to all of them at once: the
// provider sees one effect per event (promises 19 and 20).
func testInboxNodes(t *testing.T, b Backend) {
	dsn := b.NewDSN(t)
	l := open(t, dsn)
	p := NewProvider(t)
	var urls []string
	var children []*child
	if b.Processes <= 1 {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		t.Cleanup(func() { cancel(); wg.Wait() })
		for range 3 {
			in, err := newThingInbox(l, "chat", secret, p.URL)
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() { in.Run(ctx) }) //nolint:errcheck // ends with ctx
			urls = append(urls, serveTest(t, in))
		}
	} else {
		for range b.Processes {
			c := startChild(t, childArgs{Role: "inbox", DSN: dsn, URL: p.URL, Source: "chat", Secret: secret})
			url := c.line()
			if url == "" {
				t.Fatalf("child did not start\n%s", c.stderr.String())
			}
			urls = append(urls, url)
			children = append(children, c)
		}
	}
	s := newSenderOfWebhooks(t, time.Now)
	var wg sync.WaitGroup
	for i := range inboxEvents {
		for _, url := range urls {
			wg.Go(func() {
				if got := s.deliver(url, fmt.Sprint("evt_", i), []byte(`{}`)); got != http.StatusNoContent {
					t.Errorf("status %d", got)
				}
			})
		}
	}
	wg.Wait()
	waitFor(t, func() bool { return len(events(t, l, ledger.EventDone)) == inboxEvents })
	for _, c := range children {
		c.finish()
	}
	if refs := p.refs(); len(refs) != inboxEvents || len(p.Effects()) != inboxEvents {
		t.Fatalf("the provider holds %d effects for %d events: %v", len(p.Effects()), len(refs), refs)
	}
}

// errTest is the error of a handler that always fails.
var errTest = errors.New("the handler failed")

// testInboxPanics: a handler that panics on an event is a failed attempt:
// the event is retried after the backoff and set aside as failed after
// MaxAttempts, while the worker, and the process, go on handling the
// other events (promise 33).
func testInboxPanics(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := NewClock()
	l := open(t, b.NewDSN(t), ledger.WithClock(clock))
	in, url, r := countingInbox(t, l, ledger.InboxConfig{
		Handle: func(ctx context.Context, e ledger.Event) error {
			if e.EventID == "poison" {
				panic("cannot handle " + e.EventID)
			}
			return nil
		},
		WorkerOptions: ledger.WorkerOptions{Workers: 1, Poll: 5 * time.Millisecond, MaxAttempts: 3,
			Backoff: func(n int) time.Duration { return time.Duration(n) * time.Minute }},
	})
	s := newSenderOfWebhooks(t, clock.Now)
	// serve runs the worker until the event id has been handled.
	serve := func(id string) {
		t.Helper()
		if got := s.deliver(url, id, []byte(`{}`)); got != http.StatusNoContent {
			t.Fatalf("status %d", got)
		}
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- in.Run(ctx) }()
		waitFor(t, func() bool { n, _ := r.get(); return n[id] == 1 })
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
	}
	if got := s.deliver(url, "poison", []byte(`{}`)); got != http.StatusNoContent {
		t.Fatalf("status %d", got)
	}
	serve("good") // the one worker takes the poison event first
	poison := events(t, l, ledger.EventPending)
	if len(poison) != 1 || poison[0].EventID != "poison" || poison[0].Attempts != 1 || poison[0].LastError != "handler panicked: cannot handle poison" {
		t.Fatalf("pending events after the first panic: %+v", poison)
	}
	for n := 1; n < 3; n++ {
		if got, err := in.HandleDue(ctx); got != 0 || err != nil {
			t.Fatalf("handled %d, %v before the backoff passed", got, err)
		}
		clock.Advance(time.Duration(n) * time.Minute)
		if got, err := in.HandleDue(ctx); got != 1 || err != nil {
			t.Fatalf("attempt %d: handled %d, %v", n+1, got, err)
		}
	}
	clock.Advance(time.Hour)
	if got, err := in.HandleDue(ctx); got != 0 || err != nil {
		t.Fatalf("an event set aside was handled again: %d, %v", got, err)
	}
	serve("after")
	failed := events(t, l, ledger.EventFailed)
	if len(failed) != 1 || failed[0].EventID != "poison" || failed[0].Attempts != 3 || failed[0].LastError != "handler panicked: cannot handle poison" {
		t.Fatalf("failed events %+v", failed)
	}
	if n, _ := r.get(); n["poison"] != 3 || n["good"] != 1 || n["after"] != 1 {
		t.Fatalf("handler runs %v", n)
	}
}

// verifier is a Verifier without a tolerance; tolerantVerifier has one.
type verifier struct{}

func (verifier) Verify(http.Header, []byte, time.Time) (string, error) {
	return "", ledger.ErrSignature
}

type tolerantVerifier struct {
	verifier
	tolerance time.Duration
}

func (v tolerantVerifier) Tolerance() time.Duration { return v.tolerance }

// testInboxRetentionAndTolerance: an inbox that would forget an event id
// while a replay of its delivery still verifies is refused when it is
// built (promise 33).
func testInboxRetentionAndTolerance(t *testing.T, b Backend) {
	l := open(t, b.NewDSN(t))
	sw, err := ledger.NewStandardWebhooks(secret, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if sw.Tolerance() != 10*time.Minute {
		t.Fatalf("tolerance %s", sw.Tolerance())
	}
	handle := func(context.Context, ledger.Event) error { return nil }
	for _, tc := range []struct {
		v         ledger.Verifier
		retention time.Duration
		ok        bool
	}{
		{sw, 9 * time.Minute, false},
		{sw, 19 * time.Minute, false},
		{sw, 20 * time.Minute, true},
		{sw, 0, true}, // 72 hours
		{tolerantVerifier{tolerance: 48 * time.Hour}, 0, false},
		{tolerantVerifier{tolerance: time.Hour}, 2 * time.Hour, true},
		{verifier{}, time.Second, true}, // no tolerance to compare with
	} {
		_, err := l.Inbox(ledger.InboxConfig{Source: "chat", Verifier: tc.v, Handle: handle, Retention: tc.retention})
		if (err == nil) != tc.ok || err != nil && !strings.Contains(err.Error(), "tolerance") {
			t.Errorf("retention %s, verifier %T: %v; want ok=%v", tc.retention, tc.v, err, tc.ok)
		}
	}
	for _, w := range []string{"any", "in_order", "latest"} {
		o, err := ledger.ParseOrder(w)
		if err != nil || o.String() != w {
			t.Errorf("ParseOrder(%q) = %v, %v", w, o, err)
		}
	}
	if _, err := ledger.ParseOrder("ordered"); err == nil {
		t.Error("ParseOrder accepted \"ordered\"")
	}
}
