package spec

import (
	"fmt"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
)

// annotations is the annotation file as written, each answer with the node it came from.
type annotations struct {
	file     string
	pkg      string
	pkgNode  *yaml.Node
	include  *include
	defaults *answers
	entries  []*answers // operations, in file order
	excludes []*exclusion
	names    []*nameOverride
}

type include struct {
	node       *yaml.Node
	operations []*yaml.Node // scalar nodes: operationId or "METHOD /path"
	tags       []*yaml.Node
}

type exclusion struct {
	id     string
	node   *yaml.Node // the key
	reason string
}

type nameOverride struct {
	ptr  string
	name string
	node *yaml.Node // the key
}

// answers is one operation entry, or the defaults block. Set records the keys written, with the
// node of each key: an answer the entry leaves out may come from the defaults.
type answers struct {
	id  string     // operation named; "" for defaults
	at  *yaml.Node // the key naming the operation, or the "defaults" key
	set map[string]*yaml.Node
	// none holds the answers written as none (key, idempotency, reference): explicitly absent,
	// overriding the defaults.
	none map[string]bool

	effect      Effect
	key         *Key
	idempotency *Idempotency
	reference   *Reference
	respIs      string
	respID      string
	respIDNode  *yaml.Node
	lookup      *lookupAnswer
	retry       []retryName
	attempts    int
	compensate  string
	dedupe      string
	uncertain   string
	owner       string
	credentials *Credentials
	inbox       *Inbox
	// nodes of answers whose checks need the spec
	idemBodyNode, refBodyNode, compensateNode *yaml.Node
}

type lookupAnswer struct {
	fn          string
	op          string
	opNode      *yaml.Node
	params      []LookupParam
	paramNodes  []*yaml.Node
	found       string
	foundNode   *yaml.Node
	consistency Consistency
}

type retryName struct {
	name string
	node *yaml.Node
}

// answerKeys are the keys an operation entry (or the defaults block) may hold.
var answerKeys = []string{"effect", "key", "idempotency", "reference", "response", "lookup", "retry",
	"compensate", "dedupe", "uncertain", "owner", "credentials", "inbox"}

// retryNames are the failure kinds a retry set may name.
var retryNames = []string{"not_sent", "ambiguous", "status_408", "status_409", "status_425", "status_429",
	"status_500", "status_502", "status_503", "status_504", "status_5xx"}

// annotParser decodes the annotation file strictly, collecting every defect.
type annotParser struct {
	file  string
	op    string                // operation the entry being read belongs to
	keyOf map[*yaml.Node]string // the key each mapping value is under, for messages
	errs  ErrorList
}

func (p *annotParser) errorf(n *yaml.Node, format string, args ...any) {
	e := &Error{Pos: Pos{File: p.file}, Operation: p.op, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Pos.Line, e.Pos.Col = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

// parseAnnotations reads the annotation file. It returns what it could read and every defect.
func parseAnnotations(file string, data []byte) (*annotations, ErrorList) {
	p := &annotParser{file: file, keyOf: make(map[*yaml.Node]string)}
	a := &annotations{file: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		d := &document{file: file}
		return nil, d.treeError(err, data)
	}
	if len(doc.Content) == 0 {
		p.errs = append(p.errs, &Error{Pos: Pos{File: file, Line: 1, Col: 1}, Msg: "empty annotation file: want version: 1"})
		return nil, p.errs
	}
	root := doc.Content[0]
	p.todos(root)
	top := p.mapping(root, "version", "package", "include", "defaults", "operations", "exclude", "names")
	if top == nil {
		return nil, p.errs
	}
	if kv, ok := top["version"]; !ok {
		p.errorf(root, "version is required (version: 1)")
	} else if v, ok := p.integer(kv[1]); ok && v != 1 {
		p.errorf(kv[1], "unsupported version %d (want 1)", v)
	}
	if kv, ok := top["package"]; ok {
		a.pkg, _ = p.str(kv[1])
		a.pkgNode = kv[1]
	}
	if kv, ok := top["include"]; ok {
		a.include = p.include(kv[1])
	}
	if kv, ok := top["defaults"]; ok {
		a.defaults = p.answers(kv[0], kv[1], "")
		for _, k := range []string{"lookup", "compensate"} {
			if n := a.defaults.set[k]; n != nil {
				p.errorf(n, "%s names one operation's own %s and cannot be a default", k, k)
				delete(a.defaults.set, k)
			}
		}
	}
	if kv, ok := top["operations"]; ok {
		for _, e := range p.pairs(kv[1]) {
			id, _ := p.opName(e[0])
			p.op = id
			a.entries = append(a.entries, p.answers(e[0], e[1], id))
			p.op = ""
		}
	}
	if kv, ok := top["exclude"]; ok {
		for _, e := range p.pairs(kv[1]) {
			x := &exclusion{node: e[0]}
			x.id, _ = p.opName(e[0])
			p.op = x.id
			if r, ok := p.str(e[1]); ok {
				x.reason = strings.TrimSpace(r)
				if x.reason == "" {
					p.errorf(e[1], "an exclusion needs a reason")
				}
			}
			p.op = ""
			a.excludes = append(a.excludes, x)
		}
	}
	if kv, ok := top["names"]; ok {
		for _, e := range p.pairs(kv[1]) {
			o := &nameOverride{node: e[0]}
			o.ptr, _ = p.str(e[0])
			if name, ok := p.str(e[1]); ok {
				if !token.IsExported(name) || !token.IsIdentifier(name) {
					p.errorf(e[1], "name %q is not an exported Go identifier", name)
				}
				o.name = name
			}
			if !strings.HasPrefix(o.ptr, "#/") {
				p.errorf(e[0], "names: %q is not a reference (want \"#/components/schemas/...\")", o.ptr)
			}
			a.names = append(a.names, o)
		}
	}
	return a, p.errs
}

// todos reports every scalar still reading TODO: a scaffold's placeholder nobody answered. Under
// operations and exclude, the error names the operation.
func (p *annotParser) todos(root *yaml.Node) {
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && hasTODO(n.Value) {
			p.errorf(n, "%q is a placeholder left by writegen init: answer it", n.Value)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	if root.Kind != yaml.MappingNode {
		walk(root)
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		walk(k)
		if (k.Value != "operations" && k.Value != "exclude") || v.Kind != yaml.MappingNode {
			walk(v)
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			p.op = v.Content[j].Value
			walk(v.Content[j])
			walk(v.Content[j+1])
		}
		p.op = ""
	}
}

func hasTODO(s string) bool { return strings.Contains(s, "TODO") }

// noneable are the answers that may be written as none: the operation has no business key, the
// provider honours no idempotency key, the key is not stored at the provider.
var noneable = map[string]bool{"key": true, "idempotency": true, "reference": true}

// isNone reports whether an answer is the plain scalar none: an explicit "no" that overrides an
// answer of the defaults block.
func isNone(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Style == 0 && n.Value == "none"
}

// pairs returns the key/value pairs of a mapping, reporting a key written twice.
func (p *annotParser) pairs(n *yaml.Node) [][2]*yaml.Node {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return [][2]*yaml.Node{} // "operations:" with nothing under it is an empty mapping
	}
	if n.Kind != yaml.MappingNode {
		p.typeError(n, "a mapping")
		return nil
	}
	seen := make(map[string]*yaml.Node)
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if prev, dup := seen[k.Value]; dup {
			p.errorf(k, "%q is written twice (first at line %d)", k.Value, prev.Line)
			continue
		}
		seen[k.Value] = k
		p.keyOf[n.Content[i+1]] = k.Value
		out = append(out, [2]*yaml.Node{k, n.Content[i+1]})
	}
	return out
}

// mapping reads a mapping whose keys must be among known; an unknown key is an error.
func (p *annotParser) mapping(n *yaml.Node, known ...string) map[string][2]*yaml.Node {
	if n.Kind == yaml.ScalarNode && hasTODO(n.Value) {
		return nil
	}
	pairs := p.pairs(n)
	if pairs == nil {
		return nil
	}
	out := make(map[string][2]*yaml.Node, len(pairs))
	for _, kv := range pairs {
		if !slices.Contains(known, kv[0].Value) {
			p.errorf(kv[0], "unknown field %q (known: %s)", kv[0].Value, strings.Join(known, ", "))
			continue
		}
		out[kv[0].Value] = kv
	}
	return out
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

func (p *annotParser) typeError(n *yaml.Node, want string) {
	if n.Kind == yaml.ScalarNode && hasTODO(n.Value) {
		return // reported as a placeholder
	}
	if key := p.keyOf[n]; key != "" {
		p.errorf(n, "%s: want %s, found %s", key, want, kindName(n))
		return
	}
	p.errorf(n, "want %s, found %s", want, kindName(n))
}

func (p *annotParser) str(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.typeError(n, "a string")
		return "", false
	}
	if hasTODO(n.Value) {
		return "", false
	}
	return n.Value, true
}

// opName reads the name of an operation: its operationId or "METHOD /path", never empty.
func (p *annotParser) opName(n *yaml.Node) (string, bool) {
	s, ok := p.str(n)
	if ok && strings.TrimSpace(s) == "" {
		p.errorf(n, "empty operation name (name it by operationId or as \"POST /path\")")
		return "", false
	}
	return s, ok
}

func (p *annotParser) integer(n *yaml.Node) (int, bool) {
	if n.Kind == yaml.ScalarNode && !hasTODO(n.Value) {
		if v, err := strconv.Atoi(n.Value); err == nil {
			return v, true
		}
	}
	p.typeError(n, "an integer")
	return 0, false
}

func (p *annotParser) boolean(n *yaml.Node) (bool, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		v, err := strconv.ParseBool(strings.ToLower(n.Value))
		return v, err == nil
	}
	p.typeError(n, "true or false")
	return false, false
}

// oneOf reads a string that must be one of allowed.
func (p *annotParser) oneOf(n *yaml.Node, allowed ...string) (string, bool) {
	s, ok := p.str(n)
	if !ok {
		return "", false
	}
	if !slices.Contains(allowed, s) {
		p.errorf(n, "%q is not one of: %s", s, strings.Join(allowed, ", "))
		return "", false
	}
	return s, true
}

// duration reads a Go duration ("24h", "90m") or a number of days ("30d"), greater than zero.
func (p *annotParser) duration(n *yaml.Node) (time.Duration, bool) {
	s, ok := p.str(n)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	if days, cut := strings.CutSuffix(s, "d"); cut {
		var v int
		if v, err = strconv.Atoi(days); err == nil {
			d = time.Duration(v) * 24 * time.Hour
		}
	}
	if err != nil || d <= 0 {
		p.errorf(n, "%q is not a positive duration (like 24h, 90m or 30d)", s)
		return 0, false
	}
	return d, true
}

func (p *annotParser) list(n *yaml.Node) []*yaml.Node {
	if n.Kind != yaml.SequenceNode {
		p.typeError(n, "a list")
		return nil
	}
	return n.Content
}

// pointer reads a JSON pointer ("/id", "/data/0/id").
func (p *annotParser) pointer(n *yaml.Node) (string, bool) {
	s, ok := p.str(n)
	if ok && !strings.HasPrefix(s, "/") {
		p.errorf(n, "%q is not a JSON pointer (want one starting with /, like /id)", s)
		return "", false
	}
	return s, ok
}

func (p *annotParser) include(n *yaml.Node) *include {
	m := p.mapping(n, "operations", "tags")
	if m == nil {
		return nil
	}
	in := &include{node: n}
	if kv, ok := m["operations"]; ok {
		for _, item := range p.list(kv[1]) {
			if _, ok := p.opName(item); ok {
				in.operations = append(in.operations, item)
			}
		}
	}
	if kv, ok := m["tags"]; ok {
		for _, item := range p.list(kv[1]) {
			if _, ok := p.str(item); ok {
				in.tags = append(in.tags, item)
			}
		}
	}
	return in
}

// answers reads an operation entry or the defaults block.
func (p *annotParser) answers(k, n *yaml.Node, id string) *answers {
	a := &answers{id: id, at: k, set: make(map[string]*yaml.Node), none: make(map[string]bool)}
	m := p.mapping(n, answerKeys...)
	for name, kv := range m {
		a.set[name] = kv[0]
	}
	for _, name := range answerKeys { // in a fixed order, so errors come out the same every time
		kv, ok := m[name]
		if !ok {
			continue
		}
		v := kv[1]
		if isNone(v) && noneable[name] {
			a.none[name] = true
			continue
		}
		switch name {
		case "effect":
			s, _ := p.oneOf(v, "read_only", "idempotent", "reversible", "compensatable", "ambiguous")
			a.effect = Effect(s)
		case "key":
			a.key = p.key(v)
		case "idempotency":
			a.idempotency = p.idempotency(v, a)
		case "reference":
			a.reference = p.reference(v, a)
		case "response":
			p.response(v, a)
		case "lookup":
			a.lookup = p.lookup(v)
		case "retry":
			p.retry(v, a)
		case "compensate":
			a.compensate, _ = p.opName(v)
			a.compensateNode = v
		case "dedupe":
			a.dedupe, _ = p.oneOf(v, "ledger")
		case "uncertain":
			a.uncertain, _ = p.oneOf(v, "reconcile")
		case "owner":
			a.owner, _ = p.str(v)
		case "credentials":
			if m := p.mapping(v, "rotation_invalidates"); m != nil {
				a.credentials = &Credentials{}
				if kv, ok := m["rotation_invalidates"]; ok {
					a.credentials.RotationInvalidates, _ = p.boolean(kv[1])
				}
			}
		case "inbox":
			a.inbox = p.inbox(v)
		}
	}
	return a
}

// key reads a business key: its typed fields and the format that joins them.
func (p *annotParser) key(n *yaml.Node) *Key {
	m := p.mapping(n, "fields", "format")
	if m == nil {
		return nil
	}
	k := &Key{}
	kv, ok := m["fields"]
	if !ok {
		p.errorf(n, "key needs fields (name: string or int64)")
		return nil
	}
	fields := p.pairs(kv[1])
	for _, f := range fields {
		name, ok := p.str(f[0])
		if !ok {
			continue
		}
		if !isKeyFieldName(name) {
			p.errorf(f[0], "key field name %q must be letters, digits and underscores", name)
			continue
		}
		typ, _ := p.oneOf(f[1], "string", "int64")
		k.Fields = append(k.Fields, KeyField{Name: name, Type: typ})
	}
	if len(fields) == 0 && kv[1].Kind == yaml.MappingNode {
		p.errorf(kv[1], "key needs at least one field")
	}
	claims := make([]*nameClaim, 0, len(k.Fields))
	for i := range k.Fields {
		claims = append(claims, &nameClaim{Want: goName(k.Fields[i].Name), Literal: goLiteral(k.Fields[i].Name), Key: k.Fields[i].Name, Got: &k.Fields[i].GoName})
	}
	settleNames(claims)
	fk, ok := m["format"]
	if !ok {
		p.errorf(n, "key needs a format, like %q", "{"+firstField(k)+"}")
		return nil
	}
	if k.Format, ok = p.str(fk[1]); !ok {
		return nil
	}
	if !p.keyParts(fk[1], k) {
		return nil
	}
	return k
}

func firstField(k *Key) string {
	if len(k.Fields) == 0 {
		return "id"
	}
	return k.Fields[0].Name
}

func isKeyFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// keyParts splits the key format into literals and placeholders, and checks that placeholders and
// fields match both ways.
func (p *annotParser) keyParts(n *yaml.Node, k *Key) bool {
	ok := true
	used := make(map[string]bool)
	rest := k.Format
	for rest != "" {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			k.Parts = append(k.Parts, KeyPart{Literal: rest})
			break
		}
		if rest[open] == '}' {
			p.errorf(n, "key format %q has a } without {", k.Format)
			return false
		}
		if open > 0 {
			k.Parts = append(k.Parts, KeyPart{Literal: rest[:open]})
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			p.errorf(n, "key format %q has a { without }", k.Format)
			return false
		}
		name := rest[open+1 : open+end]
		rest = rest[open+end+1:]
		i := slices.IndexFunc(k.Fields, func(f KeyField) bool { return f.Name == name })
		if i < 0 {
			p.errorf(n, "key format placeholder {%s} is not a key field", name)
			ok = false
			continue
		}
		used[name] = true
		k.Parts = append(k.Parts, KeyPart{Field: &k.Fields[i]})
	}
	for _, f := range k.Fields {
		if !used[f.Name] {
			p.errorf(n, "key field %q is not in the format %q", f.Name, k.Format)
			ok = false
		}
	}
	return ok
}

func (p *annotParser) idempotency(n *yaml.Node, a *answers) *Idempotency {
	m := p.mapping(n, "header", "query", "body", "max_length", "window")
	if m == nil {
		return nil
	}
	idem := &Idempotency{}
	places := 0
	if kv, ok := m["header"]; ok {
		places++
		if idem.Header, ok = p.str(kv[1]); ok && !validHeader(idem.Header) {
			p.errorf(kv[1], "%q is not a valid header name", idem.Header)
		}
	}
	if kv, ok := m["query"]; ok {
		places++
		idem.Query, _ = p.str(kv[1])
	}
	if kv, ok := m["body"]; ok {
		places++
		idem.Body, _ = p.pointer(kv[1])
		a.idemBodyNode = kv[1]
	}
	if places != 1 {
		p.errorf(n, "idempotency needs exactly one of header, query or body")
	}
	if kv, ok := m["max_length"]; ok {
		if v, ok := p.integer(kv[1]); ok {
			if v < 1 {
				p.errorf(kv[1], "max_length must be at least 1")
			}
			idem.MaxLength = v
		}
	}
	if kv, ok := m["window"]; ok {
		idem.Window, _ = p.duration(kv[1])
	}
	return idem
}

func validHeader(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) {
			return false
		}
	}
	return true
}

func (p *annotParser) reference(n *yaml.Node, a *answers) *Reference {
	m := p.mapping(n, "body", "query")
	if m == nil {
		return nil
	}
	ref := &Reference{}
	if kv, ok := m["body"]; ok {
		ref.Body, _ = p.pointer(kv[1])
		a.refBodyNode = kv[1]
	}
	if kv, ok := m["query"]; ok {
		ref.Query, _ = p.str(kv[1])
	}
	if len(m) != 1 {
		p.errorf(n, "reference needs exactly one of body or query")
	}
	return ref
}

func (p *annotParser) response(n *yaml.Node, a *answers) {
	m := p.mapping(n, "is", "id")
	if m == nil {
		return
	}
	kv, ok := m["is"]
	if !ok {
		p.errorf(n, "response needs is: receipt or acknowledgement")
		return
	}
	a.respIs, _ = p.oneOf(kv[1], "receipt", "acknowledgement")
	if id, ok := m["id"]; ok {
		a.respID, _ = p.pointer(id[1])
		a.respIDNode = id[1]
		if a.respIs == "acknowledgement" {
			p.errorf(id[0], "an acknowledgement has no id: only a receipt names a durable id")
		}
	} else if a.respIs == "receipt" {
		p.errorf(n, "a receipt needs id: the JSON pointer of the durable id in the 2xx body (like /id)")
	}
}

func (p *annotParser) lookup(n *yaml.Node) *lookupAnswer {
	m := p.mapping(n, "func", "operation", "params", "found", "consistency")
	if m == nil {
		return nil
	}
	l := &lookupAnswer{}
	fn, hasFn := m["func"]
	op, hasOp := m["operation"]
	switch {
	case hasFn == hasOp:
		p.errorf(n, "lookup needs exactly one of func or operation")
	case hasFn:
		if name, ok := p.str(fn[1]); ok {
			if !token.IsIdentifier(name) || token.IsKeyword(name) || name == "_" {
				p.errorf(fn[1], "lookup func %q is not a Go identifier", name)
			}
			l.fn = name
		}
		for _, k := range []string{"params", "found"} {
			if kv, ok := m[k]; ok {
				p.errorf(kv[0], "%s is only for a lookup operation", k)
			}
		}
	default:
		l.op, _ = p.opName(op[1])
		l.opNode = op[1]
	}
	if kv, ok := m["params"]; ok {
		for _, e := range p.pairs(kv[1]) {
			name, ok1 := p.str(e[0])
			tmpl, ok2 := p.str(e[1])
			if ok1 && ok2 {
				l.params = append(l.params, LookupParam{Name: name, Template: tmpl})
				l.paramNodes = append(l.paramNodes, e[0])
			}
		}
	}
	if kv, ok := m["found"]; ok {
		if kv[1].Kind == yaml.ScalarNode && kv[1].Value == "" {
			l.found = ""
		} else {
			l.found, _ = p.pointer(kv[1])
		}
		l.foundNode = kv[1]
	}
	if kv, ok := m["consistency"]; ok {
		s, _ := p.oneOf(kv[1], string(Strong), string(Eventual))
		l.consistency = Consistency(s)
	} else {
		p.errorf(n, "lookup needs consistency: strong or eventual")
	}
	return l
}

func (p *annotParser) retry(n *yaml.Node, a *answers) {
	m := p.mapping(n, "on", "attempts")
	if m == nil {
		return
	}
	seen := make(map[string]bool)
	if kv, ok := m["on"]; ok {
		for _, item := range p.list(kv[1]) {
			name, ok := p.oneOf(item, retryNames...)
			if !ok {
				continue
			}
			if seen[name] {
				p.errorf(item, "%s is listed twice", name)
				continue
			}
			seen[name] = true
			a.retry = append(a.retry, retryName{name, item})
		}
	}
	a.attempts = 1
	if len(a.retry) > 0 {
		a.attempts = 3
	}
	if kv, ok := m["attempts"]; ok {
		if v, ok := p.integer(kv[1]); ok {
			switch {
			case v < 1:
				p.errorf(kv[1], "attempts must be at least 1")
			case v > 1 && len(seen) == 0:
				p.errorf(kv[1], "attempts is %d but retry names nothing to retry on", v)
			}
			a.attempts = v
		}
	}
}

func (p *annotParser) inbox(n *yaml.Node) *Inbox {
	m := p.mapping(n, "source", "retention", "order")
	if m == nil {
		return nil
	}
	in := &Inbox{Order: "any"}
	if kv, ok := m["source"]; ok {
		in.Source, _ = p.str(kv[1])
	} else {
		p.errorf(n, "inbox needs a source")
	}
	if kv, ok := m["retention"]; ok {
		in.Retention, _ = p.duration(kv[1])
	} else {
		p.errorf(n, "inbox needs a retention (at least the provider's retry period)")
	}
	if kv, ok := m["order"]; ok {
		in.Order, _ = p.oneOf(kv[1], "any", "ordered")
	}
	return in
}
