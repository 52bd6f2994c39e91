package writegenimpl

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// credential is a provider's token endpoint: it rotates the refresh token
// on every refresh.
type credential struct {
	mu        sync.Mutex
	refreshes []string        // refresh tokens presented
	saved     []runtime.Token // tokens persisted
	failSave  int             // persist fails this many times
}

func (cr *credential) refresh(_ context.Context, rt string) (runtime.Token, error) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.refreshes = append(cr.refreshes, rt)
	n := len(cr.refreshes) + 1
	return runtime.Token{Access: fmt.Sprint("access-", n), Refresh: fmt.Sprint("refresh-", n), Expiry: time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)}, nil
}

func (cr *credential) persist(_ context.Context, t runtime.Token) error {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.failSave > 0 {
		cr.failSave--
		return errors.New("disk full")
	}
	cr.saved = append(cr.saved, t)
	return nil
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

func expired(clk runtime.Clock) runtime.Token {
	return runtime.Token{Access: "access-1", Refresh: "refresh-1", Expiry: clk.Now().Add(-time.Minute)}
}

// TestPromise21_Credentials: one refresh for many callers of an expired
// credential; a rotated token persisted before use; an auth failure caused
// by a concurrent rotation is ambiguous.
func TestPromise21_Credentials(t *testing.T) {
	t.Run("one refresh", func(t *testing.T) {
		p := newProvider(t)
		clk := newTestClock()
		var cr credential
		var unsavedUse atomic.Int64
		p.auth = func(tok string) int {
			if tok != "access-1" && !cr.isSaved(tok) {
				unsavedUse.Add(1)
			}
			return 0
		}
		ts := runtime.NewRefresher(expired(clk), cr.refresh, cr.persist, runtime.WithRefreshClock(clk))
		op := thingOp(withKey)
		c := newTestClient(t, p.URL, clk, runtime.WithTokenSource(ts))
		const n = 100
		var started, done sync.WaitGroup
		started.Add(n)
		errs := make(chan error, n)
		for i := range n {
			done.Add(1)
			go func() {
				defer done.Done()
				started.Done()
				started.Wait()
				_, err := Write(context.Background(), c, op, thingKey{fmt.Sprint(i)}, thingCall(c, op, "x"))
				errs <- err
			}()
		}
		done.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(cr.refreshes) != 1 || cr.refreshes[0] != "refresh-1" {
			t.Errorf("refreshes %q, want one with refresh-1", cr.refreshes)
		}
		for _, w := range p.seenWrites() {
			if w.auth != "Bearer access-2" {
				t.Fatalf("a write used %q, want the refreshed token", w.auth)
			}
		}
		if unsavedUse.Load() != 0 {
			t.Errorf("%d writes used a token before it was persisted", unsavedUse.Load())
		}
	})
	// rotating answers 401 to a write made with access-1 after rotating the
	// credential underneath it, as a concurrent refresh would.
	rotating := func(t *testing.T, op *Operation, rotate bool) (*provider, error) {
		p := newProvider(t)
		clk := newTestClock()
		var cr credential
		ts := runtime.NewRefresher(runtime.Token{Access: "access-1", Refresh: "refresh-1", Expiry: clk.Now().Add(time.Hour)}, cr.refresh, cr.persist, runtime.WithRefreshClock(clk))
		p.auth = func(tok string) int {
			if tok != "access-1" {
				return 0
			}
			if rotate {
				clk.advance(2 * time.Hour)
				ts.Token(context.Background())
			}
			return 401
		}
		c := newTestClient(t, p.URL, clk, runtime.WithTokenSource(ts))
		_, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x"))
		return p, err
	}
	t.Run("rotated under a keyed write", func(t *testing.T) {
		p, err := rotating(t, thingOp(withKey), true)
		if err != nil || p.effectCount() != 1 {
			t.Errorf("err %v, %d effects; want the write retried with its key and the new token", err, p.effectCount())
		}
	})
	t.Run("rotated under an unkeyed write", func(t *testing.T) {
		_, err := rotating(t, thingOp(unprotected), true)
		if r := uncertainReason(t, err); r != "ambiguous without key or lookup" || errors.Is(err, runtime.ErrRejected) {
			t.Errorf("reason %q, err %v", r, err)
		}
	})
	t.Run("refresh in flight under a keyed write", func(t *testing.T) {
		// The 401 arrives while another caller's refresh has not returned:
		// the provider may already have invalidated the token.
		p := newProvider(t)
		clk := newTestClock()
		var cr credential
		release := make(chan struct{})
		refresh := func(ctx context.Context, rt string) (runtime.Token, error) {
			<-release
			return cr.refresh(ctx, rt)
		}
		ts := runtime.NewRefresher(runtime.Token{Access: "access-1", Refresh: "refresh-1", Expiry: clk.Now().Add(time.Hour)}, refresh, cr.persist, runtime.WithRefreshClock(clk))
		p.auth = func(tok string) int {
			if tok != "access-1" {
				return 0
			}
			clk.advance(2 * time.Hour)
			go ts.Token(context.Background())
			for !ts.Rotated(1) { // the refresh is in flight
				goruntime.Gosched()
			}
			return 401
		}
		clk.onSleep = func(int) { close(release) }
		op := thingOp(withKey)
		c := newTestClient(t, p.URL, clk, runtime.WithTokenSource(ts))
		if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil || p.effectCount() != 1 {
			t.Errorf("err %v, %d effects; want the write retried with the new token", err, p.effectCount())
		}
	})
	t.Run("rotated under a read", func(t *testing.T) {
		p := newProvider(t)
		clk := newTestClock()
		var cr credential
		ts := runtime.NewRefresher(runtime.Token{Access: "access-1", Refresh: "refresh-1", Expiry: clk.Now().Add(time.Hour)}, cr.refresh, cr.persist, runtime.WithRefreshClock(clk))
		var refused atomic.Int64
		p.auth = func(tok string) int {
			if tok != "access-1" {
				return 0
			}
			refused.Add(1)
			clk.advance(2 * time.Hour)
			ts.Token(context.Background())
			return 401
		}
		c := newTestClient(t, p.URL, clk, runtime.WithTokenSource(ts))
		if err := Read(context.Background(), c, listOp, NewRequest("GET", "/things"), new(thingList)); err != nil || refused.Load() != 1 {
			t.Errorf("err %v after %d refusals; want the read asked again with the new token", err, refused.Load())
		}
	})
	t.Run("rotated, provider declared rotation-safe", func(t *testing.T) {
		op := thingOp(withKey)
		op.RotationSafe = true
		p, err := rotating(t, op, true)
		if !errors.Is(err, runtime.ErrNotApplied) || errors.Is(err, runtime.ErrRejected) || p.effectCount() != 0 {
			t.Errorf("err = %v, %d effects; want a plain 401: not applied", err, p.effectCount())
		}
	})
	t.Run("not rotated", func(t *testing.T) {
		_, err := rotating(t, thingOp(withKey), false)
		if !errors.Is(err, runtime.ErrNotApplied) || errors.Is(err, runtime.ErrRejected) || errors.Is(err, runtime.ErrUncertain) {
			t.Errorf("err = %v, want a plain 401: not applied", err)
		}
	})
}
