package main

import (
	"bytes"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/writegen/writegen/bench/internal/child"
)

// buildModule is the temporary module the generated packages are compiled in: it requires this
// repository's module through a replace directive, as a user's module would require a release.
//
// A package under test is compiled with a cold cache and its dependencies with a warm one:
//   - before a package's first measured build, its imports (the runtime and the standard
//     library under it) are built once, unmeasured, so they are in the build cache;
//   - before each measured build, a file holding a new comment is written into the package, so
//     its files hash differently and the go command compiles it again, and only it;
//   - after each build the package's entry (its compiled archive) is removed from the build
//     cache again, so that the runs leave nothing large behind.
//
// The build runs with -toolexec naming this program, which runs each compiler tool and logs
// what it cost (see toolexec): the figures of the compile of the package alone come from that
// log. The go command keys its cache on a tool's -V=full output, which the wrapper passes
// through, so builds with and without the wrapper share their cache entries.
type buildModule struct {
	dir     string   // the module root
	self    string   // this program, the -toolexec wrapper
	env     []string // added to the go command's environment
	cache   string   // the build cache in use
	logs    string   // directory of the toolexec logs
	builds  int      // builds so far: the nonce of the next one
	started map[string]bool
}

// modulePath is the module path of the temporary module.
const modulePath = "scalebench"

// nonceFile is the file whose comment changes before every measured build.
const nonceFile = "zz_scale_nonce.go"

// newBuildModule writes the module into dir. gocache, when not "", is the build cache to use
// instead of the go command's own.
func newBuildModule(ctx context.Context, dir, root, self, gocache string) (*buildModule, error) {
	goVersion, err := moduleGoVersion(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	gomod := fmt.Sprintf("module %s\n\ngo %s\n\nrequire github.com/writegen/writegen v0.0.0\n\nreplace github.com/writegen/writegen => %s\n",
		modulePath, goVersion, strconv.Quote(root))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return nil, err
	}
	m := &buildModule{dir: dir, self: self, env: []string{"GOWORK=off", "GOFLAGS=-mod=mod"},
		logs: filepath.Join(dir, "toolexec"), started: map[string]bool{}}
	if gocache != "" {
		m.env = append(m.env, "GOCACHE="+gocache)
	}
	if err := os.MkdirAll(m.logs, 0o755); err != nil {
		return nil, err
	}
	out, err := m.goCmd(ctx, "env", "GOCACHE")
	if err != nil {
		return nil, err
	}
	m.cache = strings.TrimSpace(string(out))
	return m, nil
}

// moduleGoVersion reads the go line of a go.mod file.
func moduleGoVersion(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("%s: no go line", gomod)
}

// goCmd runs the go command in the module, unmeasured, and returns its standard output.
func (m *buildModule) goCmd(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), m.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, child.Tail(stderr.Bytes(), 2000))
	}
	return out, nil
}

// toolexecFlag returns the -toolexec value that logs into log.
func (m *buildModule) toolexecFlag(log string) string {
	q := func(s string) string {
		if strings.ContainsAny(s, " \t'\"") {
			return strconv.Quote(s)
		}
		return s
	}
	return q(m.self) + " " + toolexecMode + " " + q(log)
}

// buildResult is what one build of one package, or of several at once, cost.
type buildResult struct {
	build sample // the go build command and everything it ran
	// compile is the compiler's runs on the packages built: for one package its run; for
	// several, their wall and CPU times summed and the largest peak RSS.
	compile  sample
	packages int
	// together is the largest sum of the resident sets of the compilers running at once,
	// sampled (see rssSampler); 0 where it could not be sampled.
	together int64
}

// build compiles the packages in directories pkgs of the module (names like "n1000"), with
// cold cache entries for them and warm ones for their dependencies, in one go build.
func (m *buildModule) build(ctx context.Context, pkgs ...string) (buildResult, error) {
	args := make([]string, len(pkgs))
	for i, pkg := range pkgs {
		args[i] = "./" + pkg
	}
	if key := strings.Join(pkgs, " "); !m.started[key] {
		out, err := m.goCmd(ctx, append([]string{"list", "-f", `{{join .Imports "\n"}}`}, args...)...)
		if err != nil {
			return buildResult{}, err
		}
		var deps []string
		for _, imp := range strings.Fields(string(out)) {
			if !strings.HasPrefix(imp, modulePath+"/") && !slices.Contains(deps, imp) {
				deps = append(deps, imp)
			}
		}
		if _, err := m.goCmd(ctx, append([]string{"build"}, deps...)...); err != nil {
			return buildResult{}, err
		}
		m.started[key] = true
	}
	m.builds++
	for _, pkg := range pkgs {
		name, err := packageName(filepath.Join(m.dir, pkg))
		if err != nil {
			return buildResult{}, err
		}
		nonce := fmt.Sprintf("package %s\n\n// Build %d of the scale benchmark: a new file hash, so that the package is compiled again.\n", name, m.builds)
		if err := os.WriteFile(filepath.Join(m.dir, pkg, nonceFile), []byte(nonce), 0o644); err != nil {
			return buildResult{}, err
		}
	}
	log := filepath.Join(m.logs, fmt.Sprintf("build-%d.jsonl", m.builds))
	var sampler *rssSampler
	s, _, err := child.RunWatched(ctx, m.dir, m.env, func(pid int) { sampler = startRSSSampler(pid) },
		"go", append([]string{"build", "-toolexec", m.toolexecFlag(log)}, args...)...)
	res := buildResult{build: s, packages: len(pkgs)}
	if sampler != nil {
		res.together = sampler.finish()
	}
	if err != nil {
		return buildResult{}, err
	}
	recs, err := readToolLog(log)
	if err != nil {
		return res, err
	}
	for _, pkg := range pkgs {
		found := false
		for _, r := range recs {
			if r.Tool == "compile" && r.Package == modulePath+"/"+pkg {
				res.compile.Wall += durationOf(r.Wall)
				res.compile.CPU += durationOf(r.CPU)
				res.compile.MaxRSS = max(res.compile.MaxRSS, r.MaxRSS)
				found = true
			}
		}
		if !found {
			return res, fmt.Errorf("go build ./%s: the compiler did not run on the package (%d tool runs logged): was it cached?", pkg, len(recs))
		}
		if err := m.forget(ctx, pkg); err != nil {
			return res, err
		}
	}
	return res, nil
}

// forget removes the compiled archive of pkg from the build cache.
func (m *buildModule) forget(ctx context.Context, pkg string) error {
	out, err := m.goCmd(ctx, "list", "-export", "-f", "{{.Export}}", "./"+pkg)
	if err != nil {
		return err
	}
	export := strings.TrimSpace(string(out))
	if rel, err := filepath.Rel(m.cache, export); export == "" || err != nil || strings.HasPrefix(rel, "..") {
		return nil // not in the cache we know: leave it
	}
	return os.Remove(export)
}

// packageName returns the name of the Go package in dir, read from its client.go (every
// writegen package has one) or else its first Go file.
func packageName(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("%s: no Go files", dir)
	}
	file := files[0]
	if c := filepath.Join(dir, "client.go"); fileExists(c) {
		file = c
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly)
	if err != nil {
		return "", err
	}
	return f.Name.Name, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// goLines counts the lines and bytes of the .go files under dir (the nonce file left out), and
// the files.
func goLines(dir string) (lines, files int, size int64, err error) {
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || d.Name() == nonceFile {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines += bytes.Count(data, []byte("\n"))
		size += int64(len(data))
		files++
		return nil
	})
	return lines, files, size, err
}
