package build

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/writegen/writegen/spec/ir"
)

// splitSpecPath splits a path key of the spec into the template the request goes to, the query
// parameters written after a '?' (in the order written) and what to warn about. OpenAPI says a
// path holds no query or fragment, yet specs write both: OpenAI's "/responses/compact?beta=true"
// means the query beta=true, which is sent as a fixed query parameter of every call; Box's
// "/shared_items#folders" tells overloads of one path apart, and a fragment never reaches a
// server, so it is dropped from the request (it stays in the operation's default name, so the
// overloads get names of their own).
func splitSpecPath(key string) (tmpl string, fixed []ir.QueryPair, notes []string) {
	tmpl, fragment, hasFragment := strings.Cut(key, "#")
	tmpl, query, hasQuery := strings.Cut(tmpl, "?")
	if hasQuery {
		var sent []string
		for part := range strings.SplitSeq(query, "&") {
			if part == "" {
				continue
			}
			name, value, _ := strings.Cut(part, "=")
			n, err1 := url.QueryUnescape(name)
			v, err2 := url.QueryUnescape(value)
			if err1 != nil || err2 != nil {
				n, v = name, value
			}
			fixed = append(fixed, ir.QueryPair{Name: n, Value: v})
			sent = append(sent, strconv.Quote(n+"="+v))
		}
		what := "is sent as no query parameter"
		if len(sent) > 0 {
			what = "is sent with every call as the fixed query parameters " + strings.Join(sent, ", ")
		}
		notes = append(notes, "path "+strconv.Quote(key)+" holds a query, which OpenAPI does not allow in a path: the request goes to "+strconv.Quote(tmpl)+" and the query "+what)
	}
	if hasFragment {
		notes = append(notes, "path "+strconv.Quote(key)+" holds the fragment "+strconv.Quote("#"+fragment)+", which OpenAPI does not allow in a path: it is never sent; the request goes to "+strconv.Quote(tmpl))
	}
	return tmpl, fixed, notes
}
