package load

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v4"
)

// The YAML mistakes people make most in hand-written files, and what to do about each, appended
// to the parser's own message.

// syntaxHint returns what to do about a YAML syntax error at line:col (1-based) of data, "" when
// there is nothing more to say.
func syntaxHint(msg string, data []byte, line, col int) string {
	text := lineOf(data, line)
	switch {
	case strings.Contains(text, "\t") && (strings.Contains(msg, "cannot start any token") || strings.Contains(msg, "tab")):
		return "YAML indents with spaces only: replace the tab"
	case strings.Contains(msg, "did not find expected ','") || strings.Contains(msg, "mapping values are not allowed") ||
		strings.Contains(msg, "did not find expected key") || strings.Contains(msg, "found unexpected ':'"):
		if _, value, ok := strings.Cut(text, ": "); ok && (strings.ContainsAny(value, "{}[]") ||
			strings.Contains(value, ": ") || strings.Contains(value, " #") || strings.HasSuffix(value, ":")) {
			return `quote a value that holds {, }, [, ], ": " or " #", as format: "order:{id}"`
		}
	case strings.Contains(msg, "cannot start any token"):
		if col >= 1 && col <= len(text) && strings.ContainsRune("@`%", rune(text[col-1])) {
			return "a value starting with " + text[col-1:col] + " must be quoted"
		}
	}
	return ""
}

// ValueHint returns what to do when a string was wanted and n was found, "" when there is
// nothing more to say: a placeholder in braces written without quotes is a mapping, and a value
// after an unquoted # is a comment.
func ValueHint(n *yaml.Node, data []byte) string {
	switch {
	case n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle != 0 && len(n.Content) == 2 && n.Content[1].Tag == "!!null":
		// {id} unquoted: a placeholder read as a mapping of id to nothing.
		return `in YAML {...} is a mapping: quote the value, as "{id}"`
	case n.Tag == "!!null" && n.Line > 0:
		if rest := lineOf(data, n.Line); n.Column-1 <= len(rest) && strings.Contains(rest[n.Column-1:], "#") {
			return `in YAML " #" starts a comment: quote the value, as "#ops"`
		}
	}
	return ""
}

// lineOf returns line n (1-based) of data, without its end.
func lineOf(data []byte, n int) string {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return ""
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return string(bytes.TrimSuffix(data, []byte("\r")))
}
