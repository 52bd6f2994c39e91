package ir

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is one defect in the inputs.
type Error struct {
	Pos       Pos
	Operation string // operation the defect belongs to, "" when none
	Msg       string
	// Rule is the rule of the safety check that refused the answer (safety.Rules), "" for a
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

// SortErrors orders errors by file, line and column, keeping the order of errors at one place.
func SortErrors(l ErrorList) {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(strings.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
}
