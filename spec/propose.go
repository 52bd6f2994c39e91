package spec

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// What writegen init proposes as a write's lookup: a read of the spec that finds what the write
// made by a reference the write stores at the provider, written out complete (reference, lookup,
// response) for a person to confirm. Four forms are tried, best first:
//
//   - filter: a GET whose query parameter has the name of the write's reference field;
//   - body: a search sent as POST whose body can say "this field equals the reference"
//     (Intercom's {query: {field, operator, value}}, Square's {query: {filter: {F: {exact}}}});
//   - query: a GET with a search parameter (query, q, jql), in the provider's query language
//     where writegen knows it (Stripe's metadata['k']:'v');
//   - walk: a GET list without a filter, a page at a time, matched on the client.
//
// Only a create (a POST to a collection) is proposed a lookup, and only a read of that
// collection: the list at the write's path, or a search below it. A read is proposed only when
// the write can call it (every parameter it requires is one the write knows) and what it finds
// is what the write answers, or the same object inside an envelope ({ticket: {...}} and
// {tickets: [...]}). Every proposal is eventual: that a read shows a write at once is for the
// provider's docs to say, and a person to write.

// refField is a place in a write's body that may hold the write's reference.
type refField struct {
	pointer string // in the write's body: /external_id, /card/reference_id, /metadata/writegen_ref
	name    string // the property a read finds it by: external_id, reference_id, writegen_ref
	meta    bool   // a key the write adds to a metadata map
	key     bool   // the idempotency key's own field: the provider key is the reference
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
func referenceFields(so *specOp, keyField string) []refField {
	body := so.op.Body
	if body == nil || body.Encoding == BodyRaw || body.Encoding == BodyMultipart || body.Type == nil {
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
		case referenceName.MatchString(f.Name) && isStringType(f.Type):
			out = append(out, refField{pointer: "/" + f.Name, name: f.Name})
		case strings.EqualFold(f.Name, "metadata"):
			ptr := "/" + f.Name + "/" + metaKey
			if p, why := resolvePath(body.Type, ptr, setPath); why == "" && isStringType(p.Type) {
				out = append(out, refField{pointer: ptr, name: metaKey, meta: true})
			}
		case structOf(f.Type) != nil:
			for _, g := range structOf(f.Type).Fields {
				if referenceName.MatchString(g.Name) && isStringType(g.Type) {
					out = append(out, refField{pointer: "/" + f.Name + "/" + g.Name, name: g.Name})
				}
			}
		}
	}
	return out
}

// structOf returns the struct r names, or nil.
func structOf(r *TypeRef) *Type {
	if r == nil {
		return nil
	}
	if u := under(r); u.Kind == RefNamed && u.Named.Kind == KindStruct {
		return u.Named
	}
	return nil
}

// proposal is a complete lookup for one write.
type proposal struct {
	form   string // filter, body, query, walk
	read   *specOp
	ref    refField
	params [][2]string // name and template, in order
	body   string      // a POST search's body, as YAML flow
	escape Escape      // the query language of a search's {ref}, or ""
	found  string
	match  string
	pages  string // YAML flow of pages, or ""
	object string // response.object: the receipt's object inside the write's response, or ""
	id     string // the receipt's id, relative to object
	check  string // what the person confirms about the lookup
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
func proposeLookups(so *specOp, reads []*specOp, keyField string) []*proposal {
	// Only a create: a write that changes what exists is found by a lookup whether it
	// happened or not.
	path := so.op.Path
	if so.op.Method != "POST" || pathParam.MatchString(path[strings.LastIndex(path, "/")+1:]) ||
		upsert.MatchString(so.op.ID+" "+so.op.Summary) {
		return nil
	}
	refs := referenceFields(so, keyField)
	if len(refs) == 0 {
		return nil
	}
	var out []*proposal
	for _, c := range reads {
		// The list at the write's path, or a search below it: what an action on an existing
		// object (/charges/{charge}/capture) reaches is there before the action.
		rest, below := strings.CutPrefix(c.op.Path, path+"/")
		if c.op.Path != path && !(below && !strings.Contains(rest, "{") && (isSearch(c.op) || searchWord.MatchString(c.op.ID+" "+rest))) {
			continue
		}
		for _, rf := range refs {
			for _, p := range formsOf(so, c, rf) {
				p.complete = p.typed(so)
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
		return strings.Count(x.read.op.Path, "/") - strings.Count(y.read.op.Path, "/")
	})
	return out
}

// formsOf returns what read c can propose for the reference field rf of write so, without the
// found and response parts.
func formsOf(so, c *specOp, rf refField) []*proposal {
	read := c.op
	if len(c.errs) > 0 {
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
		p.read, p.ref, p.params = c, rf, required
		out = append(out, p)
	}
	if read.Method == "GET" {
		for _, q := range read.Params {
			list := under(q.Type).Kind == RefArray && isStringType(under(q.Type).Elem) // external_ids: a list of one
			if q.In == InQuery && (isStringType(q.Type) || list) && !rf.meta && sameName(q.Name, rf.name) {
				add(&proposal{form: "filter",
					check: fmt.Sprintf("%s filters by %s exactly, and whether its docs say it shows a write as soon as the write is answered (then consistency: {strong: SETTLE, source: URL})", read.ID, q.Name)}, q.Name, "{ref}")
			}
		}
		if q, lang := searchParam(read); q != nil {
			if t, esc := queryTemplate(lang, rf); t != "" {
				add(&proposal{form: "query", escape: esc,
					check: fmt.Sprintf("the query %s finds %s by its exact value in %s's query language, and how soon a write shows in the search (not found proves nothing while it is eventual)", t, rf.name, read.ID)}, q.Name, t)
			}
		}
		if len(out) == 0 && !slices.ContainsFunc(read.Params, func(q *Param) bool { return q.In == InQuery && searchWord.MatchString(q.Name) }) {
			if pages := pagesOf(read); pages != "" {
				add(&proposal{form: "walk", pages: pages,
					check: fmt.Sprintf("%s lists what the write made, newest first (then add since: with when it was made), and that 5 pages reach back to a write's first attempt", read.ID)}, "", "")
			}
		}
		return out
	}
	if isSearch(read) && read.Body != nil && read.Body.Encoding == BodyJSON && !rf.meta {
		if body := searchBody(read.Body.Type, rf.name, 0); body != "" {
			add(&proposal{form: "body", body: body,
				check: fmt.Sprintf("the search %s finds %s by its exact value, and how soon a write shows in it (not found proves nothing while it is eventual)", read.ID, rf.name)}, "", "")
		}
	}
	return out
}

// requiredParams returns the read's required parameters but skip, each passed the write's
// parameter of the same name, or false when the read requires one the write does not have.
func requiredParams(so *specOp, read *Operation, skip string) ([][2]string, bool) {
	var out [][2]string
	for _, q := range read.Params {
		if !q.Required || q.Name == skip || q.In == InHeader || q.In == InCookie {
			continue
		}
		i := slices.IndexFunc(so.op.Params, func(w *Param) bool {
			return w.Name == q.Name && w.Required && (w.In == InPath || w.In == InQuery)
		})
		if i < 0 {
			return nil, false
		}
		out = append(out, [2]string{q.Name, "{" + q.Name + "}"})
	}
	return out, true
}

// searchParam returns a GET's search parameter and its query language: stripe (Stripe's search
// query language), jql, or "" for one writegen does not know.
func searchParam(read *Operation) (*Param, string) {
	for _, q := range read.Params {
		if q.In != InQuery || !isStringType(q.Type) {
			continue
		}
		switch strings.ToLower(q.Name) {
		case "jql":
			return q, "jql"
		case "query", "q":
			if strings.Contains(strings.ToLower(q.Doc), "search query language") && strings.Contains(q.Doc, "stripe.com") {
				return q, "stripe"
			}
			if searchWord.MatchString(read.ID + " " + read.Path) {
				return q, ""
			}
		}
	}
	return nil, ""
}

// queryTemplate is the search query that finds rf by the reference in language lang, or "",
// and the escape (lookup.escape) its {ref} is written in: the template writes the placeholder
// bare, and the runtime writes the value as one whole literal of the language. For a language
// writegen does not know, the value is quoted as it is: the reference is the provider key,
// which holds no quote, space or backslash.
func queryTemplate(lang string, rf refField) (query string, escape Escape) {
	switch {
	case lang == "stripe" && rf.meta:
		return "metadata['" + rf.name + "']:{ref}", EscapeStripeSearch
	case lang == "stripe":
		return rf.name + ":{ref}", EscapeStripeSearch
	case rf.meta:
		return "", "" // a metadata key in a query language writegen does not know
	case lang == "jql":
		return rf.name + " = {ref}", EscapeJQL
	}
	return rf.name + `:"{ref}"`, ""
}

// searchBody returns the body of a POST search, as YAML flow, that asks for the property name to
// equal the reference, or "": Intercom's {query: {field, operator, value}}, or a property of that
// name at most four objects down, a string or an object with exact (Square's filters).
func searchBody(t *TypeRef, name string, depth int) string {
	if depth > 4 {
		return ""
	}
	for _, st := range structsOf(t) {
		if hasFields(st, "field", "operator", "value") {
			return fmt.Sprintf(`{field: %s, operator: "=", value: "{ref}"}`, yamlKey(name))
		}
		for _, f := range st.Fields {
			if sameName(f.Name, name) && f.Name != "" {
				if isStringType(f.Type) || StringVariant(f.Type) != nil {
					return fmt.Sprintf(`{%s: "{ref}"}`, yamlKey(f.Name))
				}
				for _, inner := range structsOf(f.Type) {
					for _, e := range []string{"exact", "eq", "equals"} {
						if i := slices.IndexFunc(inner.Fields, func(g *Field) bool { return g.Name == e }); i >= 0 && isStringType(inner.Fields[i].Type) {
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
func structsOf(r *TypeRef) []*Type {
	if st := structOf(r); st != nil {
		return []*Type{st}
	}
	var out []*Type
	if u := under(r); u.Kind == RefNamed && u.Named.Kind == KindUnion {
		for _, v := range u.Named.Variants {
			if st := structOf(v.Type); st != nil {
				out = append(out, st)
			}
		}
	}
	return out
}

func hasFields(st *Type, names ...string) bool {
	for _, n := range names {
		if !slices.ContainsFunc(st.Fields, func(f *Field) bool { return f.Name == n }) {
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
func pagesOf(read *Operation) string {
	for _, pair := range cursorPairs {
		i := slices.IndexFunc(read.Params, func(q *Param) bool { return q.In == InQuery && q.Name == pair.param && isStringType(q.Type) })
		if i < 0 {
			continue
		}
		if ptr := findString(read.Response.Type, pair.next, 0); ptr != "" {
			return fmt.Sprintf("{max: 5, cursor: %s, param: %s}", ptr, yamlKey(pair.param))
		}
	}
	return ""
}

// findString returns the pointer of a string field with one of names, at most three objects down
// a response, or "".
func findString(t *TypeRef, names []string, depth int) string {
	st := structOf(t)
	if st == nil || depth > 2 {
		return ""
	}
	for _, n := range names {
		if i := slices.IndexFunc(st.Fields, func(f *Field) bool { return f.Name == n }); i >= 0 && isStringType(st.Fields[i].Type) {
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
// or the write answers it inside an envelope, and the receipt must have an id. It reports
// whether the proposal is complete.
func (p *proposal) typed(so *specOp) bool {
	w := so.op.Response.Type
	if w == nil || isBytes(w) || so.op.Response.Status == 202 {
		return false
	}
	rr := p.read.op.Response.Type
	if rr == nil || isBytes(rr) {
		return false
	}
	elem := (*TypeRef)(nil)
	switch u := under(rr); {
	case u.Kind == RefArray:
		p.found, elem = "/0", u.Elem
	case structOf(rr) != nil:
		for _, f := range structOf(rr).Fields {
			if a := under(f.Type); a.Kind == RefArray && (sameType(a.Elem, w) || envelopeOf(w, a.Elem) != "") {
				p.found, elem = "/"+f.Name+"/0", a.Elem
				break
			}
		}
	}
	if elem == nil {
		return false
	}
	if !sameType(elem, w) {
		p.object = envelopeOf(w, elem)
	}
	p.id = idOf(elem)
	if p.id == "" {
		return false
	}
	// The element carries the reference: the client compares it, which a walk needs and which
	// guards a search whose query language may find more than the exact value.
	for _, ptr := range []string{p.ref.pointer, p.ref.pointer[strings.Index(p.ref.pointer[1:], "/")+1:]} {
		if p.ref.key || p.form == "filter" || !strings.HasPrefix(ptr, "/") {
			break
		}
		if m, why := resolvePath(elem, ptr, readPath); why == "" && isStringType(m.Type) &&
			!slices.ContainsFunc(m.Steps, func(s Step) bool { return s.Kind == StepUnion || s.Kind == StepEach }) {
			p.match = ptr
			break
		}
	}
	return p.form != "walk" || p.match != ""
}

// envelopeOf returns the pointer of the property of the write's response w that holds an object
// of type elem ({ticket: {...}} for a Ticket), or "".
func envelopeOf(w, elem *TypeRef) string {
	st := structOf(w)
	if st == nil || structOf(elem) == nil {
		return ""
	}
	for _, f := range st.Fields {
		if sameType(f.Type, elem) {
			return "/" + f.Name
		}
	}
	return ""
}

// idOf returns the pointer of an object's durable id: id, sid or uuid, a string or an integer.
func idOf(t *TypeRef) string {
	for _, ptr := range []string{"/id", "/sid", "/uuid"} {
		if p, why := resolvePath(t, ptr, readPath); why == "" && (isStringType(p.Type) || isIntegerType(p.Type)) {
			return ptr
		}
	}
	return ""
}

// flowParams writes params as a YAML flow mapping.
func flowParams(params [][2]string) string {
	parts := make([]string, len(params))
	for i, kv := range params {
		parts[i] = yamlKey(kv[0]) + ": " + yamlString(kv[1])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// yamlString quotes a YAML scalar value that holds braces or other flow characters.
func yamlString(s string) string {
	if plainYAML.MatchString(s) {
		return s
	}
	b, _ := json.Marshal(s) // JSON strings are YAML double-quoted scalars
	return string(b)
}

// describe names the proposal's read for the list of candidates.
func (p *proposal) describe() string {
	read := p.read.op
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
	fmt.Fprintf(w, "%sresponse: {is: receipt%s, id: %s} # TODO: confirm %s%s is the durable id of what the write made: the lookup adopts it\n", lead, object, p.id, p.object, p.id)
	if !p.ref.key {
		what := fmt.Sprintf("the provider keeps %s as sent: the write stores its reference there, the provider key, or a value of yours with value: \"{field}\"", p.ref.pointer)
		if p.ref.meta {
			what = fmt.Sprintf("the write may add the key %s to the metadata, which the provider's users see", p.ref.name)
		}
		fmt.Fprintf(w, "%sreference: {body: %s} # TODO: confirm %s\n", lead, p.ref.pointer, what)
	}
	fmt.Fprintf(w, "%slookup: # TODO: confirm %s\n", lead, p.check)
	fmt.Fprintf(w, "%s  operation: %s\n", lead, yamlKey(p.read.op.ID))
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
	fmt.Fprintf(w, "%s  consistency: eventual # strong only where the provider documents that the read shows a write at once\n", lead)
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
	if err := json.Unmarshal(AnnotationSchema, &s); err != nil {
		return false
	}
	_, ok := s.Defs.Answers.Response.Properties["object"]
	return ok
}
