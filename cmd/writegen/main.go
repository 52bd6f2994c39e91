package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/writegen/writegen/spec/annot"
)

func main() {
	// A run is short and its memory is freed at exit: collect garbage less often, for speed.
	debug.SetGCPercent(400)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK      = 0 // success
	exitRefused = 1 // a refusal or a defect in the inputs, a stale directory
	exitUsage   = 2 // a usage error
)

// run runs the command line args (without the program name) and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "generate":
		return runGenerate(rest, stdout, stderr)
	case "check":
		return runCheck(rest, stdout, stderr)
	case "init":
		return runInit(rest, stdout, stderr)
	case "schema":
		return runSchema(rest, stdout, stderr)
	case "ledger":
		return runLedger(ctx, rest, os.Stdin, stdout, stderr)
	case "version", "-version", "--version":
		return runVersion(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		return runHelp(ctx, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "writegen: unknown command %q%s\n\n%s", cmd, annot.Suggest(cmd, commands), usage)
	return exitUsage
}

const usage = `usage:
	writegen generate -spec FILE -annotations FILE -out DIR [-package NAME] [-mcp]
	writegen check    -spec FILE -annotations FILE -out DIR [-package NAME] [-mcp]
	writegen init     -spec FILE [-package NAME] > writesafety.yaml
	writegen schema   > writesafety.schema.json
	writegen ledger   list|resolve|redrive|compensate|adopt ...
	writegen version
	writegen help     [COMMAND|annotations]

"writegen help annotations" is the reference of the annotation file; "go doc
github.com/writegen/writegen/cmd/writegen" is the manual.
`
