package writegenimpl

import (
	"context"
	"sync"
	"time"
)

// attemptDeadlines gives every attempt of one client its deadline (promise 27)
// with one timer for the whole client.
//
// context.WithTimeout would start a runtime timer per attempt and stop it
// when the attempt ends: two operations on the timer heap on every call.
// All attempts of a client have the same timeout, so their deadlines come
// in the order they start: the list of running attempts, oldest first, is
// sorted by deadline and one timer, set for its head, serves them all. An
// attempt that ends is unlinked and the timer left alone; the timer, when it
// fires, cuts the attempts whose deadline has passed and is set again for
// the new head, if any. So a client busy with short calls touches its timer
// about once per timeout.
type attemptDeadlines struct {
	timeout time.Duration

	mu         sync.Mutex
	head, tail *attemptCtx // the running attempts, oldest first
	timer      *time.Timer // nil until the first attempt
	armed      bool        // the timer is set; it fires at or before the head's deadline
}

// attemptCtx is the context of one attempt: a cancelable child of the
// caller's context that reports the attempt's deadline, and
// context.DeadlineExceeded once it passed, as a context of
// context.WithTimeout does.
type attemptCtx struct {
	context.Context
	cancel     context.CancelCauseFunc
	deadline   time.Time
	prev, next *attemptCtx // its neighbours in the list of running attempts; a lone head has neither
}

func (a *attemptCtx) Deadline() (time.Time, bool) { return a.deadline, true }

func (a *attemptCtx) Err() error {
	if a.expired() {
		return context.DeadlineExceeded
	}
	return a.Context.Err()
}

// expired reports whether the attempt's deadline cut it.
func (a *attemptCtx) expired() bool { return context.Cause(a.Context) == context.DeadlineExceeded }

// start makes a the context of an attempt under parent, which has no
// deadline before the attempt's, and returns it. The caller must end it.
func (d *attemptDeadlines) start(parent context.Context, a *attemptCtx) context.Context {
	a.Context, a.cancel = context.WithCancelCause(parent)
	d.mu.Lock()
	// The deadline is taken under the lock, so that the list stays sorted.
	a.deadline = time.Now().Add(d.timeout)
	a.prev, a.next = d.tail, nil
	if d.tail != nil {
		d.tail.next = a
	} else {
		d.head = a
	}
	d.tail = a
	if !d.armed {
		d.armed = true
		if d.timer == nil {
			d.timer = time.AfterFunc(d.timeout, d.fire)
		} else {
			d.timer.Reset(d.timeout)
		}
	}
	d.mu.Unlock()
	return a
}

// end ends an attempt started with start.
func (d *attemptDeadlines) end(a *attemptCtx) {
	d.mu.Lock()
	d.unlink(a)
	d.mu.Unlock()
	a.cancel(nil)
}

// fire cuts the attempts whose deadline has passed and sets the timer for
// the next one.
func (d *attemptDeadlines) fire() {
	var cut []*attemptCtx
	d.mu.Lock()
	now := time.Now()
	for d.head != nil && !d.head.deadline.After(now) {
		cut = append(cut, d.head)
		d.unlink(d.head)
	}
	if d.head != nil {
		d.timer.Reset(d.head.deadline.Sub(now))
	} else {
		d.armed = false
	}
	d.mu.Unlock()
	for _, a := range cut {
		a.cancel(context.DeadlineExceeded)
	}
}

// unlink takes a out of the list, if it is in it. d.mu is held.
func (d *attemptDeadlines) unlink(a *attemptCtx) {
	if a.prev == nil && d.head != a {
		return // not in the list: cut already, or ended twice
	}
	if a.prev != nil {
		a.prev.next = a.next
	} else {
		d.head = a.next
	}
	if a.next != nil {
		a.next.prev = a.prev
	} else {
		d.tail = a.prev
	}
	a.prev, a.next = nil, nil
}
