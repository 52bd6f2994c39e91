package scaffold

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/annot"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/load"
)

// Options tune Scaffold.
type Options struct {
	// Package is the Go package name; default: from the spec's file name.
	Package string
	// Include limits the scaffold to these operations (operationId or "METHOD /path") and tags:
	// only their writes are listed, and the file's include block names them.
	Include []string
}

// Scaffold returns an annotation file for the spec at specPath that lists every write operation
// in path order, with what the spec reveals filled in (a declared idempotency header or body
// field and its longest length, receipt or acknowledgement from a 201 or 202, an id field,
// candidate lookups as comments, a search sent as POST as a read) and TODO wherever a person
// must answer. Load refuses the file while a TODO is left in a write in scope. The output depends
// only on the spec and the options.
func Scaffold(specPath string, opts Options) ([]byte, error) {
	data, err := os.ReadFile(specPath)
	if err != nil {
		return nil, err
	}
	dir := &load.DirFS{Dir: filepath.Dir(specPath)}
	defer dir.Close()
	d, errs := load.Read(specPath, data, dir)
	if errs != nil {
		return nil, errs
	}
	b := build.New(d)
	ops, errs := b.ListOperations()
	if errs != nil {
		return nil, errs
	}
	pkg := opts.Package
	if pkg == "" {
		pkg = packageName(filepath.Base(specPath))
	}
	scope := annot.NormalScope(d.API.Info.Title)
	if scope == "" {
		scope = annot.NormalScope(pkg)
	}
	inc, err := scaffoldInclude(ops, opts.Include)
	if err != nil {
		return nil, err
	}

	var w bytes.Buffer
	fmt.Fprintf(&w, "# yaml-language-server: $schema=%s\n", spec.SchemaURL) // editors check the file while it is written
	fmt.Fprintf(&w, "# Write-safety answers for %s, written by writegen init from %s.\n", oneLine(d.API.Info.Title+" "+d.API.Info.Version), filepath.Base(specPath))
	if inc.any() {
		w.WriteString("# The writes the include block selects are listed. Answer each TODO, or move the operation under\n")
	} else {
		w.WriteString("# Every write operation of the spec is listed. Answer each TODO, or move the operation under\n")
	}
	w.WriteString(`# exclude with a reason: writegen refuses this file while a TODO is left.
version: 1
package: ` + pkg + `
# scope names the provider in ledger rows and provider keys: keep it when the spec changes.
scope: ` + scope + "\n")
	if inc.any() {
		w.WriteString("include:\n")
		writeList(&w, "operations", inc.operations)
		writeList(&w, "tags", inc.tags)
	} else {
		w.WriteString(`# include:                   # generate only these operations (operationId or "METHOD /path") and tags
#   operations: []
#   tags: []
`)
	}
	w.WriteString(`# defaults:                  # answers for every write that does not give its own
#   retry: {on: [not_sent]}
#   uncertain: reconcile
operations:
`)
	writes := 0
	envelopes := envelopesKnown()
	gh := strings.Contains(d.API.Info.Title, "GitHub")
	for _, sv := range d.API.Servers {
		gh = gh || strings.Contains(sv.URL, "github")
	}
	for _, so := range ops {
		if !so.Op.Write || !inc.selects(so.Op) {
			continue
		}
		writes++
		b.Convert(so)
		if isSearch(so.Op) {
			fmt.Fprintf(&w, "  %s: # %s %s\n", yamlKey(so.Op.ID), so.Op.Method, so.Op.SpecPath)
			w.WriteString("    effect: read_only # a search sent as POST: a read, and a lookup for the writes it finds\n")
			continue
		}
		scaffoldEntry(&w, b, so, ops, envelopes, gh)
	}
	if writes == 0 {
		w.WriteString("  {}\n")
	}
	w.WriteString("exclude: {}\n")
	return w.Bytes(), nil
}

// scaffoldScope is what -include selects.
type scaffoldScope struct {
	operations, tags []string
	ops              map[*ir.Operation]bool
	tagSet           map[string]bool
}

func (s scaffoldScope) any() bool { return len(s.operations)+len(s.tags) > 0 }

func (s scaffoldScope) selects(op *ir.Operation) bool {
	return !s.any() || s.ops[op] || slices.ContainsFunc(op.Tags, func(t string) bool { return s.tagSet[t] })
}

// scaffoldInclude sorts the names given to -include into operations and tags; a name that is
// neither is an error.
func scaffoldInclude(ops []*build.Op, names []string) (scaffoldScope, error) {
	s := scaffoldScope{ops: map[*ir.Operation]bool{}, tagSet: map[string]bool{}}
	tags := map[string]bool{}
	for _, so := range ops {
		for _, t := range so.Op.Tags {
			tags[t] = true
		}
	}
	for _, name := range names {
		name = strings.TrimSpace(name)
		found := false
		for _, so := range ops {
			if so.Op.ID == name || strings.EqualFold(so.Op.Method+" "+so.Op.SpecPath, name) {
				s.ops[so.Op] = true
				found = true
				if !slices.Contains(s.operations, so.Op.ID) {
					s.operations = append(s.operations, so.Op.ID)
				}
			}
		}
		if tags[name] {
			found = true
			if !s.tagSet[name] {
				s.tagSet[name] = true
				s.tags = append(s.tags, name)
			}
		}
		if !found {
			return s, fmt.Errorf("-include: %q is neither an operation (operationId or \"METHOD /path\") nor a tag of the spec", name)
		}
	}
	return s, nil
}

func writeList(w *bytes.Buffer, key string, items []string) {
	if len(items) == 0 {
		return
	}
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = yamlKey(s)
	}
	fmt.Fprintf(w, "  %s: [%s]\n", key, strings.Join(quoted, ", "))
}

var searchOp = regexp.MustCompile(`(?i)^(search|query|find)`)

// isSearch reports whether a POST is a search: its operationId starts with search, query or
// find, or its path ends in /search or /query.
func isSearch(op *ir.Operation) bool {
	if op.Method != "POST" {
		return false
	}
	last := op.Path[strings.LastIndex(op.Path, "/")+1:]
	return searchOp.MatchString(op.ID) || strings.EqualFold(last, "search") || strings.EqualFold(last, "query")
}

// scaffoldEntry writes the entry of one write operation.
func scaffoldEntry(w *bytes.Buffer, b *build.Builder, so *build.Op, ops []*build.Op, envelopes, github bool) {
	op := so.Op
	fmt.Fprintf(w, "  %s: # %s %s\n", yamlKey(op.ID), op.Method, op.SpecPath)
	if op.Summary != "" {
		fmt.Fprintf(w, "    # %s\n", oneLine(op.Summary))
	}
	hint := ""
	switch op.Method {
	case "PUT", "DELETE":
		hint = "; " + op.Method + " is often idempotent"
	}
	fmt.Fprintf(w, "    effect: TODO # read_only | idempotent | compensatable | ambiguous%s\n", hint)
	if op.Method == "POST" {
		w.WriteString("    destructive: TODO # true if it overwrites or deletes, else false\n")
	}
	keyScope := annot.NormalScope(op.ID)
	if keyScope == "" {
		keyScope = "TODO"
	}
	fmt.Fprintf(w, "    key: {scope: %s, fields: {TODO: string}, format: \"{TODO}\"} # the business key callers pass: name: string or int64; keep scope when the operation is renamed\n", yamlKey(keyScope))
	keyField := ""
	if h := idempotencyParam(so); h != nil {
		fmt.Fprintf(w, "    idempotency: {%s: %s%s, window: TODO} # declared by the spec; %s\n", h.In, yamlKey(h.Name), maxLength(h.MaxLength), windowHint)
	} else if field, n := idempotencyField(so); field != "" {
		keyField = field
		fmt.Fprintf(w, "    idempotency: {body: %s%s, window: TODO} # a body field of the spec; %s\n", field, maxLength(n), windowHint)
	} else if nf := nonceField(so); nf.pointer != "" {
		keyField = nf.pointer
		enforce := ""
		if nf.enforce != "" {
			enforce = fmt.Sprintf(" (only with %s: true, which the caller sends)", nf.enforce)
		}
		fmt.Fprintf(w, "    idempotency: {body: %s%s, window: TODO} # TODO: confirm the provider deduplicates writes by %s%s, and answer window: how long it remembers one (a nonce is often kept minutes, not forever)\n", nf.pointer, maxLength(nf.maxLength), nf.pointer, enforce)
	} else {
		w.WriteString("    # idempotency: the spec declares no idempotency key; add {header: Name} if the provider honours one\n")
	}
	props := proposeLookups(so, lookupReads(b, so, ops), itemReads(b, so, ops), keyField, github)
	best := slices.IndexFunc(props, func(p *proposal) bool { return p.complete && (envelopes || !p.envelope()) })
	var e strings.Builder
	if best >= 0 {
		props[best].write(&e, true)
	} else {
		e.WriteString("    " + scaffoldResponse(so) + "\n")
		if len(props) > 0 && props[0].complete {
			e.WriteString("    # a lookup that needs response.object (the receipt inside an envelope), which this writegen does not read yet:\n")
			props[0].write(&e, false)
			best = 0
		}
	}
	w.WriteString(e.String())
	if c := candidateList(lookupReads(b, so, ops), props, best); len(c) > 0 {
		lead := "lookup candidates"
		if best >= 0 {
			lead = "other lookup candidates"
		}
		fmt.Fprintf(w, "    # %s: %s\n", lead, strings.Join(c, ", "))
		if best < 0 {
			w.WriteString("    # reference: {body: /field}   # where the write stores what the lookup searches for\n")
			w.WriteString("    # lookup: {operation: ..., params: {name: \"{ref}\"}, found: /data/0, consistency: eventual}\n")
			w.WriteString("    # (a POST search: lookup: {operation: ..., body: {query: {field: external_id, value: \"{ref}\"}}, found: /data/0, consistency: eventual})\n")
		}
	}
	w.WriteString("    retry: {on: [not_sent], attempts: 3}\n")
	w.WriteString("    uncertain: reconcile\n")
	w.WriteString("    owner: TODO # who is told when an outcome stays uncertain\n")
}

// windowHint says what the window placeholder asks: a window is an answer from the provider's
// documentation, never assumed (ir.WindowForever).
const windowHint = "window: how long the provider documents that it remembers a key (24h, 30d), forever, or unknown"

func maxLength(n int) string {
	if n <= 0 {
		return ""
	}
	return ", max_length: " + strconv.Itoa(n)
}

// scaffoldResponse answers question 3 as far as the status code and schema tell.
func scaffoldResponse(so *build.Op) string {
	resp := so.Op.Response
	id := ""
	if resp.Type != nil {
		if p, why := ir.ResolvePath(resp.Type, "/id", ir.ReadPath); why == "" && (ir.IsStringType(p.Type) || ir.IsIntegerType(p.Type)) {
			id = "/id"
		}
	}
	switch {
	case resp.Status == 202:
		return "response: {is: acknowledgement} # 202 Accepted"
	case resp.Type == nil && resp.Status >= 200:
		return fmt.Sprintf("response: {is: acknowledgement} # %d without a body", resp.Status)
	case resp.Status == 201 && id != "":
		return "response: {is: receipt, id: /id} # 201 Created with an id"
	case resp.Status == 201:
		return "response: {is: receipt, id: TODO} # 201 Created: where is the id of what was created?"
	case id != "":
		return fmt.Sprintf("response: {is: TODO, id: /id} # %s with an id: receipt if it names what was written, else acknowledgement without id", ir.StatusText(resp.Status))
	}
	return fmt.Sprintf("response: {is: TODO} # %s: receipt (with id: /pointer) or acknowledgement", ir.StatusText(resp.Status))
}

// keyParam is a declared parameter that carries an idempotency key, with the longest value
// its schema allows (0 = no limit).
type keyParam struct {
	Name      string
	In        ir.ParamIn
	MaxLength int
}

// idempotencyParam returns a declared header that carries an idempotency key.
func idempotencyParam(so *build.Op) *keyParam {
	for _, p := range so.Op.Params {
		name := strings.ToLower(p.Name)
		if p.In != ir.InHeader || !strings.Contains(name, "idempoten") && name != "paypal-request-id" {
			continue
		}
		return &keyParam{Name: p.Name, In: p.In, MaxLength: so.MaxLength(p)}
	}
	return nil
}

// idempotencyField returns the pointer of a top-level request body field named for an
// idempotency key, with its longest length.
func idempotencyField(so *build.Op) (string, int) {
	body := so.Op.Body
	if body == nil || body.Encoding == ir.BodyRaw {
		return "", 0
	}
	for _, name := range []string{"idempotency_key", "idempotencyKey", "IdempotencyKey"} {
		if p, why := ir.ResolvePath(body.Type, "/"+name, ir.SetPath); why == "" && ir.IsStringType(p.Type) {
			n := 0
			if sr := so.BodySchema; sr != nil && sr.Value != nil {
				if prop := sr.Value.Properties[name]; prop != nil && prop.Value != nil && prop.Value.MaxLength != nil {
					n = int(*prop.Value.MaxLength)
				}
			}
			return "/" + name, n
		}
	}
	return "", 0
}

var searchWord = regexp.MustCompile(`(?i)search|list|find|query`)

// lookupReads returns the reads that may find what a write made, sorted by operation: GETs on
// the write's collection or item path, GETs that search or list below the same first path
// segments, and searches sent as POST below them; each converted. A read whose path needs a
// parameter the write's path does not name is left out: the write cannot call it.
func lookupReads(b *build.Builder, so *build.Op, ops []*build.Op) []*build.Op {
	collection := so.Op.Path
	if i := strings.LastIndex(collection, "/"); i > 0 && strings.HasPrefix(collection[i+1:], "{") {
		collection = collection[:i]
	}
	known := map[string]bool{}
	for _, m := range build.PathParam.FindAllStringSubmatch(so.Op.Path, -1) {
		known[m[1]] = true
	}
	var out []*build.Op
	for _, c := range ops {
		p := c.Op.Path
		if c == so || slices.ContainsFunc(build.PathParam.FindAllStringSubmatch(p, -1), func(m []string) bool { return !known[m[1]] }) {
			continue
		}
		rest, under := strings.CutPrefix(p, collection)
		switch {
		case c.Op.Method == "POST" && isSearch(c.Op) && under:
		case c.Op.Method != "GET":
			continue
		case p == so.Op.Path, under && (rest == "" || build.PathParam.MatchString(rest) && strings.Count(rest, "/") == 1):
		case under && searchWord.MatchString(c.Op.ID+" "+rest):
		case searchOp.MatchString(c.Op.ID) || strings.HasPrefix(p, "/search"):
			// a search of the whole API (GitHub's /search/issues), when it lists what looks like
			// what the write makes
			b.Convert(c)
			if searchElem(so.Op, c.Op) == nil {
				continue
			}
		default:
			continue
		}
		b.Convert(c)
		out = append(out, c)
	}
	slices.SortFunc(out, func(x, y *build.Op) int { return strings.Compare(x.Op.ID, y.Op.ID) })
	return out
}

// searchElem returns the type of the elements a read lists that look like what the write w
// answers (its object, or an object that looks like it: GitHub's issue search answers items
// that differ from an issue in their labels), or nil.
func searchElem(w, read *ir.Operation) *ir.TypeRef {
	if w.Response.Type == nil || read.Response.Type == nil {
		return nil
	}
	var lists []*ir.TypeRef
	switch u := ir.Under(read.Response.Type); {
	case u.Kind == ir.RefArray:
		lists = append(lists, u.Elem)
	case structOf(read.Response.Type) != nil:
		for _, f := range structOf(read.Response.Type).Fields {
			if a := ir.Under(f.Type); a.Kind == ir.RefArray {
				lists = append(lists, a.Elem)
			}
		}
	}
	for _, e := range lists {
		if ir.SameType(e, w.Response.Type) || envelopeOf(w.Response.Type, e) != "" || lookalike(w.Response.Type, e) {
			return e
		}
	}
	return nil
}

// lookalike reports whether the object e looks like the object w: it has every property w
// requires (w requires some), and the two share at least three in four of their properties by
// name. GitHub's issue and issue search item do; an issue and a comment do not.
func lookalike(w, e *ir.TypeRef) bool {
	ws, es := structOf(w), structOf(e)
	if ws == nil || es == nil || !slices.ContainsFunc(ws.Fields, func(f *ir.Field) bool { return f.Required }) {
		return false
	}
	has := func(st *ir.Type, name string) bool {
		return slices.ContainsFunc(st.Fields, func(g *ir.Field) bool { return g.Name == name })
	}
	shared := 0
	for _, f := range ws.Fields {
		switch {
		case has(es, f.Name):
			shared++
		case f.Required:
			return false
		}
	}
	return 4*shared >= 3*(len(ws.Fields)+len(es.Fields)-shared)
}

// itemReads returns the GETs of one object of the write's collection (its path and one
// parameter more, like GitHub's issues/get for issues/create) that answer what the write answers:
// the reads that may adopt, by its id, what a search found in another schema (lookup.adopt).
func itemReads(b *build.Builder, so *build.Op, ops []*build.Op) []*build.Op {
	known := map[string]bool{}
	for _, m := range build.PathParam.FindAllStringSubmatch(so.Op.Path, -1) {
		known[m[1]] = true
	}
	var out []*build.Op
	for _, c := range ops {
		rest, under := strings.CutPrefix(c.Op.Path, so.Op.Path+"/")
		if c.Op.Method != "GET" || !under || !build.PathParam.MatchString(rest) || strings.Contains(rest, "/") {
			continue
		}
		b.Convert(c)
		if len(c.Errs) > 0 || so.Op.Response.Type == nil || c.Op.Response.Type == nil || !ir.SameType(c.Op.Response.Type, so.Op.Response.Type) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// candidateList names the reads a write may use as its lookup, for a comment: the proposed ones
// first, best first, with what they find by (but the one at skip, written out), then the others.
// A read that requires a query parameter the write does not know is left out.
func candidateList(reads []*build.Op, props []*proposal, skip int) []string {
	var out []string
	seen := map[*build.Op]bool{}
	for i, p := range props {
		if i == skip {
			seen[p.read] = true
			continue
		}
		if !seen[p.read] {
			seen[p.read] = true
			out = append(out, p.describe())
		}
	}
	for _, c := range reads {
		if seen[c] || slices.ContainsFunc(c.Op.Params, func(q *ir.Param) bool { return q.Required && q.In == ir.InQuery }) {
			continue
		}
		if c.Op.Method == "POST" {
			out = append(out, fmt.Sprintf("%s (POST %s, a search)", c.Op.ID, c.Op.Path))
		} else {
			out = append(out, fmt.Sprintf("%s (GET %s)", c.Op.ID, c.Op.Path))
		}
	}
	return out
}

// nonce is a body field by which a provider deduplicates writes without calling it an
// idempotency key: Discord's nonce (with enforce_nonce), Slack's client_msg_id, a request_id.
type nonce struct {
	pointer   string
	maxLength int
	enforce   string // a boolean field of the body that turns the deduplication on, or ""
}

// nonceName matches the names of such fields, dedupeName those whose name alone says so; a
// field named like a nonce otherwise needs a description that speaks of duplicates, or a switch
// beside it (enforce_nonce): a payment token is also called a nonce.
var (
	nonceName  = regexp.MustCompile(`(?i)^(nonce|client_?(msg|message|request)_?id|request_?id|client_?token|dedup(e|lication)?_?(id|key|token)|idempotency_?token)$`)
	dedupeName = regexp.MustCompile(`(?i)^(client_?(msg|message|request)_?id|dedup(e|lication)?_?(id|key|token)|idempotency_?token)$`)
	dedupeDoc  = regexp.MustCompile(`(?i)dedup|duplicat|idempoten|sent (only )?once|more than once`)
)

// nonceField returns the top-level string body field that looks like a nonce, or a zero nonce.
func nonceField(so *build.Op) nonce {
	body := so.Op.Body
	if body == nil || body.Encoding == ir.BodyRaw || body.Encoding == ir.BodyMultipart || body.Type == nil {
		return nonce{}
	}
	st := structOf(body.Type)
	if st == nil {
		return nonce{}
	}
	for _, f := range st.Fields {
		if !nonceName.MatchString(f.Name) || !ir.IsStringType(f.Type) && ir.StringVariant(f.Type) == nil || f.ReadOnly {
			continue
		}
		n := nonce{pointer: "/" + f.Name, maxLength: propertyMaxLength(so, f.Name)}
		for _, g := range st.Fields {
			if strings.EqualFold(g.Name, "enforce_"+f.Name) || strings.EqualFold(g.Name, "enforce"+f.Name) {
				n.enforce = g.Name
			}
		}
		if n.enforce != "" || dedupeName.MatchString(f.Name) || dedupeDoc.MatchString(f.Doc) {
			return n
		}
	}
	return nonce{}
}

// propertyMaxLength is the maxLength the spec gives a top-level property of the request body (or
// its string member, for a oneOf/anyOf), 0 when none.
func propertyMaxLength(so *build.Op, name string) int {
	sr := so.BodySchema
	if sr == nil || sr.Value == nil || sr.Value.Properties[name] == nil || sr.Value.Properties[name].Value == nil {
		return 0
	}
	prop := sr.Value.Properties[name].Value
	if prop.MaxLength != nil {
		return int(*prop.MaxLength)
	}
	for _, list := range []openapi3.SchemaRefs{prop.OneOf, prop.AnyOf} {
		for _, m := range list {
			if m != nil && m.Value != nil && m.Value.Type.Is("string") && m.Value.MaxLength != nil {
				return int(*m.Value.MaxLength)
			}
		}
	}
	return 0
}

// yamlKey quotes a YAML scalar unless it is plainly safe.
func yamlKey(s string) string {
	if plainYAML.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}

var plainYAML = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// oneLine keeps a text on one comment line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const most = 100
	if r := []rune(s); len(r) > most {
		s = string(r[:most]) + "..."
	}
	return s
}

// packageName derives a Go package name from a file name: "stripe.json" -> "stripe".
func packageName(file string) string {
	base := strings.TrimSuffix(file, filepath.Ext(file))
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if r >= 'a' && r <= 'z' || b.Len() > 0 && r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "api"
	}
	return b.String()
}
