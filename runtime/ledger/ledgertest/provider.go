package ledgertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Provider is a real HTTP server on 127.0.0.1 that records every effect it
// commits, so that a test can count duplicates.
//
//	POST /things {"ref": R, ...}  creates a thing (201 {"id": ..., "ref": R});
//	                              with an Idempotency-Key it has seen, it
//	                              answers the thing made for that key (200)
//	GET  /things?ref=R            finds the thing whose ref is R (200), or 404
type Provider struct {
	URL string

	mu       sync.Mutex
	things   []thing           // committed effects, in order; guarded by mu
	byKey    map[string]thing  // idempotency key → the thing it made; guarded by mu
	keys     map[string]int    // idempotency key → requests that carried it; guarded by mu
	requests int               // POST requests; guarded by mu
	fail     []providerFailure // how the next POSTs fail, first first; guarded by mu
}

// thing is the resource the provider creates, and the body it answers.
type thing struct {
	ID  string `json:"id"`
	Ref string `json:"ref"`
}

// providerFailure is how the provider treats one POST.
type providerFailure int

const (
	// throttle answers 429 without committing anything.
	throttle providerFailure = iota + 1
	// hangUpAfter commits the effect, then closes the connection without
	// answering: the caller cannot tell what happened.
	hangUpAfter
	// reject answers 422 without committing anything.
	reject
	// errorAfter commits the effect, then answers 500.
	errorAfter
)

// NewProvider starts a provider; it stops when the test ends.
func NewProvider(t testing.TB) *Provider {
	p := &Provider{byKey: map[string]thing{}, keys: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// failNext makes the next POSTs fail as given, in order.
func (p *Provider) failNext(f ...providerFailure) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail = append(p.fail, f...)
}

// Effects returns the ids of the committed effects, in order.
func (p *Provider) Effects() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]string, len(p.things))
	for i, t := range p.things {
		ids[i] = t.ID
	}
	return ids
}

// refs returns how many effects carry each ref.
func (p *Provider) refs() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := map[string]int{}
	for _, t := range p.things {
		m[t.Ref]++
	}
	return m
}

// Requests returns how many POSTs arrived.
func (p *Provider) Requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests
}

// keyUses returns how many POSTs carried each idempotency key.
func (p *Provider) keyUses() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := make(map[string]int, len(p.keys))
	for k, n := range p.keys {
		m[k] = n
	}
	return m
}

func (p *Provider) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/things" {
		http.NotFound(w, r)
		return
	}
	if r.Method == http.MethodGet {
		p.find(w, r)
		return
	}
	var in thing
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &in)
	}
	if err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	t, status, failure := p.create(r.Header.Get("Idempotency-Key"), in.Ref)
	switch failure {
	case throttle:
		http.Error(w, "slow down", http.StatusTooManyRequests)
		return
	case reject:
		http.Error(w, `{"error":"invalid thing"}`, http.StatusUnprocessableEntity)
		return
	case errorAfter:
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	case hangUpAfter:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(t) //nolint:errcheck // the client may be gone
}

// create commits a thing unless the key made one already, or the next
// failure says otherwise.
func (p *Provider) create(key, ref string) (thing, int, providerFailure) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests++
	if key != "" {
		p.keys[key]++
	}
	var f providerFailure
	if len(p.fail) > 0 {
		f, p.fail = p.fail[0], p.fail[1:]
	}
	if f == throttle || f == reject {
		return thing{}, 0, f
	}
	if t, ok := p.byKey[key]; ok && key != "" {
		return t, http.StatusOK, f
	}
	t := thing{ID: fmt.Sprintf("thing_%d", len(p.things)+1), Ref: ref}
	p.things = append(p.things, t)
	if key != "" {
		p.byKey[key] = t
	}
	return t, http.StatusCreated, f
}

func (p *Provider) find(w http.ResponseWriter, r *http.Request) {
	ref := r.URL.Query().Get("ref")
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.things {
		if t.Ref == ref {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(t) //nolint:errcheck // the client may be gone
			return
		}
	}
	http.NotFound(w, r)
}
