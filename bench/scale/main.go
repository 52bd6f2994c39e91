// Command scale measures how writegen and the code it generates scale with the size of an API,
// against the targets of the performance work: the build of a 10,000-operation package within
// 1.2 GB and 60 s of CPU on two cores (CPU rather than wall time, which a shared machine makes
// noisy), the Stripe package rebuilt within 5 s and 400 MB, Stripe generated in no more time
// than kin-openapi takes to load it, and generation CPU per operation flat up to 10,000
// operations.
//
// Run it in bench/, a module of its own:
//
//	go run ./scale [-sizes 100,1000,5000,10000] [-runs 3] [-build-runs 3] [-quick] ...
//
// For each size it writes a synthetic spec of exactly that many operations and its annotation
// file, both drawn from -seed (see synth.go for their shape: CRUD resources with nested objects,
// enums, arrays, maps, unions, keyed writes with lookups, and writes deduplicated in the ledger,
// so that the generated code calls every entry point of the runtime). Then it measures, as
// child processes run in turn (A B C A B C ...) -runs times, with the median reported:
//   - kin-openapi's loader reading the spec and nothing else (this program in its load mode);
//   - writegen generate, built from the repository's root first;
//   - oapi-codegen v2.8.2 (types and client) and ogen v1.24.0 (client only), resolved with
//     go run module/cmd/name@version (the go command's own cost is kept out by timing the
//     binary it built); a generator that refuses the spec is shown with its reason;
//
// and then go build of the generated package, -build-runs times (-large-build-runs at sizes of
// -large operations and more), in a temporary module that requires this repository through a
// replace directive, the package compiled cold and its dependencies warm (see buildModule).
// Wall time is the child's; CPU time is user plus system time of the child and its descendants;
// peak RSS is the largest resident set among them (rusage). The compile row is the compiler's
// run on the generated package alone, logged through -toolexec.
//
// At sizes above -split (1,000 by default) the API is also generated as several packages of at
// most that many operations, whole tags of the synthetic spec in each, as cmd/writegen's
// documentation advises for a large API: each from an annotation file of its own that holds the
// answers of its operations and include: {tags: [...]}, all in the one provider scope. They are
// built in one go build, as a program that imports them all would be: the go command then runs
// one compiler per core, so beside the largest process the peak of the compilers' resident sets
// summed is sampled from /proc.
//
// Then the Stripe spec of the corpus (../shared/corpus/specs/stripe.json beside the repository's
// root, with testdata/corpus/stripe.writesafety.yaml): kin-openapi's load beside writegen
// generate, and the rebuild of the generated package. It is left out, with a message, when the
// corpus is absent.
//
// Last, the targets, each with the measured figure and its ratio to the target (a ratio above
// 1 misses it). Sizes are in MB of 10^6 bytes, as the targets are.
//
// Measurements on a shared machine are noisy: every figure is a median, the spread of wall
// times is shown beside it, and the load average is printed before and after. -quick measures
// 100 operations once, without the other generators and Stripe: enough to check in CI that the
// program works.
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
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/writegen/writegen/bench/internal/child"
	"github.com/writegen/writegen/bench/internal/kinload"
)

// loadMode is the first argument that makes this program load a spec with kin-openapi and exit.
const loadMode = "-kin-load"

func main() {
	switch {
	case len(os.Args) == 3 && os.Args[1] == loadMode:
		if err := kinLoad(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
		return
	case len(os.Args) >= 4 && os.Args[1] == toolexecMode:
		os.Exit(toolexec(os.Args[2], os.Args[3], os.Args[4:]))
	}
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
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

// config is what the flags set.
type config struct {
	sizes                       []int
	runs, buildRuns, largeRuns  int
	large                       int
	split                       int
	seed                        uint64
	others, build, stripe, keep bool
	stripeSpec, stripeAnnot     string
	gocache                     string
}

func parseFlags(root string, args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("sizes", "100,1000,5000,10000", "comma-separated sizes of the synthetic specs, in operations")
	fs.IntVar(&c.runs, "runs", 3, "runs of each generator and of the load (the median is reported)")
	fs.IntVar(&c.buildRuns, "build-runs", 3, "builds of each generated package below -large operations")
	fs.IntVar(&c.largeRuns, "large-build-runs", 1, "builds of each generated package of -large operations or more")
	fs.IntVar(&c.large, "large", 5000, "the size from which -large-build-runs applies")
	fs.IntVar(&c.split, "split", 1000, "at sizes above it, also generate the API as packages of at most this many operations (whole tags of 140) and build them together; 0: never")
	fs.Uint64Var(&c.seed, "seed", 1, "the seed the synthetic specs are drawn from")
	fs.BoolVar(&c.others, "others", true, "measure oapi-codegen and ogen beside writegen")
	fs.BoolVar(&c.build, "build", true, "build the generated packages")
	fs.BoolVar(&c.stripe, "stripe", true, "measure the Stripe spec of the corpus")
	fs.StringVar(&c.stripeSpec, "stripe-spec", filepath.Join(root, "..", "shared", "corpus", "specs", "stripe.json"), "the Stripe spec")
	fs.StringVar(&c.stripeAnnot, "stripe-annotations", filepath.Join(root, "testdata", "corpus", "stripe.writesafety.yaml"), "its write-safety answers")
	fs.StringVar(&c.gocache, "gocache", "", "the build cache to build in (default: the go command's own; the measured packages' entries are removed after each build)")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory (specs, generated code, toolexec logs) and print its path")
	quick := fs.Bool("quick", false, "a check that the program works: 100 operations, one run of each, no other generators, no Stripe (overrides -sizes, -runs, -build-runs, -others, -stripe)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *quick {
		*sizes, c.runs, c.buildRuns, c.largeRuns, c.others, c.stripe = "100", 1, 1, 1, false, false
	}
	for f := range strings.SplitSeq(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return c, fmt.Errorf("-sizes: %q is not a number of operations", f)
		}
		c.sizes = append(c.sizes, n)
	}
	if c.runs < 1 || c.buildRuns < 1 || c.largeRuns < 1 {
		return c, errors.New("-runs, -build-runs and -large-build-runs must be at least 1")
	}
	return c, nil
}

// generator is a generator measured beside writegen.
type generator struct {
	name    string // "oapi-codegen"
	module  string // what go run resolves: module/cmd/name@version
	what    string // what it generates, for the table
	bin     string // the binary; "" when it could not be resolved
	missing string // why not
	args    func(spec, out string) []string
}

// bench is one run of the program.
type bench struct {
	cfg       config
	root, tmp string
	self      string
	writegen  string
	others    []*generator
	mod       *buildModule
	out       io.Writer
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	root, err := child.WritegenRoot(ctx)
	if err != nil {
		return err
	}
	cfg, err := parseFlags(root, args, os.Stderr)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "writegen-scale-")
	if err != nil {
		return err
	}
	if cfg.keep {
		fmt.Fprintf(stdout, "files are kept in %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	b := &bench{cfg: cfg, root: root, tmp: tmp, out: stdout}
	if b.self, err = os.Executable(); err != nil {
		return err
	}
	b.writegen = filepath.Join(tmp, "writegen")
	build := exec.CommandContext(ctx, "go", "build", "-o", b.writegen, "./cmd/writegen")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/writegen: %v\n%s", err, out)
	}
	if cfg.others {
		b.resolveOthers(ctx)
	}
	if cfg.build {
		if b.mod, err = newBuildModule(ctx, filepath.Join(tmp, "module"), root, b.self, cfg.gocache); err != nil {
			return err
		}
	} else if err := os.MkdirAll(filepath.Join(tmp, "module"), 0o755); err != nil {
		return err
	}

	fmt.Fprintf(stdout, "%s %s/%s, %d CPUs (GOMAXPROCS %d); load average %s at the start\n",
		goruntime.Version(), goruntime.GOOS, goruntime.GOARCH, goruntime.NumCPU(), goruntime.GOMAXPROCS(0), orNone(loadAverage()))
	if b.mod != nil {
		fmt.Fprintf(stdout, "builds in a temporary module, build cache %s (the measured packages' entries are removed after each build)\n", b.mod.cache)
	}
	for _, g := range b.others {
		if g.bin == "" {
			fmt.Fprintf(stdout, "%s is left out: %s\n", g.name, g.missing)
		}
	}
	var results []*sizeResult
	for _, n := range cfg.sizes {
		r, err := b.measureSize(ctx, n)
		if err != nil {
			return err
		}
		results = append(results, r)
		b.printSize(r)
	}
	var stripe *sizeResult
	if cfg.stripe {
		if !fileExists(cfg.stripeSpec) {
			fmt.Fprintf(stdout, "\nThe Stripe spec is left out: %s is absent (the corpus lives beside the repository's root).\n", cfg.stripeSpec)
		} else {
			if stripe, err = b.measureStripe(ctx); err != nil {
				return err
			}
			b.printSize(stripe)
		}
	}
	b.printSummary(results)
	b.printTargets(results, stripe)
	fmt.Fprintf(stdout, "\nload average %s at the end\n", orNone(loadAverage()))
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// resolveOthers finds the binaries of oapi-codegen and ogen: go run builds them (into its
// cache) and, told to run them with echo, prints where they are.
func (b *bench) resolveOthers(ctx context.Context) {
	ogenConfig := filepath.Join(b.tmp, "ogen.yml")
	const clientOnly = "generator:\n  features:\n    disable:\n      - paths/server\n      - webhooks/server\n"
	if err := os.WriteFile(ogenConfig, []byte(clientOnly), 0o644); err != nil {
		ogenConfig = ""
	}
	b.others = []*generator{
		{name: "oapi-codegen", module: "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2", what: "types, client",
			args: func(spec, out string) []string {
				return []string{"-generate", "types,client", "-package", "api", "-o", filepath.Join(out, "api.gen.go"), spec}
			}},
		{name: "ogen", module: "github.com/ogen-go/ogen/cmd/ogen@v1.24.0", what: "client",
			args: func(spec, out string) []string {
				return []string{"-config", ogenConfig, "-target", out, "-package", "api", "-clean", spec}
			}},
	}
	for _, g := range b.others {
		cmd := exec.CommandContext(ctx, "go", "run", "-exec", "echo", g.module)
		cmd.Dir = b.tmp
		cmd.Env = append(os.Environ(), "GOWORK=off")
		out, err := cmd.CombinedOutput()
		path := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(path, '\n'); i >= 0 {
			path = path[i+1:] // after the go command's "downloading" lines
		}
		switch {
		case err != nil:
			g.missing = fmt.Sprintf("go run %s: %v: %s", g.module, err, lastLine(out))
		case !fileExists(path):
			g.missing = fmt.Sprintf("go run -exec echo %s printed %q, not a binary", g.module, lastLine(out))
		default:
			g.bin = path
		}
	}
}

// lastLine returns the last non-empty line of b.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// otherRun is what one other generator did with one spec.
type otherRun struct {
	g       *generator
	runs    series
	refused string // the generator's reason, when it refused the spec
	lines   int
}

// sizeResult is everything measured on one spec.
type sizeResult struct {
	name      string // "1,000 operations", "Stripe"
	ops       int
	resources int
	specSize  int64
	kin, gen  series
	others    []*otherRun
	lines     int
	files     int
	size      int64
	builds    []buildResult
	split     []buildResult // the API generated as several packages, built together
	splitOps  int           // the most operations in one of them
}

// measureSize measures the synthetic spec of n operations.
func (b *bench) measureSize(ctx context.Context, n int) (*sizeResult, error) {
	rs := resources(n, b.cfg.seed)
	dir := filepath.Join(b.tmp, fmt.Sprintf("spec-%d", n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	specPath := filepath.Join(dir, "synthetic.json")
	annotPath := filepath.Join(dir, "synthetic.writesafety.yaml")
	specData := synthSpec(rs)
	if err := os.WriteFile(specPath, specData, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(annotPath, synthAnnotations(rs, "api"), 0o644); err != nil {
		return nil, err
	}
	out := filepath.Join(b.tmp, "module", fmt.Sprintf("n%d", n))
	gen := func() (sample, error) {
		if err := os.RemoveAll(out); err != nil {
			return sample{}, err
		}
		s, _, err := child.Run(ctx, "", nil, b.writegen, "generate", "-spec", specPath, "-annotations", annotPath, "-out", out)
		return s, err
	}
	if _, err := gen(); err != nil { // unmeasured: warms the file cache for every tool
		return nil, err
	}
	r := &sizeResult{name: fmt.Sprintf("%s operations", thousands(n)), ops: n, resources: len(rs), specSize: int64(len(specData))}
	for _, g := range b.others {
		if g.bin != "" {
			r.others = append(r.others, &otherRun{g: g})
		}
	}
	for range b.cfg.runs {
		s, o, err := child.Run(ctx, "", nil, b.self, loadMode, specPath)
		if err != nil {
			return nil, err
		}
		if got := strings.TrimSpace(string(o)); got != strconv.Itoa(n) {
			return nil, fmt.Errorf("kin-openapi loaded %s operations from the spec of %d", got, n)
		}
		r.kin = append(r.kin, s)
		if s, err = gen(); err != nil {
			return nil, err
		}
		r.gen = append(r.gen, s)
		for _, o := range r.others {
			if o.refused != "" {
				continue
			}
			oout := filepath.Join(b.tmp, "others", o.g.name, strconv.Itoa(n))
			if err := os.MkdirAll(oout, 0o755); err != nil {
				return nil, err
			}
			s, _, err := child.Run(ctx, "", nil, o.g.bin, o.g.args(specPath, oout)...)
			if err != nil {
				o.refused = err.Error()
				continue
			}
			o.runs = append(o.runs, s)
			if o.lines, _, _, err = goLines(oout); err != nil {
				return nil, err
			}
		}
	}
	var err error
	if r.lines, r.files, r.size, err = goLines(out); err != nil {
		return nil, err
	}
	if b.mod != nil {
		runs := b.cfg.buildRuns
		if n >= b.cfg.large {
			runs = b.cfg.largeRuns
		}
		for range runs {
			br, err := b.mod.build(ctx, filepath.Base(out))
			if err != nil {
				return nil, err
			}
			r.builds = append(r.builds, br)
		}
		if b.cfg.split > 0 && n > b.cfg.split {
			if err := b.measureSplit(ctx, r, rs, specPath, runs); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// measureSplit generates the API of resources rs as packages of about -split operations each,
// whole tag groups in each (an annotation file for each, with its include filter), and builds
// them in one go build, as a program that imports them all would.
func (b *bench) measureSplit(ctx context.Context, r *sizeResult, rs []*resource, specPath string, runs int) error {
	perPackage := max(1, b.cfg.split/(groupSize*opsPerResource))
	groups := (len(rs) + groupSize - 1) / groupSize
	dir := fmt.Sprintf("n%d-split", r.ops)
	var pkgs []string
	for first := 0; first < groups; first += perPackage {
		var tags []string
		ops := 0
		for g := first; g < min(first+perPackage, groups); g++ {
			tags = append(tags, fmt.Sprintf("group%02d", g))
			for _, res := range rs[g*groupSize : min((g+1)*groupSize, len(rs))] {
				ops += res.ops
			}
		}
		r.splitOps = max(r.splitOps, ops)
		name := fmt.Sprintf("p%d", len(pkgs))
		annot := filepath.Join(b.tmp, fmt.Sprintf("spec-%d", r.ops), name+".writesafety.yaml")
		part := rs[first*groupSize : min((first+perPackage)*groupSize, len(rs))]
		if err := os.WriteFile(annot, synthAnnotations(part, name, tags...), 0o644); err != nil {
			return err
		}
		out := filepath.Join(b.tmp, "module", dir, name)
		if _, _, err := child.Run(ctx, "", nil, b.writegen, "generate", "-spec", specPath, "-annotations", annot, "-out", out); err != nil {
			return err
		}
		pkgs = append(pkgs, filepath.Join(dir, name))
	}
	for range runs {
		br, err := b.mod.build(ctx, pkgs...)
		if err != nil {
			return err
		}
		r.split = append(r.split, br)
	}
	return nil
}

// measureStripe measures the Stripe spec of the corpus.
func (b *bench) measureStripe(ctx context.Context) (*sizeResult, error) {
	out := filepath.Join(b.tmp, "module", "stripe")
	gen := func() (sample, error) {
		if err := os.RemoveAll(out); err != nil {
			return sample{}, err
		}
		s, _, err := child.Run(ctx, "", nil, b.writegen, "generate", "-spec", b.cfg.stripeSpec, "-annotations", b.cfg.stripeAnnot, "-out", out)
		return s, err
	}
	if _, err := gen(); err != nil { // unmeasured: warms the file cache
		return nil, err
	}
	st, err := os.Stat(b.cfg.stripeSpec)
	if err != nil {
		return nil, err
	}
	r := &sizeResult{name: "Stripe, " + filepath.Base(b.cfg.stripeSpec), specSize: st.Size()}
	for range b.cfg.runs {
		s, o, err := child.Run(ctx, "", nil, b.self, loadMode, b.cfg.stripeSpec)
		if err != nil {
			return nil, err
		}
		r.ops, _ = strconv.Atoi(strings.TrimSpace(string(o)))
		r.kin = append(r.kin, s)
		if s, err = gen(); err != nil {
			return nil, err
		}
		r.gen = append(r.gen, s)
	}
	if r.lines, r.files, r.size, err = goLines(out); err != nil {
		return nil, err
	}
	if b.mod != nil {
		for range b.cfg.buildRuns {
			br, err := b.mod.build(ctx, "stripe")
			if err != nil {
				return nil, err
			}
			r.builds = append(r.builds, br)
		}
	}
	return r, nil
}

// buildSeries returns the go build and compile samples of r.
func (r *sizeResult) buildSeries() (build, compile series) {
	for _, br := range r.builds {
		build = append(build, br.build)
		compile = append(compile, br.compile)
	}
	return build, compile
}

// printSize prints the table of one spec.
func (b *bench) printSize(r *sizeResult) {
	w := b.out
	fmt.Fprintf(w, "\n== %s", r.name)
	if r.resources > 0 {
		fmt.Fprintf(w, " (%d resources)", r.resources)
	} else if r.ops > 0 {
		fmt.Fprintf(w, " (%d operations)", r.ops)
	}
	fmt.Fprintf(w, ": spec %s; writegen's package %s Go lines in %d files, %s\n",
		mb(r.specSize), thousands(r.lines), r.files, mb(r.size))
	fmt.Fprintf(w, "%-40s %5s %9s %17s %9s %10s %8s\n", "", "runs", "wall", "(range)", "CPU", "peak RSS", "/ load")
	kin := r.kin.Median()
	row := func(name string, s series, ratio bool) {
		m := s.Median()
		lo, hi := s.Spread()
		rat := ""
		if ratio {
			rat = fmt.Sprintf("%.2fx", m.Wall.Seconds()/kin.Wall.Seconds())
		}
		fmt.Fprintf(w, "%-40s %5d %9s %17s %9s %10s %8s\n", name, len(s), secs(m.Wall),
			"("+secs(lo)+"-"+secs(hi)+")", secs(m.CPU), mb(m.MaxRSS), rat)
	}
	row("kin-openapi load (the spec alone)", r.kin, true)
	row("writegen generate", r.gen, true)
	for _, o := range r.others {
		name := o.g.name + " (" + o.g.what + ")"
		if o.refused != "" {
			fmt.Fprintf(w, "%-40s refused the spec: %s\n", name, firstLine(o.refused))
			continue
		}
		row(name, o.runs, true)
	}
	if len(r.builds) > 0 {
		build, compile := r.buildSeries()
		row("go build (package cold, deps warm)", build, false)
		row("  of which the compile of the package", compile, false)
	}
	if len(r.split) > 0 {
		build, compile, together := splitSeries(r.split)
		row(fmt.Sprintf("go build of %d packages (split)", r.split[0].packages), build, false)
		row("  their compiles (summed; largest RSS)", compile, false)
		fmt.Fprintf(w, "  packages of up to %s operations; compilers running at once peaked at %s together\n",
			thousands(r.splitOps), sampled(together))
	}
	for _, o := range r.others {
		if o.refused == "" && o.lines > 0 {
			fmt.Fprintf(w, "%s's package: %s Go lines\n", o.g.name, thousands(o.lines))
		}
	}
}

// splitSeries returns the go build and compile samples of split builds, and the median peak of
// the compilers' summed RSS.
func splitSeries(rs []buildResult) (build, compile series, together int64) {
	var t series
	for _, br := range rs {
		build = append(build, br.build)
		compile = append(compile, br.compile)
		t = append(t, sample{MaxRSS: br.together})
	}
	return build, compile, t.Median().MaxRSS
}

// sampled formats a sampled RSS, "-" when nothing could be sampled.
func sampled(n int64) string {
	if n == 0 {
		return "- (no /proc)"
	}
	return mb(n)
}

// firstLine returns the first line of an error and the last line of what the child printed.
func firstLine(s string) string {
	head, rest, _ := strings.Cut(s, "\n")
	if len(head) > 100 {
		head = head[:100] + "..."
	}
	if rest = strings.TrimSpace(rest); rest != "" {
		head += ": " + lastLine([]byte(rest))
	}
	return head
}

// printSummary prints the figures of every size side by side.
func (b *bench) printSummary(results []*sizeResult) {
	if len(results) == 0 {
		return
	}
	w := b.out
	fmt.Fprintf(w, "\n== writegen by size (medians)\n")
	fmt.Fprintf(w, "%8s %9s %9s %10s %9s %9s %10s %10s %11s %10s\n",
		"ops", "gen wall", "gen CPU", "CPU/op", "gen RSS", "gen/load", "build wall", "build RSS", "compile CPU", "RSS/op")
	for _, r := range results {
		g, k := r.gen.Median(), r.kin.Median()
		bw, brss, ccpu, perop := "-", "-", "-", "-"
		if len(r.builds) > 0 {
			build, compile := r.buildSeries()
			bm, cm := build.Median(), compile.Median()
			bw, brss, ccpu = secs(bm.Wall), mb(bm.MaxRSS), secs(cm.CPU)
			perop = fmt.Sprintf("%.2f MB", float64(bm.MaxRSS)/1e6/float64(r.ops))
		}
		fmt.Fprintf(w, "%8s %9s %9s %8.2fms %9s %8.2fx %10s %10s %11s %10s\n", thousands(r.ops), secs(g.Wall), secs(g.CPU),
			float64(g.CPU.Microseconds())/1000/float64(r.ops), mb(g.MaxRSS), g.Wall.Seconds()/k.Wall.Seconds(), bw, brss, ccpu, perop)
	}
}

// The targets.
const (
	bigOps          = 10000
	bigBuildRSS     = 1.2e9 // bytes
	bigBuildCPU     = 60 * time.Second
	stripeBuildWall = 5 * time.Second
	stripeBuildRSS  = 400e6
	stripeGenRatio  = 1.0  // writegen generate over kin-openapi load, wall
	flatCPURatio    = 1.25 // generation CPU per operation, largest size over 1,000 operations
)

// printTargets prints each target with the measured figure and its ratio to the target.
func (b *bench) printTargets(results []*sizeResult, stripe *sizeResult) {
	w := b.out
	fmt.Fprintf(w, "\n== targets (ratio = measured / target: 1.00 or less meets it)\n")
	line := func(what, measured string, ratio float64, missing string) {
		if missing != "" {
			fmt.Fprintf(w, "%-66s %s\n", what, missing)
			return
		}
		verdict := "met"
		if ratio > 1 {
			verdict = "NOT MET"
		}
		fmt.Fprintf(w, "%-66s %10s %6.2f  %s\n", what, measured, ratio, verdict)
	}
	var big, base *sizeResult
	for _, r := range results {
		if r.ops == bigOps {
			big = r
		}
		if r.ops == 1000 {
			base = r
		}
	}
	switch {
	case big == nil:
		line("go build of 10,000 operations: peak RSS <= 1.2 GB", "", 0, "not measured: -sizes has no 10000")
		line("go build of 10,000 operations: CPU <= 60 s", "", 0, "not measured: -sizes has no 10000")
	case len(big.builds) == 0:
		line("go build of 10,000 operations", "", 0, "not measured: -build=false")
	default:
		build, _ := big.buildSeries()
		m := build.Median()
		line("go build of 10,000 operations: peak RSS <= 1.2 GB", mb(m.MaxRSS), float64(m.MaxRSS)/bigBuildRSS, "")
		line("go build of 10,000 operations: CPU <= 60 s", secs(m.CPU), m.CPU.Seconds()/bigBuildCPU.Seconds(), "")
	}
	if big != nil && len(big.split) > 0 {
		build, _, together := splitSeries(big.split)
		m := build.Median()
		what := fmt.Sprintf("the same as %d packages (split)", big.split[0].packages)
		if together > 0 {
			line(what+": compilers' summed RSS <= 1.2 GB", mb(together), float64(together)/bigBuildRSS, "")
		}
		line(what+": largest process <= 1.2 GB", mb(m.MaxRSS), float64(m.MaxRSS)/bigBuildRSS, "")
		line(what+": CPU <= 60 s", secs(m.CPU), m.CPU.Seconds()/bigBuildCPU.Seconds(), "")
	}
	switch {
	case stripe == nil:
		line("Stripe rebuild and generation", "", 0, "not measured (-stripe=false, or no corpus)")
	default:
		if len(stripe.builds) > 0 {
			build, _ := stripe.buildSeries()
			m := build.Median()
			line("Stripe rebuild: wall <= 5 s", secs(m.Wall), m.Wall.Seconds()/stripeBuildWall.Seconds(), "")
			line("Stripe rebuild: peak RSS <= 400 MB", mb(m.MaxRSS), float64(m.MaxRSS)/stripeBuildRSS, "")
		}
		g, k := stripe.gen.Median(), stripe.kin.Median()
		ratio := g.Wall.Seconds() / k.Wall.Seconds()
		line("Stripe generation <= 1.0x kin-openapi load (wall)", fmt.Sprintf("%.2fx", ratio), ratio/stripeGenRatio, "")
	}
	var largest *sizeResult
	for _, r := range results {
		if largest == nil || r.ops > largest.ops {
			largest = r
		}
	}
	if base == nil || largest == nil || largest.ops <= base.ops {
		line("generation CPU per operation flat (largest size / 1,000 <= 1.25)", "", 0, "not measured: needs 1000 and a larger size")
	} else {
		per := func(r *sizeResult) float64 { return r.gen.Median().CPU.Seconds() / float64(r.ops) }
		ratio := per(largest) / per(base)
		line(fmt.Sprintf("generation CPU per operation flat (%s / 1,000 <= 1.25)", thousands(largest.ops)),
			fmt.Sprintf("%.2fx", ratio), ratio/flatCPURatio, "")
	}
}

// secs formats a duration in seconds.
func secs(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// mb formats bytes in MB of 10^6 bytes, or from 1 GB in GB of 10^9.
func mb(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n < 10e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}

// thousands formats n with commas.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
