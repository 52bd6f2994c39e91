package writegenimpl

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/writegen/writegen/runtime"
)

// Resumable is a keyed write that ResumeAll drives on. A generated client
// declares its writes as a table of them, plain values that the compiler
// lays out as data: Resume costs it nothing per write, where a call for
// each write would cost a function per response type and a function that
// grows with the API. Resume is rare, and reaches the types through
// reflection.
//
//	var resumableWrites = []writegenimpl.Resumable{
//		{Op: createThreadOp, Call: writegenimpl.Call[*Thread]{ID: createThreadID}, Lookup: (*Client).createThreadLookup},
//	}
type Resumable struct {
	Op *Operation
	// Call is the write's Call[P], with its ID accessor; its Request and Build are
	// unused (the stored request is sent), and its Lookup and Compensate
	// must be nil: they are given below.
	Call any
	// Lookup and Compensate are the write's lookup and compensation as
	// methods of the client that ResumeAll is given, such as
	// (*Client).createThreadLookup: func(*Client, context.Context, string)
	// ([]runtime.Found[P], error) and func(*Client, context.Context,
	// runtime.Found[P]) error. Nil when the write has none.
	Lookup, Compensate any
}

// ResumeAll resumes each write, as Resume does, and returns the sum of
// their reports and their errors joined. client is the generated client,
// the receiver of the writes' lookups and compensations. It stops when ctx
// ends.
func ResumeAll(ctx context.Context, c *Client, client any, writes []Resumable) (runtime.ResumeReport, error) {
	var total runtime.ResumeReport
	var errs []error
	for _, w := range writes {
		if ctx.Err() != nil {
			break
		}
		if w.Op == nil {
			errs = append(errs, errors.New("writegen: a Resumable without an Operation"))
			continue
		}
		cd := w.codec(client)
		if cd.err != nil {
			errs = append(errs, fmt.Errorf("writegen: operation %q: %w", w.Op.ID, cd.err))
			continue
		}
		r, err := c.resume(ctx, w.Op, cd)
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

// Types the methods of a Resumable are checked against.
var (
	contextType = reflect.TypeFor[context.Context]()
	errorType   = reflect.TypeFor[error]()
)

// codec erases the types of w through reflection; the methods are called
// on client.
func (w Resumable) codec(client any) codec {
	v := reflect.ValueOf(w.Call)
	if !v.IsValid() || !generic(v.Type(), implPkg, "Call") {
		return codec{err: fmt.Errorf("the call is a %T, not a writegenimpl.Call", w.Call)}
	}
	id := v.Field(callField.id)
	p := id.Type().In(0) // P
	switch {
	case p.Kind() != reflect.Pointer:
		return codec{err: fmt.Errorf("the call is a %s: want a pointer to the response type", v.Type())}
	case !v.Field(callField.lookup).IsNil() || !v.Field(callField.compensate).IsNil():
		return codec{err: errors.New("the Resumable's call has a lookup or a compensation: give them as the Resumable's methods")}
	}
	cd := codec{typ: p.Elem()}
	if !id.IsNil() {
		cd.idOf = func(body any) string {
			b := reflect.ValueOf(body)
			if b.Type() != p || b.IsNil() {
				return ""
			}
			return id.Call([]reflect.Value{b})[0].String()
		}
	}
	recv := reflect.ValueOf(client)
	isFound := func(t reflect.Type) bool { // runtime.Found[P]
		return generic(t, runtimePkg, "Found") && t.Field(foundField.body).Type == p
	}
	if w.Lookup != nil {
		f := reflect.ValueOf(w.Lookup)
		t := f.Type()
		if !method(t, recv, 2) || t.In(2).Kind() != reflect.String || t.NumOut() != 2 ||
			t.Out(0).Kind() != reflect.Slice || !isFound(t.Out(0).Elem()) || t.Out(1) != errorType {
			return codec{err: fmt.Errorf("the lookup is a %s, not a method of %T that returns ([]runtime.Found[%s], error)", t, client, p)}
		}
		cd.find = func(ctx context.Context, reference string) ([]found, error) {
			out := f.Call([]reflect.Value{recv, reflect.ValueOf(&ctx).Elem(), reflect.ValueOf(reference)})
			if err, _ := out[1].Interface().(error); err != nil {
				return nil, err
			}
			fs := make([]found, out[0].Len())
			for i := range fs {
				e := out[0].Index(i)
				fs[i] = found{id: e.Field(foundField.id).String(), body: e.Field(foundField.body).Interface(),
					ref: e.Field(foundField.ref).String()}
			}
			return fs, nil
		}
	}
	if w.Compensate != nil {
		f := reflect.ValueOf(w.Compensate)
		t := f.Type()
		if !method(t, recv, 2) || !isFound(t.In(2)) || t.NumOut() != 1 || t.Out(0) != errorType {
			return codec{err: fmt.Errorf("the compensation is a %s, not a method of %T that takes a runtime.Found[%s]", t, client, p)}
		}
		cd.undo = func(ctx context.Context, d found) error {
			dup := reflect.New(t.In(2)).Elem()
			dup.Field(foundField.id).SetString(d.id)
			if d.body != nil {
				dup.Field(foundField.body).Set(reflect.ValueOf(d.body))
			}
			err, _ := f.Call([]reflect.Value{recv, reflect.ValueOf(&ctx).Elem(), dup})[0].Interface().(error)
			return err
		}
	}
	return cd
}

// method reports whether t is the type of a method expression of recv's
// type that takes a context and n-1 more arguments.
func method(t reflect.Type, recv reflect.Value, n int) bool {
	return t.Kind() == reflect.Func && recv.IsValid() && t.NumIn() == n+1 && t.In(0) == recv.Type() && t.In(1) == contextType
}
