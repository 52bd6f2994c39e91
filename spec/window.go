package spec

import (
	"time"

	"go.yaml.in/yaml/v4"
)

// WindowForever is the Window of an idempotency key the annotation says the provider keeps for
// good (window: forever).
//
// A window is an answer a person gives from the provider's documentation: none is assumed.
// Without one (no window, or window: unknown) the Window is 0, and the generated code relies on
// the key only within the call that first sends it (the runtime's KeyWindow 0): its retries
// re-send it, but Resume, a takeover of its ledger row and a later call with the same business
// key never do, since the provider may have forgotten it. They ask the lookup, or leave the
// outcome uncertain, as for a key past its window.
const WindowForever time.Duration = -1

// WindowKnown reports whether a person declared how long the provider remembers the key.
func (i *Idempotency) WindowKnown() bool { return i.Window != 0 }

// Forever reports whether the provider keeps the key for good (window: forever).
func (i *Idempotency) Forever() bool { return i.Window == WindowForever }

// window reads idempotency.window: a duration, forever, or unknown (the same as no window).
func (p *annotParser) window(n *yaml.Node) time.Duration {
	s, ok := p.str(n)
	if !ok || hasTODO(s) { // a placeholder is reported as one, with the entry
		return 0
	}
	switch s {
	case "forever":
		return WindowForever
	case "unknown":
		return 0
	}
	d, ok := parseDuration(s)
	if !ok {
		p.errorf(n, "window %q is not a positive duration (like 24h, 90m or 30d), forever or unknown: say how long the provider documents that it remembers a key", s)
		return 0
	}
	return d
}

// retention reads retention: how long the ledger remembers a settled business key, a duration
// or forever (0).
func (p *annotParser) retention(n *yaml.Node) time.Duration {
	s, ok := p.str(n)
	if !ok || hasTODO(s) || s == "forever" {
		return 0
	}
	d, ok := parseDuration(s)
	if !ok {
		p.errorf(n, "retention %q is not a positive duration (like 30d or 720h) or forever: say how long the ledger must remember a business key once its write is settled, so that a repeat with the key gets the first outcome", s)
		return 0
	}
	return d
}
