// Command firstbuild measures the first build of the generator that a connector pays, beside
// oapi-codegen's.
//
// Run it in bench/, a module of its own:
//
//	go run ./firstbuild [-runs N] [-oapi-codegen VERSION]
//
// A connector that runs writegen with go generate builds it once into an empty build cache:
// on a developer's new machine, in CI without a cache. Each generator is built in two
// setups, into a build cache of its own that is removed after the build:
//
//   - empty: the cache is empty, and the build compiles everything, the standard library
//     included;
//   - beside the client: the cache already holds what any HTTP JSON client compiles anyway
//     (the standard library packages that net/http and encoding/json import, built first and
//     not measured). What the build costs on top is what the generator adds to a connector's
//     own first build.
//
// writegen is built from the repository's root (go install ./cmd/writegen); oapi-codegen with go
// install at -oapi-codegen (its modules are downloaded before anything is measured; "" leaves it
// out).
// The module cache is not cleared: downloading is not building. The builds run in rounds,
// each round building every generator in both setups, the order turning from a round to the
// next; the medians over the rounds are reported, with the ratios writegen / oapi-codegen.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/writegen/writegen/bench/internal/child"
)

const oapiPackage = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "firstbuild:", err)
		os.Exit(1)
	}
}

// generator is one generator to build.
type generator struct {
	name string
	dir  string   // where the go command runs
	args []string // the go command's arguments; it installs into GOBIN
}

// setup is one state of the build cache before the measured build.
type setup struct {
	name string
	warm []string // packages built into the cache first, not measured; none for an empty cache
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("firstbuild", flag.ContinueOnError)
	runs := fs.Int("runs", 3, "rounds (the median is reported)")
	oapiVersion := fs.String("oapi-codegen", "v2.8.2", `the version of oapi-codegen to build beside writegen ("" leaves it out)`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 || fs.NArg() > 0 {
		return errors.New("usage: firstbuild [-runs N] [-oapi-codegen VERSION]")
	}
	root, err := child.WritegenRoot(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "writegen-firstbuild-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	gens := []generator{{name: "writegen", dir: root, args: []string{"install", "./cmd/writegen"}}}
	if *oapiVersion != "" {
		pkg := oapiPackage + "@" + *oapiVersion
		// -n resolves and downloads every module the build needs, and builds nothing.
		if _, _, err := child.Run(ctx, tmp, []string{"GOBIN=" + filepath.Join(tmp, "bin")}, "go", "install", "-n", pkg); err != nil {
			return fmt.Errorf("download oapi-codegen: %w", err)
		}
		gens = append(gens, generator{name: "oapi-codegen " + *oapiVersion, dir: tmp, args: []string{"install", pkg}})
	}
	client, err := stdOf(ctx, root, "net/http", "encoding/json")
	if err != nil {
		return err
	}
	setups := []setup{{name: "empty cache"}, {name: "beside the client", warm: client}}

	type cell struct{ gen, setup int }
	var cells []cell
	for g := range gens {
		for s := range setups {
			cells = append(cells, cell{g, s})
		}
	}
	samples := make(map[cell]child.Series)
	for round := range *runs {
		for k := range cells {
			c := cells[(round+k)%len(cells)]
			s, err := buildOnce(ctx, tmp, gens[c.gen], setups[c.setup])
			if err != nil {
				return err
			}
			samples[c] = append(samples[c], s)
		}
	}

	fmt.Fprintf(stdout, "the first build of each generator, median of %d rounds; \"beside the client\": after the %d standard library packages net/http and encoding/json need\n\n", *runs, len(client))
	fmt.Fprintf(stdout, "%-22s %-18s %9s %9s %10s\n", "", "", "wall", "CPU", "peak RSS")
	for g, gen := range gens {
		for s, st := range setups {
			m := samples[cell{g, s}].Median()
			fmt.Fprintf(stdout, "%-22s %-18s %8.1fs %8.1fs %6.0f MiB\n", gen.name, st.name, m.Wall.Seconds(), m.CPU.Seconds(), float64(m.MaxRSS)/(1<<20))
		}
	}
	if len(gens) > 1 {
		fmt.Fprintln(stdout)
		for s, st := range setups {
			w, o := samples[cell{0, s}].Median(), samples[cell{1, s}].Median()
			fmt.Fprintf(stdout, "writegen / oapi-codegen, %-18s wall %.2fx, CPU %.2fx\n", st.name+":", w.Wall.Seconds()/o.Wall.Seconds(), w.CPU.Seconds()/o.CPU.Seconds())
		}
	}
	return nil
}

// buildOnce builds gen in setup st, into a build cache of its own, and returns what the build
// cost.
func buildOnce(ctx context.Context, tmp string, gen generator, st setup) (child.Sample, error) {
	cache, err := os.MkdirTemp(tmp, "cache-")
	if err != nil {
		return child.Sample{}, err
	}
	defer os.RemoveAll(cache)
	bin := filepath.Join(tmp, "bin")
	env := []string{"GOCACHE=" + cache, "GOBIN=" + bin}
	if len(st.warm) > 0 {
		if _, _, err := child.Run(ctx, tmp, env, "go", append([]string{"build"}, st.warm...)...); err != nil {
			return child.Sample{}, err
		}
	}
	s, _, err := child.Run(ctx, gen.dir, env, "go", gen.args...)
	return s, err
}

// stdOf lists the standard library packages that pkgs import, themselves included.
func stdOf(ctx context.Context, dir string, pkgs ...string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-deps", "-f", "{{if .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w", strings.Join(pkgs, " "), err)
	}
	return strings.Fields(string(out)), nil
}
