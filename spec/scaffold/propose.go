package scaffold

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// What writegen init proposes as a write's lookup: a read of the spec that finds what the write
// made by a reference the write stores at the provider, written out complete (reference, lookup,
// response) for a person to confirm. Four forms are tried, best first:
//
//   - filter: a GET whose query parameter has the name of the write's reference field;
//   - body: a search sent as POST whose body can say "this field equals the reference"
//     (Intercom's {query: {field, operator, value}}, Square's {query: {filter: {F: {exact}}}});
//   - query: a GET with a search parameter (query, q, jql), in the provider's query language
//     where writegen knows it (Stripe's metadata['k']:'v', GitHub's in:body {ref});
//   - walk: a GET list without a filter, a page at a time, matched on the client, newest first
//     back to the write's time where the spec lists the values that ask for that order.
//
// A write whose body has no field for a reference but a free-text one (a comment's body) is
// proposed a marker appended to it, matched on the client. Only a create (a POST to a
// collection) is proposed a lookup, and only a read of that collection (the list at the write's
// path, or a search below it) or a search of the whole API whose items look like what the write
// answers. A read is proposed only when the write can call it (every parameter it requires is
// one the write knows) and what it finds is what the write answers, the same object inside an
// envelope ({ticket: {...}} and {tickets: [...]}), or a look-alike that a read of the write's
// collection reads again by its id (adopt). Every proposal is eventual, with a question: that a
// read shows a write within a bound, or at once, is for the provider's docs to say, and a person
// to write.

// refField is a place in a write's body that may hold the write's reference.
type refField struct {
	pointer string // in the write's body: /external_id, /card/reference_id, /metadata/writegen_ref
	name    string // the property a read finds it by: external_id, reference_id, writegen_ref
	meta    bool   // a key the write adds to a metadata map
	key     bool   // the idempotency key's own field: the provider key is the reference
	// marker is the text the write appends to a free-text field (a comment's body) that has no
	// field for a reference: reference.marker, matched on the client
	marker string
}

// textName matches the free-text fields of a write a marker can be appended to, best first:
// GitHub's issue and comment body, Zendesk's /ticket/comment/body, Slack's text.
var textNames = []string{"body", "text", "comment", "content", "message", "description", "note"}

// markerFor is the marker init proposes for a text field: an HTML comment where the text is
// Markdown (it stays out of what the provider renders, not out of the text), else a bracket
// after a space.
func markerFor(f *ir.Field, markdown bool) string {
	if markdown || strings.Contains(strings.ToLower(f.Doc), "markdown") {
		return "\n\n<!-- ref:{ref} -->"
	}
	return " [ref:{ref}]"
}

// upsert matches the name or summary of a write that creates or updates: its reference may
// name what existed before it.
var upsert = regexp.MustCompile(`(?i)update|upsert`)

// metaKey is the key a write adds to a metadata map to hold its reference.
const metaKey = "writegen_ref"

// referenceName matches body field names that usually hold a caller's reference: external_id,
// externalReference, client_reference_id, merchantReference, reference_id, custom_id...
var referenceName = regexp.MustCompile(`(?i)^((external|client|merchant|customer|partner|foreign|source)_?)?ref(erence)?(_?id)?$|^external_?(id|key)$|^custom_?id$`)

// referenceFields returns where the write's body may hold its reference: string fields named like
// a reference, at the top level or one object down (Square's /card/reference_id, Zendesk's
// /ticket/external_id), a key of a top-level metadata map, and a body field that carries the
// idempotency key (the key field, whose name is given).
func referenceFields(so *build.Op, keyField string, markdown bool) []refField {
	body := so.Op.Body
	if body == nil || body.Encoding == ir.BodyRaw || body.Encoding == ir.BodyMultipart || body.Type == nil {
		return nil
	}
	st := structOf(body.Type)
	if st == nil {
		return nil
	}
	var out []refField
	for _, f := range st.Fields {
		switch {
		case "/"+f.Name == keyField:
			out = append(out, refField{pointer: keyField, name: f.Name, key: true})
		case referenceName.MatchString(f.Name) && ir.IsStringType(f.Type):
			out = append(out, refField{pointer: "/" + f.Name, name: f.Name})
		case strings.EqualFold(f.Name, "metadata"):
			ptr := "/" + f.Name + "/" + metaKey
			if p, why := ir.ResolvePath(body.Type, ptr, ir.SetPath); why == "" && ir.IsStringType(p.Type) {
				out = append(out, refField{pointer: ptr, name: metaKey, meta: true})
			}
		case structOf(f.Type) != nil:
			for _, g := range structOf(f.Type).Fields {
				if referenceName.MatchString(g.Name) && ir.IsStringType(g.Type) {
					out = append(out, refField{pointer: "/" + f.Name + "/" + g.Name, name: g.Name})
				}
			}
		}
	}
	if len(out) == 0 {
		// No field for a reference: a marker in the write's text, at the top level or up to two
		// objects down (Zendesk's /ticket/comment/body).
		if ptr, f := textField(st, "", 0); f != nil {
			out = append(out, refField{pointer: ptr, name: f.Name, marker: markerFor(f, markdown)})
		}
	}
	return out
}

// textField returns the free-text string field of st a marker can be appended to, and its
// pointer under prefix, or nil.
func textField(st *ir.Type, prefix string, depth int) (string, *ir.Field) {
	for _, name := range textNames {
		if i := slices.IndexFunc(st.Fields, func(f *ir.Field) bool {
			return f.Name == name && ir.IsStringType(f.Type) && ir.Under(f.Type).Kind == ir.RefBuiltin
		}); i >= 0 {
			return prefix + "/" + name, st.Fields[i]
		}
	}
	if depth < 2 {
		for _, f := range st.Fields {
			if inner := structOf(f.Type); inner != nil {
				if ptr, g := textField(inner, prefix+"/"+f.Name, depth+1); g != nil {
					return ptr, g
				}
			}
		}
	}
	return "", nil
}

// structOf returns the struct r names, or nil.
func structOf(r *ir.TypeRef) *ir.Type {
	if r == nil {
		return nil
	}
	if u := ir.Under(r); u.Kind == ir.RefNamed && u.Named.Kind == ir.KindStruct {
		return u.Named
	}
	return nil
}

// proposal is a complete lookup for one write.
type proposal struct {
	form   string // filter, body, query, walk
	read   *build.Op
	ref    refField
	params [][2]string // name and template, in order
	body   string      // a POST search's body, as YAML flow
	escape ir.Escape   // the query language of a search's {ref}, or ""
	found  string
	match  string
	pages  string      // YAML flow of pages, or ""
	newest [][2]string // newest_first: the params that ask for the list newest first, values of the spec
	since  string      // since: when an element was created, for a walk newest first
	adopt  *build.Op   // a read of one object by the found element's id (lookup.adopt), or nil
	adoptP [][2]string // its params, {id} among them
	object string      // response.object: the receipt's object inside the write's response, or ""
	id     string      // the receipt's id, relative to object
	check  string      // what the person confirms about the lookup
	// complete is set when the read finds what the write answers (or its object, inside an
	// envelope) and the receipt has an id: the proposal can be written out. An incomplete one
	// is only named among the candidates.
	complete bool
}

// envelope reports whether the proposal needs response.object.
func (p *proposal) envelope() bool { return p.object != "" }

// formRank orders the forms, best first.
var formRank = map[string]int{"filter": 0, "body": 1, "query": 2, "walk": 3}

// proposeLookups returns the lookups init can propose for a write, the complete ones first, each
// part best first. keyField is the body field that carries the write's idempotency key, or "".
func proposeLookups(so *build.Op, reads, items []*build.Op, keyField string, github bool) []*proposal {
	// Only a create: a write that changes what exists is found by a lookup whether it
	// happened or not.
	path := so.Op.Path
	if so.Op.Method != "POST" || build.PathParam.MatchString(path[strings.LastIndex(path, "/")+1:]) ||
		upsert.MatchString(so.Op.ID+" "+so.Op.Summary) {
		return nil
	}
	refs := referenceFields(so, keyField, github)
	if len(refs) == 0 {
		return nil
	}
	var out []*proposal
	for _, c := range reads {
		// The list at the write's path, or a search below it: what an action on an existing
		// object (/charges/{charge}/capture) reaches is there before the action. Or a search of
		// the whole API with a text query, whose elements look like what the write makes.
		rest, below := strings.CutPrefix(c.Op.Path, path+"/")
		anywhere := c.Op.Method == "GET" && searchElem(so.Op, c.Op) != nil
		if q, _ := searchParam(c.Op, github); q == nil {
			anywhere = false
		}
		if c.Op.Path != path && !(below && !strings.Contains(rest, "{") && (isSearch(c.Op) || searchWord.MatchString(c.Op.ID+" "+rest))) && !anywhere {
			continue
		}
		for _, rf := range refs {
			for _, p := range formsOf(so, c, rf, github) {
				p.complete = p.typed(so, items)
				out = append(out, p)
			}
		}
	}
	slices.SortStableFunc(out, func(x, y *proposal) int {
		if x.complete != y.complete {
			if x.complete {
				return -1
			}
			return 1
		}
		if d := formRank[x.form] - formRank[y.form]; d != 0 {
			return d
		}
		// A read on the write's own collection before one further away.
		return strings.Count(x.read.Op.Path, "/") - strings.Count(y.read.Op.Path, "/")
	})
	return out
}

// formsOf returns what read c can propose for the reference field rf of write so, without the
// found and response parts.
func formsOf(so, c *build.Op, rf refField, github bool) []*proposal {
	read := c.Op
	if len(c.Errs) > 0 {
		return nil
	}
	var out []*proposal
	// add proposes the read with the parameter name set to value (none when name is ""), when
	// the write knows every other parameter the read requires.
	add := func(p *proposal, name, value string) {
		required, ok := requiredParams(so, read, name)
		if !ok {
			return
		}
		if name != "" {
			required = append(required, [2]string{name, value})
		}
		p.read, p.ref, p.params = c, rf, append(required, p.params...)
		out = append(out, p)
	}
	if read.Method == "GET" {
		for _, q := range read.Params {
			list := ir.Under(q.Type).Kind == ir.RefArray && ir.IsStringType(ir.Under(q.Type).Elem) // external_ids: a list of one
			if q.In == ir.InQuery && (ir.IsStringType(q.Type) || list) && !rf.meta && rf.marker == "" && annot.SameName(q.Name, rf.name) {
				add(&proposal{form: "filter",
					check: fmt.Sprintf("%s filters by %s exactly", read.ID, q.Name)}, q.Name, "{ref}")
			}
		}
		if q, lang := searchParam(read, github); q != nil {
			if t, esc := queryTemplate(lang, rf, so.Op); t != "" {
				check := fmt.Sprintf("the query %s finds %s by its exact value in %s's query language (the client keeps only what holds it)", t, rf.name, read.ID)
				if rf.marker != "" {
					check = fmt.Sprintf("the query %s finds the text that holds the marker in %s's query language (the client keeps only what holds the marker whole)", t, read.ID)
				}
				p := &proposal{form: "query", escape: esc, check: check}
				p.params = append(p.params, perPage(read)...)
				add(p, q.Name, t)
			}
		}
		if len(out) == 0 && !slices.ContainsFunc(read.Params, func(q *ir.Param) bool { return q.In == ir.InQuery && searchWord.MatchString(q.Name) }) {
			if pages := pagesOf(read); pages != "" {
				p := &proposal{form: "walk", pages: pages}
				p.newest = newestFirst(read)
				p.params = append(p.params, perPage(read)...)
				p.check = fmt.Sprintf("%s lists what the write made, and that 5 pages reach back to a write's first attempt; it cannot be asked for newest first, so not found counts only when the walk reaches the end of the list", read.ID)
				if len(p.newest) > 0 {
					p.check = fmt.Sprintf("%s lists what the write made newest first when asked with %s, and that 5 pages reach back to a write's first attempt", read.ID, queryText(p.newest))
				}
				add(p, "", "")
			}
		}
		return out
	}
	if isSearch(read) && read.Body != nil && read.Body.Encoding == ir.BodyJSON && !rf.meta {
		if body := searchBody(read.Body.Type, rf.name, 0); body != "" {
			add(&proposal{form: "body", body: body,
				check: fmt.Sprintf("the search %s finds %s by its exact value (the client keeps only what holds it)", read.ID, rf.name)}, "", "")
		}
	}
	return out
}

// requiredParams returns the read's required parameters but skip, each passed the write's
// parameter of the same name, or false when the read requires one the write does not have.
func requiredParams(so *build.Op, read *ir.Operation, skip string) ([][2]string, bool) {
	var out [][2]string
	for _, q := range read.Params {
		if !q.Required || q.Name == skip || q.In == ir.InHeader || q.In == ir.InCookie {
			continue
		}
		i := slices.IndexFunc(so.Op.Params, func(w *ir.Param) bool {
			return w.Name == q.Name && w.Required && (w.In == ir.InPath || w.In == ir.InQuery)
		})
		if i < 0 {
			return nil, false
		}
		out = append(out, [2]string{q.Name, "{" + q.Name + "}"})
	}
	return out, true
}

// searchParam returns a GET's search parameter and its query language: stripe (Stripe's search
// query language), jql, github (GitHub's search syntax, in an API that is GitHub's), zendesk
// (Zendesk's search), or "" for one writegen does not know.
func searchParam(read *ir.Operation, github bool) (*ir.Param, string) {
	for _, q := range read.Params {
		if q.In != ir.InQuery || !ir.IsStringType(q.Type) {
			continue
		}
		doc := strings.ToLower(q.Doc)
		switch strings.ToLower(q.Name) {
		case "jql":
			return q, "jql"
		case "query", "q":
			switch {
			case strings.Contains(doc, "search query language") && strings.Contains(doc, "stripe.com"):
				return q, "stripe"
			case q.Name == "q" && (github || strings.Contains(doc, "docs.github.com")) && strings.HasPrefix(read.Path, "/search/"):
				return q, "github"
			case q.Name == "query" && strings.Contains(doc, "zendesk") && strings.HasSuffix(strings.TrimSuffix(read.Path, ".json"), "/search"):
				return q, "zendesk"
			}
			if searchWord.MatchString(read.ID + " " + read.Path) {
				return q, ""
			}
		}
	}
	return nil, ""
}

// perPage returns the page size param of a list that pages, at the largest its description
// states ("max N": GitHub's per_page, "max 100"), or none.
func perPage(read *ir.Operation) [][2]string {
	for _, q := range read.Params {
		switch strings.ToLower(q.Name) {
		case "per_page", "page_size", "pagesize", "limit":
		default:
			continue
		}
		if q.In != ir.InQuery || q.Required || !ir.IsIntegerType(q.Type) {
			continue
		}
		if m := maxPerPage.FindStringSubmatch(q.Doc); m != nil {
			return [][2]string{{q.Name, m[1]}}
		}
	}
	return nil
}

// maxPerPage finds the largest page size a parameter's description states: "(max 100)",
// "maximum 100", "Max: 100".
var maxPerPage = regexp.MustCompile(`(?i)\bmax(?:imum)?\b[:\s]*(?:of\s+|is\s+)?(\d{1,4})\b`)

// newestFirst returns the params of a list read that ask for it newest first by creation, with
// values the spec lists for them (GitHub's sort=created and direction=desc, Zendesk's
// sort_order=desc), or none.
func newestFirst(read *ir.Operation) [][2]string {
	value := func(q *ir.Param, want ...string) string {
		u := ir.Under(q.Type)
		if q.In != ir.InQuery || u.Kind != ir.RefNamed || u.Named.Kind != ir.KindEnum {
			return ""
		}
		for _, w := range want {
			if slices.ContainsFunc(u.Named.Enum, func(v ir.EnumValue) bool { return fmt.Sprint(v.Value) == w }) {
				return w
			}
		}
		return ""
	}
	var sort, dir [2]string
	for _, q := range read.Params {
		switch n := strings.ToLower(q.Name); {
		case n == "sort" || n == "sort_by" || n == "order_by":
			if v := value(q, "created", "created_at", "createdAt", "creation"); v != "" {
				sort = [2]string{q.Name, v}
			}
		case n == "direction" || n == "sort_order" || n == "order" || n == "sort_direction" || n == "dir":
			if v := value(q, "desc", "DESC", "descending"); v != "" {
				dir = [2]string{q.Name, v}
			}
		}
	}
	switch {
	case dir[0] == "":
		return nil
	case sort[0] == "":
		// a direction alone orders by the list's own order: by creation only when nothing else
		// can sort it
		if slices.ContainsFunc(read.Params, func(q *ir.Param) bool {
			n := strings.ToLower(q.Name)
			return n == "sort" || n == "sort_by" || n == "order_by"
		}) {
			return nil
		}
		return [][2]string{dir}
	}
	out := [][2]string{sort, dir}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// queryText writes params as a query: sort=created&direction=desc.
func queryText(params [][2]string) string {
	parts := make([]string, len(params))
	for i, kv := range params {
		parts[i] = kv[0] + "=" + kv[1]
	}
	return strings.Join(parts, "&")
}

// queryTemplate is the search query that finds rf by the reference in language lang, or "",
// and the escape (lookup.escape) its {ref} is written in: the template writes the placeholder
// bare, and the runtime writes the value as one whole literal of the language. For a language
// writegen does not know, the value is quoted as it is: the reference is the provider key,
// which holds no quote, space or backslash.
func queryTemplate(lang string, rf refField, w *ir.Operation) (query string, escape ir.Escape) {
	if rf.marker != "" {
		// a marker in a text: a search for the reference's words, matched whole on the client
		switch lang {
		case "github":
			q := "in:" + rf.name + " {ref}"
			if strings.HasSuffix(w.Path, "/issues") {
				q = "is:issue " + q
			}
			if strings.Contains(w.Path, "{owner}") && strings.Contains(w.Path, "{repo}") {
				q = "repo:{owner}/{repo} " + q
			}
			return q, ir.EscapeGitHubSearch
		case "zendesk":
			return "{ref}", ir.EscapeZendeskSearch
		case "":
			return `"{ref}"`, ""
		}
		return "", ""
	}
	switch {
	case lang == "stripe" && rf.meta:
		return "metadata['" + rf.name + "']:{ref}", ir.EscapeStripeSearch
	case lang == "stripe":
		return rf.name + ":{ref}", ir.EscapeStripeSearch
	case rf.meta:
		return "", "" // a metadata key in a query language writegen does not know
	case lang == "jql":
		return rf.name + " = {ref}", ir.EscapeJQL
	case lang == "zendesk":
		return rf.name + ":{ref}", ir.EscapeZendeskSearch
	case lang == "github":
		return "", "" // GitHub's search finds words of a text, not a field's value
	}
	return rf.name + `:"{ref}"`, ""
}

// searchBody returns the body of a POST search, as YAML flow, that asks for the property name to
// equal the reference, or "": Intercom's {query: {field, operator, value}}, or a property of that
// name at most four objects down, a string or an object with exact (Square's filters).
func searchBody(t *ir.TypeRef, name string, depth int) string {
	if depth > 4 {
		return ""
	}
	for _, st := range structsOf(t) {
		if hasFields(st, "field", "operator", "value") {
			return fmt.Sprintf(`{field: %s, operator: "=", value: "{ref}"}`, yamlKey(name))
		}
		for _, f := range st.Fields {
			if annot.SameName(f.Name, name) && f.Name != "" {
				if ir.IsStringType(f.Type) || ir.StringVariant(f.Type) != nil {
					return fmt.Sprintf(`{%s: "{ref}"}`, yamlKey(f.Name))
				}
				for _, inner := range structsOf(f.Type) {
					for _, e := range []string{"exact", "eq", "equals"} {
						if i := slices.IndexFunc(inner.Fields, func(g *ir.Field) bool { return g.Name == e }); i >= 0 && ir.IsStringType(inner.Fields[i].Type) {
							return fmt.Sprintf(`{%s: {%s: "{ref}"}}`, yamlKey(f.Name), e)
						}
					}
				}
			}
		}
		for _, f := range st.Fields {
			if inner := searchBody(f.Type, name, depth+1); inner != "" {
				return fmt.Sprintf(`{%s: %s}`, yamlKey(f.Name), inner)
			}
		}
	}
	return ""
}

// structsOf returns the struct r names, or the structs among the members of the union it names.
func structsOf(r *ir.TypeRef) []*ir.Type {
	if st := structOf(r); st != nil {
		return []*ir.Type{st}
	}
	var out []*ir.Type
	if u := ir.Under(r); u.Kind == ir.RefNamed && u.Named.Kind == ir.KindUnion {
		for _, v := range u.Named.Variants {
			if st := structOf(v.Type); st != nil {
				out = append(out, st)
			}
		}
	}
	return out
}

func hasFields(st *ir.Type, names ...string) bool {
	for _, n := range names {
		if !slices.ContainsFunc(st.Fields, func(f *ir.Field) bool { return f.Name == n }) {
			return false
		}
	}
	return true
}

// cursorPairs are the pagination cursors init recognises: a query parameter and the names of the
// response's string field that holds the next page's value for it.
var cursorPairs = []struct {
	param string
	next  []string
}{
	{"page[after]", []string{"after_cursor", "end_cursor"}},
	{"cursor", []string{"next_cursor", "cursor", "next"}},
	{"after", []string{"after_cursor", "end_cursor", "next_cursor", "after"}},
	{"starting_after", []string{"starting_after"}},
	{"page_token", []string{"next_page_token"}},
	{"pageToken", []string{"nextPageToken"}},
	{"next_token", []string{"next_token"}},
}

// pagesOf returns the pages of a list walk through read, as YAML flow, or "" when init does not
// recognise how it pages.
func pagesOf(read *ir.Operation) string {
	for _, pair := range cursorPairs {
		i := slices.IndexFunc(read.Params, func(q *ir.Param) bool { return q.In == ir.InQuery && q.Name == pair.param && ir.IsStringType(q.Type) })
		if i < 0 {
			continue
		}
		if ptr := findString(read.Response.Type, pair.next, 0); ptr != "" {
			return fmt.Sprintf("{max: 5, cursor: %s, param: %s}", ptr, yamlKey(pair.param))
		}
	}
	// pages by number: GitHub's page=1, 2, ...
	for _, q := range read.Params {
		if q.In == ir.InQuery && !q.Required && (q.Name == "page" || q.Name == "page_number") && ir.IsIntegerType(q.Type) {
			return fmt.Sprintf("{max: 5, param: %s}", yamlKey(q.Name))
		}
	}
	return ""
}

// findString returns the pointer of a string field with one of names, at most three objects down
// a response, or "".
func findString(t *ir.TypeRef, names []string, depth int) string {
	st := structOf(t)
	if st == nil || depth > 2 {
		return ""
	}
	for _, n := range names {
		if i := slices.IndexFunc(st.Fields, func(f *ir.Field) bool { return f.Name == n }); i >= 0 && ir.IsStringType(st.Fields[i].Type) {
			return "/" + n
		}
	}
	for _, f := range st.Fields {
		if p := findString(f.Type, names, depth+1); p != "" {
			return "/" + f.Name + p
		}
	}
	return ""
}

// typed fills in found, object, id and match: what the read finds must be what the write answers,
// or the write answers it inside an envelope, or the read finds what looks like it and one of
// items reads it by its id (adopt), and the receipt must have an id. It reports whether the
// proposal is complete.
func (p *proposal) typed(so *build.Op, items []*build.Op) bool {
	w := so.Op.Response.Type
	if w == nil || ir.IsBytes(w) || so.Op.Response.Status == 202 {
		return false
	}
	rr := p.read.Op.Response.Type
	if rr == nil || ir.IsBytes(rr) {
		return false
	}
	elem := (*ir.TypeRef)(nil)
	switch u := ir.Under(rr); {
	case u.Kind == ir.RefArray:
		p.found, elem = "/0", u.Elem
	case structOf(rr) != nil:
		for _, f := range structOf(rr).Fields {
			if a := ir.Under(f.Type); a.Kind == ir.RefArray && (ir.SameType(a.Elem, w) || envelopeOf(w, a.Elem) != "") {
				p.found, elem = "/"+f.Name+"/0", a.Elem
				break
			}
		}
		if elem == nil && p.form == "query" {
			// a search whose items look like what the write answers, read again by their id
			for _, f := range structOf(rr).Fields {
				if a := ir.Under(f.Type); a.Kind == ir.RefArray && searchElem(so.Op, p.read.Op) == a.Elem {
					p.found, elem = "/"+f.Name+"/0", a.Elem
					break
				}
			}
		}
	}
	if elem == nil {
		return false
	}
	if !ir.SameType(elem, w) {
		p.object = envelopeOf(w, elem)
	}
	p.id = idOf(elem)
	if !ir.SameType(elem, w) && p.object == "" && !p.adoptBy(so, elem, items) {
		return false
	}
	if p.id == "" {
		return false
	}
	// The element carries the reference: the client compares it, which a walk needs and which
	// guards a search whose query language may find more than the exact value.
	for _, ptr := range []string{p.ref.pointer, p.ref.pointer[strings.Index(p.ref.pointer[1:], "/")+1:]} {
		if p.ref.key || p.form == "filter" || !strings.HasPrefix(ptr, "/") {
			break
		}
		if m, why := ir.ResolvePath(elem, ptr, ir.ReadPath); why == "" && ir.IsStringType(m.Type) &&
			!slices.ContainsFunc(m.Steps, func(s ir.Step) bool { return s.Kind == ir.StepUnion || s.Kind == ir.StepEach }) {
			p.match = ptr
			break
		}
	}
	if p.ref.marker != "" && p.match == "" {
		return false // a marker is matched on the client, or not at all
	}
	if p.adopt != nil {
		// the object read must show the reference where the element does
		if m, why := ir.ResolvePath(w, p.match, ir.ReadPath); p.match == "" || why != "" || !ir.IsStringType(m.Type) {
			return false
		}
	}
	if len(p.newest) > 0 {
		p.since = createdOf(elem)
		if p.since == "" {
			p.newest = nil
		}
	}
	return p.form != "walk" || p.match != ""
}

// adoptBy finds, among items, the read of one object by the found element's id, where the
// element looks like what the write answers: the read's last path parameter names a property of
// both the element and the write's answer (issue_number is number, ticket_id is id), a string or
// an integer, which becomes the receipt's id.
func (p *proposal) adoptBy(so *build.Op, elem *ir.TypeRef, items []*build.Op) bool {
	if !lookalike(so.Op.Response.Type, elem) {
		return false
	}
	for _, c := range items {
		ms := build.PathParam.FindAllStringSubmatch(c.Op.Path, -1)
		name := ms[len(ms)-1][1]
		var ptrs []string
		if i := strings.LastIndexAny(name, "_-"); i >= 0 {
			ptrs = append(ptrs, "/"+name[i+1:])
		}
		ptrs = append(ptrs, "/"+name)
		for _, ptr := range ptrs {
			e, why1 := ir.ResolvePath(elem, ptr, ir.ReadPath)
			r, why2 := ir.ResolvePath(so.Op.Response.Type, ptr, ir.ReadPath)
			if why1 != "" || why2 != "" || !(ir.IsStringType(e.Type) || ir.IsIntegerType(e.Type)) || !(ir.IsStringType(r.Type) || ir.IsIntegerType(r.Type)) {
				continue
			}
			params, ok := requiredParams(so, c.Op, name)
			if !ok {
				continue
			}
			p.adopt, p.adoptP, p.id = c, append(params, [2]string{name, "{id}"}), ptr
			return true
		}
	}
	return false
}

// createdOf returns the pointer of when an element was created: a date-time or an integer
// property named created_at, created, createdAt or creation_date, or "".
func createdOf(t *ir.TypeRef) string {
	for _, ptr := range []string{"/created_at", "/createdAt", "/created", "/creation_date", "/date_created"} {
		if p, why := ir.ResolvePath(t, ptr, ir.ReadPath); why == "" {
			if u := ir.Under(p.Type); u.Kind == ir.RefBuiltin && (u.Builtin == "time.Time" || u.Builtin == "int64") || ir.IsStringType(p.Type) {
				return ptr
			}
		}
	}
	return ""
}

// envelopeOf returns the pointer of the property of the write's response w that holds an object
// of type elem ({ticket: {...}} for a Ticket), or "".
func envelopeOf(w, elem *ir.TypeRef) string {
	st := structOf(w)
	if st == nil || structOf(elem) == nil {
		return ""
	}
	for _, f := range st.Fields {
		if ir.SameType(f.Type, elem) {
			return "/" + f.Name
		}
	}
	return ""
}

// idOf returns the pointer of an object's durable id: id, sid or uuid, a string or an integer.
func idOf(t *ir.TypeRef) string {
	for _, ptr := range []string{"/id", "/sid", "/uuid"} {
		if p, why := ir.ResolvePath(t, ptr, ir.ReadPath); why == "" && (ir.IsStringType(p.Type) || ir.IsIntegerType(p.Type)) {
			return ptr
		}
	}
	return ""
}

// flowParams writes params as a YAML flow mapping.
func flowParams(params [][2]string) string {
	parts := make([]string, len(params))
	for i, kv := range params {
		v := yamlString(kv[1])
		if kv[1] != "" && strings.Trim(kv[1], "0123456789") == "" {
			v = kv[1] // a constant of an integer param: per_page: 100
		}
		parts[i] = yamlKey(kv[0]) + ": " + v
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// yamlString quotes a YAML scalar value that holds braces or other flow characters.
func yamlString(s string) string {
	if plainYAML.MatchString(s) {
		return s
	}
	var b strings.Builder
	e := json.NewEncoder(&b) // JSON strings are YAML double-quoted scalars
	e.SetEscapeHTML(false)
	e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// describe names the proposal's read for the list of candidates.
func (p *proposal) describe() string {
	read := p.read.Op
	switch p.form {
	case "filter":
		return fmt.Sprintf("%s (GET %s?%s=, the body field %s)", read.ID, read.Path, p.params[len(p.params)-1][0], p.ref.pointer)
	case "query":
		return fmt.Sprintf("%s (GET %s, a search by %s)", read.ID, read.Path, p.ref.pointer)
	case "body":
		return fmt.Sprintf("%s (POST %s, a search by %s)", read.ID, read.Path, p.ref.pointer)
	}
	if p.match == "" {
		return fmt.Sprintf("%s (GET %s)", read.ID, read.Path)
	}
	return fmt.Sprintf("%s (GET %s, a walk matched on %s)", read.ID, read.Path, p.match)
}

// write writes the proposal's answers into a write's entry, each with what to confirm. With
// live false (an envelope this writegen does not read yet), every line is a comment.
func (p *proposal) write(w *strings.Builder, live bool) {
	lead := "    "
	if !live {
		lead = "    # "
	}
	object := ""
	if p.object != "" {
		object = ", object: " + p.object
	}
	adopts := "the lookup adopts it"
	if p.adopt != nil {
		adopts = p.adopt.Op.ID + " reads what the lookup found by it"
	}
	fmt.Fprintf(w, "%sresponse: {is: receipt%s, id: %s} # TODO: confirm %s%s is the durable id of what the write made: %s\n", lead, object, p.id, p.object, p.id, adopts)
	switch {
	case p.ref.marker != "":
		fmt.Fprintf(w, "%sreference: {body: %s, marker: %s} # TODO: confirm the write may append the marker to %s: the provider's users see it, and the business key in it unless the client sets runtime.WithKeySecret; and the provider keeps the text as sent\n",
			lead, p.ref.pointer, yamlString(p.ref.marker), p.ref.pointer)
	case !p.ref.key:
		what := fmt.Sprintf("the provider keeps %s as sent: the write stores its reference there, the provider key, or a value of yours with value: \"{field}\"", p.ref.pointer)
		if p.ref.meta {
			what = fmt.Sprintf("the write may add the key %s to the metadata, which the provider's users see", p.ref.name)
		}
		fmt.Fprintf(w, "%sreference: {body: %s} # TODO: confirm %s\n", lead, p.ref.pointer, what)
	}
	fmt.Fprintf(w, "%slookup: # TODO: confirm %s\n", lead, p.check)
	fmt.Fprintf(w, "%s  operation: %s\n", lead, yamlKey(p.read.Op.ID))
	if len(p.params) > 0 {
		fmt.Fprintf(w, "%s  params: %s\n", lead, flowParams(p.params))
	}
	if p.body != "" {
		fmt.Fprintf(w, "%s  body: %s\n", lead, p.body)
	}
	if p.escape != "" {
		fmt.Fprintf(w, "%s  escape: %s\n", lead, p.escape)
	}
	fmt.Fprintf(w, "%s  found: %s\n", lead, p.found)
	if p.match != "" {
		fmt.Fprintf(w, "%s  match: %s\n", lead, p.match)
	}
	if p.pages != "" {
		fmt.Fprintf(w, "%s  pages: %s\n", lead, p.pages)
	}
	if p.since != "" {
		fmt.Fprintf(w, "%s  newest_first: %s\n", lead, flowParams(p.newest))
		fmt.Fprintf(w, "%s  since: %s\n", lead, p.since)
	}
	if p.adopt != nil {
		fmt.Fprintf(w, "%s  adopt: {operation: %s, params: %s}\n", lead, yamlKey(p.adopt.Op.ID), flowParams(p.adoptP))
	}
	fmt.Fprintf(w, "%s  consistency: eventual # TODO: confirm how soon %s shows a write, as the provider documents it: {eventual: LAG, source: URL} where it bounds the lag, {strong: SETTLE, source: URL} where it shows a write at once (SETTLE: how long it may still commit a request whose answer was lost); plain eventual leaves each lost answer to Resume, then a person\n",
		lead, p.read.Op.ID)
}

// envelopesKnown reports whether this writegen reads response.object, the receipt's object
// inside an envelope: whether the annotation schema declares it.
func envelopesKnown() bool {
	var s struct {
		Defs struct {
			Answers struct {
				Response struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"response"`
			} `json:"answerProperties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(spec.AnnotationSchema, &s); err != nil {
		return false
	}
	_, ok := s.Defs.Answers.Response.Properties["object"]
	return ok
}
