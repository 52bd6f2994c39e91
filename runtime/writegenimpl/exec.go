package writegenimpl

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/writegen/writegen/runtime"
)

// Call holds the generated parts of one keyed write.
type Call[T any] struct {
	// Request builds the request once from the provider key and the
	// reference.
	Request func(providerKey, reference string) (*Request, error)
	// Reference is the value the write stores at the provider for its
	// lookup when it is not the provider key (a template over the key's
	// fields); "" means the provider key.
	Reference string
	// ID returns the durable id of a decoded 2xx body ("" if absent): a
	// generated accessor.
	ID func(*T) string
	// Lookup finds what committed, by reference; nil when the operation has
	// none. It returns every effect found for the reference, in the
	// provider's order (usually zero or one). The first is adopted; each
	// further one is a duplicate: compensated when Compensate is set (and
	// recorded compensated), else recorded uncertain for a person and
	// notified.
	Lookup func(ctx context.Context, reference string) ([]runtime.Found[T], error)
	// Compensate undoes one duplicate effect (found by Lookup beyond the
	// first); nil when the operation declares no compensation.
	Compensate func(ctx context.Context, duplicate runtime.Found[T]) error
}

// Write runs one logical write whose 2xx is a receipt.
//
// The business key is checked, the provider key derived and the request
// built once; every attempt sends the same bytes. A failed attempt is
// retried when the operation's retry set allows it and re-sending cannot
// make a second effect (the key is in its window, or a strongly consistent
// lookup found nothing); a lookup that finds the effect is adopted; what
// cannot be settled ends in a *runtime.UncertainError, recorded and
// notified. A 2xx that does not decode or carries no id is uncertain too.
// With op.Dedupe the business key is first claimed in the client's ledger,
// and only the caller that holds the claim calls the provider.
func Write[T any](ctx context.Context, c *Client, op *Operation, key runtime.Key, call Call[T]) (*runtime.Receipt[T], error) {
	o, err := c.keyed(ctx, op, key, call.Request, call.Reference, codecOf(&call), true)
	if err != nil {
		return nil, err
	}
	b, _ := o.body.(*T)
	return &runtime.Receipt[T]{ID: o.id, Body: b, Raw: o.raw, Source: o.source, Attempts: o.attempts,
		ProviderKey: o.pk, Status: o.status}, nil
}

// Submit runs one logical write whose 2xx is only an acknowledgement, by
// the rules of Write; the acknowledgement needs no id.
func Submit[T any](ctx context.Context, c *Client, op *Operation, key runtime.Key, call Call[T]) (*runtime.Ack[T], error) {
	o, err := c.keyed(ctx, op, key, call.Request, call.Reference, codecOf(&call), false)
	if err != nil {
		return nil, err
	}
	b, _ := o.body.(*T)
	return &runtime.Ack[T]{Status: o.status, Body: b, Raw: o.raw, Source: o.source, Attempts: o.attempts,
		ProviderKey: o.pk}, nil
}

// Read runs a read, following redirects, retried within op.Retry
// (runtime.RetryReads when op.Retry is empty) on any failure the set names.
func Read[T any](ctx context.Context, c *Client, op *Operation, req *Request) (*T, error) {
	v, err := c.direct(ctx, op, req, modeRead, codecOf[T](nil))
	b, _ := v.(*T)
	return b, err
}

// Do runs a write without a business key, such as an idempotent PUT. Its
// retry set applies as declared, but once an attempt may have taken effect
// it is re-sent only when op.Effect is EffectIdempotent; otherwise the call
// ends uncertain, recorded (in the ledger, when the client has one) and
// notified.
func Do[T any](ctx context.Context, c *Client, op *Operation, req *Request) (*T, error) {
	v, err := c.direct(ctx, op, req, modeDo, codecOf[T](nil))
	b, _ := v.(*T)
	return b, err
}

// Resume takes over the rows of op that need driving on (expired leases;
// re-drivable uncertain rows) and drives each with its stored request and
// provider key: re-sent while the key is inside its window, else looked
// up, else settled uncertain. call.Request is unused: the stored request is
// sent. A client without a ledger has nothing to resume.
func Resume[T any](ctx context.Context, c *Client, op *Operation, call Call[T]) (runtime.ResumeReport, error) {
	return c.resume(ctx, op, codecOf(&call))
}

// codec is what the executor knows of a response type: how to decode a 2xx
// body, read its durable id, look effects up and compensate them. It is a
// plain struct, not an interface implemented by a generic type: each
// response type then costs the compiler a few small closures, not a method
// set with its itab and wrappers.
type codec struct {
	typ  reflect.Type                                                 // the response type T; bodies decode into a new *T
	idOf func(body any) string                                        // nil without an id accessor
	find func(ctx context.Context, reference string) ([]found, error) // nil without a lookup
	undo func(ctx context.Context, duplicate found) error             // nil without a compensation
}

// found is a runtime.Found with its type erased.
type found struct {
	id   string
	body any // a *T
}

// codecOf returns the codec of call, or, with a nil call, of a call that
// only decodes: a read or an unkeyed write.
func codecOf[T any](call *Call[T]) codec {
	cd := codec{typ: reflect.TypeFor[T]()}
	if call == nil {
		return cd
	}
	if id := call.ID; id != nil {
		cd.idOf = func(body any) string {
			if b, _ := body.(*T); b != nil {
				return id(b)
			}
			return ""
		}
	}
	if look := call.Lookup; look != nil {
		cd.find = func(ctx context.Context, reference string) ([]found, error) {
			fs, err := look(ctx, reference)
			if err != nil {
				return nil, err
			}
			out := make([]found, len(fs))
			for i, f := range fs {
				out[i] = found{id: f.ID, body: f.Body}
			}
			return out, nil
		}
	}
	if comp := call.Compensate; comp != nil {
		cd.undo = func(ctx context.Context, d found) error {
			b, _ := d.body.(*T)
			return comp(ctx, runtime.Found[T]{ID: d.id, Body: b})
		}
	}
	return cd
}

func (cd codec) hasID() bool         { return cd.idOf != nil }
func (cd codec) hasLookup() bool     { return cd.find != nil }
func (cd codec) hasCompensate() bool { return cd.undo != nil }

// id returns the durable id of a decoded body, "" without an accessor.
func (cd codec) id(body any) string {
	if cd.idOf == nil {
		return ""
	}
	return cd.idOf(body)
}

func (cd codec) lookup(ctx context.Context, reference string) ([]found, error) {
	return cd.find(ctx, reference)
}

func (cd codec) compensate(ctx context.Context, d found) error { return cd.undo(ctx, d) }

// The response types decoded specially.
var (
	emptyType = reflect.TypeFor[struct{}]() // a response without a body: whatever came is ignored
	bytesType = reflect.TypeFor[[]byte]()   // a body that is not JSON (a PDF, plain text): kept as it came
)

// decode decodes a JSON body into a new *T; an empty body gives a zero T.
func (cd codec) decode(b []byte) (any, error) {
	v := reflect.New(cd.typ)
	p := v.Interface()
	switch cd.typ {
	case emptyType:
		return p, nil
	case bytesType:
		v.Elem().SetBytes(append([]byte(nil), b...)) // b may be a pooled buffer
		return p, nil
	}
	if len(b) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(b, p); err != nil {
		return nil, err
	}
	return p, nil
}
