package runtime

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// pointerValue returns the value at JSON pointer ptr (RFC 6901) in the JSON
// document doc: a string's contents, or the text of any other scalar. It
// scans without decoding the document, so finding a receipt's id costs no
// allocation beyond the result.
func pointerValue(doc []byte, ptr string) (string, bool) {
	if ptr != "" && ptr[0] != '/' {
		return "", false
	}
	i := skipSpace(doc, 0)
	for ptr != "" {
		var tok string
		tok, ptr, _ = strings.Cut(ptr[1:], "/")
		if ptr != "" {
			ptr = "/" + ptr
		}
		if strings.Contains(tok, "~") {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		}
		var ok bool
		if i >= len(doc) {
			return "", false
		}
		switch doc[i] {
		case '{':
			i, ok = member(doc, i, tok)
		case '[':
			i, ok = element(doc, i, tok)
		}
		if !ok {
			return "", false
		}
	}
	end, ok := skipValue(doc, i)
	if !ok {
		return "", false
	}
	v := doc[i:end]
	if v[0] != '"' {
		if v[0] == '{' || v[0] == '[' || string(v) == "null" {
			return "", false
		}
		return string(v), true
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// member returns the offset of the value of key name in the object at i.
func member(doc []byte, i int, name string) (int, bool) {
	i = skipSpace(doc, i+1)
	for i < len(doc) && doc[i] == '"' {
		end, ok := skipString(doc, i)
		if !ok {
			return 0, false
		}
		key := doc[i:end]
		match := string(key[1:len(key)-1]) == name
		if !match && bytes.IndexByte(key, '\\') >= 0 {
			var k string
			match = json.Unmarshal(key, &k) == nil && k == name
		}
		i = skipSpace(doc, end)
		if i >= len(doc) || doc[i] != ':' {
			return 0, false
		}
		i = skipSpace(doc, i+1)
		if match {
			return i, true
		}
		if i, ok = skipMember(doc, i); !ok {
			return 0, false
		}
	}
	return 0, false
}

// element returns the offset of element tok (a decimal index) of the array
// at i.
func element(doc []byte, i int, tok string) (int, bool) {
	n, err := strconv.Atoi(tok)
	if err != nil || n < 0 {
		return 0, false
	}
	i = skipSpace(doc, i+1)
	for ; i < len(doc) && doc[i] != ']'; n-- {
		if n == 0 {
			return i, true
		}
		var ok bool
		if i, ok = skipMember(doc, i); !ok {
			return 0, false
		}
	}
	return 0, false
}

// skipMember returns the offset of what follows the value at i and its
// comma, if any.
func skipMember(doc []byte, i int) (int, bool) {
	i, ok := skipValue(doc, i)
	if !ok {
		return 0, false
	}
	i = skipSpace(doc, i)
	if i < len(doc) && doc[i] == ',' {
		i = skipSpace(doc, i+1)
	}
	return i, true
}

// skipValue returns the offset just past the value at i.
func skipValue(doc []byte, i int) (int, bool) {
	if i >= len(doc) {
		return 0, false
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		depth := 0
		for i < len(doc) {
			switch doc[i] {
			case '"':
				end, ok := skipString(doc, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	}
	start := i
	for i < len(doc) && !strings.ContainsRune(",}] \t\r\n", rune(doc[i])) {
		i++
	}
	return i, i > start
}

// skipString returns the offset just past the string starting at i.
func skipString(doc []byte, i int) (int, bool) {
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\r' || doc[i] == '\n') {
		i++
	}
	return i
}
