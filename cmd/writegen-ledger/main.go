// Writegen-ledger is what a person does with a writegen ledger: list its
// claims, outbox items and inbox events, and reconcile uncertain rows.
// "writegen ledger ARGS" runs it, so that the generator's own build links
// no database driver.
//
//	writegen-ledger list       [-db DSN] [-what claims|outbox|inbox] [-state S|all]
//	                           [-scope S | -unscoped] [-tenant T] [-operation OP] [-source SRC] [-json]
//	writegen-ledger resolve    [-db DSN] -id N -committed -provider-id ID -reason TEXT
//	writegen-ledger resolve    [-db DSN] -id N -not-applied -reason TEXT
//	writegen-ledger redrive    [-db DSN] -id N -reason TEXT
//	writegen-ledger compensate [-db DSN] -id N -reason TEXT
//	writegen-ledger adopt      [-db DSN] -scope S [-tenant T] [-operation OPERATIONID=KEYSCOPE ...] [-dry-run]
//
// DSN is sqlite:PATH or a postgres:// URL; without -db the environment
// variable WRITEGEN_LEDGER names the ledger. "writegen-ledger help" says
// what each command does; the package ledgercli documents them.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/writegen/writegen/runtime/ledger/ledgercli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := ledgercli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
