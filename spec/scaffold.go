package spec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Scaffold returns an annotation file for the spec at specPath that lists every write operation
// in path order, with what the spec reveals filled in (a declared idempotency header or body
// field, receipt or acknowledgement from a 201 or 202, an id field, candidate lookups as
// comments) and TODO wherever a person must answer. Load refuses the file while a TODO is left.
// The output depends only on the spec.
func Scaffold(specPath, pkg string) ([]byte, error) {
	data, err := os.ReadFile(specPath)
	if err != nil {
		return nil, err
	}
	d, errs := loadDocument(specPath, data)
	if errs != nil {
		return nil, errs
	}
	b := newBuilder(d)
	ops, errs := b.listOperations()
	if errs != nil {
		return nil, errs
	}
	if pkg == "" {
		pkg = packageName(filepath.Base(specPath))
	}

	var w bytes.Buffer
	fmt.Fprintf(&w, "# Write-safety answers for %s, written by writegen init from %s.\n", oneLine(d.api.Info.Title+" "+d.api.Info.Version), filepath.Base(specPath))
	w.WriteString(`# Every write operation of the spec is listed. Answer each TODO, or move the operation under
# exclude with a reason: writegen refuses this file while a TODO is left.
version: 1
package: ` + pkg + `
# include:                   # generate only these operations (operationId or "METHOD /path") and tags
#   operations: []
#   tags: []
# defaults:                  # answers for every write that does not give its own
#   retry: {on: [not_sent]}
#   uncertain: reconcile
operations:
`)
	writes := 0
	for _, so := range ops {
		if !so.op.Write {
			continue
		}
		writes++
		b.convert(so)
		scaffoldEntry(&w, so, ops)
	}
	if writes == 0 {
		w.WriteString("  {}\n")
	}
	w.WriteString("exclude: {}\n")
	return w.Bytes(), nil
}

// scaffoldEntry writes the entry of one write operation.
func scaffoldEntry(w *bytes.Buffer, so *specOp, ops []*specOp) {
	op := so.op
	fmt.Fprintf(w, "  %s: # %s %s\n", yamlKey(op.ID), op.Method, op.Path)
	if op.Summary != "" {
		fmt.Fprintf(w, "    # %s\n", oneLine(op.Summary))
	}
	hint := ""
	switch op.Method {
	case "PUT", "DELETE":
		hint = "; " + op.Method + " is often idempotent"
	}
	fmt.Fprintf(w, "    effect: TODO # read_only | idempotent | reversible | compensatable | ambiguous%s\n", hint)
	w.WriteString("    key: {fields: {TODO: string}, format: \"{TODO}\"} # the business key callers pass: name: string or int64\n")
	if h := idempotencyParam(op); h != nil {
		fmt.Fprintf(w, "    idempotency: {%s: %s} # declared by the spec; add max_length and window if the provider documents them\n", h.In, yamlKey(h.Name))
	} else if field := idempotencyField(so); field != "" {
		fmt.Fprintf(w, "    idempotency: {body: %s} # a body field of the spec; add max_length and window if the provider documents them\n", field)
	} else {
		w.WriteString("    # idempotency: the spec declares no idempotency key; add {header: Name} if the provider honours one\n")
	}
	w.WriteString("    " + scaffoldResponse(so) + "\n")
	if c := lookupCandidates(so, ops); len(c) > 0 {
		fmt.Fprintf(w, "    # lookup candidates: %s\n", strings.Join(c, ", "))
		w.WriteString("    # lookup: {operation: ..., params: {name: \"{ref}\"}, found: /data/0, consistency: strong}\n")
	}
	w.WriteString("    retry: {on: [not_sent], attempts: 3}\n")
	w.WriteString("    uncertain: reconcile\n")
	w.WriteString("    owner: TODO # who is told when an outcome stays uncertain\n")
}

// scaffoldResponse answers question 3 as far as the status code and schema tell.
func scaffoldResponse(so *specOp) string {
	resp := so.op.Response
	id := ""
	if so.respSchema != nil {
		if s, err := schemaAt(so.respSchema, "/id"); err == nil && scalarID(s) {
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
		return fmt.Sprintf("response: {is: TODO, id: /id} # %s with an id: receipt if it names what was written, else acknowledgement without id", statusText(resp.Status))
	}
	return fmt.Sprintf("response: {is: TODO} # %s: receipt (with id: /pointer) or acknowledgement", statusText(resp.Status))
}

// idempotencyParam returns a declared header that carries an idempotency key.
func idempotencyParam(op *Operation) *Param {
	for _, p := range op.Params {
		name := strings.ToLower(p.Name)
		if p.In == InHeader && (strings.Contains(name, "idempoten") || name == "paypal-request-id") {
			return p
		}
	}
	return nil
}

// idempotencyField returns the pointer of a top-level request body field named for an
// idempotency key.
func idempotencyField(so *specOp) string {
	if so.bodySchema == nil || so.bodySchema.Value == nil {
		return ""
	}
	for _, name := range []string{"idempotency_key", "idempotencyKey", "IdempotencyKey"} {
		if _, err := schemaAt(so.bodySchema, "/"+name); err == nil {
			return "/" + name
		}
	}
	return ""
}

var searchWord = regexp.MustCompile(`(?i)search|list|find|query`)

// lookupCandidates lists reads that may find what a write made: GETs on the write's collection or
// item path, and GETs that search or list below the same first path segments.
func lookupCandidates(so *specOp, ops []*specOp) []string {
	collection := so.op.Path
	if i := strings.LastIndex(collection, "/"); i > 0 && strings.HasPrefix(collection[i+1:], "{") {
		collection = collection[:i]
	}
	var out []string
	for _, c := range ops {
		if c.op.Method != "GET" {
			continue
		}
		p := c.op.Path
		rest, under := strings.CutPrefix(p, collection)
		direct := p == so.op.Path || under && (rest == "" || pathParam.MatchString(rest) && strings.Count(rest, "/") == 1)
		related := under && searchWord.MatchString(c.op.ID+" "+rest)
		if direct || related {
			out = append(out, fmt.Sprintf("%s (GET %s)", c.op.ID, p))
		}
	}
	slices.Sort(out)
	const most = 6
	if len(out) > most {
		out = append(out[:most], "...")
	}
	return out
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
