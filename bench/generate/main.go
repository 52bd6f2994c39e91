// Command generate measures writegen on one spec against two anchors: kin-openapi loading the
// same spec, and oapi-codegen generating a client for it.
//
// Run it in bench/, a module of its own:
//
//	go run ./generate [-spec FILE] [-annotations FILE] [-runs N]
//
// By default it measures the Stripe spec of the corpus (../shared/corpus/specs/stripe.json beside
// the repository's root) with testdata/corpus/stripe.writesafety.yaml. Each measured thing runs as a
// child process, -runs times, interleaved with the others (one round runs each once, in an order
// that turns from a round to the next): its wall time, CPU time (user and system) and peak
// resident memory (maximum RSS, from the child's rusage) are reported as the median over the
// rounds, with the ratios between them. Then it counts the lines of generated Go code per operation.
//
// The measured things are:
//   - writegen generate, built from the repository's root first;
//   - kin-openapi's loader reading the spec and nothing else (this program, run again in its
//     load mode);
//   - oapi-codegen, when its binary is on PATH or in GOPATH/bin (install it with
//     go install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2); it is left
//     out, with a message, when it is not installed. It generates -oapi-generate (by default
//     types and client, the part comparable with writegen's output).
//
// Only the binaries are used: oapi-codegen is not a dependency of this module.
package main

import (
	"bytes"
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
	"github.com/writegen/writegen/bench/internal/kinload"
)

// loadMode is the first argument that makes this program load a spec with kin-openapi and exit.
const loadMode = "-kin-load"

func main() {
	if len(os.Args) == 3 && os.Args[1] == loadMode {
		if err := kinLoad(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "generate:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}

// kinLoad prints the number of operations of the spec at path, loaded by the baseline
// (kinload.Load).
func kinLoad(path string) error {
	n, err := kinload.Load(path)
	if err != nil {
		return err
	}
	fmt.Println(n)
	return nil
}

// command is one measured thing: a child process, run after fresh when fresh is not nil.
type command struct {
	name  string
	fresh func() error
	argv  []string
}

// measure runs the commands runs times, interleaved: each round runs every command once, and
// the order turns by one from a round to the next, so a change in the machine's load during
// the measurement falls on all of them alike rather than on whichever ran in that stretch. It
// returns, per command, the median of each figure over the rounds, and its standard output of
// the last round.
func measure(ctx context.Context, runs int, cmds []command) ([]child.Sample, [][]byte, error) {
	all := make([]child.Series, len(cmds))
	outs := make([][]byte, len(cmds))
	for round := range runs {
		for k := range cmds {
			i := (round + k) % len(cmds)
			c := cmds[i]
			if c.fresh != nil {
				if err := c.fresh(); err != nil {
					return nil, nil, err
				}
			}
			s, out, err := child.Run(ctx, "", nil, c.argv[0], c.argv[1:]...)
			if err != nil {
				return nil, nil, err
			}
			all[i] = append(all[i], s)
			outs[i] = out
		}
	}
	medians := make([]child.Sample, len(cmds))
	for i, ss := range all {
		medians[i] = ss.Median()
	}
	return medians, outs, nil
}

// findTool finds a binary on PATH or in GOPATH/bin; "" when it is in neither.
func findTool(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return ""
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "bin", name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// goLines counts the lines of the .go files under dir, and the files.
func goLines(dir string) (lines, files int, err error) {
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines += bytes.Count(data, []byte("\n"))
		files++
		return nil
	})
	return lines, files, err
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	root, err := child.WritegenRoot(ctx)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	specPath := fs.String("spec", filepath.Join(root, "..", "shared", "corpus", "specs", "stripe.json"), "the OpenAPI document")
	annotations := fs.String("annotations", filepath.Join(root, "testdata", "corpus", "stripe.writesafety.yaml"), "its write-safety answers")
	runs := fs.Int("runs", 3, "runs of each measured command (the median is reported)")
	oapiGenerate := fs.String("oapi-generate", "types,client", "what oapi-codegen generates (its -generate flag)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 || fs.NArg() > 0 {
		return errors.New("usage: generate [-spec FILE] [-annotations FILE] [-runs N] [-oapi-generate LIST]")
	}
	tmp, err := os.MkdirTemp("", "writegen-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	writegen := filepath.Join(tmp, "writegen")
	build := exec.CommandContext(ctx, "go", "build", "-o", writegen, "./cmd/writegen")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/writegen: %v\n%s", err, out)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	wgOut := filepath.Join(tmp, "writegen-out", "api")
	cmds := []command{
		{name: "kin-openapi load (the spec alone)", argv: []string{self, loadMode, *specPath}},
		// Each run writes a new directory, as a first generation does.
		{name: "writegen generate", fresh: func() error { return os.RemoveAll(wgOut) },
			argv: []string{writegen, "generate", "-spec", *specPath, "-annotations", *annotations, "-out", wgOut}},
	}
	oapi := findTool("oapi-codegen")
	ocFile := filepath.Join(tmp, "oapi-out", "api.gen.go")
	if oapi != "" {
		if err := os.MkdirAll(filepath.Dir(ocFile), 0o755); err != nil {
			return err
		}
		cmds = append(cmds, command{name: "oapi-codegen (" + *oapiGenerate + ")",
			argv: []string{oapi, "-generate", *oapiGenerate, "-package", "api", "-o", ocFile, *specPath}})
	}
	samples, outs, err := measure(ctx, *runs, cmds)
	if err != nil {
		return err
	}
	kin, wg := samples[0], samples[1]
	var ops int
	if _, err := fmt.Sscan(string(outs[0]), &ops); err != nil || ops == 0 {
		return fmt.Errorf("kin-openapi load printed %q, want the number of operations", outs[0])
	}
	wgLines, wgFiles, err := goLines(wgOut)
	if err != nil {
		return err
	}
	var ocLines int
	if oapi != "" {
		if ocLines, _, err = goLines(filepath.Dir(ocFile)); err != nil {
			return err
		}
	}

	fmt.Fprintf(stdout, "spec %s: %d operations; median of %d interleaved rounds, each a child process\n\n", filepath.Base(*specPath), ops, *runs)
	fmt.Fprintf(stdout, "%-34s %10s %10s %12s\n", "", "wall", "CPU", "peak RSS")
	for i, s := range samples {
		fmt.Fprintf(stdout, "%-34s %9.2fs %9.2fs %8.0f MiB\n", cmds[i].name, s.Wall.Seconds(), s.CPU.Seconds(), float64(s.MaxRSS)/(1<<20))
	}

	ratio := func(a, b child.Sample) string {
		return fmt.Sprintf("wall %.2fx, CPU %.2fx, peak RSS %.2fx",
			a.Wall.Seconds()/b.Wall.Seconds(), a.CPU.Seconds()/b.CPU.Seconds(), float64(a.MaxRSS)/float64(b.MaxRSS))
	}
	fmt.Fprintf(stdout, "\nwritegen / kin-openapi load: %s\n", ratio(wg, kin))
	if oapi != "" {
		fmt.Fprintf(stdout, "writegen / oapi-codegen:     %s\n", ratio(wg, samples[2]))
	}
	fmt.Fprintf(stdout, "\ngenerated Go lines: writegen %d in %d files, %.0f per operation\n", wgLines, wgFiles, float64(wgLines)/float64(ops))
	if oapi != "" {
		fmt.Fprintf(stdout, "                    oapi-codegen %d, %.0f per operation\n", ocLines, float64(ocLines)/float64(ops))
	} else {
		fmt.Fprintln(stdout, "\noapi-codegen is not installed: its column is left out "+
			"(go install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2)")
	}
	return nil
}
