package scenario

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/writegen/writegen/runtime"
)

// pauseGate pauses the relay's clients as a whole, as a process is paused, at a point where
// none of them has a request on its way: the requests on their way are served first, then the
// clock jumps, and an attempt that started before the jump and had not sent its request by
// then is not sent at all (as if its connection had been refused). Without it a request could
// reach the desk a day after its attempt started, by the clock the ledger judges leases by: an
// attempt that outlived its lease and its attempt timeout, which a client's real timeout and
// its lease check before each attempt keep from happening, and whose claim another caller may
// have taken over meanwhile.
type pauseGate struct {
	next http.RoundTripper

	mu       sync.Mutex
	inflight int           // requests on their way
	pausing  int           // pauses waiting for them, each from a request on its way
	resumed  chan struct{} // closed when the last pause is over; nil while none
	jumps    int           // jumps so far
}

// errPaused is the error of a request whose attempt started before the clock jumped.
var errPaused = errors.New("scenario: the connector was paused before this request was sent")

type attemptJumps struct{}

// attemptStart is a runtime.Hooks.AttemptStart: it notes in the attempt's context how many
// jumps there had been when it started.
func (g *pauseGate) attemptStart(ctx context.Context, _ *runtime.CallInfo, _ int) context.Context {
	g.mu.Lock()
	defer g.mu.Unlock()
	return context.WithValue(ctx, attemptJumps{}, g.jumps)
}

// RoundTrip implements http.RoundTripper.
func (g *pauseGate) RoundTrip(r *http.Request) (*http.Response, error) {
	started, ok := r.Context().Value(attemptJumps{}).(int)
	for {
		g.mu.Lock()
		if g.pausing == 0 {
			if ok && started != g.jumps {
				g.mu.Unlock()
				return nil, errPaused
			}
			g.inflight++
			g.mu.Unlock()
			break
		}
		resumed := g.resumed
		g.mu.Unlock()
		select {
		case <-resumed:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	defer func() {
		g.mu.Lock()
		g.inflight--
		g.mu.Unlock()
	}()
	return g.next.RoundTrip(r)
}

// pause runs jump once no request is on its way but those that are pausing (the caller's is
// one of them), or after a second, whichever comes first; no request starts meanwhile.
func (g *pauseGate) pause(jump func()) {
	g.mu.Lock()
	if g.pausing == 0 {
		g.resumed = make(chan struct{})
	}
	g.pausing++
	g.mu.Unlock()
	for limit := time.Now().Add(time.Second); time.Now().Before(limit); time.Sleep(time.Millisecond) {
		g.mu.Lock()
		idle := g.inflight <= g.pausing
		g.mu.Unlock()
		if idle {
			break
		}
	}
	jump()
	g.mu.Lock()
	g.jumps++
	if g.pausing--; g.pausing == 0 {
		close(g.resumed)
		g.resumed = nil
	}
	g.mu.Unlock()
}
