package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/writegen/writegen/spec/annot"
)

// commands are the subcommands "writegen help" knows, in the order the usage lists them.
var commands = []string{"generate", "check", "init", "schema", "ledger", "version", "help"}

// runHelp is "writegen help [COMMAND]": the usage, or one command's flags, on standard output.
func runHelp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return exitOK
	case len(args) > 1:
		fmt.Fprintf(stderr, "writegen help: want one command, got %d arguments\n", len(args))
		return exitUsage
	}
	switch cmd := args[0]; cmd {
	case "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "annotations":
		ref, err := reference()
		if err != nil {
			return fail(stderr, err)
		}
		fmt.Fprint(stdout, ref)
		return exitOK
	case "ledger":
		return runLedger(ctx, []string{"help"}, os.Stdin, stdout, stderr)
	case "generate", "check", "init", "schema", "version":
		// Each command prints its flags on its error output for -h.
		return run(ctx, []string{cmd, "-h"}, stdout, stdout)
	default:
		fmt.Fprintf(stderr, "writegen help: unknown command %q%s\n", cmd, annot.Suggest(cmd, append(commands, "annotations")))
		return exitUsage
	}
}
