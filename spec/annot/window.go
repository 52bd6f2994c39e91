package annot

import (
	"time"

	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// window reads idempotency.window: a duration, forever, or unknown (the same as no window).
func (p *annotParser) window(n *yaml.Node) time.Duration {
	s, ok := p.str(n)
	if !ok || hasTODO(s) { // a placeholder is reported as one, with the entry
		return 0
	}
	switch s {
	case "forever":
		return ir.WindowForever
	case "unknown":
		return 0
	}
	d, ok := ParseDuration(s)
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
	d, ok := ParseDuration(s)
	if !ok {
		p.errorf(n, "retention %q is not a positive duration (like 30d or 720h) or forever: say how long the ledger must remember a business key once its write is settled, so that a repeat with the key gets the first outcome", s)
		return 0
	}
	return d
}
