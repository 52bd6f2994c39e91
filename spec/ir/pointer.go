package ir

import "strings"

// SplitPointer splits a JSON pointer ("/a/b~1c") into unescaped segments.
func SplitPointer(ptr string) []string {
	if ptr == "" {
		return nil
	}
	segs := strings.Split(ptr[1:], "/")
	for i, s := range segs {
		segs[i] = UnescapePointer(s)
	}
	return segs
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// EscapePointer escapes one JSON pointer segment.
func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return pointerEscaper.Replace(s)
}

// UnescapePointer unescapes one JSON pointer segment.
func UnescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return pointerUnescaper.Replace(s)
}
