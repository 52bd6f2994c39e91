package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testClock is a Clock that never sleeps: Sleep moves the time on.
type testClock struct {
	mu  sync.Mutex // guards now
	now time.Time
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
	c.advance(d)
	return ctx.Err()
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// credential is a provider's token endpoint: it rotates the refresh token
// on every refresh. Its tokens live for life (a year by default).
type credential struct {
	clk  Clock
	life time.Duration

	mu        sync.Mutex // guards the fields below
	refreshes []string   // refresh tokens presented
	saved     []Token    // tokens persisted
	failSave  int        // persist fails this many times
	fail      error      // refresh fails with this error
}

func (cr *credential) refresh(_ context.Context, rt string) (Token, error) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.refreshes = append(cr.refreshes, rt)
	if cr.fail != nil {
		return Token{}, cr.fail
	}
	n := len(cr.refreshes) + 1
	expiry := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	if cr.life != 0 {
		expiry = cr.clk.Now().Add(cr.life)
	}
	return Token{Access: fmt.Sprint("access-", n), Refresh: fmt.Sprint("refresh-", n), Expiry: expiry}, nil
}

func (cr *credential) persist(_ context.Context, t Token) error {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.failSave > 0 {
		cr.failSave--
		return errors.New("disk full")
	}
	cr.saved = append(cr.saved, t)
	return nil
}

func (cr *credential) counts() (refreshes, saved int) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return len(cr.refreshes), len(cr.saved)
}

// isSaved reports whether an access token was persisted.
func (cr *credential) isSaved(access string) bool {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	for _, t := range cr.saved {
		if t.Access == access {
			return true
		}
	}
	return false
}

func expired(clk Clock) Token {
	return Token{Access: "access-1", Refresh: "refresh-1", Expiry: clk.Now().Add(-time.Minute)}
}

// countingClock closes reached when Now has been called at times.
type countingClock struct {
	*testClock
	calls   atomic.Int64
	at      int64
	reached chan struct{}
}

func (c *countingClock) Now() time.Time {
	if c.calls.Add(1) == c.at {
		close(c.reached)
	}
	return c.testClock.Now()
}

// TestPromise21_Refresher: many callers of an expired credential share one
// refresh; a rotated token is persisted before it is used.
func TestPromise21_Refresher(t *testing.T) {
	t.Run("one refresh, all waiting", func(t *testing.T) {
		// The refresh returns only once every caller has found the token
		// expired (NewRefresher reads the clock once too), so each caller
		// either waits for it or refreshes too.
		const n = 100
		clk := &countingClock{testClock: newTestClock(), at: n + 1, reached: make(chan struct{})}
		var cr credential
		refresh := func(ctx context.Context, rt string) (Token, error) {
			<-clk.reached
			return cr.refresh(ctx, rt)
		}
		ts := NewRefresher(expired(clk), refresh, cr.persist, WithRefreshClock(clk))
		var wg sync.WaitGroup
		toks := make(chan string, n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tok, _, err := ts.Token(context.Background())
				if err != nil {
					t.Error(err)
				}
				toks <- tok
			}()
		}
		wg.Wait()
		close(toks)
		for tok := range toks {
			if tok != "access-2" {
				t.Fatalf("token %q, want access-2", tok)
			}
		}
		if r, s := cr.counts(); r != 1 || s != 1 {
			t.Errorf("%d refreshes, %d tokens persisted; want 1 and 1", r, s)
		}
	})
	t.Run("persisted before use", func(t *testing.T) {
		clk := newTestClock()
		cr := credential{failSave: 1}
		ts := NewRefresher(expired(clk), cr.refresh, cr.persist, WithRefreshClock(clk))
		if tok, _, err := ts.Token(context.Background()); err == nil {
			t.Fatalf("got token %q although it could not be persisted", tok)
		}
		tok, gen, err := ts.Token(context.Background())
		if err != nil || tok != "access-2" || !cr.isSaved("access-2") {
			t.Fatalf("token %q, err %v, saved %v: want access-2 once persisted", tok, err, cr.saved)
		}
		if r, _ := cr.counts(); r != 1 {
			t.Errorf("refreshed %d times: the rotated refresh token was thrown away", r)
		}
		if ts.Rotated(gen) || !ts.Rotated(gen-1) {
			t.Errorf("Rotated(%d) = %v, Rotated(%d) = %v", gen, ts.Rotated(gen), gen-1, ts.Rotated(gen-1))
		}
	})
}

// TestPromise32_RefreshBounded: a token that lives shorter than the refresh
// margin is refreshed once in its lifetime, not on every call; a failing
// refresh is not hammered.
func TestPromise32_RefreshBounded(t *testing.T) {
	t.Run("short-lived tokens", func(t *testing.T) {
		clk := newTestClock()
		cr := credential{clk: clk, life: 10 * time.Second} // the margin is 30s
		ts := NewRefresher(Token{Access: "access-1", Refresh: "refresh-1", Expiry: clk.Now().Add(10 * time.Second)},
			cr.refresh, cr.persist, WithRefreshClock(clk))
		const calls = 190_000
		for range calls { // 190 seconds of calls, one a millisecond
			if _, _, err := ts.Token(context.Background()); err != nil {
				t.Fatal(err)
			}
			clk.advance(time.Millisecond)
		}
		// Each token is refreshed half-way through its 10s life.
		r, _ := cr.counts()
		if max := 190/5 + 1; r > max || r == 0 {
			t.Errorf("%d refreshes in 190s of 10s tokens, want between 1 and %d", r, max)
		}
	})
	t.Run("tokens that expire before they arrive", func(t *testing.T) {
		clk := newTestClock()
		cr := credential{clk: clk, life: -time.Second}
		ts := NewRefresher(expired(clk), cr.refresh, cr.persist, WithRefreshClock(clk))
		for range 10_000 { // ten seconds of calls
			ts.Token(context.Background())
			clk.advance(time.Millisecond)
		}
		if r, _ := cr.counts(); r > 11 {
			t.Errorf("%d refreshes in 10s, want at most one a second", r)
		}
	})
	t.Run("failing refresh", func(t *testing.T) {
		clk := newTestClock()
		cr := credential{fail: errors.New("invalid_grant")}
		ts := NewRefresher(expired(clk), cr.refresh, cr.persist, WithRefreshClock(clk))
		for range 1000 {
			if _, _, err := ts.Token(context.Background()); err == nil {
				t.Fatal("a token although the refresh fails")
			}
		}
		if r, _ := cr.counts(); r != 1 {
			t.Errorf("%d refreshes at one instant, want 1", r)
		}
		clk.advance(time.Second)
		ts.Token(context.Background())
		if r, _ := cr.counts(); r != 2 {
			t.Errorf("%d refreshes after a second, want 2", r)
		}
	})
}

// TestPromise32_RefreshDetached: the shared refresh runs on its own context
// with its own deadline: a caller that gives up fails neither the refresh
// nor the other callers, and a rotated refresh token is persisted even when
// every caller has given up.
func TestPromise32_RefreshDetached(t *testing.T) {
	t.Run("one caller gives up", func(t *testing.T) {
		clk := newTestClock()
		var cr credential
		started, release := make(chan struct{}), make(chan struct{})
		var refreshErr atomic.Value
		var deadline atomic.Value
		refresh := func(ctx context.Context, rt string) (Token, error) {
			close(started)
			<-release
			refreshErr.Store(fmt.Sprint(ctx.Err()))
			dl, _ := ctx.Deadline()
			deadline.Store(dl)
			return cr.refresh(ctx, rt)
		}
		ts := NewRefresher(expired(clk), refresh, cr.persist, WithRefreshClock(clk), WithRefreshTimeout(time.Hour))
		first, cancel := context.WithCancel(context.Background())
		firstErr := make(chan error)
		go func() { _, _, err := ts.Token(first); firstErr <- err }()
		<-started
		other := make(chan string)
		go func() {
			tok, _, err := ts.Token(context.Background())
			if err != nil {
				t.Error(err)
			}
			other <- tok
		}()
		cancel() // the first caller's 5ms deadline, as it were
		if err := <-firstErr; !errors.Is(err, context.Canceled) {
			t.Errorf("first caller: err %v, want its own context's", err)
		}
		close(release)
		if tok := <-other; tok != "access-2" {
			t.Errorf("other caller got %q, want access-2", tok)
		}
		if e := refreshErr.Load(); e != "<nil>" {
			t.Errorf("the refresh ran on a context that ended: %v", e)
		}
		if dl := deadline.Load().(time.Time); dl.IsZero() || time.Until(dl) < 50*time.Minute {
			t.Errorf("refresh deadline %v, want the refresh timeout's (an hour)", dl)
		}
	})
	t.Run("every caller gives up", func(t *testing.T) {
		clk := newTestClock()
		var cr credential
		release := make(chan struct{})
		persisted := make(chan struct{})
		refresh := func(ctx context.Context, rt string) (Token, error) {
			<-release
			return cr.refresh(ctx, rt)
		}
		persist := func(ctx context.Context, tok Token) error {
			defer close(persisted)
			return cr.persist(ctx, tok)
		}
		ts := NewRefresher(expired(clk), refresh, persist, WithRefreshClock(clk))
		for range 3 {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, _, err := ts.Token(ctx); err == nil {
				t.Fatal("a token for a caller that gave up")
			}
		}
		close(release)
		<-persisted
		if !cr.isSaved("access-2") {
			t.Fatalf("the rotated token was not persisted: %v", cr.saved)
		}
		tok, _, err := ts.Token(context.Background())
		if r, _ := cr.counts(); err != nil || tok != "access-2" || r != 1 {
			t.Errorf("token %q, err %v after %d refreshes; want access-2 from the one refresh", tok, err, r)
		}
	})
}
