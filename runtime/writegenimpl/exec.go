package writegenimpl

import (
	"context"
	"encoding/json"
	"errors"
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
	o, err := c.keyed(ctx, op, key, call.Request, call.Reference, codecOf(call.ID, call.Lookup, call.Compensate), true)
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
	o, err := c.keyed(ctx, op, key, call.Request, call.Reference, codecOf(call.ID, call.Lookup, call.Compensate), false)
	if err != nil {
		return nil, err
	}
	b, _ := o.body.(*T)
	return &runtime.Ack[T]{Status: o.status, Body: b, Raw: o.raw, Source: o.source, Attempts: o.attempts,
		ProviderKey: o.pk}, nil
}

// Read runs a read, following redirects, retried within op.Retry
// (runtime.RetryReads when op.Retry is empty) on any failure the set names.
// Its 2xx body is decoded into into, a new pointer (new(Thread)), which it
// returns: a *[]byte keeps the body as it came, a *struct{} ignores it.
//
// Every pointer type has the same shape, so the compiler makes one Read
// for all the reads of a package, whatever their response types.
func Read[P any](ctx context.Context, c *Client, op *Operation, req *Request, into P) (P, error) {
	if err := c.direct(ctx, op, req, modeRead, codec{into: into}); err != nil {
		var none P
		return none, err
	}
	return into, nil
}

// Do runs a write without a business key, such as an idempotent PUT. Its
// retry set applies as declared, but once an attempt may have taken effect
// it is re-sent only when op.Effect is EffectIdempotent; otherwise the call
// ends uncertain, recorded (in the ledger, when the client has one) and
// notified. Its 2xx body is decoded into into, as Read does.
func Do[P any](ctx context.Context, c *Client, op *Operation, req *Request, into P) (P, error) {
	if err := c.direct(ctx, op, req, modeDo, codec{into: into}); err != nil {
		var none P
		return none, err
	}
	return into, nil
}

// Resume takes over the rows of op that need driving on (expired leases;
// re-drivable uncertain rows) and drives each with its stored request and
// provider key: re-sent while the key is inside its window, else looked
// up, else settled uncertain. call.Request is unused: the stored request is
// sent. A client without a ledger has nothing to resume.
func Resume[T any](ctx context.Context, c *Client, op *Operation, call Call[T]) (runtime.ResumeReport, error) {
	return c.resume(ctx, op, codecOf(call.ID, call.Lookup, call.Compensate))
}

// Resumable is a keyed write that ResumeAll drives on. Build it with
// ResumableWrite.
type Resumable struct {
	op *Operation
	cd *codec
}

// ResumableWrite returns the keyed write of op for ResumeAll. call.Request
// is unused: the stored request is sent.
//
//go:noinline
func ResumableWrite[T any](op *Operation, call Call[T]) Resumable {
	cd := codecOf(call.ID, call.Lookup, call.Compensate)
	return Resumable{op: op, cd: &cd}
}

// ResumeAll resumes each write, as Resume does, and returns the sum of
// their reports and their errors joined. It stops when ctx ends.
//
// A generated client's Resume is one call of it, with one argument a
// write: a table, which costs the compiler far less than a call of Resume
// for each.
func ResumeAll(ctx context.Context, c *Client, writes ...Resumable) (runtime.ResumeReport, error) {
	var total runtime.ResumeReport
	var errs []error
	for _, w := range writes {
		if ctx.Err() != nil {
			break
		}
		r, err := c.resume(ctx, w.op, *w.cd)
		total = total.Add(r)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	return total, errors.Join(errs...)
}

// codec is what the executor knows of a response type: how to decode a 2xx
// body, read its durable id, look effects up and compensate them.
//
// It costs the compiler nothing per response type. Write, Submit and
// Resume are the only functions instantiated per type, and they are a few
// lines each: codecOf's type parameter is a pointer, one shape for all;
// the lookup and the compensation, called only after an ambiguous attempt,
// are called through reflection; bodies are decoded into a reflect.New of
// the type, or into the pointer a read was given.
type codec struct {
	typ  reflect.Type          // the response type T of a keyed write; bodies decode into a new *T
	into any                   // the *T a read or an unkeyed write decodes into, nil for a keyed write
	idOf func(body any) string // nil without an id accessor
	find reflect.Value         // func(ctx, reference) ([]runtime.Found[T], error); invalid without a lookup
	undo reflect.Value         // func(ctx, runtime.Found[T]) error; invalid without a compensation
}

// found is a runtime.Found with its type erased.
type found struct {
	id   string
	body any // a *T
}

// codecOf returns the codec of a keyed write whose response type is the
// element of P. lookup and compensate are the call's Lookup and
// Compensate, nil or not.
func codecOf[P any](id func(P) string, lookup, compensate any) codec {
	cd := codec{typ: reflect.TypeFor[P]().Elem()}
	if id != nil {
		cd.idOf = func(body any) string {
			if b, ok := body.(P); ok {
				return id(b)
			}
			return ""
		}
	}
	if f := reflect.ValueOf(lookup); !f.IsNil() {
		cd.find = f
	}
	if f := reflect.ValueOf(compensate); !f.IsNil() {
		cd.undo = f
	}
	return cd
}

func (cd codec) hasID() bool         { return cd.idOf != nil }
func (cd codec) hasLookup() bool     { return cd.find.IsValid() }
func (cd codec) hasCompensate() bool { return cd.undo.IsValid() }

// id returns the durable id of a decoded body, "" without an accessor.
func (cd codec) id(body any) string {
	if cd.idOf == nil {
		return ""
	}
	return cd.idOf(body)
}

// lookup calls the lookup: func(ctx, reference) ([]runtime.Found[T], error).
func (cd codec) lookup(ctx context.Context, reference string) ([]found, error) {
	out := cd.find.Call([]reflect.Value{reflect.ValueOf(&ctx).Elem(), reflect.ValueOf(reference)})
	if err, _ := out[1].Interface().(error); err != nil {
		return nil, err
	}
	fs := make([]found, out[0].Len())
	for i := range fs {
		f := out[0].Index(i)
		fs[i] = found{id: f.FieldByName("ID").String(), body: f.FieldByName("Body").Interface()}
	}
	return fs, nil
}

// compensate calls the compensation: func(ctx, runtime.Found[T]) error.
func (cd codec) compensate(ctx context.Context, d found) error {
	dup := reflect.New(cd.undo.Type().In(1)).Elem()
	dup.FieldByName("ID").SetString(d.id)
	if d.body != nil {
		dup.FieldByName("Body").Set(reflect.ValueOf(d.body))
	}
	err, _ := cd.undo.Call([]reflect.Value{reflect.ValueOf(&ctx).Elem(), dup})[0].Interface().(error)
	return err
}

// decode decodes a JSON body into the pointer a read was given, or for a
// keyed write into a new *T; an empty body leaves it zero. A *struct{} (a
// response without a body) ignores whatever came; a *[]byte (a body that
// is not JSON: a PDF, plain text) keeps it as it came.
func (cd codec) decode(b []byte) (any, error) {
	p := cd.into
	if p == nil {
		p = reflect.New(cd.typ).Interface()
	}
	switch v := p.(type) {
	case *struct{}:
		return p, nil
	case *[]byte:
		*v = append([]byte(nil), b...) // b may be a pooled buffer
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
