package simulator

import "sync"

// inflight counts work in progress. Unlike a sync.WaitGroup, work may start while wait is
// blocked: wait returns once the count has been zero at some moment after it was called. The
// zero value is ready to use.
type inflight struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n falls to zero; nil while n is zero
}

func (f *inflight) add() {
	f.mu.Lock()
	if f.n == 0 {
		f.zero = make(chan struct{})
	}
	f.n++
	f.mu.Unlock()
}

func (f *inflight) done() {
	f.mu.Lock()
	f.n--
	if f.n == 0 {
		close(f.zero)
		f.zero = nil
	}
	f.mu.Unlock()
}

func (f *inflight) wait() {
	f.mu.Lock()
	zero := f.zero
	f.mu.Unlock()
	if zero != nil {
		<-zero
	}
}
