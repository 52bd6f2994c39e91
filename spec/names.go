package spec

import (
	"cmp"
	"go/token"
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

// goName turns any text into an exported Go identifier: words are split at separators and at
// lower-to-upper case changes, capitalised (initialisms upper case) and joined. A name that would
// not start with an upper-case letter (a digit, a letter without case, nothing at all) gets the
// prefix "X", so the result is always a valid exported identifier.
func goName(s string) string {
	name := joinWords(words(s))
	if r, _ := utf8.DecodeRuneInString(name); !unicode.IsUpper(r) {
		name = "X" + name
	}
	return name
}

// joinWords capitalises each word (initialisms all upper case) and joins them.
func joinWords(ws []string) string {
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

// words splits s into runs of letters and digits, breaking also where a lower-case letter or a
// digit is followed by an upper-case one, and inside an upper-case run before its last letter
// when a lower-case letter follows ("HTTPServer" -> "HTTP", "Server").
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				out = append(out, string(rs[start:i]))
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		lowerToUpper := unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev))
		acronymEnd := unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if lowerToUpper || acronymEnd {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	if start >= 0 {
		out = append(out, string(rs[start:]))
	}
	return out
}

// isIdent reports whether s is a Go identifier that is not a keyword.
func isIdent(s string) bool { return token.IsIdentifier(s) }

// nameClaim is one wish for a Go name in a namespace: a package, a struct's fields, an enum's
// constants. Key identifies the claimant (a JSON pointer, a wire name) and is what collisions
// are settled by, so the outcome never depends on the order claims are made in.
type nameClaim struct {
	Want  string // the name wanted, a valid identifier
	Key   string // unique among the claims of one namespace
	Rank  int    // lower ranks keep a contested name over higher ones
	Fixed bool   // a name that must not change (reserved by the generated code)
	Got   *string
}

// settleNames gives each claim its name. Claims wanting the same name are a collision: when
// exactly one of them has the lowest rank it keeps the name; every other one (all of them, when
// the lowest rank is shared) gets the name followed by a suffix derived from its key. Fixed
// claims always keep their name and count as the lowest rank. Names are unique afterwards.
func settleNames(claims []*nameClaim) {
	slices.SortFunc(claims, func(a, b *nameClaim) int {
		return cmp.Or(strings.Compare(a.Want, b.Want), cmp.Compare(rankOf(a), rankOf(b)), strings.Compare(a.Key, b.Key))
	})
	taken := make(map[string]bool, len(claims))
	for _, c := range claims {
		taken[c.Want] = true
	}
	var renamed []*nameClaim
	for i := 0; i < len(claims); {
		j := i + 1
		for j < len(claims) && claims[j].Want == claims[i].Want {
			j++
		}
		group := claims[i:j]
		winner := len(group) == 1 || rankOf(group[0]) < rankOf(group[1])
		for k, c := range group {
			if c.Fixed || k == 0 && winner {
				*c.Got = c.Want
				continue
			}
			renamed = append(renamed, c)
		}
		i = j
	}
	// Renamed claims take the shortest suffix of their key's words that makes them unique, and a
	// number only when the whole key cannot tell them apart.
	slices.SortFunc(renamed, func(a, b *nameClaim) int { return strings.Compare(a.Key, b.Key) })
	for _, c := range renamed {
		*c.Got = freeName(c, taken)
		taken[*c.Got] = true
	}
}

func rankOf(c *nameClaim) int {
	if c.Fixed {
		return -1
	}
	return c.Rank
}

// freeName finds an untaken name for a claim that lost its wish.
func freeName(c *nameClaim, taken map[string]bool) string {
	for i := 2; ; i++ {
		if name := c.Want + strconv.Itoa(i); !taken[name] {
			return name
		}
	}
}
