package runtime

import (
	"strconv"
	"strings"
)

// Retry is a set of failure kinds after which an operation may be attempted
// again. Generated code declares each operation's set as a constant; client
// options can only narrow it.
type Retry uint32

// The failure kinds of a Retry set.
const (
	RetryNotSent   Retry = 1 << iota // no connection was obtained
	RetryAmbiguous                   // sent, no status: only with a key in its window or a lookup
	Retry408                         // request timeout
	Retry409                         // the first attempt is still running: back off, same key (keyed writes only)
	Retry425                         // too early
	Retry429                         // too many requests
	Retry500                         // internal server error
	Retry502                         // bad gateway
	Retry503                         // service unavailable
	Retry504                         // gateway timeout
	Retry5xx                         // any 5xx status
)

// RetryReads is the set reads are retried on.
const RetryReads = RetryNotSent | RetryAmbiguous | Retry408 | Retry425 | Retry429 |
	Retry500 | Retry502 | Retry503 | Retry504 | Retry5xx

// retryNames lists every kind in bit order with its annotation name, which String gives: the one
// list of the kinds (writegenimpl.RetryKinds reads it through String).
var retryNames = [...]struct {
	kind Retry
	name string
}{
	{RetryNotSent, "not_sent"},
	{RetryAmbiguous, "ambiguous"},
	{Retry408, "status_408"},
	{Retry409, "status_409"},
	{Retry425, "status_425"},
	{Retry429, "status_429"},
	{Retry500, "status_500"},
	{Retry502, "status_502"},
	{Retry503, "status_503"},
	{Retry504, "status_504"},
	{Retry5xx, "status_5xx"},
}

// Has reports whether every kind in k is in r.
func (r Retry) Has(k Retry) bool { return k != 0 && r&k == k }

// String lists the kinds of r by their annotation names, joined by "|"
// ("not_sent|ambiguous|status_429"); the empty set is "none", and the bits
// that are no kind are one hexadecimal number last ("status_429|0x800").
func (r Retry) String() string {
	if r == 0 {
		return "none"
	}
	var b strings.Builder
	for _, n := range retryNames {
		if r&n.kind == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString(n.name)
		r &^= n.kind
	}
	if r != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString("0x" + strconv.FormatUint(uint64(r), 16))
	}
	return b.String()
}
