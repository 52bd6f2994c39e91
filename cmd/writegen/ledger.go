package main

import (
	"context"
	"io"

	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

// runLedger runs "writegen ledger list|resolve ...": the reconciliation of
// uncertain ledger rows (see package ledgercli).
func runLedger(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return ledgercli.Run(ctx, args, stdout, stderr)
}
