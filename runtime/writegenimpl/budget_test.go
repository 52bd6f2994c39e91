package writegenimpl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// frozenClock never moves: Sleep returns at once and Now stays where it
// is, so a retry budget earns nothing from time.
type frozenClock struct{ now time.Time }

func (c frozenClock) Now() time.Time                                   { return c.now }
func (c frozenClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// burstProvider answers the first attempts of every key with the
// statuses of burst (with their headers), then commits the key once and
// replays its answer.
type burstProvider struct {
	*httptest.Server
	burst []func(w http.ResponseWriter)

	mu       sync.Mutex
	attempts map[string]int
	effects  map[string]string // key → id
}

func newBurstProvider(t *testing.T, burst ...func(w http.ResponseWriter)) *burstProvider {
	p := &burstProvider{burst: burst, attempts: map[string]int{}, effects: map[string]string{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		key := r.Header.Get("Idempotency-Key")
		p.mu.Lock()
		n := p.attempts[key]
		p.attempts[key]++
		id, done := p.effects[key]
		if !done && n >= len(p.burst) {
			id = fmt.Sprintf("th_%d", len(p.effects)+1)
			p.effects[key] = id
		}
		p.mu.Unlock()
		if !done && n < len(p.burst) {
			p.burst[n](w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(thing{ID: id, Title: "x"})
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *burstProvider) effectCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.effects)
}

func status(s int, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(s)
	}
}

// burstWrites runs n keyed writes at once on c and returns their errors.
func burstWrites(c *Client, n int) []error {
	op := thingOp(withKey)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Write(context.Background(), c, op, thingKey{fmt.Sprint(i)}, thingCall(c, op, "x"))
		}()
	}
	wg.Wait()
	return errs
}

// TestRetryBudget_ColdClientProviderAskedRetries: a client built a moment
// ago, with the default retry budget and a clock that earns it nothing,
// runs 40 keyed writes through a burst in which the provider asks for
// every retry (429 with Retry-After, three times, then 409 while the key
// is in flight): every write gets its receipt, and the provider has one
// effect per key. The retries the provider asked for do not draw on the
// budget (40 × 3 of them are more than it holds).
func TestRetryBudget_ColdClientProviderAskedRetries(t *testing.T) {
	const n = 40
	p := newBurstProvider(t, status(429, "Retry-After", "1"), status(429, "Retry-After", "1"), status(429, "Retry-After", "1"),
		status(409))
	c, err := NewClient(testScope, p.URL, []runtime.Option{runtime.WithClock(frozenClock{time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)})})
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range burstWrites(c, n) {
		if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if got := p.effectCount(); got != n {
		t.Errorf("%d effects, want %d", got, n)
	}
	// What the provider asked for left the budget as it was: full.
	if !c.budget.retry(c.s.Clock.Now()) || c.budget.tokens != c.budget.capacity-1 {
		t.Errorf("the budget holds %v tokens after the burst, want it full", c.budget.tokens)
	}
}

// TestRetryBudget_StartsFull: a client built a moment ago retries 40
// keyed writes after a 503 each (a retry the budget does count) as one
// that has run for ten seconds would: the bucket starts full.
func TestRetryBudget_StartsFull(t *testing.T) {
	const n = 40
	p := newBurstProvider(t, status(503))
	c, err := NewClient(testScope, p.URL, []runtime.Option{runtime.WithClock(frozenClock{time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)})})
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range burstWrites(c, n) {
		if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if got := p.effectCount(); got != n {
		t.Errorf("%d effects, want %d", got, n)
	}
	// The 503s drew on it: one token each, less what the calls earned.
	if left := c.budget.tokens; left > 10*defaultBudgetMin-n+n*defaultBudgetRatio+0.001 {
		t.Errorf("the budget holds %v tokens after %d retries, want them drawn", left, n)
	}
}
