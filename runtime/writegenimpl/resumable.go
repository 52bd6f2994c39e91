package writegenimpl

import (
	"context"
	"errors"
	"fmt"

	"github.com/writegen/writegen/runtime"
)

// Resumable is a keyed write that ResumeAll drives on, with its lookup and
// compensation as methods of C, the generated client. Only ResumableWrite
// implements it.
type Resumable[C any] interface {
	// resumable returns the write's operation and its codec, whose lookup
	// and compensation are called on client.
	resumable(client C) (*Operation, codec)
}

// ResumableWrite is a Resumable: a keyed write whose 2xx body decodes into
// a P, a pointer to its response type (*Thread), and the methods of the
// client C that find and undo its effects. A generated client declares its
// writes as a table of pointers to them, composite literals that the
// compiler lays out as data: Resume costs it a small method for each
// response type (the resumable of its ResumableWrite), where a call for
// each write would cost a function that grows with the API. The compiler
// checks each method against P and C.
//
//	var resumableWrites = []writegenimpl.Resumable[*Client]{
//		&writegenimpl.ResumableWrite[*Client, *Thread]{Op: createThreadOp, ID: createThreadID, Lookup: (*Client).createThreadLookup},
//	}
type ResumableWrite[C, P any] struct {
	Op *Operation
	// ID returns the durable id of a decoded 2xx body, as Call.ID does.
	ID func(P) string
	// Lookup and Compensate are the write's lookup and compensation as
	// method expressions of the client, such as (*Client).createThreadLookup;
	// nil when the write has none.
	Lookup     func(C, context.Context, string) ([]runtime.Found[P], error)
	Compensate func(C, context.Context, runtime.Found[P]) error
}

func (w *ResumableWrite[C, P]) resumable(client C) (*Operation, codec) {
	if w == nil {
		return nil, codec{}
	}
	call := Call[P]{ID: w.ID}
	if lookup := w.Lookup; lookup != nil {
		call.Lookup = func(ctx context.Context, reference string) ([]runtime.Found[P], error) {
			return lookup(client, ctx, reference)
		}
	}
	if compensate := w.Compensate; compensate != nil {
		call.Compensate = func(ctx context.Context, duplicate runtime.Found[P]) error {
			return compensate(client, ctx, duplicate)
		}
	}
	return w.Op, codecOf(call)
}

// ResumeAll resumes each write, as Resume does, and returns the sum of
// their reports and their errors joined. client is the generated client,
// the receiver of the writes' lookups and compensations. It stops when ctx
// ends.
func ResumeAll[C any](ctx context.Context, c *Client, client C, writes []Resumable[C]) (runtime.ResumeReport, error) {
	var total runtime.ResumeReport
	var errs []error
	for _, w := range writes {
		if ctx.Err() != nil {
			break
		}
		var op *Operation
		var cd codec
		if w != nil {
			op, cd = w.resumable(client)
		}
		if op == nil {
			errs = append(errs, errors.New("writegen: a Resumable without an Operation"))
			continue
		}
		if cd.err != nil {
			errs = append(errs, fmt.Errorf("writegen: operation %q: %w", op.ID, cd.err))
			continue
		}
		r, err := c.resume(ctx, op, cd)
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
