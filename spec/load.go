package spec

import (
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/load"
	"github.com/writegen/writegen/spec/safety"
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
func Load(specPath, annotationsPath string, opts Options) (*ir.API, error) {
	specData, err := os.ReadFile(specPath)
	if err != nil {
		return nil, err
	}
	annotData, err := os.ReadFile(annotationsPath)
	if err != nil {
		return nil, err
	}
	if opts.Files == nil {
		dir := &load.DirFS{Dir: filepath.Dir(specPath)}
		defer dir.Close()
		opts.Files = dir
	}
	return LoadBytes(specPath, specData, annotationsPath, annotData, opts)
}

// LoadBytes is Load on contents already read; the names are used in positions and errors, and
// only their base names reach the IR. The other files of the spec are read from opts.Files.
func LoadBytes(specName string, specData []byte, annotName string, annotData []byte, opts Options) (*ir.API, error) {
	var errs ir.ErrorList
	d, derrs := load.Read(specName, specData, opts.Files)
	errs = append(errs, derrs...)
	a, aerrs := annot.Parse(annotName, annotData)
	errs = append(errs, aerrs...)
	if d == nil || a == nil {
		return nil, sorted(errs)
	}
	api := &ir.API{
		Title: d.API.Info.Title, Version: d.API.Info.Version,
		SpecFile: filepath.Base(specName), AnnotFile: filepath.Base(annotName),
	}
	if api.Package = a.Pkg; opts.Package != "" {
		api.Package = opts.Package
	}
	pkgPos := ir.Pos{File: annotName} // of the package's name: the annotation file's, or the flag's
	if opts.Package == "" && a.PkgNode != nil {
		pkgPos.Line, pkgPos.Col = a.PkgNode.Line, a.PkgNode.Column
	}
	switch {
	case api.Package == "" && a.PkgNode == nil:
		errs = append(errs, &ir.Error{Pos: ir.Pos{File: annotName, Line: 1, Col: 1}, Msg: "package is required (package: name, or the -package flag)"})
	case !token.IsIdentifier(api.Package) || api.Package == "_":
		errs = append(errs, &ir.Error{Pos: pkgPos, Msg: fmt.Sprintf("package %q is not a Go package name", api.Package)})
	case api.Package == "main":
		errs = append(errs, &ir.Error{Pos: pkgPos, Msg: "package main is a command, which nothing can import: name the client's package"})
	}

	b := build.New(d)
	for _, o := range a.Names {
		if ptr, ok := d.Origins[load.OriginKey(o.Ptr)]; ok {
			o.Ptr = ptr // a schema of another file, by the pointer it was bundled at
		}
		b.Overrides[o.Ptr] = o.Name
	}
	ops, operrs := b.ListOperations()
	errs = append(errs, operrs...)
	r := safety.New(b, a, ops)
	r.Bind()
	r.DecideScope()
	r.Resolve()
	errs = append(errs, r.Errs...)
	var inScope []*ir.Operation
	for _, so := range ops {
		if r.Scope[so] {
			inScope = append(inScope, so.Op)
		}
	}
	derrs, warnings := d.SortDefects(inScope)
	warnings = append(warnings, r.UnscopedLookups()...)
	errs = append(errs, derrs...)
	for _, e := range derrs {
		r.Defective[e.Operation] = true
	}
	errs = append(errs, r.Settle(a)...)
	for _, so := range ops {
		if so.Converted {
			errs = append(errs, so.Errs...)
			warnings = append(warnings, so.Warnings...)
		}
	}
	if len(errs) > 0 {
		return nil, sorted(errs)
	}
	api.DefaultBaseURL, warnings = d.BaseURL(warnings)
	ir.SortErrors(warnings)
	api.Warnings = warnings

	r.Assemble(api)
	build.SameTypes(api)
	build.NoCompare(api)
	build.SentTypes(api)
	for _, op := range api.Operations {
		op.Hints = safety.HintsOf(op)
	}
	build.NameTools(api)
	api.Identity = safety.Identity(api)
	if opts.MCP {
		if errs := safety.ToolDefects(api); len(errs) > 0 {
			return nil, sorted(errs)
		}
	}
	return api, nil
}

func sorted(errs ir.ErrorList) error {
	ir.SortErrors(errs)
	return errs
}
