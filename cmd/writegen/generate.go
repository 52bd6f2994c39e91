package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/safety"
	"github.com/writegen/writegen/templates"
)

// genFlags are the flags of generate and check.
type genFlags struct {
	spec, annotations, out, pkg string
	mcp                         bool // also write the tools package, the operations as MCP tools
	diff                        bool // check: print a unified diff of what is stale
}

// parseGenFlags parses the flags of generate or check. It returns the exit status to end with
// when the command should not go on (-h, or a usage error already reported).
func parseGenFlags(cmd string, args []string, stderr io.Writer) (genFlags, int, bool) {
	var f genFlags
	fs := newFlagSet(cmd, "-spec FILE -annotations FILE -out DIR [-package NAME] [-mcp]", stderr)
	fs.StringVar(&f.spec, "spec", "", "the OpenAPI document (3.0, 3.1 or Swagger 2.0, YAML or JSON)")
	fs.StringVar(&f.annotations, "annotations", "", "the write-safety annotation file")
	fs.StringVar(&f.out, "out", "", "the directory of the generated package")
	fs.StringVar(&f.pkg, "package", "", "the Go package name (default: the annotation file's package)")
	fs.BoolVar(&f.mcp, "mcp", false, "also write the package of agent tools, DIR/PACKAGEmcp: the operations as MCP tools (AddTools)")
	if cmd == "check" {
		fs.BoolVar(&f.diff, "diff", false, "print a unified diff of what generate would change, on standard output")
	}
	config := fs.String("config", configFile, "a file holding the inputs (spec, annotations, out, package, mcp); flags win over it")
	flags := fs.Usage
	fs.Usage = func() {
		flags()
		fmt.Fprint(fs.Output(), toolsHelp)
	}
	if code, ok := parse(fs, args); !ok {
		return f, code, false
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if err := readConfig(&f, *config, set["config"], set); err != nil {
		return f, fail(stderr, err), false
	}
	for _, req := range []struct{ name, value string }{{"spec", f.spec}, {"annotations", f.annotations}, {"out", f.out}} {
		if req.value == "" {
			return f, usageError(fs, "-"+req.name+" is required (or "+configFile+" in the current directory)"), false
		}
	}
	return f, 0, true
}

// toolsHelp ends the usage of generate and check: what -mcp writes, and a server of its tools.
const toolsHelp = `
With -mcp, the agent tools are a package of their own beside the client, in
DIR/<package>mcp (support/supportmcp for package support), so that a program
that only calls the client does not link the MCP SDK. It imports the client by
its import path, found from the go.mod in DIR or above it. A server of them:

	import (
		"github.com/modelcontextprotocol/go-sdk/mcp"

		"example.com/connector/support"            // the client, -out support
		"example.com/connector/support/supportmcp" // its tools
	)

	c, err := support.NewClient("", ledger)
	s := mcp.NewServer(&mcp.Implementation{Name: "support-desk", Version: "1.0.0"}, nil)
	supportmcp.AddTools(s, c)
	err = s.Run(ctx, &mcp.StdioTransport{})
`

// newFlagSet returns a flag set whose usage message names the command and its synopsis.
func newFlagSet(cmd, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("writegen "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: writegen %s %s\n", cmd, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args; when the command should not go on it returns the exit status: 0 after
// -h, a usage error after a bad flag or a stray argument.
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	case err != nil:
		return exitUsage, false // the flag package has reported it
	case fs.NArg() > 0:
		return usageError(fs, "unexpected argument "+fs.Arg(0)), false
	}
	return 0, true
}

// usageError reports a usage error and returns its exit status.
func usageError(fs *flag.FlagSet, msg string) int {
	fmt.Fprintf(fs.Output(), "%s: %s\n", fs.Name(), msg)
	fs.Usage()
	return exitUsage
}

// output is what generate writes into -out: the files, by their paths relative to it, and the
// directory of the tools package inside it, which writegen owns even without -mcp (its
// generated files are removed once they are no longer generated).
type output struct {
	files []templates.File
	tools string // the tools package's directory, relative to -out
	mcp   bool   // files hold the tools package
}

// generate loads the inputs, compares the answers with the record of identities the package in
// -out holds (refusing a change that would turn a retry into a second effect), and returns the
// generated files. It prints the warnings (defects that do not stop generation) to stderr, one
// "writegen: warning: " line each.
func (f genFlags) generate(stderr io.Writer) (output, error) {
	if err := f.checkPaths(); err != nil {
		return output{}, err
	}
	api, err := spec.Load(f.spec, f.annotations, spec.Options{Package: f.pkg, MCP: f.mcp})
	if err != nil {
		if swapped(f.spec, f.annotations) {
			return output{}, fmt.Errorf("-spec %s is a write-safety annotation file and -annotations %s an OpenAPI document: swap them", f.spec, f.annotations)
		}
		return output{}, err
	}
	out := output{tools: api.ToolsPackage, mcp: f.mcp}
	var client string // the client's import path, which the tools package imports
	if f.mcp {
		if client, err = importPath(f.out); err != nil {
			return output{}, fmt.Errorf("-mcp: %w", err)
		}
	}
	warnings := api.Warnings
	recordPath := filepath.Join(f.out, ir.IdentityFile)
	switch old, err := os.ReadFile(recordPath); {
	case err == nil:
		refused, warned := safety.CheckIdentity(api, filepath.ToSlash(recordPath), old)
		if len(refused) > 0 {
			return output{}, refused
		}
		warnings = append(warnings, warned...)
	case !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return output{}, err
	default:
		warnings = append(warnings, unmatchedAcks(api, filepath.ToSlash(recordPath))...)
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "writegen: warning: %v\n", w)
	}
	out.files, err = templates.Generate(api, templates.Options{Version: version(), MCP: f.mcp, ImportPath: client})
	return out, err
}

// importPath is the import path of the package in dir, which need not exist yet: the path of
// the module whose go.mod is in dir or the nearest directory above it, joined with dir's path
// inside the module.
func importPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			mod := modfile.ModulePath(data)
			if mod == "" {
				return "", fmt.Errorf("-out %s: the go.mod of its module declares no module path", dir)
			}
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return "", err
			}
			p := path.Join(mod, filepath.ToSlash(rel))
			if err := module.CheckImportPath(p); err != nil {
				return "", fmt.Errorf("-out %s: %v", dir, err)
			}
			return p, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("-out %s is in no Go module (no go.mod in it or above it): the tools package imports the client by its import path", dir)
		}
		d = parent
	}
}

// unmatchedAcks warns of every acknowledgement when there is no record to compare with: none
// matches a change.
func unmatchedAcks(api *ir.API, record string) ir.ErrorList {
	_, warned := safety.CheckIdentity(api, record, ir.IdentityRecord{Version: 1, Scope: api.Scope}.Marshal())
	return warned
}

// runGenerate is "writegen generate": it writes every file of the package into -out, or none.
func runGenerate(args []string, stdout, stderr io.Writer) int {
	f, code, ok := parseGenFlags("generate", args, stderr)
	if !ok {
		return code
	}
	out, err := f.generate(stderr)
	if err == nil {
		err = writePackage(f.out, out)
	}
	if err != nil {
		return fail(stderr, err)
	}
	return exitOK
}

// runCheck is "writegen check": it checks what generate checks, and that -out holds exactly
// what generate would write. It writes nothing.
func runCheck(args []string, stdout, stderr io.Writer) int {
	f, code, ok := parseGenFlags("check", args, stderr)
	if !ok {
		return code
	}
	out, err := f.generate(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	d, err := compare(f.out, out)
	if err != nil {
		return fail(stderr, err)
	}
	if !d.empty() {
		fmt.Fprintf(stderr, "writegen: %s is not what writegen generate writes; run it again:\n%s", f.out, d)
		if f.diff {
			d.unified(stdout, f.out)
		}
		return exitRefused
	}
	return exitOK
}

// fail prints err, one "writegen: " line per defect, and returns the exit status of a refusal.
func fail(stderr io.Writer, err error) int {
	var list ir.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintf(stderr, "writegen: %v\n", e)
		}
		return exitRefused
	}
	fmt.Fprintf(stderr, "writegen: %v\n", err)
	return exitRefused
}

// runVersion is "writegen version".
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "", stderr)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	fmt.Fprintln(stdout, "writegen", version())
	return exitOK
}

// version is the module version writegen was built from: the one a connector pins with
// go get -tool, "(devel)" in a build of this repository.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// generated reports whether the file name in a package directory, holding data, was written
// by writegen: the safety report, or Go source that starts with the generated-code header.
func generated(name string, data []byte) bool {
	return name == templates.SafetyReport || name == templates.IdentityRecord ||
		strings.HasSuffix(name, ".go") && bytes.HasPrefix(data, []byte(templates.Header+"\n"))
}

// existing reads the files of dir, and of its tools package's directory, that writegen wrote,
// by their paths relative to dir; a missing directory has none. others lists the paths of the
// files writegen did not write. A file where the tools package's directory should be is an
// error when out holds the tools package, and left alone otherwise.
func existing(dir string, out output) (gen map[string][]byte, others map[string]bool, err error) {
	gen, others = map[string][]byte{}, map[string]bool{}
	if err := readGenerated(dir, "", gen, others); err != nil {
		return nil, nil, err
	}
	switch err := readGenerated(dir, out.tools, gen, others); {
	case errors.Is(err, syscall.ENOTDIR) && out.mcp:
		return nil, nil, fmt.Errorf("%s: is a file; want the directory of the tools package (-mcp)", filepath.Join(dir, out.tools))
	case err != nil && !errors.Is(err, syscall.ENOTDIR):
		return nil, nil, err
	}
	return gen, others, nil
}

// readGenerated reads the files of dir/sub into gen (those writegen wrote) and others (their
// paths only), by their paths relative to dir. A missing directory has none.
func readGenerated(dir, sub string, gen map[string][]byte, others map[string]bool) error {
	entries, err := os.ReadDir(filepath.Join(dir, sub))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		name := path.Join(sub, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		if generated(e.Name(), data) {
			gen[name] = data
		} else {
			others[name] = true
		}
	}
	return nil
}

// diff is how a package directory differs from what generate writes, as sorted file names.
type diff struct {
	stale, missing, extra []string
	old                   map[string][]byte // the generated files dir holds that are no longer generated
	new                   []templates.File  // what generate writes
}

func (d diff) empty() bool { return len(d.stale)+len(d.missing)+len(d.extra) == 0 }

// String lists the differences, one file a line.
func (d diff) String() string {
	var b strings.Builder
	for _, l := range []struct {
		what  string
		names []string
	}{{"stale", d.stale}, {"missing", d.missing}, {"extra", d.extra}} {
		for _, n := range l.names {
			fmt.Fprintf(&b, "\t%s: %s\n", l.what, n)
		}
	}
	return b.String()
}

// compare tells how dir differs from what out holds.
func compare(dir string, out output) (diff, error) {
	var d diff
	files := out.files
	old, others, err := existing(dir, out)
	if err != nil {
		return d, err
	}
	if err := handWritten(dir, files, others); err != nil {
		return d, err // as generate refuses it
	}
	for _, f := range files {
		data, ok := old[f.Name]
		switch {
		case !ok:
			d.missing = append(d.missing, f.Name)
		case !bytes.Equal(data, f.Data):
			d.stale = append(d.stale, f.Name)
		}
		delete(old, f.Name)
	}
	for name := range old {
		d.extra = append(d.extra, name)
	}
	slices.Sort(d.extra)
	d.new = files
	d.old, err = existingData(dir, d.stale, d.extra)
	return d, err
}

// existingData reads the named files of dir.
func existingData(dir string, lists ...[]string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, names := range lists {
		for _, n := range names {
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
			if err != nil {
				return nil, err
			}
			out[n] = data
		}
	}
	return out, nil
}

// unified writes the differences as a unified diff, from dir's files to generate's.
func (d diff) unified(w io.Writer, dir string) {
	var want map[string][]byte = map[string][]byte{}
	for _, f := range d.new {
		want[f.Name] = f.Data
	}
	names := slices.Concat(d.stale, d.missing, d.extra)
	slices.Sort(names)
	for _, n := range names {
		path := filepath.ToSlash(filepath.Join(dir, n))
		writeUnified(w, path, d.old[n], want[n])
	}
}

// handWritten refuses a file writegen did not write that has the name of a generated one.
func handWritten(dir string, files []templates.File, others map[string]bool) error {
	for _, f := range files {
		if others[f.Name] {
			return fmt.Errorf("%s: not written by writegen; move it away, or writegen would overwrite it", filepath.Join(dir, filepath.FromSlash(f.Name)))
		}
	}
	return nil
}

// writePackage makes dir hold the files of out and no other file writegen wrote, writing all
// or nothing: the files (the tools package's too) are first written into a temporary directory
// beside dir, then renamed into place, and only then are generated files that are no longer
// generated removed, with the tools package's directory once it holds nothing. Everything that
// would stop a rename (a hand-written file with the name of a generated one, a file where the
// tools package's directory goes) is refused before anything is written. Files writegen did
// not write (a hand-written lookup) are left alone.
func writePackage(dir string, out output) error {
	old, others, err := existing(dir, out)
	if err != nil {
		return err
	}
	if err := handWritten(dir, out.files, others); err != nil {
		return err
	}
	if err := writeAll(dir, old, out); err != nil {
		// The temporary directory is gone: name what the user named.
		return fmt.Errorf("-out %s: %w", dir, unwrapPath(err))
	}
	return nil
}

// writeAll writes the files of out into dir through a temporary directory beside it.
func writeAll(dir string, old map[string][]byte, out output) error {
	files := out.files
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".writegen-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, f := range files {
		name := filepath.Join(tmp, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, dir) // a new directory appears whole
	}
	tools := filepath.Join(dir, out.tools)
	_, err = os.Stat(tools)
	newTools := out.mcp && errors.Is(err, os.ErrNotExist)
	for _, f := range files {
		if newTools && path.Dir(f.Name) == out.tools {
			continue // moved below, whole
		}
		if data, ok := old[f.Name]; ok && bytes.Equal(data, f.Data) {
			continue // unchanged: keep its modification time
		}
		if err := os.Rename(filepath.Join(tmp, filepath.FromSlash(f.Name)), filepath.Join(dir, filepath.FromSlash(f.Name))); err != nil {
			return err
		}
	}
	if newTools {
		if err := os.Rename(filepath.Join(tmp, out.tools), tools); err != nil { // the tools package appears whole
			return err
		}
	}
	removed := false
	for name := range old {
		if !slices.ContainsFunc(files, func(f templates.File) bool { return f.Name == name }) {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
				return err
			}
			removed = removed || path.Dir(name) == out.tools
		}
	}
	if removed {
		if entries, err := os.ReadDir(tools); err == nil && len(entries) == 0 {
			return os.Remove(tools)
		}
	}
	return nil
}
