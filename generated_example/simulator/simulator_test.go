package simulator

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// do sends one request to the desk with the current token and returns status and body, or the
// transport error.
func do(t *testing.T, s *Support, method, path, key, body string) (int, string, error) {
	t.Helper()
	access, _, _ := s.Credentials()
	return doWith(t, s.URL()+path, "Bearer "+access, method, key, body)
}

func doWith(t *testing.T, u, auth, method, key, body string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	// A fresh connection each time, so the transport never replays a request by itself.
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), nil
}

const threadBody = `{"external_reference":"ref-1","conversation_id":"c1","subject":"help"}`

// plan returns a FaultFunc that injects f on the first request of each key and nothing after.
func plan(f Fault) FaultFunc {
	return func(_, _ string, n int) Fault {
		if n == 1 {
			return f
		}
		return NoFault
	}
}

func TestSupportIdempotencyKeys(t *testing.T) {
	s := NewSupport(SupportConfig{})
	defer s.Close()

	st, first, err := do(t, s, "POST", "/threads", "k1", threadBody)
	if err != nil || st != http.StatusCreated {
		t.Fatalf("create: %d %s %v", st, first, err)
	}
	st, again, err := do(t, s, "POST", "/threads", "k1", threadBody)
	if err != nil || st != http.StatusCreated || again != first {
		t.Fatalf("same key, same body: %d %q %v, want 201 %q", st, again, err, first)
	}
	st, _, err = do(t, s, "POST", "/threads", "k1", strings.Replace(threadBody, "help", "other", 1))
	if err != nil || st != http.StatusUnprocessableEntity {
		t.Fatalf("same key, other body: %d %v, want 422", st, err)
	}
	if st, _, _ := do(t, s, "POST", "/threads", "k2", threadBody); st != http.StatusCreated {
		t.Fatalf("another key: %d", st)
	}
	got := s.Stats()
	if got.Threads != 2 || got.Writes.Replayed != 1 || got.Writes.KeyReused != 1 {
		t.Errorf("stats = %+v, want 2 threads, 1 replayed, 1 key reused", got)
	}
	st, body, _ := do(t, s, "GET", "/threads?external_reference=ref-1", "", "")
	var list struct{ Items []Thread }
	if err := json.Unmarshal([]byte(body), &list); st != http.StatusOK || err != nil || len(list.Items) != 2 {
		t.Errorf("search: %d %s", st, body)
	}
}

func TestSupportFaults(t *testing.T) {
	for _, tc := range []struct {
		fault     Fault
		dropped   bool // the first request sees no response
		status    int  // else the status it sees
		committed int  // threads after the first request (and its slow commit)
	}{
		{LoseRequest, true, 0, 0},
		{LoseResponse, true, 0, 1},
		{Unavailable, false, http.StatusServiceUnavailable, 0},
		{RotateToken, false, http.StatusUnauthorized, 0},
		{RotateAfterCommit, false, http.StatusUnauthorized, 1},
	} {
		t.Run(tc.fault.String(), func(t *testing.T) {
			var s *Support
			rotations := 0
			s = NewSupport(SupportConfig{
				Faults: plan(tc.fault),
				Rotate: func(ctx context.Context) error {
					rotations++
					_, refresh, _ := s.Credentials()
					form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}
					resp, err := http.PostForm(s.URL()+"/oauth/token", form)
					if err != nil {
						return err
					}
					return resp.Body.Close()
				},
			})
			defer s.Close()
			access, _, _ := s.Credentials()
			st, _, err := doWith(t, s.URL()+"/threads", "Bearer "+access, "POST", "k", threadBody)
			if tc.dropped != (err != nil) || (!tc.dropped && st != tc.status) {
				t.Fatalf("first request: %d %v", st, err)
			}
			if got := s.Stats().Threads; got != tc.committed {
				t.Fatalf("threads after the first request = %d, want %d", got, tc.committed)
			}
			if tc.fault == RotateToken || tc.fault == RotateAfterCommit {
				if rotations != 1 || s.Stats().Refreshes != 1 {
					t.Fatalf("rotations = %d, refreshes = %d, want 1", rotations, s.Stats().Refreshes)
				}
				if st, _, _ := doWith(t, s.URL()+"/threads", "Bearer "+access, "POST", "k", threadBody); st != http.StatusUnauthorized {
					t.Fatalf("old token after rotation: %d, want 401", st)
				}
			}
			// The retry with the same key converges on one thread.
			if st, _, err := do(t, s, "POST", "/threads", "k", threadBody); err != nil || st != http.StatusCreated {
				t.Fatalf("retry: %d %v", st, err)
			}
			if got := s.Stats(); got.Threads != 1 || got.Writes.Faults[tc.fault] != 1 {
				t.Errorf("stats = %+v, want 1 thread, one %v", got, tc.fault)
			}
		})
	}
}

func TestSupportSlowCommit(t *testing.T) {
	s := NewSupport(SupportConfig{Faults: plan(SlowCommit)})
	defer s.Close()
	if _, _, err := do(t, s, "POST", "/threads", "k", threadBody); err == nil {
		t.Fatal("first request answered, want the connection dropped")
	}
	// The commit is still running unless its cap ran out first: either way the retry does not
	// create a second thread, and the one after a 409 gets the original response.
	st, _, err := do(t, s, "POST", "/threads", "k", threadBody)
	if err != nil || (st != http.StatusConflict && st != http.StatusCreated) {
		t.Fatalf("retry: %d %v", st, err)
	}
	if st == http.StatusConflict {
		if st, _, _ := do(t, s, "POST", "/threads", "k", threadBody); st != http.StatusCreated {
			t.Fatalf("retry after 409: %d", st)
		}
	}
	s.Wait()
	if got := s.Stats().Threads; got != 1 {
		t.Errorf("threads = %d, want 1", got)
	}
}

func TestSupportConcurrentKey(t *testing.T) {
	s := NewSupport(SupportConfig{})
	defer s.Close()
	var wg sync.WaitGroup
	statuses := make([]int, 50)
	for i := range statuses {
		wg.Go(func() { statuses[i], _, _ = do(t, s, "POST", "/threads", "same", threadBody) })
	}
	wg.Wait()
	for _, st := range statuses {
		if st != http.StatusCreated && st != http.StatusConflict {
			t.Fatalf("status %d, want 201 or 409", st)
		}
	}
	if got := s.Stats().Threads; got != 1 {
		t.Errorf("threads = %d, want 1", got)
	}
}

func TestSupportMessagesAndDelete(t *testing.T) {
	s := NewSupport(SupportConfig{})
	defer s.Close()
	_, body, _ := do(t, s, "POST", "/threads", "k", threadBody)
	var th Thread
	if err := json.Unmarshal([]byte(body), &th); err != nil {
		t.Fatal(err)
	}
	msg := `{"author":"customer","text":"hi"}`
	for range 2 {
		if st, b, _ := do(t, s, "POST", "/threads/"+th.ID+"/messages", "m1", msg); st != http.StatusCreated {
			t.Fatalf("post message: %d %s", st, b)
		}
	}
	if st, _, _ := do(t, s, "POST", "/threads/th_nope/messages", "m2", msg); st != http.StatusNotFound {
		t.Errorf("message to a missing thread: %d, want 404", st)
	}
	for range 2 {
		if st, _, _ := do(t, s, "DELETE", "/threads/"+th.ID, "", ""); st != http.StatusNoContent {
			t.Fatalf("delete: %d", st)
		}
	}
	if st, _, _ := do(t, s, "GET", "/threads/"+th.ID, "", ""); st != http.StatusNotFound {
		t.Errorf("get deleted thread: %d, want 404", st)
	}
	got := s.Stats()
	if got.Messages != 1 || got.Deleted != 1 || len(s.Threads()[0].Messages) != 1 {
		t.Errorf("stats = %+v, want 1 message, 1 deleted", got)
	}
}

// receiver records signed webhook deliveries and answers them with the statuses in fail first.
type receiver struct {
	mu     sync.Mutex
	ids    []string
	fail   []int
	secret []byte
	t      *testing.T
	got    chan string // every delivery's event id, when not nil
	stamps []int64     // every delivery's webhook-timestamp
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	id := r.Header.Get("Webhook-Id")
	sec, _ := strconv.ParseInt(r.Header.Get("Webhook-Timestamp"), 10, 64)
	if want := Sign(rc.secret, id, time.Unix(sec, 0), b).Get("Webhook-Signature"); r.Header.Get("Webhook-Signature") != want {
		rc.t.Errorf("bad signature on %s", id)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.ids = append(rc.ids, id)
	rc.stamps = append(rc.stamps, sec)
	if rc.got != nil {
		rc.got <- id
	}
	if len(rc.fail) > 0 {
		w.WriteHeader(rc.fail[0])
		rc.fail = rc.fail[1:]
	}
}

func TestSupportReplyWebhooks(t *testing.T) {
	rc := &receiver{secret: []byte("s"), t: t, fail: []int{500}}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	s := NewSupport(SupportConfig{
		Replies:       func(string) int { return 3 },
		WebhookURL:    hook.URL,
		WebhookSecret: []byte("s"),
		Deliveries: func(id string) Delivery {
			if strings.HasSuffix(id, "_000002") {
				return Twice
			}
			return Once
		},
	})
	do(t, s, "POST", "/threads", "k", threadBody)
	s.Close()
	got := s.Stats()
	if got.Replies != 3 || got.Webhook.Events != 3 || got.Webhook.Acked != 3 || got.Webhook.Duplicated != 1 {
		t.Errorf("stats = %+v, want 3 replies, 3 events acknowledged, 1 duplicated", got)
	}
	// One 500 redelivered, one event delivered twice: 3 events in 5 deliveries.
	if len(rc.ids) != 5 || got.Webhook.Deliveries != 5 || got.Webhook.Redelivered != 1 {
		t.Errorf("deliveries %v (%+v), want 5 with one redelivery", rc.ids, got.Webhook)
	}
	if n := len(s.Threads()[0].Messages); n != 3 {
		t.Errorf("thread has %d messages, want 3 replies", n)
	}
}

func TestChatPostsAndEvents(t *testing.T) {
	rc := &receiver{secret: []byte("c"), t: t, got: make(chan string, 10)}
	hook := httptest.NewServer(rc)
	defer hook.Close()
	c := NewChat(ChatConfig{
		Token:         "bot",
		Faults:        plan(LoseResponse),
		WebhookURL:    hook.URL,
		WebhookSecret: []byte("c"),
		Deliveries: func(id string) Delivery {
			switch {
			case strings.HasSuffix(id, "_000001"):
				return Late
			case strings.HasSuffix(id, "_000002"):
				return AckLost
			}
			return Once
		},
	})
	body := `{"author":"agent-1","text":"hello","in_reply_to":"msg_1"}`
	if _, _, err := doWith(t, c.URL()+"/conversations/c1/messages", "Bearer bot", "POST", "d1", body); err == nil {
		t.Fatal("first post answered, want the response lost")
	}
	if st, _, _ := doWith(t, c.URL()+"/conversations/c1/messages", "Bearer bot", "POST", "d1", body); st != http.StatusCreated {
		t.Fatalf("retry: %d", st)
	}
	if st, _, _ := doWith(t, c.URL()+"/conversations/c1/messages", "Bearer nope", "POST", "d2", body); st != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", st)
	}
	c.RequestEscalation("c1", "a person please")
	c.RequestEscalation("c2", "a person please")
	<-rc.got
	<-rc.got
	c.Close()
	if m := c.Messages("c1"); len(m) != 1 || m[0].InReplyTo != "msg_1" {
		t.Errorf("messages = %+v, want one", m)
	}
	// The late event arrives after the next one has been acknowledged (twice: its ack was lost).
	first, second := c.eventID("evc", 1), c.eventID("evc", 2)
	if strings.Join(rc.ids, " ") != second+" "+second+" "+first {
		t.Errorf("deliveries = %v, want %s twice, then the late %s", rc.ids, second, first)
	}
	if got := c.Stats(); got.Messages != 1 || got.Unauthorized != 1 || got.Webhook.Late != 1 || got.Webhook.AckLost != 1 {
		t.Errorf("stats = %+v", got)
	}
}

// A slow commit with a SlowCommitFunc holds its request unanswered while it runs; a request with
// the same key meanwhile is answered 409, and once the commit is done the key answers with the
// original response. The write commits once, although its caller gave up.
func TestSupportHeldSlowCommit(t *testing.T) {
	s := NewSupport(SupportConfig{
		Faults:     plan(SlowCommit),
		SlowCommit: func(string, string, int) time.Duration { return 500 * time.Millisecond },
	})
	defer s.Close()
	access, _, _ := s.Credentials()
	req, _ := http.NewRequest("POST", s.URL()+"/threads", strings.NewReader(threadBody))
	req.Header.Set("Authorization", "Bearer "+access)
	req.Header.Set("Idempotency-Key", "k")
	impatient := &http.Client{Timeout: 20 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := impatient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("first request answered %d while its commit runs", resp.StatusCode)
	}
	st, _, err := do(t, s, "POST", "/threads", "k", threadBody)
	if err != nil || (st != http.StatusConflict && st != http.StatusCreated) {
		t.Fatalf("retry: %d %v, want 409 (or 201 once the commit is done)", st, err)
	}
	s.Wait()
	if st, _, _ := do(t, s, "POST", "/threads", "k", threadBody); st != http.StatusCreated {
		t.Fatalf("retry after the commit: %d, want 201", st)
	}
	got := s.Stats()
	if got.Threads != 1 || got.Writes.Committed != 1 || got.Writes.Faults[SlowCommit] != 1 {
		t.Errorf("stats = %+v, want 1 thread committed by one slow commit", got)
	}
}

// Route chooses the receiver of each delivery: a delivery that fails goes, here, to the other
// receiver. Signatures carry the time of Clock.
func TestWebhookRouteAndClock(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &receiver{secret: []byte("s"), t: t, fail: []int{503}}
	b := &receiver{secret: []byte("s"), t: t}
	ha, hb := httptest.NewServer(a), httptest.NewServer(b)
	defer ha.Close()
	defer hb.Close()
	var mu sync.Mutex
	var routed []int
	s := NewSupport(SupportConfig{
		Replies: func(string) int { return 1 },
		Route: func(id string, n int) string {
			mu.Lock()
			routed = append(routed, n)
			mu.Unlock()
			if n%2 == 1 {
				return ha.URL
			}
			return hb.URL
		},
		WebhookSecret: []byte("s"),
		Clock:         func() time.Time { return at },
	})
	do(t, s, "POST", "/threads", "k", threadBody)
	s.Close()
	if len(a.ids) != 1 || len(b.ids) != 1 || a.ids[0] != b.ids[0] || len(routed) != 2 || routed[0] != 1 || routed[1] != 2 {
		t.Errorf("deliveries: %v to the first, %v to the second, routed %v; want the first, failed, then the second", a.ids, b.ids, routed)
	}
	if ts := b.stamps[0]; ts != at.Unix() {
		t.Errorf("signed at %d, want the clock's %d", ts, at.Unix())
	}
}

// A note is committed at once but listed only once its lag has passed, by the desk's clock; a
// slow commit of a note is listed by its commit time, not by when a request found it due.
func TestSupportNoteLag(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	notes := 0
	faults := func(op, _ string, _ int) Fault {
		if op == "addNote" {
			if notes++; notes == 2 {
				return SlowCommit
			}
		}
		return NoFault
	}
	s := NewSupport(SupportConfig{Clock: clock, NoteLag: 300 * time.Millisecond, Faults: faults})
	defer s.Close()
	if st, body, err := do(t, s, "POST", "/threads", "k1", threadBody); err != nil || st != http.StatusCreated {
		t.Fatalf("create: %d %s %v", st, body, err)
	}
	thread := s.Threads()[0].ID
	list := func() []string {
		t.Helper()
		st, body, err := do(t, s, "GET", "/threads/"+thread+"/notes", "", "")
		var page struct{ Notes []Note }
		if err != nil || st != http.StatusOK || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("list: %d %s %v", st, body, err)
		}
		var texts []string
		for _, n := range page.Notes {
			texts = append(texts, n.Text)
		}
		return texts
	}
	if st, body, err := do(t, s, "POST", "/threads/"+thread+"/notes", "", `{"text":"one"}`); err != nil || st != http.StatusCreated {
		t.Fatalf("add: %d %s %v", st, body, err)
	}
	if got := list(); len(got) != 0 || len(s.Threads()[0].Notes) != 1 {
		t.Errorf("at once: listed %q, %d committed; want none listed, one committed", got, len(s.Threads()[0].Notes))
	}
	advance(300 * time.Millisecond)
	if got := list(); len(got) != 1 {
		t.Errorf("after the lag: listed %q, want the note", got)
	}
	// The second note's connection breaks; it commits 50ms later by the desk's clock.
	if _, _, err := do(t, s, "POST", "/threads/"+thread+"/notes", "", `{"text":"two"}`); err == nil {
		t.Fatal("slow commit answered")
	}
	advance(time.Hour) // the commit is found due by the list below, an hour later
	if got := list(); len(got) != 2 || got[0] != "two" {
		t.Errorf("an hour after a slow commit: listed %q, want both, newest first", got)
	}
	if n := s.Threads()[0].Notes[1]; n.CreatedAt.After(clock().Add(-59 * time.Minute)) {
		t.Errorf("slow commit created at %v, the clock is at %v: want it created 50ms after its request, an hour before", n.CreatedAt, clock())
	}
}
