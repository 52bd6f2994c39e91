package writegenimpl

import (
	"net/http"
	"sync"
	"time"
)

// providerClock keeps what the provider's clock said last: the Date header
// of its latest answer to a read, and when that answer came by this
// client's clock.
//
// A bounded list lookup stops at the first element created before the
// write's first send (LookupSince). Creation times are the provider's, the
// first send is timed by this process: a process whose clock runs ahead of
// the provider's by more than SinceMargin would stop the walk before the
// write's effect and take "not found" for an answer. With the provider's
// Date, the first send is counted in the provider's time instead. Date has
// a resolution of one second and is written before the answer travels, so
// the offset it gives errs towards an earlier bound: a longer walk, never
// a shorter one.
type providerClock struct {
	mu   sync.Mutex
	date string    // the latest Date header, as sent
	at   time.Time // when it came, by the client's clock
}

// observe records the Date of an answer that came at now.
func (p *providerClock) observe(h http.Header, now time.Time) {
	d := h.Get("Date")
	if d == "" {
		return
	}
	p.mu.Lock()
	p.date, p.at = d, now
	p.mu.Unlock()
}

// offset returns the provider's clock minus this client's, as the latest
// Date showed it; 0 before any answer carried one, or when it does not
// parse.
func (p *providerClock) offset() time.Duration {
	p.mu.Lock()
	d, at := p.date, p.at
	p.mu.Unlock()
	if d == "" {
		return 0
	}
	t, err := http.ParseTime(d)
	if err != nil {
		return 0
	}
	return t.Sub(at)
}
