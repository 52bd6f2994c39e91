// Conformance drives the clients and MCP tools writegen generates from the corpus specs
// (../shared/corpus/specs beside the repository's root) against Prism, a mock server that checks
// every request against the spec (--errors) and answers with the spec's examples (static) or with
// random data its schemas allow (dynamic, -d). Every tool of every operation in scope is called
// with arguments filled from its input schema: the required properties only, then every
// property once per member of its widest union, each several times. Each call is counted by
// how it went:
//
//	violation  Prism found the request breaks the spec
//	decode     a 2xx answer did not decode
//	refused    the tool refused arguments filled from its own input schema
//	answer     Prism's own answer breaks the spec (a 500 saying so: an invalid example)
//	rejected   a 4xx with no violation (Prism's choice)
//	uncertain  an uncertain outcome for another reason
//	failed     any other tool error
//
// A failure that is not writegen's (a spec's example that its own schema refuses, a limit of
// Prism) is listed, with the reason, in known.tsv beside this file; every other failure makes
// the program exit with status 1. Stripe is checked against stripe-mock instead
// (cmd/writegen's TestStripeMock).
//
// In bench/, a module of its own:
//
//	go run ./conformance         # every corpus spec but Stripe, static and dynamic
//	go run ./conformance -spec square.json -mode dynamic -v
//
// Prism is found on PATH, or at -prism; .ci/run installs it:
//
//	npm install --prefix DIR @stoplight/prism-cli@5.14.2
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/writegen/writegen/bench/internal/child"
)

func main() {
	var o Options
	flag.StringVar(&o.Prism, "prism", "", "the prism command (default: prism on PATH)")
	flag.StringVar(&o.Specs, "spec", "", "comma-separated spec file names (default: every corpus spec but stripe.json)")
	flag.StringVar(&o.Modes, "mode", "static,dynamic", "Prism's modes: static, dynamic or both")
	flag.IntVar(&o.Calls, "calls", 1, "calls per tool, argument set and mode")
	flag.IntVar(&o.Jobs, "j", 2, "specs and modes driven at once")
	flag.StringVar(&o.Tool, "tool", "", "drive this tool only")
	flag.BoolVar(&o.Verbose, "v", false, "print every failure")
	flag.Parse()
	ctx := context.Background()
	root, err := child.WritegenRoot(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	o.Root = root
	if o.Prism == "" {
		if o.Prism, err = FindPrism(); err != nil {
			fmt.Fprintln(os.Stderr, "conformance:", err)
			os.Exit(2)
		}
	}
	start := time.Now()
	rep, err := Run(ctx, o, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
	rep.Print(os.Stdout, o.Verbose)
	fmt.Printf("\n%d calls in %s\n", rep.Calls(), time.Since(start).Round(time.Second))
	if n := len(rep.Unlisted()); n > 0 {
		fmt.Fprintf(os.Stderr, "conformance: %d failures of writegen's own (not in %s)\n", n, filepath.Join("bench", "conformance", KnownFile))
		os.Exit(1)
	}
}

// Options say what Run drives.
type Options struct {
	Root    string // the writegen module's root, the repository's
	Prism   string
	Specs   string
	Modes   string
	Calls   int
	Jobs    int
	Tool    string
	Verbose bool
}

func (o Options) specs(all []string) []string {
	if o.Specs == "" {
		return all
	}
	return strings.Split(o.Specs, ",")
}
