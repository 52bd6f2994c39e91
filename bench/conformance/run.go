package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/writegen/writegen/bench/conformance/drive"
	"github.com/writegen/writegen/bench/internal/child"
)

// Specs are the corpus specs driven against Prism: all but Stripe, which stripe-mock serves.
var Specs = []string{
	"adyen-checkout.json",
	"intercom.yaml",
	"paypal-orders.json",
	"petstore-2.0.json",
	"petstore-3.0.yaml",
	"petstore-expanded-2.0.yaml",
	"square.json",
	"twilio-api-v2010.json",
}

// PrismVersion is the version of @stoplight/prism-cli the suite is checked with (the newest
// that runs on Node.js 20).
const PrismVersion = "5.14.2"

// FindPrism returns the prism command on PATH.
func FindPrism() (string, error) {
	p, err := exec.LookPath("prism")
	if err != nil {
		return "", fmt.Errorf("prism is not installed: npm install --prefix DIR @stoplight/prism-cli@%s, then put DIR/node_modules/.bin on PATH", PrismVersion)
	}
	return p, nil
}

// CorpusDir is the folder of the corpus specs beside the repository's root.
func CorpusDir(root string) string {
	return filepath.Join(root, "..", "shared", "corpus", "specs")
}

// Run generates a package with tools for every spec o names, builds one driver program over
// them, and drives each spec's tools against Prism in each mode. log receives progress.
func Run(ctx context.Context, o Options, log io.Writer) (*Report, error) {
	began := time.Now()
	corpus := CorpusDir(o.Root)
	if _, err := os.Stat(corpus); err != nil {
		return nil, fmt.Errorf("corpus specs: %w", err)
	}
	known, err := ReadKnown(filepath.Join(o.Root, "bench", "conformance", KnownFile))
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "conformance")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	mod := filepath.Join(work, "mod")
	if err := moduleDir(o.Root, mod); err != nil {
		return nil, err
	}
	writegen := filepath.Join(work, "writegen")
	if _, _, err := child.Run(ctx, o.Root, nil, "go", "build", "-o", writegen, "./cmd/writegen"); err != nil {
		return nil, err
	}
	specs := o.specs(Specs)
	var targets []target
	for i, spec := range specs {
		t, err := generate(ctx, writegen, o.Root, corpus, mod, spec, i)
		if err != nil {
			return nil, err
		}
		targets = append(targets, t)
	}
	fmt.Fprintf(log, "conformance: generated %d packages in %s; building the driver\n", len(targets), time.Since(began).Round(100*time.Millisecond))
	driver := filepath.Join(work, "driver")
	if err := buildDriver(ctx, mod, targets, driver); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "conformance: built the driver at %s\n", time.Since(began).Round(100*time.Millisecond))
	rep := &Report{Known: known}
	// Each spec and mode is one job: a Prism of its own and a driver. Prism answers on one
	// thread, so two jobs at once keep two cores busy.
	type job struct {
		spec, mode string
		recs       []drive.Record
	}
	var jobs []*job
	for _, spec := range specs {
		for mode := range strings.SplitSeq(o.Modes, ",") {
			jobs = append(jobs, &job{spec: spec, mode: mode})
		}
	}
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range max(o.Jobs, 1) {
		wg.Go(func() {
			for {
				mu.Lock()
				if next == len(jobs) {
					mu.Unlock()
					return
				}
				j := jobs[next]
				next++
				mu.Unlock()
				start := time.Now()
				recs, err := drivePrism(ctx, o, driver, filepath.Join(corpus, j.spec), j.spec, j.mode)
				if err != nil {
					// A spec that could not be driven is a failure of its own; the others go on.
					recs = []drive.Record{{Spec: j.spec, Mode: j.mode, Tool: "(all)", Class: drive.ClassFailed, Detail: string(child.Tail([]byte(err.Error()), 2000))}}
				}
				mu.Lock()
				j.recs = recs
				fmt.Fprintf(log, "conformance: %s, %s: %d calls in %s\n", j.spec, j.mode, len(recs), time.Since(start).Round(100*time.Millisecond))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, j := range jobs {
		rep.Records = append(rep.Records, j.recs...)
	}
	return rep, nil
}

// target is a generated package and its tools.
type target struct {
	Spec      string
	Dir       string // relative to the module
	Tools     string // relative to the module
	Alias     string
	NeedsLedg bool
}

// generate runs writegen generate -mcp on a corpus spec into mod.
func generate(ctx context.Context, writegen, root, corpus, mod, spec string, i int) (target, error) {
	base := strings.TrimSuffix(spec, filepath.Ext(spec))
	dir := strings.NewReplacer(".", "", "-", "").Replace(base)
	annotations := filepath.Join(root, "testdata", "corpus", base+".writesafety.yaml")
	if _, _, err := child.Run(ctx, mod, nil, writegen, "generate", "-mcp", "-spec", filepath.Join(corpus, spec),
		"-annotations", annotations, "-out", filepath.Join(mod, dir)); err != nil {
		return target{}, err
	}
	t := target{Spec: spec, Dir: dir, Alias: "p" + strconv.Itoa(i)}
	client, err := os.ReadFile(filepath.Join(mod, dir, "client.go"))
	if err != nil {
		return t, err
	}
	t.NeedsLedg = bytes.Contains(client, []byte("func NewClient(baseURL string, ledger runtime.Ledger"))
	m := regexp.MustCompile(`(?m)^package (\w+)$`).FindSubmatch(client)
	if m == nil {
		return t, fmt.Errorf("%s: no package clause", filepath.Join(dir, "client.go"))
	}
	t.Tools = dir + "/" + string(m[1]) + "mcp"
	return t, nil
}

// moduleDir makes a module in dir for the generated packages and the driver, which imports
// drive from the bench module: it has the bench module's requirements and go.sum, and requires
// the bench module too, each module of this repository replaced by its directory.
func moduleDir(root, dir string) error {
	bench := filepath.Join(root, "bench")
	gomod, err := os.ReadFile(filepath.Join(bench, "go.mod"))
	if err != nil {
		return err
	}
	gosum, err := os.ReadFile(filepath.Join(bench, "go.sum"))
	if err != nil {
		return err
	}
	f, err := modfile.Parse(filepath.Join(bench, "go.mod"), gomod, nil)
	if err != nil {
		return err
	}
	if f.Module == nil {
		return errors.New("bench/go.mod has no module line")
	}
	path := f.Module.Mod.Path
	var replaces []*modfile.Replace
	for _, r := range f.Replace {
		if modfile.IsDirectoryPath(r.New.Path) && !filepath.IsAbs(r.New.Path) {
			replaces = append(replaces, r)
		}
	}
	for _, r := range replaces { // bench/go.mod's "..", from dir
		if err := f.AddReplace(r.Old.Path, r.Old.Version, filepath.Join(bench, r.New.Path), ""); err != nil {
			return err
		}
	}
	if err := f.AddModuleStmt("conformance"); err != nil {
		return err
	}
	if err := f.AddRequire(path, "v0.0.0"); err != nil {
		return err
	}
	if err := f.AddReplace(path, "", bench, ""); err != nil {
		return err
	}
	f.Cleanup()
	mod, err := f.Format()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), mod, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), gosum, 0o644)
}

var driverTemplate = template.Must(template.New("driver").Parse(`package main

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/writegen/writegen/bench/conformance/drive"
	"github.com/writegen/writegen/runtime"
{{range .}}
	{{.Alias}} "conformance/{{.Dir}}"
	{{.Alias}}mcp "conformance/{{.Tools}}"
{{- end}}
)

func main() {
	drive.Main(
{{- range .}}
		drive.Target{Spec: {{printf "%q" .Spec}}, Add: func(s *mcp.Server, url string, l runtime.Ledger, opts ...runtime.Option) error {
			c, err := {{.Alias}}.NewClient(url, {{if .NeedsLedg}}l, opts...{{else}}append(opts, runtime.WithLedger(l))...{{end}})
			if err != nil {
				return err
			}
			{{.Alias}}mcp.AddTools(s, c)
			return nil
		}},
{{- end}}
	)
}
`))

// buildDriver writes and builds the driver program over targets.
func buildDriver(ctx context.Context, mod string, targets []target, out string) error {
	var b bytes.Buffer
	if err := driverTemplate.Execute(&b, targets); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(mod, "driver"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(mod, "driver", "main.go"), b.Bytes(), 0o644); err != nil {
		return err
	}
	_, _, err := child.Run(ctx, mod, nil, "go", "build", "-trimpath", "-o", out, "./driver")
	return err
}

// drivePrism starts Prism on a spec in a mode and runs the driver against it.
func drivePrism(ctx context.Context, o Options, driver, specFile, spec, mode string) ([]drive.Record, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"mock", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "--errors", "-v", "error"}
	switch mode {
	case "dynamic":
		args = append(args, "-d", "--seed", "writegen")
	case "static":
	default:
		return nil, fmt.Errorf("mode %q: want static or dynamic", mode)
	}
	served, err := prismSpec(specFile, filepath.Dir(driver))
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, o.Prism, append(args, served)...)
	// Square's spec, dereferenced, needs more than Node's default heap.
	cmd.Env = append(os.Environ(), "NODE_OPTIONS=--max-old-space-size=4096")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-ended
	}()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(6 * time.Minute); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case werr := <-ended:
			ended <- werr // for the deferred wait
			return nil, fmt.Errorf("prism ended before it listened, for %s: %v\n%s", spec, werr, child.Tail(logs.Bytes(), 2000))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("prism did not listen on %s for %s: %v\n%s", addr, spec, err, child.Tail(logs.Bytes(), 2000))
		}
	}
	dargs := []string{"-spec", spec, "-spec-file", specFile, "-url", "http://" + addr, "-mode", mode, "-calls", strconv.Itoa(o.Calls)}
	if o.Tool != "" {
		dargs = append(dargs, "-tool", o.Tool)
	}
	_, out, err := child.Run(ctx, "", nil, driver, dargs...)
	if err != nil {
		return nil, err
	}
	select {
	case werr := <-ended:
		ended <- werr // for the deferred wait
		return nil, fmt.Errorf("prism ended while the tools were called, for %s: %v\n%s", spec, werr, child.Tail(logs.Bytes(), 2000))
	default:
	}
	var recs []drive.Record
	lines := bufio.NewScanner(bytes.NewReader(out))
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var r drive.Record
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("driver printed %q: %v", lines.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs, lines.Err()
}

// freePort returns a port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// externalRef is a $ref to a document on the web. Prism follows every $ref, even one written as
// data inside an example (Square's custom attributes hold JSON Schemas as values), and cannot
// fetch it here, where nothing outside the machine is reached.
var externalRef = regexp.MustCompile(`"\$ref"(\s*):(\s*)"https?://`)

// schemaRef is a reference to a component schema of the same document.
var schemaRef = regexp.MustCompile(`"#/components/schemas/([^"/]+)"`)

// prismSpec returns the spec file Prism serves: specFile itself, or a copy in dir that Prism
// can load, when the spec holds what it cannot: a $ref to a document on the web (renamed
// x-external-ref, so that Prism does not try to fetch it), or a reference to a component schema
// the spec does not define (Square's CatalogModifierToggleOverrideType, which writegen refuses
// and the annotations exclude the only operation reaching it for; Prism refuses the whole
// document), defined in the copy as {}.
func prismSpec(specFile, dir string) (string, error) {
	data, err := os.ReadFile(specFile)
	if err != nil {
		return "", err
	}
	changed := false
	if externalRef.Match(data) {
		data, changed = externalRef.ReplaceAll(data, []byte(`"x-external-ref"$1:$2"https://`)), true
	}
	if filepath.Ext(specFile) == ".json" {
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			return "", fmt.Errorf("%s: %v", specFile, err)
		}
		comps, _ := doc["components"].(map[string]any)
		schemas, _ := comps["schemas"].(map[string]any)
		missing := false
		for _, m := range schemaRef.FindAllSubmatch(data, -1) {
			if name := string(m[1]); schemas != nil && schemas[name] == nil {
				schemas[name], missing = map[string]any{}, true
			}
		}
		if missing {
			if data, err = json.Marshal(doc); err != nil {
				return "", err
			}
			changed = true
		}
	}
	if !changed {
		return specFile, nil
	}
	out := filepath.Join(dir, "prism-"+filepath.Base(specFile))
	return out, os.WriteFile(out, data, 0o644)
}
