package wgdbos

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/writegen/writegen/runtime"
)

// Key returns the business key of the write made in the step of ctx, the
// context DBOS gives a step function: "<workflow ID>/<step ID>".
func Key(ctx context.Context) (string, error) {
	dc, ok := ctx.(dbos.Context)
	if !ok {
		return "", errors.New("wgdbos: Key: not the context of a DBOS step")
	}
	wf, err := dc.GetWorkflowID()
	if err != nil {
		return "", fmt.Errorf("wgdbos: Key: %w", err)
	}
	step, err := dc.GetStepID()
	if err != nil {
		return "", fmt.Errorf("wgdbos: Key: %w", err)
	}
	return wf + "/" + strconv.Itoa(step), nil
}

// Resumer is a generated client: its Resume drives on the writes whose
// ledger claim outlived the process that made it.
type Resumer interface {
	Resume(ctx context.Context) (runtime.ResumeReport, error)
}

// Error is a write's error as a step records it and returns it, before and
// after a recovery.
type Error struct {
	Kind        string // "uncertain", "rejected", "not_applied", "key_conflict", "compensated", "in_progress", "empty_key", "other"
	Message     string
	Row         int64  // the ledger row of an uncertain write, 0 if none
	ProviderKey string // of an uncertain write
	Owner       string // who was told of an uncertain write
}

func (e *Error) Error() string { return e.Message }

// DBOS gob-encodes a workflow's error: registered, an *Error returned by a
// workflow is read back as one.
func init() { gob.Register(&Error{}) }

// Is matches the runtime's sentinel of e's kind.
func (e *Error) Is(target error) bool {
	switch e.Kind {
	case "uncertain":
		return target == runtime.ErrUncertain
	case "rejected":
		return target == runtime.ErrRejected
	case "not_applied":
		return target == runtime.ErrNotApplied
	case "key_conflict":
		return target == runtime.ErrKeyConflict
	case "compensated":
		return target == runtime.ErrCompensated
	case "in_progress":
		return target == runtime.ErrInProgress
	case "empty_key":
		return target == runtime.ErrEmptyKey
	}
	return false
}

func newError(err error) *Error {
	e := &Error{Kind: "other", Message: err.Error()}
	var ue *runtime.UncertainError
	switch {
	case errors.As(err, &ue):
		e.Kind, e.ProviderKey, e.Owner = "uncertain", ue.ProviderKey, ue.Owner
		if n, ok := strings.CutPrefix(ue.Recorded, "ledger row "); ok {
			e.Row, _ = strconv.ParseInt(n, 10, 64)
		}
	case errors.Is(err, runtime.ErrUncertain):
		e.Kind = "uncertain"
	case errors.Is(err, runtime.ErrRejected):
		e.Kind = "rejected"
	case errors.Is(err, runtime.ErrNotApplied):
		e.Kind = "not_applied"
	case errors.Is(err, runtime.ErrKeyConflict):
		e.Kind = "key_conflict"
	case errors.Is(err, runtime.ErrCompensated):
		e.Kind = "compensated"
	case errors.Is(err, runtime.ErrInProgress):
		e.Kind = "in_progress"
	case errors.Is(err, runtime.ErrEmptyKey):
		e.Kind = "empty_key"
	}
	return e
}

// outcome is what a write's step records: its result or its error.
type outcome[R any] struct {
	Value R
	Err   *Error
}

// Write runs write as a step of the workflow of ctx, with the business key
// of that step, and returns its result. DBOS's step retries are off
// whatever opts say. The step's outcome, error included, is recorded by
// DBOS, so a recovered workflow gets what the first run got. A write that
// finds the claim of a run of its step whose process died waits for it
// until its lease ends, then takes it over (or until the scheduled Resume,
// RegisterResume and ScheduleResume, settles it, if that comes first).
func Write[R any](ctx dbos.Context, write func(ctx context.Context, key string) (R, error), opts ...dbos.StepOption) (R, error) {
	o, err := dbos.RunAsStep(ctx, func(ctx context.Context) (outcome[R], error) {
		key, err := Key(ctx)
		if err != nil {
			return outcome[R]{}, err
		}
		v, err := write(ctx, key)
		for errors.Is(err, runtime.ErrInProgress) && ctx.Err() == nil {
			// Another run of this step holds the claim and the wait for it
			// ended: wait again.
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			v, err = write(ctx, key)
		}
		if err != nil {
			return outcome[R]{Err: newError(err)}, nil
		}
		return outcome[R]{Value: v}, nil
	}, append(opts, dbos.WithStepMaxRetries(0))...)
	if err != nil {
		return o.Value, err
	}
	if o.Err != nil {
		return o.Value, o.Err
	}
	return o.Value, nil
}
