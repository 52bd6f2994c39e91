package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
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
	cmd, viaGo := ledgerCmd(ctx, args)
	if viaGo {
		if msg := ledgerMissing(ctx); msg != "" {
			fmt.Fprintln(stderr, msg)
			return exitRefused
		}
	}
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

// ledgerCmd returns the command runLedger runs, and whether it is "go run" of the package.
func ledgerCmd(ctx context.Context, args []string) (*exec.Cmd, bool) {
	if path, err := exec.LookPath(ledgerCommand); err == nil {
		return exec.CommandContext(ctx, path, args...), false
	}
	return exec.CommandContext(ctx, goBinary(), append([]string{"run", ledgerPackage}, args...)...), true
}

// ledgerMissing says how to make writegen-ledger available when the module of the current
// directory cannot build it, "" when it can. It asks the go command where the package is
// (without building it), so that the user reads what to do instead of Go's "no required module
// provides package", which names no command to run.
func ledgerMissing(ctx context.Context) string {
	cmd := exec.CommandContext(ctx, goBinary(), "list", "-find", "-f", "{{.Dir}}", ledgerPackage)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	if cmd.Run() == nil {
		return ""
	}
	why, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	why, _, _ = strings.Cut(why, "; to add it")
	wd, _ := os.Getwd()
	where := "the module of " + wd + " does not require writegen"
	if strings.Contains(why, "go.mod file not found") {
		where = wd + " is in no Go module"
	}
	return fmt.Sprintf("writegen: ledger: %s is not on PATH and %s (%s)\n"+
		"\tin the connector's module, run: go get -tool %s\n"+
		"\tor install it on PATH with: go install %s@latest", ledgerCommand, where, why, ledgerPackage, ledgerPackage)
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
