package writegenimpl

import (
	"context"
	"fmt"

	"github.com/writegen/writegen/runtime"
)

// pruneLimit is the most rows one Resume prunes for an operation: a
// Resume that runs every minute keeps up with 14 million writes a day,
// and one that runs after a long pause catches up over several runs
// instead of holding the ledger for long.
const pruneLimit = 10_000

// prune forgets the keys of op settled longer ago than its retention,
// with a ledger that prunes (runtime.Pruner), at most pruneLimit of them.
func (c *Client) prune(ctx context.Context, op *Operation) error {
	p, ok := c.s.Ledger.(runtime.Pruner)
	if !ok || op.Retention <= 0 || !op.Dedupe || ctx.Err() != nil {
		return nil
	}
	if _, err := p.Prune(ctx, c.scope, c.s.Tenant, op.keyScope(), op.Retention, pruneLimit); err != nil {
		return fmt.Errorf("writegen: operation %q: prune the keys settled more than %s ago: %w", op.ID, op.Retention, err)
	}
	return nil
}
