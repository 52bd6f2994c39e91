package writegenimpl

import (
	"errors"
	"fmt"

	"github.com/writegen/writegen/runtime"
)

// The ledger's word is final (promise 52): a call is told ErrNotApplied
// only when no claim of its key stands behind it, so that nobody, not a
// Resume of another replica either, ever sends what it was told did not
// happen.

// claimFailed returns the outcome of a call whose claim failed: not
// applied, the key free, since the ledger answers a failed claim only once
// no claim of the call stands; except when the ledger cannot tell whether
// the claim was recorded (an error matching runtime.ErrInProgress), which
// promises nothing: a claim recorded is taken over once its lease ends.
func (x *logical) claimFailed(err error) error {
	if errors.Is(err, runtime.ErrInProgress) {
		return fmt.Errorf("writegen: operation %q%s: %w", x.op.ID, keyOf(x.info.Identity), err)
	}
	return x.notApplied("the ledger could not claim the key", err)
}

// unsettled returns what a call is told whose outcome to, err, the ledger
// could not record (serr): its outcome, except "not applied", which would
// promise a free key while the row stays claimed, to be taken over once
// its lease ends and driven on, its request sent. Such a call is in
// progress: the next call with the key learns how it ended.
func (x *logical) unsettled(to runtime.State, err, serr error) error {
	if to != runtime.StateNotApplied {
		return err
	}
	return fmt.Errorf("writegen: operation %q%s: %w: nothing was applied (%v), but the ledger could not record it (%v): "+
		"ledger row %d stays claimed, and is driven on once its lease ends, unless this client records the outcome first",
		x.op.ID, keyOf(x.info.Identity), runtime.ErrInProgress, err, serr, x.rowID)
}
