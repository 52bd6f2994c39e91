package runtime

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime/internal/lookupctx"
)

// comment is an element of the lists the walks below read.
type comment struct {
	id      int
	body    string
	created time.Time
}

// t0 is when the write first used its key.
var t0 = time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)

// ago returns a comment created d before t0 (after it when d < 0).
func ago(id int, d time.Duration, body string) comment {
	return comment{id: id, body: body, created: t0.Add(-d)}
}

// lister serves a list by page number (size elements a page), and can change
// it before a given read, as other writers do while a walk runs.
type lister struct {
	list   []comment
	size   int
	reads  int
	before map[int]func(l *lister) // before read n (from 1), change the list
}

func (l *lister) page(_ context.Context, n int) (Page[*comment], error) {
	l.reads++
	if f := l.before[l.reads]; f != nil {
		f(l)
	}
	lo := min((n-1)*l.size, len(l.list))
	hi := min(lo+l.size, len(l.list))
	p := Page[*comment]{More: hi < len(l.list)}
	for i := lo; i < hi; i++ {
		c := l.list[i]
		p.Items = append(p.Items, Found[*comment]{ID: strconv.Itoa(c.id), Body: &c, Ref: c.body, Created: c.created})
	}
	return p, nil
}

// asked returns a context as the runtime gives a lookup, for a write whose
// reference is ref (appended as a marker when marker is set).
func asked(ref, marker string) context.Context {
	return lookupctx.With(context.Background(), &lookupctx.Info{Ref: ref, Marker: marker, First: t0})
}

// oldComments returns n comments created a day and more before the write.
func oldComments(n int, newestFirst bool) []comment {
	out := make([]comment, n)
	for i := range out {
		age := 24*time.Hour + time.Duration(i)*time.Minute
		if !newestFirst {
			age = 24*time.Hour + time.Duration(n-i)*time.Minute
		}
		out[i] = ago(100+i, age, "old")
	}
	return out
}

// TestPromise48_AscendingListProvesNothing: a walk bounded by the write's
// time over a list that is oldest first (as GitHub's per-issue comments
// are) must not stop at the first page of old comments and report "not
// found": the order is checked on the first page already.
func TestPromise48_AscendingListProvesNothing(t *testing.T) {
	ours := ago(1, -time.Second, "hello [ref:k1]")
	l := &lister{list: append(oldComments(40, false), ours), size: 30}
	found, err := WalkList(asked("k1", " [ref:k1]"), Walk{Read: "listComments", MaxPages: 3, Since: true}, l.page)
	var oe *OrderError
	if !errors.As(err, &oe) || found != nil {
		t.Fatalf("found %v, err %v; want an *OrderError: the list is oldest first", found, err)
	}
	if l.reads != 1 {
		t.Errorf("%d reads; want the order refused on the first page", l.reads)
	}
}

// TestPromise48_NewestFirstStopsAtTheWrite: over a list shown newest first,
// the walk stops after the page of the first element older than the write
// (less SinceMargin), and that "not found" is proof; found is what carries
// the reference.
func TestPromise48_NewestFirstStopsAtTheWrite(t *testing.T) {
	recent := []comment{ago(3, -2*time.Second, "other"), ago(2, -time.Second, "not ours [ref:k10]")}
	l := &lister{list: append(recent, oldComments(100, true)...), size: 10}
	found, err := WalkList(asked("k1", " [ref:k1]"), Walk{Read: "listComments", MaxPages: 5, Since: true}, l.page)
	if err != nil || found != nil || l.reads != 1 {
		t.Fatalf("found %v, err %v, %d reads; want proven not found after one page", found, err, l.reads)
	}
	l = &lister{list: append([]comment{ago(4, -3*time.Second, "hi [ref:k1]")}, l.list...), size: 10}
	found, err = WalkList(asked("k1", " [ref:k1]"), Walk{Read: "listComments", MaxPages: 5, Since: true}, l.page)
	if err != nil || len(found) != 1 || found[0].ID != "4" {
		t.Fatalf("found %v, err %v; want comment 4 alone: [ref:k10] is another write's", found, err)
	}
}

// TestPromise48_OrderMustBeShown: elements older than the write on a page
// that never showed the list's order (one element a page, or equal times) do
// not stop the walk: it reads on to the list's end or its bound.
func TestPromise48_OrderMustBeShown(t *testing.T) {
	l := &lister{list: []comment{ago(1, time.Hour, "a"), ago(2, time.Hour, "b"), ago(3, time.Hour, "c")}, size: 1}
	_, err := WalkList(asked("k1", ""), Walk{Read: "listComments", MaxPages: 2, Since: true}, l.page)
	var be *BoundError
	if !errors.As(err, &be) || !be.Unordered || l.reads != 2 {
		t.Fatalf("err %v after %d reads; want a *BoundError that says the order was never shown", err, l.reads)
	}
	l.reads = 0
	found, err := WalkList(asked("k1", ""), Walk{Read: "listComments", MaxPages: 5, Since: true}, l.page)
	if err != nil || found != nil || l.reads != 3 {
		t.Fatalf("found %v, err %v after %d reads; want not found at the list's end", found, err, l.reads)
	}
}

// TestPromise48_ShiftingPagesByNumber: an element deleted at the head while
// the walk reads page 2 moves the write's comment onto page 1, already
// read. The second walk over the same pages finds it (or, when it moved off
// them, tells that the list moved): never "not found".
func TestPromise48_ShiftingPagesByNumber(t *testing.T) {
	list := func() []comment {
		var c []comment
		for i := range 20 {
			c = append(c, ago(200+i, time.Duration(i)*time.Second, "other"))
		}
		return append(c, ago(1, 30*time.Second, "x [ref:k1]"), ago(2, 31*time.Second, "other"))
	}
	deleteHead := func(l *lister) { l.list = l.list[1:] }
	l := &lister{list: list(), size: 20, before: map[int]func(*lister){2: deleteHead}}
	found, err := WalkList(asked("k1", " [ref:k1]"), Walk{Read: "listComments", MaxPages: 5, ByNumber: true}, l.page)
	if err != nil || len(found) != 1 || found[0].ID != "1" {
		t.Fatalf("found %v, err %v; want the comment found by the second walk", found, err)
	}
	// Deleted at the head between the two walks: the pages differ.
	l = &lister{list: list()[:20], size: 20, before: map[int]func(*lister){2: deleteHead}} // ours is not there
	found, err = WalkList(asked("k1", " [ref:k1]"), Walk{Read: "listComments", MaxPages: 5, ByNumber: true}, l.page)
	var se *ShiftError
	if !errors.As(err, &se) || found != nil {
		t.Fatalf("found %v, err %v; want a *ShiftError", found, err)
	}
	// A list that stands still: two identical walks, and not found is proof.
	l = &lister{list: list()[:20], size: 20}
	found, err = WalkList(asked("k1", " [ref:k1]"), Walk{Read: "listComments", MaxPages: 5, ByNumber: true}, l.page)
	if err != nil || found != nil || l.reads != 2 {
		t.Fatalf("found %v, err %v, %d reads; want not found after two walks of one page", found, err, l.reads)
	}
}

// TestPromise47_WalkKeepsOnlyOurs: a walk returns what carries the write's
// reference exactly: an equal reference field, or the marker itself, never
// a longer reference that starts the same.
func TestPromise47_WalkKeepsOnlyOurs(t *testing.T) {
	l := &lister{list: []comment{
		{id: 1, body: "wiki:a/b/c"}, {id: 2, body: "wiki:a/b"}, {id: 3, body: "Wiki:a/b"},
	}, size: 10}
	found, err := WalkList(asked("wiki:a/b", ""), Walk{Read: "search"}, l.page)
	if err != nil || len(found) != 1 || found[0].ID != "2" {
		t.Fatalf("found %v, err %v; want element 2 alone", found, err)
	}
	l = &lister{list: []comment{
		{id: 1, body: "report [ref:q3 report* final]"}, {id: 2, body: "report [ref:q3 report*]"},
	}, size: 10}
	found, err = WalkList(asked("q3 report*", " [ref:q3 report*]"), Walk{Read: "search"}, l.page)
	if err != nil || len(found) != 1 || found[0].ID != "2" {
		t.Fatalf("found %v, err %v; want element 2 alone", found, err)
	}
	// An element that carries the reference but was made long before the
	// write's first send is not adopted: the walk fails.
	l = &lister{list: []comment{ago(1, time.Second, "x"), ago(2, time.Hour, "x [ref:k1]")}, size: 10}
	_, err = WalkList(asked("k1", " [ref:k1]"), Walk{Read: "listComments", Since: true}, l.page)
	var oe *OrderError
	if !errors.As(err, &oe) {
		t.Fatalf("err %v; want an *OrderError for the write's reference on an element older than the write", err)
	}
}

// TestLookupSince: the bound is the write's first use of its key less
// SinceMargin, counted in the provider's time; a context the runtime did not
// make has none.
func TestLookupSince(t *testing.T) {
	if _, ok := LookupSince(context.Background()); ok {
		t.Fatal("a context not set by the runtime has no time bound")
	}
	in := &lookupctx.Info{First: t0, Offset: func() time.Duration { return -time.Hour }}
	since, ok := LookupSince(lookupctx.With(context.Background(), in))
	if !ok || !since.Equal(t0.Add(-time.Hour-SinceMargin)) {
		t.Fatalf("since = %v %v", since, ok)
	}
	var be *BoundError
	if err := error(&BoundError{Read: "listTicketComments", Pages: 5}); !errors.As(err, &be) || err.Error() != "not found within the lookup's bound of 5 pages of listTicketComments" {
		t.Fatal(err)
	}
}
