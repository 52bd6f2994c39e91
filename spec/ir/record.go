package ir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf16"
)

// IdentityFile is the name of the record of identities beside the generated package.
const IdentityFile = "WRITE_SAFETY.json"

// IdentityRecord is what WRITE_SAFETY.json holds: per write, the answers its identity depends on.
// A retry after a change of any of them can be a second effect: the provider key changes (scope,
// key scope, key format, max length), a failure the old code stopped at is retried (a widened
// retry set), a resend is no longer guarded (a weaker lookup, a dropped ledger claim). generate
// and check compare the answers with the record of the package they write (CheckIdentity).
type IdentityRecord struct {
	Version int             `json:"version"`
	Scope   string          `json:"scope"`
	Writes  []IdentityWrite `json:"writes"`
}

// IdentityWrite is the identity of one write.
type IdentityWrite struct {
	Operation   string `json:"operation"` // the operationId when the record was written
	Method      string `json:"method"`
	Path        string `json:"path"`
	Scope       string `json:"scope"`
	KeyScope    string `json:"key_scope,omitempty"`
	KeyFormat   string `json:"key_format,omitempty"`
	Idempotency string `json:"idempotency,omitempty"` // "header Idempotency-Key", "query k", "body /k"
	MaxLength   int    `json:"max_length,omitempty"`
	Retry       string `json:"retry"`  // "not_sent|ambiguous", "none"
	Lookup      string `json:"lookup"` // strong, eventual or none
	// Lag is the lookup's declared settle time or lag ("2s", "30s"): not found is trusted once
	// it has passed since the write's last attempt ended.
	Lag string `json:"lag,omitempty"`
	// Reference is where the write stores what its lookup finds it by, and how:
	// "body /external_id", "query ref", "body /text marker \" [ref:{ref}]\"", with
	// "value {order_id}" when it is not the provider key and "through Variant" for a union.
	Reference string `json:"reference,omitempty"`
	// How the lookup asks and what it counts, so that a lookup that changed shows in the
	// record's diff and `writegen check` sees it: the read ("listTicketComments", or "func
	// findNote" written by hand), its params ("sort_order=desc&ticket_id={ticket_id}"), where
	// it finds the write and what carries the reference ("found /comments/0 match /body"), the
	// query language of its substitutions, the params that ask for newest first, its walk
	// ("pages 5 cursor /meta/after_cursor page[after] since /created_at"), the receipt's
	// envelope (response.object), and the source of its consistency.
	LookupRead  string `json:"lookup_read,omitempty"`
	LookupAsks  string `json:"lookup_params,omitempty"`
	LookupFinds string `json:"lookup_finds,omitempty"`
	Escape      string `json:"escape,omitempty"`
	NewestFirst string `json:"newest_first,omitempty"`
	Walk        string `json:"walk,omitempty"`
	Envelope    string `json:"envelope,omitempty"`
	Source      string `json:"source,omitempty"`
	Dedupe      string `json:"dedupe"` // ledger or none
	// Retention is how long the ledger remembers a settled key of a ledger-claimed write; empty:
	// for good.
	Retention string `json:"retention,omitempty"`
	// Where a receipt's durable id is in the write's 2xx answer ("/number", "/ticket/id"), its
	// JSON type (string or integer) and the schema of the object it names ("Issue"): what
	// `writegen ledger resolve -committed -provider-id` takes, which the command names and
	// checks when given this file.
	ReceiptID     string `json:"receipt_id,omitempty"`
	ReceiptIDType string `json:"receipt_id_type,omitempty"`
	ReceiptOf     string `json:"receipt_of,omitempty"`
}

// IdentityVersion is the version of WRITE_SAFETY.json writegen writes; versions 1 (without lag
// and reference), 2 (without how the lookup asks) and 3 (without the receipt's id) are read as
// well.
const IdentityVersion = 4

// Marshal returns the record as WRITE_SAFETY.json holds it: indented JSON and a final newline.
// A format character the spec's names hold (a bidirectional override, a zero-width space) is
// written as an escape, so that the file reads as it is in a review.
func (rec IdentityRecord) Marshal() []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(rec); err != nil {
		panic(err) // strings and integers always encode
	}
	if !bytes.ContainsFunc(b.Bytes(), unprintable) {
		return b.Bytes()
	}
	var out bytes.Buffer
	for _, r := range b.String() {
		if unprintable(r) && r != '\n' {
			if r > 0xffff { // a surrogate pair, as JSON spells it
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&out, `\u%04x`, r)
			}
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes()
}
