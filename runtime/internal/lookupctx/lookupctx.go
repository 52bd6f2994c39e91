// Package lookupctx carries what the executor tells a lookup it asks: the
// write's reference, its marker and when it first used its key. The
// executor (runtime/writegenimpl) sets it on the lookup's context; package
// runtime reads it for the lookup's public helpers (LookupSince, WalkList),
// so that a lookup, generated or written by hand, never has to be given it.
package lookupctx

import (
	"context"
	"strings"
	"time"
)

// Info is what a lookup is asked about.
type Info struct {
	// Ref is the write's reference, as it reached the provider.
	Ref string
	// Marker is the text the write appended to a free-text field, the
	// reference in it ("" when the write stores its reference in a field
	// of its own): an effect is the write's when its text holds it.
	Marker string
	// First is when the write first used its key, by the client's clock;
	// zero when unknown.
	First time.Time
	// Offset returns the provider's clock minus the client's, as the
	// provider's latest answer told it; nil for none.
	Offset func() time.Duration
}

// Carries reports whether text, what a found effect holds where the write
// keeps its reference, shows the write's reference: it is the reference or,
// for a write that appends a marker, holds the marker. Line breaks compare
// as line breaks whether written \n or \r\n: a text edited in a browser
// comes back with \r\n (GitHub's issues and comments do), and a marker that
// starts a new paragraph ("\n\n<!-- ref:{ref} -->") must still be found.
func (in *Info) Carries(text string) bool {
	if in.Marker != "" {
		if strings.Contains(text, "\r\n") && !strings.Contains(in.Marker, "\r") {
			text = strings.ReplaceAll(text, "\r\n", "\n")
		}
		return strings.Contains(text, in.Marker)
	}
	return text == in.Ref
}

type key struct{}

// With returns ctx carrying in.
func With(ctx context.Context, in *Info) context.Context {
	return context.WithValue(ctx, key{}, in)
}

// From returns the Info ctx carries, nil when it carries none (a lookup
// called by hand, outside a write).
func From(ctx context.Context) *Info {
	in, _ := ctx.Value(key{}).(*Info)
	return in
}
