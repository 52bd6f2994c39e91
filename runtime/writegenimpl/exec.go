package writegenimpl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/writegen/writegen/runtime"
)

// Call holds the parts of one keyed write whose 2xx body decodes into a P,
// a pointer to its response type (*Thread).
type Call[P any] struct {
	// Request is the request of a write that does not carry its provider
	// key or reference in it (only in the idempotency header, which the
	// executor sets). Build, for one that does, builds the request once from
	// them. Exactly one of the two is set.
	Request *Request
	Build   func(providerKey, reference string) (*Request, error)
	// Reference is the value the write stores at the provider for its
	// lookup when it is not the provider key (a template over the key's
	// fields); "" means the provider key.
	Reference string
	// LookupValues are the values the lookup needs beside the reference, as
	// name, value pairs (the ticket_id whose comments it lists): they
	// travel with the reference to the lookup and into the ledger row, so
	// that Resume asks the same lookup (JoinReference).
	LookupValues []string
	// ID returns the durable id of a decoded 2xx body ("" if absent): a
	// generated accessor.
	ID func(P) string
	// Lookup finds what committed, by reference; nil when the operation has
	// none. It returns every effect found for the reference, in the
	// provider's order (usually zero or one). The first is adopted; each
	// further one is a duplicate: compensated when Compensate is set (and
	// recorded compensated), else recorded uncertain for a person and
	// notified.
	Lookup func(ctx context.Context, reference string) ([]runtime.Found[P], error)
	// Compensate undoes one duplicate effect (found by Lookup beyond the
	// first); nil when the operation declares no compensation.
	Compensate func(ctx context.Context, duplicate runtime.Found[P]) error
	// Read reads the receipt's object by its durable id, with the values
	// of the write reference carries (as Lookup is given them); nil when
	// the write declares no read by id (lookup.adopt with a read). A
	// receipt a person recorded in the ledger (writegen ledger resolve
	// -committed) holds the id alone: the object is read with it.
	Read func(ctx context.Context, reference, id string) (P, error)
}

// What the entry points of generated code cost the compiler per response
// type: WriteInto and SubmitInto are instantiated with pointer types only
// (*Thread, *runtime.Receipt[Thread]), which all have one shape, so their
// bodies are compiled once for a whole package; each instantiation adds a
// small wrapper and a dictionary, the price of a typed Call, whose lookup
// and compensation a user may write. WriteInto erases the type of its Call
// into a codec, whose closures are compiled with it, once; the receipt it
// returns is filled through reflection, a fraction of a microsecond against
// the network's tens. A receipt filled by generics would need the response
// type T itself as a type parameter, whose shape is T's own: a body for each
// response type (bench/scale measured the compile of 5,000 operations at
// 1.33 to 1.35 GB instead of 1.21 to 1.24). Read and Do take the pointer
// they decode into as any: nothing of theirs is instantiated. Write, Submit
// and Resume, generic in the response type, are for code written by hand.

// WriteInto runs one logical write whose 2xx is a receipt, and fills and
// returns into, a new *runtime.Receipt[T] where P is *T.
//
// The business key is checked, the provider key derived and the request
// built once; every attempt sends the same bytes. A failed attempt is
// retried when the operation's retry set allows it and re-sending cannot
// make a second effect (the key is in its window, or a strongly consistent
// lookup found nothing); a lookup that finds the effect is adopted; what
// cannot be settled ends in a *runtime.UncertainError, recorded and
// notified. A 2xx that carries no id is uncertain too; one that does not
// decode returns into, its id read from the raw body, with a
// *runtime.DecodeError (errors.Is(err, runtime.ErrDecode)), or is uncertain
// when the id cannot be read.
// With op.Dedupe the business key is first claimed in the client's ledger,
// and only the caller that holds the claim calls the provider.
func WriteInto[P, R any](ctx context.Context, c *Client, op *Operation, key runtime.Key, into R, call Call[P]) (R, error) {
	return keyedResult(into, c.keyedInto(ctx, keyedOf(op, key, &call, true), into))
}

// keyedResult returns what a keyed write returns: into alone, or with a
// *runtime.DecodeError (a 2xx that took effect and did not decode), or
// err alone.
func keyedResult[R any](into R, err error) (R, error) {
	if err != nil && !errors.Is(err, runtime.ErrDecode) {
		var none R
		return none, err
	}
	return into, err
}

// SubmitInto runs one logical write whose 2xx is only an acknowledgement,
// by the rules of WriteInto, and fills and returns into, a new
// *runtime.Ack[T] where P is *T; the acknowledgement needs no id.
func SubmitInto[P, R any](ctx context.Context, c *Client, op *Operation, key runtime.Key, into R, call Call[P]) (R, error) {
	return keyedResult(into, c.keyedInto(ctx, keyedOf(op, key, &call, false), into))
}

// Write is WriteInto for code written by hand.
func Write[T any](ctx context.Context, c *Client, op *Operation, key runtime.Key, call Call[*T]) (*runtime.Receipt[T], error) {
	return WriteInto(ctx, c, op, key, new(runtime.Receipt[T]), call)
}

// Submit is SubmitInto for code written by hand.
func Submit[T any](ctx context.Context, c *Client, op *Operation, key runtime.Key, call Call[*T]) (*runtime.Ack[T], error) {
	return SubmitInto(ctx, c, op, key, new(runtime.Ack[T]), call)
}

// keyedOf erases the type of call, a keyed write: a receipt (WriteInto) or
// an acknowledgement (SubmitInto).
func keyedOf[P any](op *Operation, key runtime.Key, call *Call[P], receipt bool) *keyedWrite {
	return &keyedWrite{op: op, key: key, codec: codecOf(*call), request: call.Request, build: call.Build,
		reference: call.Reference, values: call.LookupValues, receipt: receipt}
}

// keyedWrite is a keyed write as the executor runs it: a Call with its
// type erased.
type keyedWrite struct {
	op  *Operation
	key runtime.Key
	// codec decodes the 2xx body, reads its id, looks the write up,
	// compensates and reads by id.
	codec codec
	// request, or build: the one the Call set.
	request *Request
	build   func(providerKey, reference string) (*Request, error)
	// reference and values are the Call's Reference and LookupValues.
	reference string
	values    []string
	// receipt says whether its 2xx must carry a durable id (WriteInto) or
	// not (SubmitInto).
	receipt bool
}

// keyedInto runs w and fills into, a receipt or an acknowledgement whose
// body is of w's response type.
func (c *Client) keyedInto(ctx context.Context, w *keyedWrite, into any) error {
	err := w.codec.err
	var r reflect.Value
	var f results
	if err == nil {
		r, f, err = resultOf(into, w.codec.typ, w.receipt)
	}
	if err != nil {
		return fmt.Errorf("writegen: operation %q: %w", w.op.ID, err)
	}
	o, err := c.keyed(ctx, w)
	if err != nil && !errors.Is(err, runtime.ErrDecode) {
		return err
	}
	fill(r, f, o)
	return err
}

// Read runs a read, following redirects, retried within op.Retry
// (runtime.RetryReads when op.Retry is empty) on any failure the set names.
// Its 2xx body is decoded into into, a pointer (new(Thread), &list): a
// *[]byte keeps the body as it came, and nil ignores it.
//
// Read and Do are not generic: a generic function costs the compiler a
// wrapper and a dictionary for every type it is instantiated with, even
// when every instantiation shares one body, and a generated package calls
// them with hundreds of response types.
//
//go:noinline
func Read(ctx context.Context, c *Client, op *Operation, req *Request, into any) error {
	return c.direct(ctx, op, req, modeRead, into)
}

// Do runs a write without a business key, such as an idempotent PUT. Its
// retry set applies as declared, but once an attempt may have taken effect
// it is re-sent only when op.Effect is EffectIdempotent; otherwise the call
// ends uncertain, recorded (in the ledger, when the client has one) and
// notified. Its 2xx body is decoded into into, as Read does.
//
//go:noinline
func Do(ctx context.Context, c *Client, op *Operation, req *Request, into any) error {
	return c.direct(ctx, op, req, modeDo, into)
}

// Resume takes over the rows of op that need driving on (expired leases;
// re-drivable uncertain rows) and drives each with its stored request and
// provider key: re-sent while the key is inside its window, else looked
// up, else settled uncertain. call.Request and call.Build are unused: the
// stored request is sent. A client without a ledger has nothing to resume.
//
// An operation with a Retention has its rows settled longer ago than it
// pruned as well (see Operation.Retention).
func Resume[T any](ctx context.Context, c *Client, op *Operation, call Call[*T]) (runtime.ResumeReport, error) {
	rep, err := c.resume(ctx, op, codecOf(call))
	return rep, errors.Join(err, c.prune(ctx, op))
}

// codec is what the executor knows of a response type: how to decode a 2xx
// body, read its durable id, look effects up and compensate them. Bodies
// are *T, held as any.
type codec struct {
	typ  reflect.Type // the response type T of a keyed write; bodies decode into a new *T
	into any          // the *T a read or an unkeyed write decodes into, nil for a keyed write
	err  error        // why the call cannot be made: its P is not a pointer

	idOf func(body any) string                                        // nil without an id accessor
	find func(ctx context.Context, reference string) ([]found, error) // nil without a lookup
	undo func(ctx context.Context, duplicate found) error             // nil without a compensation
	read func(ctx context.Context, reference, id string) (any, error) // nil without a read by id
}

// found is a runtime.Found with its type erased.
type found struct {
	id   string
	body any // a *T
	ref  string
}

// The indexes of the fields of a runtime.Receipt[T] and a runtime.Ack[T]:
// they are the same for every T.
var (
	runtimePkg    = reflect.TypeFor[runtime.Receipt[struct{}]]().PkgPath()
	receiptResult = resultFields(reflect.TypeFor[runtime.Receipt[struct{}]](), true)
	ackResult     = resultFields(reflect.TypeFor[runtime.Ack[struct{}]](), false)
)

// fieldOf returns the index of the field of struct type t named name.
func fieldOf(t reflect.Type, name string) int {
	f, ok := t.FieldByName(name)
	if !ok || len(f.Index) != 1 {
		panic("writegenimpl: " + t.String() + " has no field " + name)
	}
	return f.Index[0]
}

// results are the indexes of the fields of a runtime.Receipt or a
// runtime.Ack; id is -1 in an Ack, which has none.
type results struct {
	name                                        string // "Receipt", "Ack"
	id, body, raw, source, attempts, pk, status int
}

func resultFields(t reflect.Type, receipt bool) results {
	r := results{name: t.Name()[:strings.IndexByte(t.Name(), '[')], id: -1,
		body: fieldOf(t, "Body"), raw: fieldOf(t, "Raw"), source: fieldOf(t, "Source"), attempts: fieldOf(t, "Attempts"),
		pk: fieldOf(t, "ProviderKey"), status: fieldOf(t, "Status")}
	if receipt {
		r.id = fieldOf(t, "ID")
	}
	return r
}

// codecOf erases the response type of call: its closures are compiled once
// for every P, all of one shape.
func codecOf[P any](call Call[P]) codec {
	t := reflect.TypeFor[P]()
	if t.Kind() != reflect.Pointer {
		return codec{err: fmt.Errorf("the call is a writegenimpl.Call[%s]: want a pointer to the response type", t)}
	}
	cd := codec{typ: t.Elem()}
	if id := call.ID; id != nil {
		cd.idOf = func(body any) string {
			b, ok := body.(P)
			if !ok || reflect.ValueOf(body).IsNil() {
				return ""
			}
			return id(b)
		}
	}
	if lookup := call.Lookup; lookup != nil {
		cd.find = func(ctx context.Context, reference string) ([]found, error) {
			fs, err := lookup(ctx, reference)
			if err != nil {
				return nil, err
			}
			out := make([]found, len(fs))
			for i, f := range fs {
				out[i] = found{id: f.ID, body: f.Body, ref: f.Ref}
			}
			return out, nil
		}
	}
	if read := call.Read; read != nil {
		cd.read = func(ctx context.Context, reference, id string) (any, error) {
			body, err := read(ctx, reference, id)
			if err != nil || reflect.ValueOf(body).IsNil() {
				return nil, err
			}
			return body, nil
		}
	}
	if compensate := call.Compensate; compensate != nil {
		cd.undo = func(ctx context.Context, d found) error {
			dup := runtime.Found[P]{ID: d.id}
			dup.Body, _ = d.body.(P)
			return compensate(ctx, dup)
		}
	}
	return cd
}

// resultOf returns the struct into points to, a new *runtime.Receipt[T]
// (receipt) or *runtime.Ack[T] whose T is typ, and its fields.
func resultOf(into any, typ reflect.Type, receipt bool) (reflect.Value, results, error) {
	f := ackResult
	if receipt {
		f = receiptResult
	}
	v := reflect.ValueOf(into)
	if v.Kind() != reflect.Pointer || v.IsNil() || !isResult(v.Elem().Type(), f.name) ||
		v.Elem().Field(f.body).Type().Elem() != typ {
		return reflect.Value{}, f, fmt.Errorf("into is a %T, not a *runtime.%s[%s]", into, f.name, typ)
	}
	return v.Elem(), f, nil
}

// knownResults maps each type that passed a check of isResult to the name
// of the generic type it was instantiated from: the name of an
// instantiated type is parsed on every call of Name, which would cost each
// write more than the rest of its reflection, and a key of the type alone
// is one word to hash.
var knownResults sync.Map // reflect.Type → string

// isResult reports whether t is a struct type instantiated from the generic
// type runtime.name: a runtime.Receipt[T] or a runtime.Ack[T].
func isResult(t reflect.Type, name string) bool {
	if n, ok := knownResults.Load(t); ok {
		return n.(string) == name
	}
	if t.Kind() != reflect.Struct || t.PkgPath() != runtimePkg || !strings.HasPrefix(t.Name(), name+"[") {
		return false
	}
	knownResults.Store(t, name)
	return true
}

// fill fills r, a runtime.Receipt or a runtime.Ack of fields f, with o.
func fill(r reflect.Value, f results, o outcome) {
	if f.id >= 0 {
		r.Field(f.id).SetString(o.id)
	}
	if o.body != nil {
		r.Field(f.body).Set(reflect.ValueOf(o.body))
	}
	r.Field(f.raw).SetBytes(o.raw)
	r.Field(f.source).SetUint(uint64(o.source))
	r.Field(f.attempts).SetInt(int64(o.attempts))
	r.Field(f.pk).SetString(o.pk)
	r.Field(f.status).SetInt(int64(o.status))
}

// id returns the durable id of a decoded body, "" without an accessor.
func (cd codec) id(body any) string {
	if cd.idOf == nil || body == nil {
		return ""
	}
	return cd.idOf(body)
}

// noBody is what a read or an unkeyed write given no pointer decodes into.
var noBody = new(struct{})

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

// RawID reads the durable id at the JSON pointer ptr in a body that did not
// decode into its type: a string, or a number as written; "" when ptr is
// "", the body is not JSON, or nothing usable is there.
func RawID(body []byte, ptr string) string {
	if ptr == "" {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return ""
	}
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}
