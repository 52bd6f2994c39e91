package writegenimpl

import (
	"sync"
	"time"
)

// budget is a token bucket shared by all calls of a client: every call
// deposits ratio tokens, time deposits perSecond tokens a second, and every
// retry takes one token. It stops retry storms when a provider fails. It
// starts full (ten seconds' worth of perSecond), as the AWS SDKs' bucket
// does, so a client that has just started is not poorer than one that has
// run for ten seconds.
type budget struct {
	ratio     float64
	perSecond float64
	capacity  float64

	mu     sync.Mutex // guards tokens and last
	tokens float64
	last   time.Time
}

func newBudget(ratio float64, min int, now time.Time) *budget {
	c := 10 * float64(max(min, 1))
	return &budget{ratio: ratio, perSecond: float64(min), capacity: c, tokens: 10 * float64(max(min, 0)), last: now}
}

// call records the start of one logical call.
func (b *budget) call() {
	if b.ratio <= 0 {
		return
	}
	b.mu.Lock()
	b.tokens = min(b.capacity, b.tokens+b.ratio)
	b.mu.Unlock()
}

// retry reports whether one more retry is allowed at now, and takes its
// token if so.
func (b *budget) retry(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(b.capacity, b.tokens+d.Seconds()*b.perSecond)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
