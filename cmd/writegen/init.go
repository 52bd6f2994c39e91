package main

import (
	"io"
	"strings"

	"github.com/writegen/writegen/spec/scaffold"
)

// runInit is "writegen init": it prints an annotation file for the spec, with a TODO wherever a
// person must answer.
func runInit(args []string, stdout, stderr io.Writer) int {
	var specPath, pkg, include string
	fs := newFlagSet("init", "-spec FILE [-package NAME] [-include LIST] > writesafety.yaml", stderr)
	fs.StringVar(&specPath, "spec", "", "the OpenAPI document (3.0, 3.1 or Swagger 2.0, YAML or JSON)")
	fs.StringVar(&pkg, "package", "", "the Go package name (default: from the spec's file name)")
	fs.StringVar(&include, "include", "", "list only these operations and tags: a comma-separated list of operationIds, \"METHOD /path\" and tags")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if specPath == "" {
		return usageError(fs, "-spec is required")
	}
	opts := scaffold.Options{Package: pkg}
	if include != "" {
		opts.Include = strings.Split(include, ",")
	}
	data, err := scaffold.Scaffold(specPath, opts)
	if err != nil {
		return fail(stderr, err)
	}
	if _, err := stdout.Write(data); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}
