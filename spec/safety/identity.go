package safety

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/ir"
)

// Identity returns the record of api's writes, sorted by key scope, then method and path.
func Identity(api *ir.API) ir.IdentityRecord {
	rec := ir.IdentityRecord{Version: ir.IdentityVersion, Scope: api.Scope, Writes: []ir.IdentityWrite{}}
	for _, op := range api.Operations {
		if w, ok := identityOf(api, op); ok {
			rec.Writes = append(rec.Writes, w)
		}
	}
	slices.SortFunc(rec.Writes, func(a, b ir.IdentityWrite) int {
		if c := strings.Compare(a.KeyScope, b.KeyScope); c != 0 {
			return c
		}
		return strings.Compare(a.Method+" "+a.Path, b.Method+" "+b.Path)
	})
	return rec
}

func identityOf(api *ir.API, op *ir.Operation) (ir.IdentityWrite, bool) {
	s := op.Safety
	if s == nil || s.Effect == runtime.EffectReadOnly {
		return ir.IdentityWrite{}, false
	}
	w := ir.IdentityWrite{Operation: op.ID, Method: op.Method, Path: op.Path, Scope: api.Scope,
		Retry: s.Retry.String(), Lookup: "none", Dedupe: "none"}
	if k := s.Key; k != nil {
		w.KeyScope, w.KeyFormat = k.Scope, k.Format
	}
	if i := s.Idempotency; i != nil {
		w.Idempotency, w.MaxLength = i.Place(), i.MaxLength
	}
	if l := s.Lookup; l != nil {
		w.Lookup = l.Consistency.String()
		if l.Lag > 0 {
			w.Lag = ir.DurationText(l.Lag)
		}
		lookupIdentity(&w, l)
	}
	if s.Object != nil {
		w.Envelope = s.Object.Pointer
	}
	if s.ID != nil {
		w.ReceiptID, w.ReceiptIDType, w.ReceiptOf = s.ID.Pointer, "string", ir.DescribeRef(op.Response.Type)
		if s.Object != nil {
			w.ReceiptOf = ir.DescribeRef(s.Object.Type)
		}
		if ir.IsIntegerType(s.ID.Type) {
			w.ReceiptIDType = "integer"
		}
	}
	if r := s.Reference; r != nil && s.Lookup != nil {
		w.Reference = referenceText(r)
	}
	if s.Dedupe {
		w.Dedupe = "ledger"
		if s.Retention > 0 {
			w.Retention = ir.DurationText(s.Retention)
		}
	}
	return w, true
}

// CheckIdentity compares api with the record old (the contents of the file named oldName) and
// returns the changes that would turn a retry after the change into a second effect, unless the
// write's acknowledge names the old value: a change of scope, key scope, key format or max
// length, a widened retry set, a weaker lookup, a dropped ledger claim. Each refusal is placed at
// the answer that changed. An acknowledgement that matches no change is a warning.
func CheckIdentity(api *ir.API, oldName string, old []byte) (refusals, warnings ir.ErrorList) {
	var rec ir.IdentityRecord
	d := json.NewDecoder(bytes.NewReader(old))
	d.DisallowUnknownFields()
	if err := d.Decode(&rec); err != nil || rec.Version < 1 || rec.Version > ir.IdentityVersion {
		why := fmt.Sprintf("version %d is not 1 to %d", rec.Version, ir.IdentityVersion)
		if err != nil {
			why = err.Error()
		}
		return ir.ErrorList{{Pos: ir.Pos{File: oldName}, Msg: fmt.Sprintf("not a record writegen wrote (%s): restore it from version control, or remove it to start a new record", why)}}, nil
	}
	for _, w := range rec.Writes {
		for name := range strings.SplitSeq(w.Retry, "|") {
			if _, ok := writegenimpl.ParseRetry(name); !ok && w.Retry != "none" {
				return ir.ErrorList{{Pos: ir.Pos{File: oldName}, Operation: w.Operation, Msg: fmt.Sprintf("the record's retry set %q names %q, a kind this writegen does not know: it was written by a newer writegen (use that one), or edited by hand (restore it from version control)", w.Retry, name)}}, nil
			}
		}
	}
	c := &identityCheck{api: api, oldName: oldName, used: map[ir.Pos]bool{}}
	byScope := map[string]ir.IdentityWrite{}
	byPath := map[string]ir.IdentityWrite{}
	for _, w := range rec.Writes {
		if w.KeyScope != "" {
			byScope[w.KeyScope] = w
		}
		byPath[w.Method+" "+w.Path] = w
	}
	scopeChanged := 0
	var unacked []string
	for _, op := range api.Operations {
		now, ok := identityOf(api, op)
		if !ok {
			continue
		}
		was, ok := byScope[now.KeyScope]
		if !ok || now.KeyScope == "" {
			if was, ok = byPath[now.Method+" "+now.Path]; !ok {
				continue // a new write: nothing to compare
			}
		}
		if was.Scope != now.Scope {
			scopeChanged++
			if !c.ack(op, "scope", was.Scope) {
				unacked = append(unacked, op.ID)
			}
		}
		c.compare(op, was, now)
	}
	if len(unacked) > 0 {
		c.refuse(api.ScopePos, nil, "scope %q was %q in %s: every write gets new provider keys and ledger rows, so a retry after the change is a second effect; put it back, or acknowledge it (acknowledge: {scope: %s, reason: ...} in defaults or in each write; %d of %d do not: %s)",
			api.Scope, rec.Scope, oldName, strconv.Quote(rec.Scope), len(unacked), scopeChanged, strings.Join(unacked, ", "))
	}
	warned := map[ir.Pos]bool{}
	for _, op := range api.Operations {
		s := op.Safety
		if s == nil || s.Acknowledge == nil {
			continue
		}
		// An item of the defaults is shared by the writes that inherit it: it is used when one
		// of them used it, and reported once.
		for _, it := range s.Acknowledge.Items {
			if !c.used[it.Pos] && !warned[it.Pos] {
				warned[it.Pos] = true
				op := op.ID
				if it.Defaults {
					op = ""
				}
				c.warnings = append(c.warnings, &ir.Error{Pos: it.Pos, Operation: op,
					Msg: fmt.Sprintf("acknowledge %s %q matches no change against %s: remove it", it.Kind, it.Old, oldName)})
			}
		}
	}
	ir.SortErrors(c.refusals)
	ir.SortErrors(c.warnings)
	return c.refusals, c.warnings
}

type identityCheck struct {
	api      *ir.API
	oldName  string
	used     map[ir.Pos]bool // the acknowledgements used, by position
	refusals ir.ErrorList
	warnings ir.ErrorList
}

// ack reports whether op acknowledges the change of kind from old, and marks the item used.
func (c *identityCheck) ack(op *ir.Operation, kind, old string) bool {
	a := op.Safety.Acknowledge
	if a == nil {
		return false
	}
	for _, it := range a.Items {
		if it.Kind != kind {
			continue
		}
		match := it.Old == old
		if kind == "retry" {
			match = sameRetry(it.Old, old)
		}
		if match {
			c.used[it.Pos] = true
			return true
		}
	}
	return false
}

func (c *identityCheck) refuse(pos ir.Pos, op *ir.Operation, format string, args ...any) {
	e := &ir.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
	if op != nil {
		e.Operation = op.ID
	}
	c.refusals = append(c.refusals, e)
}

// compare refuses the changes of one write's identity its acknowledgement does not name.
func (c *identityCheck) compare(op *ir.Operation, was, now ir.IdentityWrite) {
	s := op.Safety
	in := "in " + c.oldName
	again := "so a retry after the change is a second effect"
	if was.KeyScope != now.KeyScope && !c.ack(op, "key_scope", was.KeyScope) {
		pos := s.Pos
		if s.Key != nil {
			pos = s.Key.ScopePos
		}
		c.refuse(pos, op, "key scope %q was %q %s: the write gets new provider keys and ledger rows, %s; put it back with key.scope: %s, or acknowledge it (acknowledge: {key_scope: %s, reason: ...})",
			now.KeyScope, was.KeyScope, in, again, quoteOr(was.KeyScope), quoteOr(was.KeyScope))
	}
	if was.KeyFormat != now.KeyFormat && !c.ack(op, "key_format", was.KeyFormat) {
		pos := s.Pos
		if s.Key != nil {
			pos = s.Key.FormatPos
		}
		c.refuse(pos, op, "key format %q was %q %s: the same write gets another business key, %s; put it back, or acknowledge it (acknowledge: {key_format: %s, reason: ...})",
			now.KeyFormat, was.KeyFormat, in, again, strconv.Quote(was.KeyFormat))
	}
	if was.MaxLength != now.MaxLength && !c.ack(op, "max_length", lengthText(was.MaxLength)) {
		pos, from := s.Pos, ""
		if i := s.Idempotency; i != nil {
			pos = i.Pos
			if i.MaxLengthPos.Line != 0 && !i.MaxLengthSpec {
				pos = i.MaxLengthPos
			}
			if i.MaxLengthSpec {
				from = " (the spec's maxLength)"
			}
		}
		c.refuse(pos, op, "max_length %s%s was %s %s: a key over the old length is shortened another way, %s; put it back, or acknowledge it (acknowledge: {max_length: %s, reason: ...})",
			lengthText(now.MaxLength), from, lengthText(was.MaxLength), in, again, strconv.Quote(lengthText(was.MaxLength)))
	}
	if wider := widened(was.Retry, s); len(wider) > 0 && !c.ack(op, "retry", was.Retry) {
		c.refuse(wider[0].Pos, op, "retry on %s widens the retry set (it was %s %s): a failure the committed code stopped at would be sent again; leave it out, or acknowledge it (acknowledge: {retry: %s, reason: ...})",
			wider[0].Name, was.Retry, in, strconv.Quote(was.Retry))
	}
	// Only a lookup whose "not found" counts sooner than before is refused: one that counts it
	// later, or never (strong to eventual, a lag dropped from an eventual lookup), sends again
	// less, not more.
	if wasProof, ok := proofOf(was); ok {
		if nowProof, ok := proofOf(now); ok && nowProof < wasProof && !c.ack(op, "lag", ir.DurationText(wasProof)) {
			c.refuse(s.Lookup.Pos, op, "the lookup's %s is %s, and was %s %s: not found would authorise a resend sooner than the old code trusted it, a second effect if the provider commits in between; put it back with consistency: {%s: %s, source: ...}, or acknowledge it (acknowledge: {lag: %s, reason: ...})",
				lagName(now.Lookup), ir.DurationText(nowProof), ir.DurationText(wasProof), in, now.Lookup, ir.DurationText(wasProof), strconv.Quote(ir.DurationText(wasProof)))
		}
	}
	if was.Reference != "" && now.Reference != "" && was.Reference != now.Reference && !c.ack(op, "reference", was.Reference) {
		c.refuse(s.Reference.Pos, op, "the reference is %s, and was %s %s: the lookup of a write sent before the change would not find it, so its retry is a second effect; put it back, or acknowledge it (acknowledge: {reference: %s, reason: ...})",
			strconv.Quote(now.Reference), strconv.Quote(was.Reference), in, strconv.Quote(was.Reference))
	}
	if was.Dedupe == "ledger" && now.Dedupe == "ledger" && retentionOf(now) < retentionOf(was) && !c.ack(op, "retention", retentionText(was)) {
		c.refuse(s.RetentionPos, op, "retention %s is shorter than %s %s: the ledger would forget keys that callers may still repeat, and a repeat after it is a new write, a second effect; put it back, or acknowledge it (acknowledge: {retention: %s, reason: ...})",
			retentionText(now), retentionText(was), in, strconv.Quote(retentionText(was)))
	}
	if was.Dedupe == "ledger" && now.Dedupe != "ledger" && !c.ack(op, "dedupe", "ledger") {
		pos := s.Pos
		if s.DedupePos.Line != 0 {
			pos = s.DedupePos
		}
		c.refuse(pos, op, "dedupe: ledger is dropped (it was claimed in the ledger %s): concurrent calls with one key would both send, %s; put it back, or acknowledge it (acknowledge: {dedupe: ledger, reason: ...})",
			in, again)
	}
}

// widened returns the members of s's retry set the old set (as String writes it, its names
// checked by CheckIdentity) lacks.
func widened(old string, s *ir.Safety) []ir.RetryMember {
	var was runtime.Retry
	for name := range strings.SplitSeq(old, "|") {
		k, _ := writegenimpl.ParseRetry(name)
		was |= k
	}
	var out []ir.RetryMember
	for _, m := range s.RetryOn {
		if !was.Has(m.Kind) {
			out = append(out, m)
		}
	}
	return out
}

// sameRetry reports whether two retry sets written as "a|b" hold the same kinds.
func sameRetry(a, b string) bool {
	set := func(s string) runtime.Retry {
		var r runtime.Retry
		for name := range strings.SplitSeq(s, "|") {
			k, _ := writegenimpl.ParseRetry(strings.TrimSpace(name))
			r |= k
		}
		return r
	}
	return set(a) == set(b)
}

func lengthText(n int) string {
	if n == 0 {
		return "none"
	}
	return strconv.Itoa(n)
}

func quoteOr(s string) string {
	if s == "" {
		return `""`
	}
	return strconv.Quote(s)
}

// referenceText is a write's reference as WRITE_SAFETY.json records it.
// lookupIdentity records in w how lookup l asks and what it counts.
func lookupIdentity(w *ir.IdentityWrite, l *ir.Lookup) {
	w.Source, w.Escape = l.Source, string(l.Escape)
	if l.Func != "" {
		w.LookupRead = "func " + l.Func
		return
	}
	w.LookupRead = l.Operation.ID
	w.LookupAsks = templatesText(l.Params)
	if l.Body != nil {
		w.LookupAsks = strings.TrimPrefix(w.LookupAsks+" body "+l.Body.JSON, " ")
	}
	w.LookupFinds = "found " + pointerOf(l.Found)
	if l.Found == nil {
		w.LookupFinds = "found the whole response"
	}
	if l.Match != nil {
		w.LookupFinds += " match " + l.Match.Pointer
	}
	if a := l.Adopt; a != nil {
		w.LookupFinds += " adopt " + a.Operation.ID + " " + templatesText(a.Params)
	}
	w.NewestFirst = templatesText(l.NewestFirst)
	var walk []string
	if p := l.Pages; p != nil {
		walk = append(walk, "pages "+strconv.Itoa(p.Max))
		if p.Cursor != nil {
			walk = append(walk, "cursor "+p.Cursor.Pointer)
		} else {
			walk = append(walk, "from "+strconv.Itoa(p.Start))
		}
		walk = append(walk, p.Param.Name)
	}
	if l.Since != nil {
		walk = append(walk, "since "+l.Since.Pointer)
	}
	w.Walk = strings.Join(walk, " ")
}

// templatesText writes params as a query: "sort_order=desc&ticket_id={ticket_id}".
func templatesText(ts []*ir.Template) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Param.Name + "=" + t.Text
	}
	return strings.Join(parts, "&")
}

func referenceText(r *ir.Reference) string {
	var b strings.Builder
	if r.Body != nil {
		b.WriteString("body " + r.Body.Pointer)
	} else {
		b.WriteString("query " + r.Query)
	}
	if r.MarkerText != "" {
		b.WriteString(" marker " + strconv.Quote(r.MarkerText))
	}
	if r.ValueFormat != "" {
		b.WriteString(" value " + r.ValueFormat)
	}
	if r.Through != nil {
		b.WriteString(" through " + ir.DescribeRef(r.Through.Type))
	}
	return b.String()
}

// proofOf returns how long after a write's last attempt the lookup's "not found" counts, as w
// records it, and false when it never counts (no lookup, or an eventual one without a lag). A
// strong lookup recorded without a settle time (WRITE_SAFETY.json version 2) waited the client's,
// 5s by default.
func proofOf(w ir.IdentityWrite) (time.Duration, bool) {
	switch {
	case w.Lag != "":
		d, ok := annot.ParseDuration(w.Lag)
		return d, ok
	case w.Lookup == runtime.Strong.String():
		return 5 * time.Second, true
	}
	return 0, false
}

// lagName names what a lookup's Lag is: a strong lookup's settle time, an eventual one's lag.
func lagName(consistency string) string {
	if consistency == runtime.Strong.String() {
		return "settle time"
	}
	return "lag"
}

// retentionOf returns how long w's ledger rows are kept once settled; for good is the longest.
func retentionOf(w ir.IdentityWrite) time.Duration {
	if d, ok := annot.ParseDuration(w.Retention); ok {
		return d
	}
	return math.MaxInt64
}

// retentionText is w's retention as an annotation writes it.
func retentionText(w ir.IdentityWrite) string {
	if w.Retention == "" {
		return "forever"
	}
	return w.Retention
}
