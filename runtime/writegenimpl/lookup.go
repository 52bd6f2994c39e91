package writegenimpl

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
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

// rawReference returns the write's own reference out of what op stores:
// the reference joined with lookup values (Operation.Joined), or as it is.
func rawReference(op *Operation, stored string) string {
	if !op.Joined {
		return stored
	}
	ref, _, err := SplitReference(stored)
	if err != nil {
		return stored
	}
	return ref
}

// markerOf returns the marker op appends for ref, "" without one.
func markerOf(op *Operation, ref string) string {
	if op.Marker == "" {
		return ""
	}
	return strings.ReplaceAll(op.Marker, "{ref}", ref)
}

// CreatedAt parses an element's creation time, written in RFC 3339, for a
// walk through a list newest first; the zero time when it does not parse,
// which the walk cannot place.
func CreatedAt(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
