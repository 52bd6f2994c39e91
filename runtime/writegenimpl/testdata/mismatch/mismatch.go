// Package mismatch is generated code gone wrong: each declaration below must not compile
// (TestMismatchDoesNotCompile).
package mismatch

import (
	"context"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

type Thing struct{ ID string }

type Other struct{ ID string }

type Client struct{}

type OtherClient struct{}

var thingOp = &writegenimpl.Operation{ID: "createThing"}

func (c *Client) otherLookup(ctx context.Context, reference string) ([]runtime.Found[*Other], error) {
	return nil, nil
}

func (c *OtherClient) compensate(ctx context.Context, duplicate runtime.Found[*Thing]) error {
	return nil
}

var resumableWrites = []writegenimpl.Resumable[*Client]{
	// A lookup of another response type.
	&writegenimpl.ResumableWrite[*Client, *Thing]{Op: thingOp, Lookup: (*Client).otherLookup},
	// A compensation of another client.
	&writegenimpl.ResumableWrite[*Client, *Thing]{Op: thingOp, Compensate: (*OtherClient).compensate},
	// A write of another client.
	&writegenimpl.ResumableWrite[*OtherClient, *Thing]{Op: thingOp},
}
