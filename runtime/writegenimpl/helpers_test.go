package writegenimpl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// testClock is a Clock that never sleeps: Sleep records the wait, moves
// the time on and calls onSleep with the number of the sleep.
type testClock struct {
	mu      sync.Mutex
	now     time.Time
	sleeps  []time.Duration
	onSleep func(n int)
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	n, hook := len(c.sleeps), c.onSleep
	c.mu.Unlock()
	if hook != nil {
		hook(n)
	}
	return ctx.Err()
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *testClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// loss says what a provider does to a connection after reading a write.
type loss int

const (
	answer        loss = iota // commit (unless step.status is set) and answer
	lostRequest               // reset the connection without committing
	lostResponse              // commit, then reset the connection (RST) without answering
	closeResponse             // commit, then close the connection (FIN) without answering
	hang                      // signal provider.read, then wait until the client leaves
	slowCommit                // hold the key in progress, reset; commit when provider.release closes
	held                      // signal provider.read, wait for provider.release, commit (or replay the key's answer) and answer
	heldLost                  // as held, then reset the connection without answering
)

// step is what the provider does with one write.
type step struct {
	loss    loss
	status  int // answer this status without committing
	header  map[string]string
	release chan struct{} // what a held write waits for; nil: provider.release
}

// seen is one write the provider read completely.
type seen struct {
	key    string
	auth   string
	body   []byte
	method string
}

type keyState struct {
	body []byte
	done bool
	resp []byte
}

// provider is a real HTTP server on 127.0.0.1 that counts the effects it
// commits. POST /things creates a thing; it deduplicates on the
// Idempotency-Key header like Stripe: the same key with the same body
// replays the first answer, with another body is refused (reuseStatus,
// reuseBody), while the first is running is answered 409.
// GET /things?reference=r lists things by reference (a strong lookup; with
// lag=1 it finds nothing, like a lagging index).
type provider struct {
	*httptest.Server
	script      []step
	reuseStatus int
	reuseBody   string
	auth        func(token string) int // status for an Authorization token, 0 = accept
	conflict    map[string]string      // headers of the 409 that answers a key still in progress

	read      chan struct{} // one value per write read under hang
	release   chan struct{} // closed by finishSlowCommit
	releaseMu sync.Once
	committed chan struct{} // closed when a slow commit is done

	conns atomic.Int64

	mu      sync.Mutex // guards the fields below
	writes  []seen
	effects []thing
	keys    map[string]*keyState
	lookups int
	deleted []string // ids of effects deleted (compensated)
}

type thing struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Reference string `json:"reference"`
}

type thingList struct {
	Data []thing `json:"data"`
}

func newProvider(t *testing.T, script ...step) *provider {
	t.Helper()
	return newProviderWith(t, nil, script...)
}

// newProviderWith is newProvider whose server configure changes before it
// starts.
func newProviderWith(t *testing.T, configure func(p *provider), script ...step) *provider {
	t.Helper()
	p := &provider{
		script: script, reuseStatus: 400,
		reuseBody: `{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters they were first used with."}}`,
		read:      make(chan struct{}, 16), release: make(chan struct{}), committed: make(chan struct{}),
		keys: map[string]*keyState{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /things", p.create)
	mux.HandleFunc("GET /things", p.list)
	mux.HandleFunc("DELETE /things/{id}", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.deleted = append(p.deleted, r.PathValue("id"))
		p.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/things", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("GET /redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/things?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
	})
	p.Server = httptest.NewUnstartedServer(mux)
	p.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			p.conns.Add(1)
		}
	}
	if configure != nil {
		configure(p)
	}
	p.Start()
	t.Cleanup(p.Close)
	t.Cleanup(p.finishSlowCommit)
	return p
}

// finishSlowCommit lets a slow commit finish.
func (p *provider) finishSlowCommit() { p.releaseMu.Do(func() { close(p.release) }) }

// refused answers the status p.auth gives the request's token, if any.
func (p *provider) refused(w http.ResponseWriter, r *http.Request) bool {
	if p.auth != nil {
		if s := p.auth(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")); s != 0 {
			w.WriteHeader(s)
			return true
		}
	}
	return false
}

func (p *provider) create(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || p.refused(w, r) {
		return
	}
	key := r.Header.Get("Idempotency-Key")
	p.mu.Lock()
	p.writes = append(p.writes, seen{key: key, auth: r.Header.Get("Authorization"), body: body, method: r.Method})
	st := step{}
	if n := len(p.writes); n <= len(p.script) {
		st = p.script[n-1]
	}
	if ks := p.keys[key]; key != "" && ks != nil {
		p.mu.Unlock()
		switch {
		case !bytes.Equal(ks.body, body):
			w.WriteHeader(p.reuseStatus)
			io.WriteString(w, p.reuseBody)
		case !ks.done:
			for k, v := range p.conflict {
				w.Header().Set(k, v)
			}
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"error":{"type":"idempotency_error","message":"request in progress"}}`)
		default:
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(http.StatusCreated)
			w.Write(ks.resp)
		}
		return
	}
	p.mu.Unlock()
	for k, v := range st.header {
		w.Header().Set(k, v)
	}
	switch {
	case st.status != 0:
		w.WriteHeader(st.status)
		io.WriteString(w, `{"error":{"message":"try later"}}`)
		return
	case st.loss == lostRequest:
		drop(w, true)
		return
	case st.loss == hang:
		p.read <- struct{}{}
		<-r.Context().Done()
		return
	case st.loss == held || st.loss == heldLost:
		p.read <- struct{}{}
		if st.release != nil {
			<-st.release
		} else {
			<-p.release
		}
		resp := p.commitOnce(key, body)
		if st.loss == heldLost {
			drop(w, true)
			return
		}
		w.WriteHeader(http.StatusCreated)
		w.Write(resp)
		return
	case st.loss == slowCommit:
		p.mu.Lock()
		p.keys[key] = &keyState{body: body}
		p.mu.Unlock()
		go func() {
			<-p.release
			p.commit(key, body)
			close(p.committed)
		}()
		drop(w, true)
		return
	}
	resp := p.commit(key, body)
	switch st.loss {
	case lostResponse:
		drop(w, true)
	case closeResponse:
		drop(w, false)
	default:
		w.WriteHeader(http.StatusCreated)
		w.Write(resp)
	}
}

// commitOnce commits, unless an earlier request with the same key has
// committed: then it returns that request's answer.
func (p *provider) commitOnce(key string, body []byte) []byte {
	p.mu.Lock()
	if ks := p.keys[key]; key != "" && ks != nil && ks.done {
		p.mu.Unlock()
		return ks.resp
	}
	p.mu.Unlock()
	return p.commit(key, body)
}

// commit records one effect and returns its answer.
func (p *provider) commit(key string, body []byte) []byte {
	var in thing
	json.Unmarshal(body, &in)
	if in.Title == "" { // a form body
		in.Title = formValue(body, "title")
		in.Reference = formValue(body, "reference")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	in.ID = fmt.Sprintf("th_%d", len(p.effects)+1)
	p.effects = append(p.effects, in)
	resp, _ := json.Marshal(in)
	if key != "" {
		p.keys[key] = &keyState{body: body, done: true, resp: resp}
	}
	return resp
}

func formValue(body []byte, name string) string {
	for _, kv := range strings.Split(string(body), "&") {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	return ""
}

func (p *provider) list(w http.ResponseWriter, r *http.Request) {
	if p.refused(w, r) {
		return
	}
	ref := r.URL.Query().Get("reference")
	p.mu.Lock()
	p.lookups++
	var l thingList
	for _, e := range p.effects {
		if e.Reference == ref && r.URL.Query().Get("lag") == "" {
			l.Data = append(l.Data, e)
		}
	}
	p.mu.Unlock()
	json.NewEncoder(w).Encode(l)
}

// drop ends the connection without an answer: with a reset (RST) or a
// plain close (FIN).
func drop(w http.ResponseWriter, reset bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	if reset {
		conn.(*net.TCPConn).SetLinger(0)
	}
	conn.Close()
}

func (p *provider) effectCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.effects)
}

func (p *provider) seenWrites() []seen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seen(nil), p.writes...)
}

// seed records an effect as an earlier write would have.
func (p *provider) seed(title, reference string) {
	body, _ := json.Marshal(thing{Title: title, Reference: reference})
	p.commit("", body)
}

func (p *provider) deletions() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.deleted...)
}

func (p *provider) lookupCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lookups
}

// refusedAddr returns a loopback address on which connections are refused.
func refusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// refuseFirst returns an HTTP client whose first n dials go to a port that
// refuses connections.
func refuseFirst(t *testing.T, n int) *http.Client {
	bad := refusedAddr(t)
	var dials atomic.Int64
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) <= int64(n) {
			addr = bad
		}
		return d.DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// attempts records the attempts a client reports.
type attempts struct {
	mu   sync.Mutex
	list []runtime.Attempt
}

func (a *attempts) hooks() runtime.Hooks {
	return runtime.Hooks{AttemptDone: func(_ context.Context, _ *runtime.CallInfo, at runtime.Attempt) {
		a.mu.Lock()
		a.list = append(a.list, at)
		a.mu.Unlock()
	}}
}

// classes lists the attempts as "ambiguous", "status 409", "ok 201".
func (a *attempts) classes() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var s []string
	for _, at := range a.list {
		c := at.Class.String()
		if at.Status != 0 {
			c += fmt.Sprint(" ", at.Status)
		}
		s = append(s, c)
	}
	return strings.Join(s, ", ")
}

// notes records the uncertain outcomes a client reports.
type notes struct {
	mu   sync.Mutex
	list []*runtime.UncertainError
}

func (n *notes) Uncertain(_ context.Context, e *runtime.UncertainError) {
	n.mu.Lock()
	n.list = append(n.list, e)
	n.mu.Unlock()
}

// strategy is how a write is protected.
type strategy int

const (
	withKey     strategy = iota // the provider honours an idempotency key
	withLookup                  // no key, a strongly consistent lookup
	ledgerOnly                  // no key, no lookup, a ledger claim
	unprotected                 // none of these
)

func (s strategy) String() string {
	return [...]string{"key", "lookup", "ledger_only", "none"}[s]
}

// thingOp describes POST /things protected by s.
func thingOp(s strategy) *Operation {
	op := &Operation{
		ID: "createThing", Scope: "create-thing", Method: "POST", Path: "/things", Effect: runtime.EffectAmbiguous,
		Retry:    runtime.RetryNotSent | runtime.RetryAmbiguous | runtime.Retry409 | runtime.Retry429 | runtime.Retry503,
		Attempts: 4, Receipt: true, Owner: "support-ops",
	}
	switch s {
	case withKey:
		op.KeyHeader, op.Keyed, op.KeyMaxLength, op.KeyWindow = "Idempotency-Key", true, 255, 24*time.Hour
	case withLookup:
		op.Lookup = runtime.Strong
	case ledgerOnly:
		op.Dedupe = true
	}
	return op
}

type thingKey struct{ id string }

func (k thingKey) BusinessKey() (string, error) {
	if k.id == "" {
		return "", &runtime.EmptyKeyError{Operation: "createThing", Field: "ID"}
	}
	return "thing:" + k.id, nil
}

var listOp = &Operation{ID: "listThings", Method: "GET", Path: "/things", Effect: runtime.EffectReadOnly, Retry: runtime.RetryReads, Attempts: 3}

// thingCall creates a thing titled title, with the provider key as its
// reference; with a lookup through GET /things when the operation has one.
func thingCall(c *Client, op *Operation, title string) Call[*thing] {
	call := Call[*thing]{
		Build: func(pk, ref string) (*Request, error) {
			r := NewRequest("POST", "/things")
			return r, r.JSON(thing{Title: title, Reference: ref})
		},
		ID: thingID,
	}
	if op.Lookup != runtime.NoLookup {
		call.Lookup = lookupThings(c, op.Lookup == runtime.Eventual)
	}
	return call
}

// thingID is the id accessor of a thing.
func thingID(t *thing) string { return t.ID }

// lookupThings finds things by reference through GET /things; lag makes
// the provider's index lag behind, as an eventually consistent one does.
func lookupThings(c *Client, lag bool) func(ctx context.Context, ref string) ([]runtime.Found[*thing], error) {
	return func(ctx context.Context, ref string) ([]runtime.Found[*thing], error) {
		r := NewRequest("GET", "/things")
		r.AddQuery("reference", ref)
		if lag {
			r.AddQuery("lag", "1")
		}
		var l thingList
		if err := Read(ctx, c, listOp, r, &l); err != nil {
			return nil, err
		}
		var out []runtime.Found[*thing]
		for i := range l.Data {
			out = append(out, runtime.Found[*thing]{ID: l.Data[i].ID, Body: &l.Data[i], Ref: l.Data[i].Reference})
		}
		return out, nil
	}
}

// testScope is the provider scope of the test clients.
const testScope = "things"

// pkOf returns the provider key of business key bk of op in the test
// scope, without a tenant or secret.
func pkOf(op *Operation, bk string) string {
	return runtime.ProviderKey(runtime.Identity{Scope: testScope, Operation: op.keyScope(), BusinessKey: bk}, op.KeyMaxLength, nil)
}

// newTestClient returns a client of url on clk with a generous retry
// budget.
func newTestClient(t *testing.T, url string, clk runtime.Clock, opts ...runtime.Option) *Client {
	t.Helper()
	c, err := NewClient(testScope, url, append([]runtime.Option{runtime.WithClock(clk), runtime.WithRetryBudget(1, 1000)}, opts...))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// uncertainReason returns the reason of an *UncertainError, failing the
// test when err is not one.
func uncertainReason(t *testing.T, err error) string {
	t.Helper()
	var ue *runtime.UncertainError
	if !errors.As(err, &ue) || !errors.Is(err, runtime.ErrUncertain) {
		t.Fatalf("err = %v, want an *runtime.UncertainError", err)
	}
	return ue.Reason
}

// beats makes a client's lease heartbeats renew when the test says so,
// instead of every Lease/3 of real time, and counts the heartbeats that
// are running.
type beats struct {
	ch      chan chan struct{} // a beat: closed when the heartbeat is back waiting
	running atomic.Int32

	mu   sync.Mutex    // guards last
	last chan struct{} // the beat to close when the heartbeat waits again
}

// manualBeats installs beats on c.
func manualBeats(c *Client) *beats {
	b := &beats{ch: make(chan chan struct{})}
	c.beat = func(ctx context.Context, _ time.Duration) error {
		b.running.Add(1)
		defer b.running.Add(-1)
		b.mu.Lock()
		if b.last != nil {
			close(b.last)
			b.last = nil
		}
		b.mu.Unlock()
		select {
		case done := <-b.ch:
			b.mu.Lock()
			b.last = done
			b.mu.Unlock()
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return b
}

// beat lets one heartbeat renew its lease, and returns when it has.
func (b *beats) beat() {
	done := make(chan struct{})
	b.ch <- done
	<-done
}

// sentinels returns the outcome sentinels err matches.
func sentinels(err error) []error {
	var out []error
	for _, s := range []error{runtime.ErrUncertain, runtime.ErrRejected, runtime.ErrNotApplied, runtime.ErrInProgress,
		runtime.ErrKeyConflict, runtime.ErrCompensated, runtime.ErrEmptyKey, runtime.ErrDecode} {
		if errors.Is(err, s) {
			out = append(out, s)
		}
	}
	return out
}

// only fails the test unless err matches want and no other sentinel.
func only(t *testing.T, err, want error) {
	t.Helper()
	if got := sentinels(err); len(got) != 1 || got[0] != want {
		t.Errorf("err = %v matches %v, want %v only", err, got, want)
	}
}
