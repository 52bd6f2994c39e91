package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/templates"
)

// genFlags are the flags of generate and check.
type genFlags struct {
	spec, annotations, out, pkg string
	mcp                         bool // also write tools.go, the operations as MCP tools
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
	fs.BoolVar(&f.mcp, "mcp", false, "also write tools.go: the operations as MCP tools (Client.AddTools)")
	if cmd == "check" {
		fs.BoolVar(&f.diff, "diff", false, "print a unified diff of what generate would change, on standard output")
	}
	config := fs.String("config", configFile, "a file holding the inputs (spec, annotations, out, package, mcp); flags win over it")
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

// generate loads the inputs, compares the answers with the record of identities the package in
// -out holds (refusing a change that would turn a retry into a second effect), and returns the
// generated files. It prints the warnings (defects that do not stop generation) to stderr, one
// "writegen: warning: " line each.
func (f genFlags) generate(stderr io.Writer) ([]templates.File, error) {
	if err := f.checkPaths(); err != nil {
		return nil, err
	}
	api, err := spec.Load(f.spec, f.annotations, spec.Options{Package: f.pkg, MCP: f.mcp})
	if err != nil {
		if swapped(f.spec, f.annotations) {
			return nil, fmt.Errorf("-spec %s is a write-safety annotation file and -annotations %s an OpenAPI document: swap them", f.spec, f.annotations)
		}
		return nil, err
	}
	warnings := api.Warnings
	recordPath := filepath.Join(f.out, spec.IdentityFile)
	switch old, err := os.ReadFile(recordPath); {
	case err == nil:
		refused, warned := spec.CheckIdentity(api, filepath.ToSlash(recordPath), old)
		if len(refused) > 0 {
			return nil, refused
		}
		warnings = append(warnings, warned...)
	case !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return nil, err
	default:
		warnings = append(warnings, unmatchedAcks(api, filepath.ToSlash(recordPath))...)
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "writegen: warning: %v\n", w)
	}
	return templates.Generate(api, templates.Options{Version: version(), MCP: f.mcp})
}

// unmatchedAcks warns of every acknowledgement when there is no record to compare with: none
// matches a change.
func unmatchedAcks(api *spec.API, record string) spec.ErrorList {
	_, warned := spec.CheckIdentity(api, record, spec.IdentityRecord{Version: 1, Scope: api.Scope}.Marshal())
	return warned
}

// runGenerate is "writegen generate": it writes every file of the package into -out, or none.
func runGenerate(args []string, stdout, stderr io.Writer) int {
	f, code, ok := parseGenFlags("generate", args, stderr)
	if !ok {
		return code
	}
	files, err := f.generate(stderr)
	if err == nil {
		err = writePackage(f.out, files)
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
	files, err := f.generate(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	d, err := compare(f.out, files)
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
	var list spec.ErrorList
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

// existing reads the files of dir that writegen wrote; a missing dir has none. others lists
// the names of the files writegen did not write.
func existing(dir string) (gen map[string][]byte, others map[string]bool, err error) {
	gen, others = map[string][]byte{}, map[string]bool{}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return gen, others, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, nil, err
		}
		if generated(e.Name(), data) {
			gen[e.Name()] = data
		} else {
			others[e.Name()] = true
		}
	}
	return gen, others, nil
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

// compare tells how dir differs from files.
func compare(dir string, files []templates.File) (diff, error) {
	var d diff
	old, others, err := existing(dir)
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
			data, err := os.ReadFile(filepath.Join(dir, n))
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
			return fmt.Errorf("%s: not written by writegen; move it away, or writegen would overwrite it", filepath.Join(dir, f.Name))
		}
	}
	return nil
}

// writePackage makes dir hold files and no other file writegen wrote, writing all or nothing:
// the files are first written into a temporary directory beside dir, then renamed into place,
// and only then are generated files that are no longer generated removed. Files writegen did
// not write (a hand-written lookup) are left alone; one with the name of a generated file is
// an error.
func writePackage(dir string, files []templates.File) error {
	old, others, err := existing(dir)
	if err != nil {
		return err
	}
	if err := handWritten(dir, files, others); err != nil {
		return err
	}
	if err := writeAll(dir, old, files); err != nil {
		// The temporary directory is gone: name what the user named.
		return fmt.Errorf("-out %s: %w", dir, unwrapPath(err))
	}
	return nil
}

// writeAll writes files into dir through a temporary directory beside it.
func writeAll(dir string, old map[string][]byte, files []templates.File) error {
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
		if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Data, 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, dir) // a new directory appears whole
	}
	for _, f := range files {
		if data, ok := old[f.Name]; ok && bytes.Equal(data, f.Data) {
			continue // unchanged: keep its modification time
		}
		if err := os.Rename(filepath.Join(tmp, f.Name), filepath.Join(dir, f.Name)); err != nil {
			return err
		}
	}
	for name := range old {
		if !slices.ContainsFunc(files, func(f templates.File) bool { return f.Name == name }) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return err
			}
		}
	}
	return nil
}
