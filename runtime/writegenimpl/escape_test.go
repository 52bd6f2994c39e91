package writegenimpl

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The parsers below read one literal of each query language as its provider documents it, and
// return the value it stands for and the text after it. The tests prove that what the escape
// functions write is read back as exactly the value, and that the text after it stays outside.

func parseStripe(q string) (string, string, bool) {
	if !strings.HasPrefix(q, "'") {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(q); i++ {
		switch q[i] {
		case '\\':
			if i+1 == len(q) {
				return "", "", false
			}
			i++
			b.WriteByte(q[i])
		case '\'':
			return b.String(), q[i+1:], true
		default:
			b.WriteByte(q[i])
		}
	}
	return "", "", false
}

func parseZendesk(q string) (string, string, bool) {
	if rest, ok := strings.CutPrefix(q, `"`); ok {
		v, after, ok := strings.Cut(rest, `"`)
		return v, after, ok
	}
	end := strings.IndexAny(q, " \t\n:\"*<>()")
	if end < 0 {
		end = len(q)
	}
	if end == 0 || strings.HasPrefix(q, "-") {
		return "", "", false
	}
	return q[:end], q[end:], true
}

func parseGitHub(q string) (string, string, bool) {
	if rest, ok := strings.CutPrefix(q, `"`); ok {
		v, after, ok := strings.Cut(rest, `"`)
		return v, after, ok
	}
	end := strings.IndexAny(q, " \t\n:\"()")
	if end < 0 {
		end = len(q)
	}
	if end == 0 || strings.HasPrefix(q, "-") {
		return "", "", false
	}
	switch w := q[:end]; w {
	case "AND", "OR", "NOT":
		return "", "", false
	}
	return q[:end], q[end:], true
}

func parseJQL(q string) (string, string, bool) {
	if !strings.HasPrefix(q, `"`) {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '"':
			return b.String(), q[i+1:], true
		case c == '\\' && i+1 < len(q):
			i++
			switch q[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if i+4 >= len(q) {
					return "", "", false
				}
				n, err := strconv.ParseUint(q[i+1:i+5], 16, 32)
				if err != nil {
					return "", "", false
				}
				b.WriteRune(rune(n))
				i += 4
			case '"', '\'', '\\':
				b.WriteByte(q[i])
			default:
				return "", "", false // JQL knows no other escape
			}
		case c == '\n' || c == '\r':
			return "", "", false // a raw line break ends nothing well
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

func parseLucene(q string) (string, string, bool) {
	var b strings.Builder
	i := 0
	for i < len(q) {
		r, n := utf8.DecodeRuneInString(q[i:])
		if r == '\\' {
			if i+1 >= len(q) {
				return "", "", false
			}
			r2, n2 := utf8.DecodeRuneInString(q[i+1:])
			b.WriteRune(r2)
			i += 1 + n2
			continue
		}
		if strings.ContainsRune(luceneSpecial, r) || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0xa0 || r == 0x1680 || r >= 0x2000 && r <= 0x200a || r == 0x2028 || r == 0x2029 || r == 0x202f || r == 0x205f || r == 0x3000 {
			break
		}
		b.WriteRune(r)
		i += n
	}
	if i == 0 {
		return "", "", false
	}
	return b.String(), q[i:], true
}

var languages = []struct {
	name   string
	escape func(string) (string, error)
	parse  func(string) (string, string, bool)
}{
	{"stripe_search", StripeSearchString, parseStripe},
	{"zendesk_search", ZendeskSearchValue, parseZendesk},
	{"github_search", GitHubSearchValue, parseGitHub},
	{"jql", JQLString, parseJQL},
	{"lucene", LuceneTerm, parseLucene},
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		lang, in, want string // want "" means refused
	}{
		{"stripe_search", "evt_1", `'evt_1'`},
		{"stripe_search", `o'brien\x`, `'o\'brien\\x'`},
		{"stripe_search", `ref' OR metadata['x']:'y`, `'ref\' OR metadata[\'x\']:\'y'`},
		{"stripe_search", "line\nbreak", ""},
		{"zendesk_search", "evt_1", "evt_1"},
		{"zendesk_search", "or", `"or"`},
		{"zendesk_search", "-evt", `"-evt"`},
		{"zendesk_search", "a:b OR status:open", `"a:b OR status:open"`},
		{"zendesk_search", `say "hi"`, ""},
		{"zendesk_search", "wild*", ""},
		{"zendesk_search", "a\nb", ""},
		{"zendesk_search", "", `""`},
		{"github_search", "evt_1", "evt_1"},
		{"github_search", "acme-web", "acme-web"},
		{"github_search", "wiki:a/b", `"wiki:a/b"`},
		{"github_search", "OR", `"OR"`},
		{"github_search", "-evt", `"-evt"`},
		{"github_search", "x in:title repo:other/repo", `"x in:title repo:other/repo"`},
		{"github_search", "wild*", `"wild*"`},
		{"github_search", `say "hi"`, ""},
		{"github_search", "a\nb", ""},
		{"jql", "ABC-1", `"ABC-1"`},
		{"jql", `x" OR project = "Y`, `"x\" OR project = \"Y"`},
		{"jql", "a\\b'c\nd\te\x00", `"a\\b\'c\nd\te\u0000"`},
		{"jql", "AND", `"AND"`},
		{"jql", "bad \xff", ""},
		{"lucene", "evt_1", "evt_1"},
		{"lucene", "a:b OR c", `a\:b\ OR\ c`},
		{"lucene", `(1+1)&&!x||y/z\`, `\(1\+1\)\&\&\!x\|\|y\/z\\`},
		{"lucene", `"q"~2^3*?[]{}`, `\"q\"\~2\^3\*\?\[\]\{\}`},
		{"lucene", "", ""},
	} {
		for _, l := range languages {
			if l.name != tc.lang {
				continue
			}
			got, err := l.escape(tc.in)
			if tc.want == "" {
				var ee *EscapeError
				if !errors.As(err, &ee) || ee.Language != l.name || !strings.Contains(err.Error(), l.name) {
					t.Errorf("%s(%q) = %q, %v: want an EscapeError", l.name, tc.in, got, err)
				}
				continue
			}
			if err != nil || got != tc.want {
				t.Errorf("%s(%q) = %q, %v: want %q", l.name, tc.in, got, err, tc.want)
				continue
			}
			checkLiteral(t, l.name, l.parse, tc.in, got)
		}
	}
}

// checkLiteral asserts that lit, the escaped v, reads back as v and keeps what follows outside.
func checkLiteral(t *testing.T, lang string, parse func(string) (string, string, bool), v, lit string) {
	t.Helper()
	const after = " AND status:open"
	got, rest, ok := parse(lit + after)
	if !ok || got != v || rest != after {
		t.Errorf("%s: %q read back as %q, rest %q, ok %v: want %q and %q", lang, lit, got, rest, ok, v, after)
	}
}

// FuzzEscape proves, for any value, that each language's literal reads back as the value and
// nothing after it joins it: the value never breaks out of its literal. A value refused is one
// the language documents no literal for.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"evt_1", `a'b"c\d`, "x OR y:z", "line\nbreak", "(a)&&[b]", "\u202e", "\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, l := range languages {
			lit, err := l.escape(v)
			if err != nil {
				var ee *EscapeError
				if !errors.As(err, &ee) {
					t.Fatalf("%s(%q): %v is not an EscapeError", l.name, v, err)
				}
				if refusable(l.name, v) {
					continue
				}
				t.Fatalf("%s(%q) refused: %v", l.name, v, err)
			}
			checkLiteral(t, l.name, l.parse, v, lit)
		}
	})
}

// refusable reports whether a language may refuse v: invalid UTF-8, and what each language
// documents no escape for.
func refusable(lang, v string) bool {
	if !utf8.ValidString(v) {
		return true
	}
	switch lang {
	case "stripe_search", "zendesk_search", "github_search":
		return printable(lang, v) != nil || lang == "zendesk_search" && strings.ContainsAny(v, `"*`) || lang == "github_search" && strings.Contains(v, `"`)
	case "jql":
		return strings.ContainsFunc(v, func(r rune) bool { return r > 0xffff })
	case "lucene":
		return v == ""
	}
	return false
}
