package runtime

import "time"

// Source says where a receipt or an acknowledgement came from.
type Source uint8

// The sources of a receipt or an acknowledgement.
const (
	Created       Source = iota // the write took effect during this call
	AdoptedLookup               // a lookup found the effect of an earlier attempt
	AdoptedLedger               // the ledger held the outcome of an earlier call
)

func (s Source) String() string {
	switch s {
	case Created:
		return "created"
	case AdoptedLookup:
		return "adopted_lookup"
	case AdoptedLedger:
		return "adopted_ledger"
	}
	return "unknown"
}

// Adopted reports whether a receipt or an acknowledgement of this source
// records an effect made before this call rather than by it.
//
// It is a method of Source, not of Receipt[T]: a method of a generic type is
// compiled once for every response type a generated client names.
func (s Source) Adopted() bool { return s != Created }

// Receipt is the provider's proof of a durable effect.
//
// Body may be nil for a receipt a person recorded (writegen ledger resolve
// -committed, Source AdoptedLedger): the ledger holds the effect's id
// alone. Where the write declares a read by id (lookup.adopt with a read),
// the object is read with the id, and Body is nil only when that read
// failed. Never use a field of a nil Body: the ID is the receipt.
type Receipt[T any] struct {
	ID          string // the durable id of the effect, never ""
	Body        *T     // nil for a receipt a person recorded that could not be read
	Raw         []byte // the 2xx body as received, or as stored in the ledger; nil for a receipt a person recorded
	Source      Source
	Attempts    int // attempts the write took (those of the earlier call, when adopted from the ledger)
	ProviderKey string
	Status      int // the 2xx status, 0 when adopted from a lookup
}

// Ack is the provider's acknowledgement that it accepted a write; the
// effect may happen later and has no durable id yet.
type Ack[T any] struct {
	Status      int
	Body        *T
	Raw         []byte
	Source      Source // Created, or AdoptedLedger when an earlier call was acknowledged
	Attempts    int
	ProviderKey string
}

// Found is what a lookup found: the effect of an earlier attempt. P is a
// pointer to the response type (*Thread), the type of a receipt's Body. A
// lookup returns every effect it finds for the write, in the provider's
// order: the first is adopted and the others are duplicates, compensated
// where the operation declares how.
//
// A found effect is the write's only when it shows the write's reference:
// Ref is the text of the object where the write keeps it (its reference
// field, or the text the write appended its marker to), and the runtime
// adopts only an effect whose Ref is the reference, or holds the marker,
// whatever the provider's search matched (promise 47). A lookup written
// by hand must set Ref from the object it found, never from the reference
// it was asked for.
//
// It is generic in the pointer, not in T: every pointer type has one shape,
// so the runtime's code that calls a lookup is compiled once for a whole
// generated package instead of once for each response type.
type Found[P any] struct {
	_    [0]func() // not comparable: == would compare Body's address, and would cost each P an equality function
	ID   string
	Body P
	// Ref is the found object's text that carries the write's reference.
	Ref string
	// Created is when the object was created, for a walk through a list
	// newest first (Walk.Since); zero when unknown.
	Created time.Time
}

// ResumeReport counts what a Resume did: the rows it took over and the
// states it settled them in. Rows it could not settle are counted in Taken
// only (they stay claimed for a later Resume).
type ResumeReport struct {
	Taken       int // rows taken over: expired leases and re-drivable uncertain rows
	Reasked     int // of Taken, uncertain rows whose lookup (or key) was asked again
	Active      int // settled active: sent now, or adopted from a lookup
	Rejected    int
	NotApplied  int
	Uncertain   int
	Scheduled   int // of Uncertain, rows a later Resume asks again (WithReask); the others are left to a person
	Compensated int // duplicates a lookup found and compensation undid
}

// Add returns the sum of r and o.
func (r ResumeReport) Add(o ResumeReport) ResumeReport {
	return ResumeReport{
		Taken:       r.Taken + o.Taken,
		Reasked:     r.Reasked + o.Reasked,
		Active:      r.Active + o.Active,
		Rejected:    r.Rejected + o.Rejected,
		NotApplied:  r.NotApplied + o.NotApplied,
		Uncertain:   r.Uncertain + o.Uncertain,
		Scheduled:   r.Scheduled + o.Scheduled,
		Compensated: r.Compensated + o.Compensated,
	}
}
