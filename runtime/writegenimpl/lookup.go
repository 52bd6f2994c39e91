package writegenimpl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// What a generated lookup needs beside the reference.
//
// A lookup may need values of the write other than its reference: the
// comments of ticket {ticket_id} are listed with the ticket's id. They
// travel with the reference. The write gives them as Call.LookupValues; the
// runtime joins them to the reference (JoinReference), hands the joined
// string to the lookup and stores it as the ledger row's Reference, so that
// Resume after a restart asks the same lookup as the live call. The lookup
// splits it again (SplitReference). A write whose lookup needs no value has
// a plain reference, as before.
//
// The encoding is stable and readable in a ledger row: a URL query whose
// "ref" is the reference and whose other names are the values, sorted by
// name ("ref=evt_1&ticket_id=42"). No value may be called "ref".

// JoinReference returns the reference a lookup is given: ref alone when
// values is empty, else ref and values (name, value pairs) as a URL query.
func JoinReference(ref string, values ...string) string {
	if len(values) == 0 {
		return ref
	}
	q := url.Values{"ref": {ref}}
	for i := 0; i+1 < len(values); i += 2 {
		q.Set(values[i], values[i+1])
	}
	return q.Encode()
}

// SplitReference splits what JoinReference joined: the reference and the
// values of names, in their order. A reference stored without one of them
// (by a write whose lookup needed other values) is an error: the lookup
// cannot ask the provider, and the call ends uncertain.
func SplitReference(joined string, names ...string) (ref string, values []string, err error) {
	q, err := url.ParseQuery(joined)
	if err == nil && len(q["ref"]) != 1 {
		err = errors.New("no ref")
	}
	if err != nil {
		return "", nil, fmt.Errorf("writegen: the stored reference %q is not a reference with lookup values: %w", joined, err)
	}
	values = make([]string, len(names))
	for i, name := range names {
		v := q[name]
		if len(v) != 1 {
			return "", nil, fmt.Errorf("writegen: the stored reference %q carries no %s, which the lookup needs", joined, name)
		}
		values[i] = v[0]
	}
	return q.Get("ref"), values, nil
}

// SplitInt parses a value SplitReference returned that the lookup passes as
// an integer.
func SplitInt(name, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("writegen: the stored lookup value %s %q is not an integer", name, v)
	}
	return n, nil
}

// SinceMargin is how much earlier than the write's first send a bounded
// list lookup keeps walking: the clocks of the provider and of this
// process may disagree by that much.
const SinceMargin = 5 * time.Minute

// sinceKey is the context key of what LookupSince needs.
type sinceKey struct{}

// sinceBound is what LookupSince counts from: the write's first use of its
// key, by the client's clock, and what the provider's clock said last.
type sinceBound struct {
	first    time.Time
	provider *providerClock
}

// withSince returns ctx carrying the time before the write's first send:
// when its key was first used (the ledger claim of its row, or the start of
// the call without a ledger), by the client's clock, and the provider's
// clock as its answers tell it (nil: none). The runtime sets it on the
// context of every lookup it asks.
func withSince(ctx context.Context, first time.Time, provider *providerClock) context.Context {
	return context.WithValue(ctx, sinceKey{}, sinceBound{first, provider})
}

// LookupSince returns the time a bounded list lookup may stop at: an
// element created before it cannot be the write's effect. It is the
// write's first use of its key, in the provider's time as the Date of its
// latest answer to a read tells it (a lookup asks after its first read), minus
// SinceMargin. ok is false when ctx does not come from the runtime (a
// lookup called by hand): the walk then has no time bound.
func LookupSince(ctx context.Context) (since time.Time, ok bool) {
	b, ok := ctx.Value(sinceKey{}).(sinceBound)
	if !ok || b.first.IsZero() {
		return time.Time{}, false
	}
	first := b.first
	if b.provider != nil {
		first = first.Add(b.provider.offset())
	}
	return first.Add(-SinceMargin), true
}

// BoundError is what a bounded list lookup returns when it walked its page
// bound without finding the write and without reaching the end of the list
// or an element older than LookupSince: the write may sit further on. The
// call ends uncertain with this reason; the write is never sent again on
// the strength of it.
type BoundError struct {
	Operation string // the read the lookup walks
	Pages     int    // the bound: how many pages it read
}

func (e *BoundError) Error() string {
	return fmt.Sprintf("not found within the lookup's bound of %d pages of %s", e.Pages, e.Operation)
}

// CreatedBefore reports whether s, a creation time in RFC 3339, is before
// since. A time that does not parse is not before it: the walk goes on.
func CreatedBefore(s string, since time.Time) bool {
	t, err := time.Parse(time.RFC3339, s)
	return err == nil && t.Before(since)
}

// OrderError is what a bounded list lookup returns when an element newer
// than the write (or without a creation time) follows, on the same page, one
// older than it: the list is not newest first, so the walk cannot stop at
// the write's time, and its not found proves nothing. The call ends
// uncertain; the write is never sent again on the strength of it.
type OrderError struct {
	Operation string // the read the lookup walks
}

func (e *OrderError) Error() string {
	return "the list of " + e.Operation + " is not newest first: an element newer than the write follows one older than it, so not found proves nothing (ask for newest first in the lookup's params)"
}
