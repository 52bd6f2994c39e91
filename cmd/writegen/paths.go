package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
)

// checkPaths refuses, naming the flag, an input that is not a file and an output that is not a
// directory, before anything is read.
func (f genFlags) checkPaths() error {
	for _, in := range []struct{ flag, path string }{{"-spec", f.spec}, {"-annotations", f.annotations}} {
		st, err := os.Stat(in.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s %s: no such file", in.flag, in.path)
		case err != nil:
			return fmt.Errorf("%s %s: %w", in.flag, in.path, unwrapPath(err))
		case st.IsDir():
			return fmt.Errorf("%s %s: is a directory; want a file", in.flag, in.path)
		}
	}
	if st, err := os.Stat(f.out); err == nil && !st.IsDir() {
		return fmt.Errorf("-out %s: is a file; want the directory of the generated package (it is created if absent)", f.out)
	}
	return nil
}

// unwrapPath returns the cause of a *fs.PathError, so that a message names the path once, as
// the user wrote it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Top-level keys that tell an OpenAPI document from an annotation file, in the first bytes.
var (
	openAPIKey    = regexp.MustCompile(`(?m)^["']?(openapi|swagger)["']?\s*:|"(openapi|swagger)"\s*:`)
	annotationKey = regexp.MustCompile(`(?m)^(version|scope|operations|exclude|defaults)\s*:`)
)

// swapped reports whether the file given as the spec looks like an annotation file and the one
// given as the annotations like an OpenAPI document.
func swapped(specPath, annotationsPath string) bool {
	head := func(path string) []byte {
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		b, _ := io.ReadAll(io.LimitReader(f, 64<<10))
		return b
	}
	s, a := head(specPath), head(annotationsPath)
	return !openAPIKey.Match(s) && annotationKey.Match(s) && openAPIKey.Match(a) && !bytes.Contains(a, []byte("\noperations:"))
}
