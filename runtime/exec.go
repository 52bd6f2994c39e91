package runtime

import (
	"context"
	"errors"
)

var errTODO = errors.New("runtime: not implemented yet")

// Call holds the generated parts of one write.
type Call[T any] struct {
	// Request builds the request once; providerKey is
	// ProviderKey(op, businessKey, secret).
	Request func(providerKey string) (*Request, error)
	// Lookup asks the provider what committed, by reference (the provider
	// key). A nil *Found means not found. nil when op.Lookup is NoLookup.
	Lookup func(ctx context.Context, reference string) (*Found[T], error)
}

// Found is what a lookup found.
type Found[T any] struct {
	ID   string
	Body *T
}

// Source says where a receipt came from.
type Source uint8

// The sources of a receipt.
const (
	Created       Source = iota // the write took effect during this call
	AdoptedLookup               // a lookup found the effect of an earlier attempt
	AdoptedLedger               // the ledger held the receipt of an earlier call
)

// Receipt is the provider's proof of a durable effect.
type Receipt[T any] struct {
	ID          string // durable id at op.IDPointer
	Body        *T
	Source      Source
	Attempts    int
	ProviderKey string
	Status      int
}

// Adopted reports whether the receipt records an effect made before this
// call rather than by it.
func (r *Receipt[T]) Adopted() bool { return r.Source != Created }

// Ack is the provider's acknowledgement that it accepted a write; the
// effect may happen later.
type Ack[T any] struct {
	Status      int
	Body        *T
	Attempts    int
	ProviderKey string
}

// ResumeReport counts what Resume did.
type ResumeReport struct {
	Pending   int // claimed rows found
	Active    int // settled active: sent now or adopted
	Rejected  int // settled rejected
	Uncertain int // settled uncertain
}

// Write runs one logical write to a receipt.
func Write[T any](ctx context.Context, c *Client, op *Operation, key Key, call Call[T]) (*Receipt[T], error) {
	return nil, errTODO
}

// Submit runs one logical write whose 2xx is only an acknowledgement.
func Submit[T any](ctx context.Context, c *Client, op *Operation, key Key, call Call[T]) (*Ack[T], error) {
	return nil, errTODO
}

// Read runs a read.
func Read[T any](ctx context.Context, c *Client, op *Operation, req *Request) (*T, error) {
	return nil, errTODO
}

// Do runs an unkeyed write.
func Do[T any](ctx context.Context, c *Client, op *Operation, req *Request) (*T, error) {
	return nil, errTODO
}

// Resume drives the rows of op left claimed.
func Resume[T any](ctx context.Context, c *Client, op *Operation, lookup func(ctx context.Context, reference string) (*Found[T], error)) (ResumeReport, error) {
	return ResumeReport{}, errTODO
}
