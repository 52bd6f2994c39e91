package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/writegen/writegen/runtime/internal/lookupctx"
)

// A lookup is evidence, never an oracle. What it finds counts only when
// the found effect carries the write's reference (Found.Ref), compared by
// the runtime whatever the provider's search matched; what it does not
// find counts only when the read covered every record the write could have
// made, and only after the last moment an earlier attempt could still
// commit. The helpers below let a lookup, generated or written by hand,
// walk a list so that its "not found" is such proof, or fail saying why.
//
// A lookup is asked with a context the runtime made: LookupSince and
// WalkList read the write's reference and first send from it.

// SinceMargin is how much earlier than the write's first send a lookup that
// walks a list newest first keeps walking: the clocks of the provider and
// of this process may disagree by that much.
const SinceMargin = 5 * time.Minute

// LookupSince returns the time a lookup walking a list newest first may
// stop at: an element created before it cannot be the write's effect. It is
// the write's first use of its key, in the provider's time as the Date of
// its latest answer to a read tells it (ask after the walk's first read),
// minus SinceMargin. ok is false when ctx does not come from the runtime (a
// lookup called by hand): the walk then has no time bound.
func LookupSince(ctx context.Context) (since time.Time, ok bool) {
	in := lookupctx.From(ctx)
	if in == nil || in.First.IsZero() {
		return time.Time{}, false
	}
	first := in.First
	if in.Offset != nil {
		first = first.Add(in.Offset())
	}
	return first.Add(-SinceMargin), true
}

// Walk describes a lookup's walk through the pages of a list (WalkList).
type Walk struct {
	// Read names the read that lists, for errors: "listTicketComments".
	Read string
	// MaxPages is the bound: the walk reads at most this many pages (1
	// when below 1). Not found within them, short of the list's end or of
	// the write's time, proves nothing: a *BoundError.
	MaxPages int
	// ByNumber says the pages are asked for by number. A list that loses
	// an element at its head while it is walked moves the next element
	// onto a page already read, so "not found" counts only when a second
	// walk over the same pages reads exactly what the first read;
	// otherwise the walk fails with a *ShiftError. A walk by cursor needs
	// no second pass.
	ByNumber bool
	// Since says the list is asked for newest first and every element has
	// its creation time (Found.Created): the walk stops after the page of
	// the first element created before the write (LookupSince). The order
	// is checked on every page, the first included: an element newer than
	// the one before it fails the walk (*OrderError), and the walk stops
	// early only once two elements showed the order.
	Since bool
}

// Page is one page of a list a lookup walks: every element of it, in the
// list's order, each with its Ref (and Created for a walk with Since), and
// whether another page follows.
type Page[P any] struct {
	Items []Found[P]
	More  bool
}

// WalkList walks a list page by page, calling page with n = 1, 2, ... (and
// once more from 1 for a second pass of a walk by number), and returns the
// elements that carry the write's reference, in the list's order: those
// whose Ref is the reference or, for a write that appends a marker to a
// text, holds it. Asked outside a write (ctx not from the runtime), it
// returns every element it reads.
//
// Its nil, nil "not found" is proof that the write made no effect in the
// list, within w's terms: the walk reached the list's end, or an element
// created before the write in a list shown newest first, and a walk by
// number read the same pages twice. Short of that it fails with a
// *BoundError, an *OrderError or a *ShiftError, and the runtime leaves the
// write uncertain rather than send it again.
func WalkList[P any](ctx context.Context, w Walk, page func(ctx context.Context, n int) (Page[P], error)) ([]Found[P], error) {
	k := walker[P]{w: w, in: lookupctx.From(ctx), max: max(w.MaxPages, 1)}
	found, covered, err := k.pass(ctx, page)
	switch {
	case err != nil:
		return nil, err
	case len(found) > 0:
		return found, nil
	case !covered:
		return nil, &BoundError{Read: w.Read, Pages: k.max, Unordered: k.older && !k.shown}
	case w.ByNumber:
		// The list may have moved under the walk: read the same pages again.
		pass2 := walker[P]{w: w, in: k.in, max: k.read, check: k.prints}
		found, _, err := pass2.pass(ctx, page)
		switch {
		case len(found) > 0:
			return found, nil // there after all: found is proof enough
		case err != nil:
			return nil, err
		}
	}
	return nil, nil
}

// walker is one pass of WalkList.
type walker[P any] struct {
	w     Walk
	in    *lookupctx.Info
	max   int        // pages to read at most
	check [][32]byte // a second pass: the prints each page must have

	read   int        // pages read
	prints [][32]byte // each page's print: its elements and whether more follow
	prev   time.Time  // the creation time of the latest element that had one
	shown  bool       // two elements were in strictly newest-first order
	older  bool       // an element created before the write was read
	since  time.Time  // the time bound, once the first page is read
	bound  bool       // since is set
}

// pass reads up to w.max pages and returns the elements that carry the
// reference, and whether the pages covered every element the write could
// have made.
func (k *walker[P]) pass(ctx context.Context, page func(ctx context.Context, n int) (Page[P], error)) (found []Found[P], covered bool, err error) {
	for n := 1; n <= k.max; n++ {
		p, err := page(ctx, n)
		if err != nil {
			return nil, false, err
		}
		k.read = n
		if n == 1 && k.w.Since {
			k.since, k.bound = LookupSince(ctx) // after a read: in the provider's time
		}
		for i := range p.Items {
			f := &p.Items[i]
			if k.w.Since {
				older, err := k.order(f)
				if err != nil {
					return nil, false, err
				}
				if older {
					continue // made before the write
				}
			}
			if k.in == nil || k.in.Carries(f.Ref) {
				found = append(found, *f)
			}
		}
		sum := k.print(p)
		if k.check != nil && (n > len(k.check) || k.check[n-1] != sum) {
			return found, false, &ShiftError{Read: k.w.Read, Page: n}
		}
		k.prints = append(k.prints, sum)
		if !p.More {
			return found, true, nil // the end of the list
		}
		if k.older && k.shown {
			return found, true, nil // the rest is older than the write
		}
	}
	return found, false, nil
}

// order checks that f keeps the list newest first and reports whether it
// was created before the write.
func (k *walker[P]) order(f *Found[P]) (older bool, err error) {
	t := f.Created
	switch {
	case t.IsZero() && k.older:
		return false, &OrderError{Read: k.w.Read, Why: "an element without a creation time follows one older than the write"}
	case t.IsZero():
		return false, nil
	case !k.prev.IsZero() && t.After(k.prev):
		return false, &OrderError{Read: k.w.Read, Why: "an element created at " + t.Format(time.RFC3339) +
			" follows one created at " + k.prev.Format(time.RFC3339)}
	case !k.prev.IsZero() && t.Before(k.prev):
		k.shown = true
	}
	k.prev = t
	if !k.bound || !t.Before(k.since) {
		return false, nil
	}
	k.older = true
	if k.in != nil && k.in.Carries(f.Ref) {
		// The write's reference on an element older than its first send
		// (less SinceMargin): another write's, or clocks far apart.
		return false, &OrderError{Read: k.w.Read, Why: "an element that carries the write's reference was created at " +
			t.Format(time.RFC3339) + ", before the write first used its key"}
	}
	return true, nil
}

// print returns what identifies page p: its elements (id, reference and
// creation time, or the whole element when it has no id) and whether more
// follow.
func (k *walker[P]) print(p Page[P]) [32]byte {
	h := sha256.New()
	for i := range p.Items {
		f := &p.Items[i]
		fmt.Fprintf(h, "%q %q %d ", f.ID, f.Ref, f.Created.UnixNano())
		if f.ID == "" {
			b, _ := json.Marshal(f.Body)
			h.Write(b)
		}
		h.Write([]byte{'\n'})
	}
	fmt.Fprint(h, p.More)
	var s [32]byte
	h.Sum(s[:0])
	return s
}

// BoundError is what a walk returns when it read its bound of pages
// without finding the write and without reaching the end of the list or,
// in a list shown newest first, an element older than the write: the
// write may sit further on. The write ends uncertain with this reason; it
// is never sent again on the strength of it.
type BoundError struct {
	Read  string // the read the lookup walks
	Pages int    // the bound: how many pages it read
	// Unordered is set when the walk read elements older than the write
	// but the list never showed that it is newest first (two elements in
	// strictly decreasing order), so the walk could not stop at them.
	Unordered bool
}

func (e *BoundError) Error() string {
	s := "not found within the lookup's bound of " + pages(e.Pages) + " of " + e.Read
	if e.Unordered {
		s += " (elements older than the write were read, but the list never showed that it is newest first)"
	}
	return s
}

func pages(n int) string {
	if n == 1 {
		return "1 page"
	}
	return strconv.Itoa(n) + " pages"
}

// OrderError is what a walk returns when the list is not newest first: an
// element newer than the one before it, or one that cannot be placed, so
// the walk cannot stop at the write's time and its "not found" would prove
// nothing. The write ends uncertain; it is never sent again on the
// strength of it.
type OrderError struct {
	Read string // the read the lookup walks
	Why  string
}

func (e *OrderError) Error() string {
	return "the list of " + e.Read + " is not newest first (" + e.Why + "), so not found would prove nothing"
}

// ShiftError is what a walk by page number returns when a second walk over
// the same pages did not read what the first read: the list moved under
// it, and an element may have moved onto a page already read. The write
// ends uncertain, and Resume asks again later.
type ShiftError struct {
	Read string // the read the lookup walks
	Page int    // the first page that differed
}

func (e *ShiftError) Error() string {
	return "the list of " + e.Read + " moved while it was walked (page " + strconv.Itoa(e.Page) + " changed between two walks), so not found would prove nothing"
}
