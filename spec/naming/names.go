package naming

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// initialisms are written all upper case inside Go names (Go's own convention), plus a few
// plurals so "ids" becomes "IDs" and not "Ids".
var initialisms = map[string]string{
	"acl": "ACL", "api": "API", "ascii": "ASCII", "cpu": "CPU", "css": "CSS", "dns": "DNS",
	"eof": "EOF", "guid": "GUID", "html": "HTML", "http": "HTTP", "https": "HTTPS", "id": "ID",
	"ip": "IP", "json": "JSON", "lhs": "LHS", "qps": "QPS", "ram": "RAM", "rhs": "RHS",
	"rpc": "RPC", "sla": "SLA", "smtp": "SMTP", "sql": "SQL", "ssh": "SSH", "tcp": "TCP",
	"tls": "TLS", "ttl": "TTL", "udp": "UDP", "ui": "UI", "uid": "UID", "uuid": "UUID",
	"uri": "URI", "url": "URL", "utf8": "UTF8", "vm": "VM", "xml": "XML", "xmpp": "XMPP",
	"xsrf": "XSRF", "xss": "XSS", "ids": "IDs", "urls": "URLs", "uris": "URIs", "uuids": "UUIDs",
	"apis": "APIs",
}

// GoName turns any text into an exported Go identifier: words are split at separators and at
// lower-to-upper case changes, capitalised (initialisms upper case) and joined. A name that would
// not start with an upper-case letter (a digit, a letter without case, nothing at all) gets the
// prefix "X", so the result is always a valid exported identifier.
func GoName(s string) string {
	name := JoinWords(Words(s))
	if r, _ := utf8.DecodeRuneInString(name); !unicode.IsUpper(r) {
		name = "X" + name
	}
	return name
}

// JoinWords capitalises each word (initialisms all upper case) and joins them.
func JoinWords(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		r, n := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[n:])
	}
	return b.String()
}

// Words splits s into runs of letters and digits, breaking also where a lower-case letter or a
// digit is followed by an upper-case one, and inside an upper-case run before its last letter
// when a lower-case letter follows ("HTTPServer" -> "HTTP", "Server").
func Words(s string) []string {
	var out []string
	start := -1
	var prev rune
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case !isAlnum(r):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		case start < 0:
			start = i
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			out = append(out, s[start:i])
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev):
			if next, _ := utf8.DecodeRuneInString(s[i+w:]); unicode.IsLower(next) {
				out = append(out, s[start:i])
				start = i
			}
		}
		prev = r
		i += w
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// SymbolWords spell the characters that a name would otherwise lose, where they are all that
// tells two names apart ("DateCreated<" and "DateCreated>", "!=" and "=").
var SymbolWords = map[rune]string{
	'<': "Lt", '>': "Gt", '=': "Eq", '!': "Not", '~': "Tilde", '^': "Caret", '$': "Dollar",
	'*': "Star", '+': "Plus", '-': "Minus", '%': "Percent", '&': "And", '|': "Or", '#': "Hash",
	'@': "At", '?': "Question", '.': "Dot", '/': "Slash", ':': "Colon", ',': "Comma", ';': "Semicolon",
	'(': "LParen", ')': "RParen", '[': "LBracket", ']': "RBracket", '{': "LBrace", '}': "RBrace",
	'\\': "Backslash", '\'': "Quote", '"': "DQuote", '`': "Backquote", ' ': "Space", '_': "Underscore",
}

// Literal spells s closer to how it is written than GoName does: "_", "-" and spaces become
// "_", a sign before a digit is spelled (Plus, Minus), and so is any other symbol ("." is Dot).
// It tells apart names that goName makes equal ("JOYING_BOX" and "JOYINGBOX", "issuing.card"
// and "issuing_card", "DateCreated<" and "DateCreated").
func Literal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		next, _ := utf8.DecodeRuneInString(s[i+w:])
		switch {
		case isAlnum(r):
			j := i + w
			for j < len(s) {
				r, w := utf8.DecodeRuneInString(s[j:])
				if !isAlnum(r) {
					break
				}
				j += w
			}
			b.WriteString(JoinWords(Words(s[i:j])))
			w = j - i
		case (r == '+' || r == '-') && unicode.IsDigit(next):
			b.WriteString(SymbolWords[r])
		case r == '_' || r == '-' || r == ' ':
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		default:
			if sw, ok := SymbolWords[r]; ok {
				b.WriteString(sw)
			} else {
				fmt.Fprintf(&b, "U%04X", r)
			}
		}
		i += w
	}
	return strings.TrimSuffix(b.String(), "_")
}

// GoLiteral is Literal made a valid exported identifier, as GoName does.
func GoLiteral(s string) string {
	name := Literal(s)
	if r, _ := utf8.DecodeRuneInString(name); !unicode.IsUpper(r) {
		name = "X" + name
	}
	return name
}

// Spell names text that has no letters or digits by its symbols ("!=" -> "NotEq").
func Spell(s string) string {
	var b strings.Builder
	for _, r := range s {
		if w, ok := SymbolWords[r]; ok {
			b.WriteString(w)
		} else {
			fmt.Fprintf(&b, "U%04X", r)
		}
	}
	return b.String()
}

// Claim is one wish for a Go name in a namespace: a package, a struct's fields, an enum's
// constants. Key identifies the claimant (a JSON pointer, a wire name) and orders the claims
// that lose a collision, so the outcome never depends on the order claims are made in.
type Claim struct {
	Want    string // the name wanted, a valid identifier
	Literal string // a spelling closer to the source, tried when Want collides ("" = Want)
	Alt     string // a suffix from the claimant's context, tried next ("Enum", "Query")
	Key     string // unique among the claims of one namespace
	Rank    int    // lower ranks keep a contested name over higher ones
	Fixed   bool   // a name that must not change (reserved by the generated code)
	Got     *string
}

// Settle gives each claim a unique name. Claims wanting the same name collide. When exactly
// one of them has the lowest rank (fixed claims count lowest) it keeps the name. Every other one
// takes the first free of: its literal spelling, when that tells it apart from the rest of the
// group; the name followed by its context suffix (tried first by a lone loser, which only needs
// to step aside from the winner); the name followed by a number, counted in Key order. Nothing
// depends on the order of the claims.
func Settle(claims []*Claim) {
	slices.SortFunc(claims, func(a, b *Claim) int {
		return cmp.Or(strings.Compare(a.Want, b.Want), cmp.Compare(rankOf(a), rankOf(b)), strings.Compare(a.Key, b.Key))
	})
	taken := make(map[string]bool, len(claims))
	for _, c := range claims {
		taken[c.Want] = true
	}
	type group struct {
		want  string
		kept  bool // a winner keeps want
		claim []*Claim
	}
	var losers []group
	for i := 0; i < len(claims); {
		j := i + 1
		for j < len(claims) && claims[j].Want == claims[i].Want {
			j++
		}
		g := group{want: claims[i].Want}
		winner := j-i == 1 || rankOf(claims[i]) < rankOf(claims[i+1])
		for k, c := range claims[i:j] {
			if c.Fixed || k == 0 && winner {
				*c.Got = c.Want
				g.kept = true
				continue
			}
			g.claim = append(g.claim, c)
		}
		if len(g.claim) > 0 {
			losers = append(losers, g)
		}
		i = j
	}
	for _, g := range losers {
		if !g.kept {
			delete(taken, g.want) // a claimant whose literal spelling is the name may have it
		}
	}
	for _, g := range losers {
		lits, alts := make(map[string]int), make(map[string]int)
		for _, c := range g.claim {
			lits[literalOf(c)]++
			alts[c.Want+c.Alt]++
		}
		n := 0
		for _, c := range g.claim {
			// The literal spelling is what tells several losers apart; one loser (beside a
			// winner) reads better with its context suffix.
			alone := len(g.claim) == 1 && c.Alt != ""
			switch lit, alt := literalOf(c), c.Want+c.Alt; {
			case !alone && lits[lit] == 1 && !taken[lit]:
				*c.Got = lit
			case c.Alt != "" && alts[alt] == 1 && !taken[alt]:
				*c.Got = alt
			case lits[lit] == 1 && !taken[lit]:
				*c.Got = lit
			default:
				for {
					n++
					if name := c.Want + strconv.Itoa(n); !taken[name] {
						*c.Got = name
						break
					}
				}
			}
			taken[*c.Got] = true
		}
	}
}

func literalOf(c *Claim) string {
	if c.Literal == "" {
		return c.Want
	}
	return c.Literal
}

func rankOf(c *Claim) int {
	if c.Fixed {
		return -1
	}
	return c.Rank
}
