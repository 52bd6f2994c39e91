package spec

import (
	"errors"
	"fmt"
	"strings"
)

// Options tune Load.
type Options struct {
	// Package overrides the annotation file's package name when not empty.
	Package string
}

// Load reads an OpenAPI document (3.0, 3.1 or Swagger 2.0) and its write-safety annotation file
// and returns the validated IR. A defect in either file is reported as an ErrorList.
func Load(specPath, annotationsPath string, opts Options) (*API, error) {
	return nil, errors.New("spec: not implemented")
}

// LoadBytes is Load on contents already read; the names are used in positions and errors.
func LoadBytes(specName string, specData []byte, annotName string, annotData []byte, opts Options) (*API, error) {
	return nil, errors.New("spec: not implemented")
}

// Scaffold returns an annotation file listing every write operation of the spec at specPath,
// with what the spec reveals filled in and TODO where a person must answer.
func Scaffold(specPath, pkg string) ([]byte, error) {
	return nil, errors.New("spec: not implemented")
}

// Error is one defect in the inputs.
type Error struct {
	Pos       Pos
	Operation string // operation the defect belongs to, "" when none
	Msg       string
}

// Error formats the defect as `file:line:col: operation "x": msg`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	if e.Operation != "" {
		fmt.Fprintf(&b, ": operation %q", e.Operation)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
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
