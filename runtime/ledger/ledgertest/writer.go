package ledgertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// strategy is what lets a caller settle an ambiguous attempt.
type strategy string

const (
	withKey     strategy = "key"    // the provider honours Idempotency-Key
	withLookup  strategy = "lookup" // a strongly consistent lookup by reference
	withNothing strategy = "none"   // neither: an ambiguous attempt is uncertain
)

var strategies = []strategy{withKey, withLookup, withNothing}

// operation describes "createThing" as generated code would, claimed in
// the ledger before the call when dedupe is true.
func operation(s strategy, dedupe bool) *writegenimpl.Operation {
	op := &writegenimpl.Operation{
		ID: "createThing", Scope: "create-thing", Method: http.MethodPost, Path: "/things", Effect: runtime.EffectAmbiguous,
		Retry: runtime.RetryNotSent | runtime.RetryAmbiguous, Attempts: 3, Receipt: true,
		Dedupe: dedupe, Owner: "things-oncall",
	}
	switch s {
	case withKey:
		// The provider remembers keys for a day: a key whose window nobody
		// declared is not re-sent after a crash.
		op.KeyHeader, op.Keyed, op.KeyWindow = "Idempotency-Key", true, 24*time.Hour
	case withLookup:
		op.Lookup = runtime.Strong
	}
	return op
}

// key is the business key of createThing.
type key string

func (k key) BusinessKey() (string, error) {
	if k == "" {
		return "", &runtime.EmptyKeyError{Operation: "createThing"}
	}
	return string(k), nil
}

// call builds createThing's request and, with withLookup, its lookup.
func call(providerURL string, s strategy, k key) writegenimpl.Call[*thing] {
	c := writegenimpl.Call[*thing]{
		Build: func(_, reference string) (*writegenimpl.Request, error) {
			r := writegenimpl.NewRequest(http.MethodPost, "/things")
			return r, r.JSON(map[string]string{"ref": reference, "name": string(k)})
		},
		ID: func(t *thing) string { return t.ID },
	}
	if s == withLookup {
		c.Lookup = func(ctx context.Context, ref string) ([]runtime.Found[*thing], error) {
			return lookup(ctx, providerURL, ref)
		}
	}
	return c
}

func lookup(ctx context.Context, providerURL, ref string) ([]runtime.Found[*thing], error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, providerURL+"/things?ref="+url.QueryEscape(ref), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotFound:
		return nil, nil
	case http.StatusOK:
		var t thing
		if err := json.NewDecoder(resp.Body).Decode(&t); err != nil {
			return nil, err
		}
		return []runtime.Found[*thing]{{ID: t.ID, Body: &t, Ref: t.Ref}}, nil
	}
	return nil, fmt.Errorf("lookup: status %d", resp.StatusCode)
}

// writeThing runs one logical createThing.
func writeThing(ctx context.Context, c *writegenimpl.Client, providerURL string, s strategy, k key) (*runtime.Receipt[thing], error) {
	return writegenimpl.Write(ctx, c, operation(s, true), k, call(providerURL, s, k))
}

// resumeThings drives on the createThing rows left claimed.
func resumeThings(ctx context.Context, c *writegenimpl.Client, providerURL string, s strategy) (runtime.ResumeReport, error) {
	return writegenimpl.Resume(ctx, c, operation(s, true), call(providerURL, s, ""))
}

// outcome is what one caller got, comparable across callers and processes.
type outcome struct {
	ID        string `json:"id,omitempty"`        // the receipt's id
	Uncertain bool   `json:"uncertain,omitempty"` // the error matched runtime.ErrUncertain
	Err       string `json:"err,omitempty"`
}

func outcomeOf(r *runtime.Receipt[thing], err error) outcome {
	switch {
	case err == nil:
		return outcome{ID: r.ID}
	case errors.Is(err, runtime.ErrUncertain):
		return outcome{Uncertain: true}
	}
	return outcome{Err: err.Error()}
}
