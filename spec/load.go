package spec

import (
	"cmp"
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// Options tune Load.
type Options struct {
	// Package overrides the annotation file's package name when not empty.
	Package string
	// MCP asks for agent tools too: every answer their hints need must be given.
	MCP bool
	// Files holds the other files of a spec split across several, by their slash-separated
	// paths relative to the root spec's directory. Load reads them from that directory on disk
	// when it is nil; LoadBytes then has none (a reference to another file is not found).
	Files fs.FS
}

// Load reads an OpenAPI document (3.0, 3.1 or Swagger 2.0) and its write-safety annotation file
// and returns the validated IR. Every defect found in either file is reported, as an ErrorList
// sorted by position. A defect of the spec that no operation in scope reaches (nor a lookup or
// compensation they use) does not stop it: it is in API.Warnings.
func Load(specPath, annotationsPath string, opts Options) (*API, error) {
	specData, err := os.ReadFile(specPath)
	if err != nil {
		return nil, err
	}
	annotData, err := os.ReadFile(annotationsPath)
	if err != nil {
		return nil, err
	}
	if opts.Files == nil {
		dir := &dirFS{dir: filepath.Dir(specPath)}
		defer dir.Close()
		opts.Files = dir
	}
	return LoadBytes(specPath, specData, annotationsPath, annotData, opts)
}

// LoadBytes is Load on contents already read; the names are used in positions and errors, and
// only their base names reach the IR. The other files of the spec are read from opts.Files.
func LoadBytes(specName string, specData []byte, annotName string, annotData []byte, opts Options) (*API, error) {
	var errs ErrorList
	d, derrs := loadDocument(specName, specData, opts.Files)
	errs = append(errs, derrs...)
	a, aerrs := parseAnnotations(annotName, annotData)
	errs = append(errs, aerrs...)
	if d == nil || a == nil {
		return nil, sorted(errs)
	}
	api := &API{
		Title: d.api.Info.Title, Version: d.api.Info.Version,
		SpecFile: filepath.Base(specName), AnnotFile: filepath.Base(annotName),
	}
	if api.Package = a.pkg; opts.Package != "" {
		api.Package = opts.Package
	}
	pkgPos := Pos{File: annotName} // of the package's name: the annotation file's, or the flag's
	if opts.Package == "" && a.pkgNode != nil {
		pkgPos.Line, pkgPos.Col = a.pkgNode.Line, a.pkgNode.Column
	}
	switch {
	case api.Package == "" && a.pkgNode == nil:
		errs = append(errs, &Error{Pos: Pos{File: annotName, Line: 1, Col: 1}, Msg: "package is required (package: name, or the -package flag)"})
	case !token.IsIdentifier(api.Package) || api.Package == "_":
		errs = append(errs, &Error{Pos: pkgPos, Msg: fmt.Sprintf("package %q is not a Go package name", api.Package)})
	case api.Package == "main":
		errs = append(errs, &Error{Pos: pkgPos, Msg: "package main is a command, which nothing can import: name the client's package"})
	}

	b := newBuilder(d)
	for _, o := range a.names {
		if ptr, ok := d.origins[originKey(o.ptr)]; ok {
			o.ptr = ptr // a schema of another file, by the pointer it was bundled at
		}
		b.overrides[o.ptr] = o.name
	}
	ops, operrs := b.listOperations()
	errs = append(errs, operrs...)
	r := newResolver(b, a, ops)
	r.bind()
	r.decideScope()
	r.resolve()
	errs = append(errs, r.errs...)
	var inScope []*specOp
	for _, so := range ops {
		if r.scope[so] {
			inScope = append(inScope, so)
		}
	}
	derrs, warnings := d.sortDefects(inScope)
	warnings = append(warnings, r.unscopedLookups()...)
	errs = append(errs, derrs...)
	for _, e := range derrs {
		r.defective[e.Operation] = true
	}
	errs = append(errs, b.settle(r, a)...)
	for _, so := range ops {
		if so.converted {
			errs = append(errs, so.errs...)
			warnings = append(warnings, so.warnings...)
		}
	}
	if len(errs) > 0 {
		return nil, sorted(errs)
	}
	api.DefaultBaseURL, warnings = d.baseURL(warnings)
	sortErrors(warnings)
	api.Warnings = warnings

	r.assemble(api)
	sameTypes(api)
	noCompare(api)
	sentTypes(api)
	for _, op := range api.Operations {
		op.Hints = hintsOf(op)
	}
	nameTools(api)
	if opts.MCP {
		if errs := toolDefects(api); len(errs) > 0 {
			return nil, sorted(errs)
		}
	}
	return api, nil
}

func newBuilder(d *document) *builder {
	return &builder{d: d, byRef: make(map[string]*TypeRef), bySchema: make(map[*openapi3.Schema]*TypeRef),
		unions: make(map[string]*TypeRef), overrides: make(map[string]string)}
}

// sortDefects sorts the defects of the document into errors, the ones the operations in scope
// reach (each naming the first operation that reaches it), and warnings, the rest and what was
// read another way.
func (d *document) sortDefects(inScope []*specOp) (errs, warnings ErrorList) {
	if len(d.defects) == 0 {
		return nil, nil
	}
	reached := d.reach(inScope)
	for _, df := range d.defects {
		e := *df.err
		so, ok := reached[df.holder]
		switch {
		case ok && df.mended:
			warnings = append(warnings, &e)
		case ok:
			if so != nil && e.Operation == "" {
				e.Operation = so.op.ID
				e.Msg += "; correct the spec, or leave the operation out of scope"
			}
			errs = append(errs, &e)
		default:
			if !df.mended {
				e.Msg += "; no operation in scope reaches it, so it is left out"
			}
			warnings = append(warnings, &e)
		}
	}
	return errs, warnings
}

func sorted(errs ErrorList) error {
	sortErrors(errs)
	return errs
}

// Error is one defect in the inputs.
type Error struct {
	Pos       Pos
	Operation string // operation the defect belongs to, "" when none
	Msg       string
	// Rule is the rule of the safety check that refused the answer (SafetyRules), "" for a
	// defect found elsewhere.
	Rule string
}

// Error formats the defect as `file:line:col: operation "x": msg`, on one line: a control or
// format character, a line break or a byte that is not UTF-8 (a message may quote the inputs as
// they are) is written as an escape.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	if e.Operation != "" {
		fmt.Fprintf(&b, ": operation %q", e.Operation)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return printable(b.String())
}

// printable returns s with every rune that could make it read other than it is on a terminal
// written as a Go escape: \x05, \u202e, \n.
func printable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unprintable) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unprintable(r):
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unprintable reports whether r is a control or format character or a line break.
func unprintable(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// ErrorList is every defect found, sorted by position.
type ErrorList []*Error

// Error joins the defects with newlines.
func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// String formats p as file:line:col, leaving out what is unknown.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// sortErrors orders errors by file, line and column, keeping the order of errors at one place.
func sortErrors(l ErrorList) {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(strings.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
}
