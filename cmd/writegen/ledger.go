package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// ledgerCommand is the command that reconciles ledgers, and ledgerPackage its import path. It is
// a program of its own so that the generator, which every connector builds as a tool, links no
// database driver.
const (
	ledgerCommand = "writegen-ledger"
	ledgerPackage = "github.com/writegen/writegen/cmd/writegen-ledger"
)

// runLedger runs "writegen ledger ARGS" as "writegen-ledger ARGS": the program on PATH when there
// is one, else "go run" of its package in the module of the current directory (a connector's
// module requires writegen, so the version is the one it pins).
func runLedger(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := ledgerCmd(ctx, args)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	}
	fmt.Fprintf(stderr, "writegen: ledger: %v (install it with: go install %s)\n", err, ledgerPackage)
	return exitRefused
}

// ledgerCmd returns the command runLedger runs.
func ledgerCmd(ctx context.Context, args []string) *exec.Cmd {
	if path, err := exec.LookPath(ledgerCommand); err == nil {
		return exec.CommandContext(ctx, path, args...)
	}
	return exec.CommandContext(ctx, goBinary(), append([]string{"run", ledgerPackage}, args...)...)
}

// goBinary is the go command: the one that runs this program under "go tool" or "go run"
// when it says so, else the one on PATH.
func goBinary() string {
	if root := os.Getenv("GOROOT"); root != "" {
		if path, err := exec.LookPath(root + "/bin/go"); err == nil {
			return path
		}
	}
	return "go"
}
