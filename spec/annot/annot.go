package annot

import (
	"fmt"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/load"
	"github.com/writegen/writegen/spec/naming"
)

// File is the annotation file as written, each answer with the node it came from.
type File struct {
	File      string
	Pkg       string
	PkgNode   *yaml.Node
	Scope     string
	ScopeNode *yaml.Node
	Tenancy   tenancyAnswer
	Include   *include
	Defaults  *Answers
	Entries   []*Answers // operations, in file order
	Excludes  []*Exclusion
	Names     []*NameOverride
}

type include struct {
	node       *yaml.Node
	Operations []*yaml.Node // scalar nodes: operationId or "METHOD /path"
	Tags       []*yaml.Node
}

type Exclusion struct {
	ID     string
	Node   *yaml.Node // the key
	Reason string
}

type NameOverride struct {
	Ptr  string
	Name string
	Node *yaml.Node // the key
}

// Answers is one operation entry, or the defaults block. Set records the keys written, with the
// node of each key: an answer the entry leaves out may come from the defaults.
type Answers struct {
	ID  string     // operation named; "" for defaults
	At  *yaml.Node // the key naming the operation, or the "defaults" key
	Set map[string]*yaml.Node
	// None holds the answers written as none (key, idempotency, reference): explicitly absent,
	// overriding the defaults.
	None map[string]bool
	// Todos are the placeholders a scaffold left in the entry: they block only a write in scope.
	Todos ir.ErrorList
	// Bad holds the answers refused where they are written (or left as placeholders): the
	// checks that depend on them are not made, so that one defect gives one message.
	Bad map[string]bool

	Effect       runtime.Effect
	Destructive  bool
	Key          *ir.Key
	keyScopeNode *yaml.Node
	Idempotency  *ir.Idempotency
	IdemBody     string
	IdemBodyNode *yaml.Node
	Reference    *ReferenceAnswer
	RespIs       string
	RespID       string
	RespIDNode   *yaml.Node
	Envelope     *EnvelopeAnswer
	Lookup       *LookupAnswer
	Retry        []ir.RetryMember
	Attempts     int
	Compensate   *CompensateAnswer
	Dedupe       bool
	Retention    time.Duration // 0: forever
	Uncertain    ir.Uncertain
	Owner        string
	Credentials  *ir.Credentials
	Inbox        *ir.Inbox
	Acknowledge  *ir.Acknowledge
}

type ReferenceAnswer struct {
	Node       *yaml.Node
	Body       string
	BodyNode   *yaml.Node
	Query      string
	Value      string
	ValueNode  *yaml.Node
	Marker     string
	MarkerNode *yaml.Node
	// Through names the oneOf/anyOf variant of the request body the pointer body goes through.
	Through     string
	ThroughNode *yaml.Node
}

// EnvelopeAnswer is where a receipt sits in the write's 2xx body: the object (a pointer to it,
// response.object), and the provider's own success flag (response.ok) with its error text.
type EnvelopeAnswer struct {
	Object, OK, ErrText             string
	ObjectNode, OKNode, ErrTextNode *yaml.Node
}

type LookupAnswer struct {
	Node        *yaml.Node
	Fn          string
	fnNode      *yaml.Node
	Op          string
	OpNode      *yaml.Node
	Params      []TemplateAnswer
	Body        *yaml.Node // the JSON body template, as written
	Found       string
	FoundNode   *yaml.Node
	Consistency runtime.Consistency
	Source      string // where a person checked what the consistency claims: a URL or a reason
	SourceNode  *yaml.Node
	Match       string // a pointer into the found element
	MatchNode   *yaml.Node
	Pages       *PagesAnswer
	Since       string // a pointer into the found element
	SinceNode   *yaml.Node
	Escape      ir.Escape // the query language of the substitutions; "" for plain ones
	EscapeNode  *yaml.Node
	Lag         time.Duration // consistency: {eventual: 30s} or {strong: 5s}
	lagNode     *yaml.Node
	Adopt       string // "fields": the receipt is built from the found element's fields
	AdoptNode   *yaml.Node
	AdoptRead   *CompensateAnswer // adopt: {operation, params}: the receipt is read by the found element's id
	NewestFirst []TemplateAnswer  // the read's params that ask for the list newest first
	NewestNode  *yaml.Node
}

// PagesAnswer is the bound of a list walk: at most max pages, the next one asked for by passing
// the response's cursor as the read's parameter param.
type PagesAnswer struct {
	Node       *yaml.Node
	Max        int
	maxNode    *yaml.Node
	Cursor     string
	CursorNode *yaml.Node
	Param      string
	ParamNode  *yaml.Node
	Start      int // the first page's number, without a cursor
	startNode  *yaml.Node
}

// TemplateAnswer is one parameter given as a template.
type TemplateAnswer struct {
	Name      string
	Text      string
	NameNode  *yaml.Node
	ValueNode *yaml.Node
}

type CompensateAnswer struct {
	Node   *yaml.Node
	Op     string
	OpNode *yaml.Node
	Params []TemplateAnswer
}

// answerKeys are the keys an operation entry (or the defaults block) may hold.
var answerKeys = []string{"effect", "destructive", "key", "idempotency", "reference", "response", "lookup", "retry",
	"compensate", "dedupe", "retention", "uncertain", "owner", "credentials", "inbox", "acknowledge"}

// RetryNames are the failure kinds a retry set may name, in the runtime's order: the runtime's
// names of its kinds (writegenimpl.RetryKinds), the one list of them.
var RetryNames = func() []string {
	var names []string
	for _, k := range writegenimpl.RetryKinds() {
		names = append(names, k.String())
	}
	return names
}()

// ackKinds are the answers an acknowledgement may give up, by their old value.
var ackKinds = []string{"scope", "key_scope", "key_format", "max_length", "retry", "lookup", "lag", "reference", "dedupe", "retention"}

// annotParser decodes the annotation file strictly, collecting every defect.
type annotParser struct {
	file  string
	op    string                // operation the entry being read belongs to
	keyOf map[*yaml.Node]string // the key each mapping value is under, for messages
	errs  ir.ErrorList
	data  []byte // the file, for hints about YAML's own syntax
	// misspelt holds, by mapping, the known keys its unknown keys look like, with the node of
	// the unknown key: a misspelt answer is reported once, not again as missing.
	misspelt map[*yaml.Node]map[string]*yaml.Node
}

// absent reports whether the mapping n, read into m, lacks the key name and has no key that
// looks like a misspelling of it.
func (p *annotParser) absent(n *yaml.Node, m map[string][2]*yaml.Node, name string) bool {
	_, ok := m[name]
	return !ok && p.misspelt[n][name] == nil
}

func (p *annotParser) pos(n *yaml.Node) ir.Pos {
	if n == nil {
		return ir.Pos{File: p.file}
	}
	return ir.Pos{File: p.file, Line: n.Line, Col: n.Column}
}

func (p *annotParser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, &ir.Error{Pos: p.pos(n), Operation: p.op, Msg: fmt.Sprintf(format, args...)})
}

// Parse reads the annotation file. It returns what it could read and every defect.
func Parse(file string, data []byte) (*File, ir.ErrorList) {
	p := &annotParser{file: file, keyOf: make(map[*yaml.Node]string), data: data}
	a := &File{File: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		d := &load.Document{File: file}
		return nil, d.TreeError(err, data)
	}
	if len(doc.Content) == 0 {
		p.errs = append(p.errs, &ir.Error{Pos: ir.Pos{File: file, Line: 1, Col: 1}, Msg: "empty annotation file: want version: 1"})
		return nil, p.errs
	}
	root := doc.Content[0]
	p.todos(root)
	top := p.mapping(root, "version", "package", "scope", "tenancy", "include", "defaults", "operations", "exclude", "names")
	if top == nil {
		return nil, p.errs
	}
	if kv, ok := top["version"]; !ok {
		p.errorf(root, "version is required (version: 1)")
	} else if v, ok := p.integer(kv[1]); ok && v != 1 {
		p.errorf(kv[1], "unsupported version %d (want 1)", v)
	}
	if kv, ok := top["package"]; ok {
		a.Pkg, _ = p.str(kv[1])
		a.PkgNode = kv[1]
	}
	if kv, ok := top["scope"]; ok {
		a.ScopeNode = kv[1]
		if s, ok := p.str(kv[1]); ok {
			if msg := scopeDefect(s); msg != "" {
				p.errorf(kv[1], "scope %q %s", s, msg)
			}
			a.Scope = s
		}
	} else {
		p.errorf(root, "scope is required: the provider's stable name in ledger rows and provider keys, like scope: %s", suggestScope(a.Pkg))
	}
	if kv, ok := top["tenancy"]; ok {
		a.Tenancy = p.tenancy(kv[1])
	}
	if kv, ok := top["include"]; ok {
		a.Include = p.include(kv[1])
	}
	if kv, ok := top["defaults"]; ok {
		a.Defaults = p.answers(kv[0], kv[1], "")
		for _, k := range []string{"lookup", "compensate"} {
			if n := a.Defaults.Set[k]; n != nil {
				p.errorf(n, "%s names one operation's own %s and cannot be a default", k, k)
				delete(a.Defaults.Set, k)
			}
		}
		if a.Defaults.keyScopeNode != nil {
			p.errorf(a.Defaults.keyScopeNode, "key.scope names one write's own scope and cannot be a default: write it in each entry")
		}
	}
	if kv, ok := top["operations"]; ok {
		for _, e := range p.pairs(kv[1]) {
			id, _ := p.opName(e[0])
			p.op = id
			entry := p.answers(e[0], e[1], id)
			entry.Todos = p.entryTodos(e[0], e[1])
			a.Entries = append(a.Entries, entry)
			p.op = ""
		}
	}
	if kv, ok := top["exclude"]; ok {
		for _, e := range p.pairs(kv[1]) {
			x := &Exclusion{Node: e[0]}
			x.ID, _ = p.opName(e[0])
			p.op = x.ID
			if r, ok := p.str(e[1]); ok {
				x.Reason = strings.TrimSpace(r)
				if x.Reason == "" {
					p.errorf(e[1], "an exclusion needs a reason")
				}
			}
			p.op = ""
			a.Excludes = append(a.Excludes, x)
		}
	}
	if kv, ok := top["names"]; ok {
		for _, e := range p.pairs(kv[1]) {
			o := &NameOverride{Node: e[0]}
			o.Ptr, _ = p.str(e[0])
			if name, ok := p.str(e[1]); ok {
				if !token.IsExported(name) || !token.IsIdentifier(name) {
					p.errorf(e[1], "name %q is not an exported Go identifier", name)
				}
				o.Name = name
			}
			if !strings.HasPrefix(o.Ptr, "#/") && (o.Ptr == "" || o.Ptr[0] == '#' || strings.Contains(o.Ptr, "://")) {
				p.errorf(e[0], "names: %q is not a reference (want \"#/components/schemas/...\", or \"schemas/Ticket.yaml\" for a schema of another file)", o.Ptr)
				continue // refused here, not again as naming nothing
			}
			a.Names = append(a.Names, o)
		}
	}
	return a, p.errs
}

// scopeDefect says what is wrong with a provider or key scope, or "".
func scopeDefect(s string) string {
	if s == "" {
		return "is empty: want lower-case letters, digits, '.', '_' and '-', starting with a letter or digit"
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
		case i > 0 && (r == '.' || r == '_' || r == '-'):
		default:
			return "may hold only lower-case letters, digits, '.', '_' and '-', starting with a letter or digit"
		}
	}
	return ""
}

// NormalScope turns a name into a scope: lower-cased, each run of characters a scope cannot hold
// replaced by '-', without the leading characters a scope cannot start with or a trailing '-':
// "createThread" -> "createthread", "POST /threads/{id}" -> "post-threads-id".
func NormalScope(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			if b.Len() == 0 && (r == '.' || r == '_' || r == '-') {
				continue
			}
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return strings.TrimRight(b.String(), "-")
}

// suggestScope is a scope for a message: the package's name normalised, or an example.
func suggestScope(pkg string) string {
	if s := NormalScope(pkg); s != "" {
		return s
	}
	return "support-desk"
}

// todos reports every scalar still reading TODO outside the operation entries: a scaffold's
// placeholder nobody answered. Under exclude, the error names the operation. The placeholders of
// an operation entry are kept with the entry (entryTodos): they block only a write in scope.
func (p *annotParser) todos(root *yaml.Node) {
	if root.Kind != yaml.MappingNode {
		p.walkTodos(root, &p.errs)
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		p.walkTodos(k, &p.errs)
		switch {
		case k.Value == "operations" && v.Kind == yaml.MappingNode:
			// per entry, later
		case k.Value == "exclude" && v.Kind == yaml.MappingNode:
			for j := 0; j+1 < len(v.Content); j += 2 {
				p.op = v.Content[j].Value
				p.walkTodos(v.Content[j], &p.errs)
				p.walkTodos(v.Content[j+1], &p.errs)
			}
			p.op = ""
		default:
			p.walkTodos(v, &p.errs)
		}
	}
}

// entryTodos returns the placeholders of one operation entry.
func (p *annotParser) entryTodos(k, v *yaml.Node) ir.ErrorList {
	var out ir.ErrorList
	p.walkTodos(k, &out)
	p.walkTodos(v, &out)
	return out
}

func (p *annotParser) walkTodos(n *yaml.Node, out *ir.ErrorList) {
	if n.Kind == yaml.ScalarNode && hasTODO(n.Value) {
		*out = append(*out, &ir.Error{Pos: p.pos(n), Operation: p.op, Msg: fmt.Sprintf("%q is a placeholder left by writegen init: answer it", n.Value)})
	}
	for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
		if q := confirmQuestion(c); q != "" {
			*out = append(*out, &ir.Error{Pos: p.pos(n), Operation: p.op, Msg: fmt.Sprintf("%q is a question writegen init left: check it (and the answer it is written on), then remove the TODO", q)})
		}
	}
	for _, c := range n.Content {
		p.walkTodos(c, out)
	}
}

// confirmQuestion returns the "TODO: confirm ..." that a comment holds, cut to a line, or "":
// writegen init proposes an answer (a lookup, a reference, a receipt's id) with a question that
// only a person who read the provider's docs can answer, and the answer stands only once asked.
func confirmQuestion(comment string) string {
	i := strings.Index(comment, "TODO: confirm")
	if i < 0 {
		return ""
	}
	q, _, _ := strings.Cut(comment[i:], "\n")
	if r := []rune(q); len(r) > 90 {
		q = string(r[:90]) + "..."
	}
	return q
}

// hasTODO reports whether a scalar, or any scalar below a node, is a placeholder.
func hasTODO(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, "TODO")
	case *yaml.Node:
		if v.Kind == yaml.ScalarNode {
			return strings.Contains(v.Value, "TODO")
		}
		return slices.ContainsFunc(v.Content, func(c *yaml.Node) bool { return hasTODO(c) })
	}
	return false
}

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
			if like := Closest(kv[0].Value, known); like != "" {
				p.errorf(kv[0], "unknown field %q (did you mean %q?)", kv[0].Value, like)
				if p.misspelt == nil {
					p.misspelt = map[*yaml.Node]map[string]*yaml.Node{}
				}
				if p.misspelt[n] == nil {
					p.misspelt[n] = map[string]*yaml.Node{}
				}
				p.misspelt[n][like] = kv[0]
				continue
			}
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
	hint := ""
	if want == "a string" {
		if h := load.ValueHint(n, p.data); h != "" {
			hint = "; " + h
		}
	}
	if key := p.keyOf[n]; key != "" {
		p.errorf(n, "%s: want %s, found %s%s", key, want, kindName(n), hint)
		return
	}
	p.errorf(n, "want %s, found %s%s", want, kindName(n), hint)
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
		p.errorf(n, "%q is not one of: %s%s", s, strings.Join(allowed, ", "), Suggest(s, allowed))
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
	d, ok := ParseDuration(s)
	if !ok {
		p.errorf(n, "%q is not a positive duration (like 24h, 90m or 30d)", s)
	}
	return d, ok
}

// ParseDuration parses a Go duration ("24h", "90m") or a number of days ("30d"); ok is false
// unless it is one, greater than zero.
func ParseDuration(s string) (d time.Duration, ok bool) {
	d, err := time.ParseDuration(s)
	if days, cut := strings.CutSuffix(s, "d"); cut {
		var v int
		if v, err = strconv.Atoi(days); err == nil {
			d = time.Duration(v) * 24 * time.Hour
		}
	}
	return d, err == nil && d > 0
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
				in.Operations = append(in.Operations, item)
			}
		}
	}
	if kv, ok := m["tags"]; ok {
		for _, item := range p.list(kv[1]) {
			if _, ok := p.str(item); ok {
				in.Tags = append(in.Tags, item)
			}
		}
	}
	return in
}

// answers reads an operation entry or the defaults block.
func (p *annotParser) answers(k, n *yaml.Node, id string) *Answers {
	a := &Answers{ID: id, At: k, Set: make(map[string]*yaml.Node), None: make(map[string]bool), Bad: make(map[string]bool)}
	m := p.mapping(n, answerKeys...)
	for name, kv := range m {
		a.Set[name] = kv[0]
	}
	// A misspelt answer is reported once, as misspelt: not again as missing.
	for name, key := range p.misspelt[n] {
		if _, ok := m[name]; !ok {
			a.Set[name], a.Bad[name] = key, true
		}
	}
	for _, name := range answerKeys { // in a fixed order, so errors come out the same every time
		kv, ok := m[name]
		if !ok {
			continue
		}
		v := kv[1]
		if isNone(v) && noneable[name] {
			a.None[name] = true
			continue
		}
		before := len(p.errs)
		p.answer(a, name, v)
		if len(p.errs) > before || hasTODO(v) {
			a.Bad[name] = true
		}
	}
	return a
}

// answer reads the answer name of an entry, written as v.
func (p *annotParser) answer(a *Answers, name string, v *yaml.Node) {
	switch name {
	case "effect":
		p.effect(v, a)
	case "destructive":
		a.Destructive, _ = p.boolean(v)
	case "key":
		a.Key = p.key(v, a)
	case "idempotency":
		a.Idempotency = p.idempotency(v, a)
	case "reference":
		a.Reference = p.reference(v)
	case "response":
		p.response(v, a)
	case "lookup":
		a.Lookup = p.lookup(v)
	case "retry":
		p.retry(v, a)
	case "compensate":
		a.Compensate = p.compensate(v)
	case "dedupe":
		s, _ := p.oneOf(v, "ledger", "none")
		a.Dedupe = s == "ledger"
	case "retention":
		a.Retention = p.retention(v)
	case "uncertain":
		s, _ := p.oneOf(v, string(ir.UncertainReconcile))
		a.Uncertain = ir.Uncertain(s)
	case "owner":
		a.Owner, _ = p.str(v)
	case "credentials":
		if m := p.mapping(v, "rotation_invalidates"); m != nil {
			a.Credentials = &ir.Credentials{}
			if kv, ok := m["rotation_invalidates"]; ok {
				a.Credentials.RotationInvalidates, _ = p.boolean(kv[1])
			}
		}
	case "inbox":
		a.Inbox = p.inbox(v)
	case "acknowledge":
		a.Acknowledge = p.acknowledge(v)
	}
}

// effectKinds are the runtime's effects an annotation names, by their String: read_only,
// idempotent, compensatable, ambiguous.
var effectKinds = []runtime.Effect{runtime.EffectReadOnly, runtime.EffectIdempotent, runtime.EffectCompensatable, runtime.EffectAmbiguous}

func (p *annotParser) effect(n *yaml.Node, a *Answers) {
	s, ok := p.str(n)
	if !ok {
		return
	}
	var names []string
	for _, e := range effectKinds {
		if e.String() == s {
			a.Effect = e
			return
		}
		names = append(names, e.String())
	}
	if s == "reversible" {
		p.errorf(n, "effect reversible is gone: a duplicate that can be undone is still a second effect; write ambiguous (and compensate: to undo the duplicates a lookup finds)")
		return
	}
	p.errorf(n, "%q is not one of: %s%s", s, strings.Join(names, ", "), Suggest(s, names))
}

// key reads a business key: its typed fields, the format that joins them and its scope.
func (p *annotParser) key(n *yaml.Node, a *Answers) *ir.Key {
	m := p.mapping(n, "scope", "fields", "format")
	if m == nil {
		return nil
	}
	k := &ir.Key{Pos: p.pos(n)}
	if kv, ok := m["scope"]; ok {
		a.keyScopeNode = kv[1]
		if s, ok := p.str(kv[1]); ok {
			if msg := scopeDefect(s); msg != "" {
				p.errorf(kv[1], "key scope %q %s", s, msg)
			}
			k.Scope, k.ScopePos = s, p.pos(kv[1])
		}
	}
	kv, ok := m["fields"]
	if !ok {
		if p.absent(n, m, "fields") {
			p.errorf(n, "key needs fields (name: string or int64)")
		}
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
		k.Fields = append(k.Fields, ir.KeyField{Name: name, Type: typ, Pos: p.pos(f[0])})
	}
	if len(fields) == 0 && kv[1].Kind == yaml.MappingNode {
		p.errorf(kv[1], "key needs at least one field")
	}
	// The key type has the method BusinessKey: a field takes another name.
	claims := []*naming.Claim{{Want: "BusinessKey", Key: "method BusinessKey", Fixed: true, Got: new(string)}}
	for i := range k.Fields {
		claims = append(claims, &naming.Claim{Want: naming.GoName(k.Fields[i].Name), Literal: naming.GoLiteral(k.Fields[i].Name), Alt: "Field", Key: k.Fields[i].Name, Got: &k.Fields[i].GoName})
	}
	naming.Settle(claims)
	fk, ok := m["format"]
	if !ok {
		if p.absent(n, m, "format") {
			p.errorf(n, "key needs a format, like %q", "{"+firstField(k)+"}")
		}
		return nil
	}
	if k.Format, ok = p.str(fk[1]); !ok {
		return nil
	}
	k.FormatPos = p.pos(fk[1])
	parts, err := KeyTemplate(k.Format, k.Fields)
	if err != "" {
		p.errorf(fk[1], "key format %s", err)
		return nil
	}
	k.Parts = parts
	used := make(map[string]bool)
	for _, part := range parts {
		if part.Field != nil {
			used[part.Field.Name] = true
		}
	}
	for _, f := range k.Fields {
		if !used[f.Name] {
			p.errorf(fk[1], "key field %q is not in the format %q", f.Name, k.Format)
			return nil
		}
	}
	return k
}

// KeyTemplate splits a template over the key's fields ("escalation:{escalation_id}") into
// literals and fields; err says what is wrong. The parts point into fields.
func KeyTemplate(format string, fields []ir.KeyField) (parts []ir.KeyPart, err string) {
	rest := format
	for rest != "" {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			parts = append(parts, ir.KeyPart{Literal: rest})
			break
		}
		if rest[open] == '}' {
			return nil, fmt.Sprintf("%q has a } without {", format)
		}
		if open > 0 {
			parts = append(parts, ir.KeyPart{Literal: rest[:open]})
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Sprintf("%q has a { without }", format)
		}
		name := rest[open+1 : open+end]
		rest = rest[open+end+1:]
		i := slices.IndexFunc(fields, func(f ir.KeyField) bool { return f.Name == name })
		if i < 0 {
			return nil, fmt.Sprintf("placeholder {%s} is not a key field", name)
		}
		parts = append(parts, ir.KeyPart{Field: &fields[i]})
	}
	return parts, ""
}

func firstField(k *ir.Key) string {
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

func (p *annotParser) idempotency(n *yaml.Node, a *Answers) *ir.Idempotency {
	m := p.mapping(n, "header", "query", "body", "max_length", "window")
	if m == nil {
		return nil
	}
	idem := &ir.Idempotency{Pos: p.pos(n)}
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
		a.IdemBody, _ = p.pointer(kv[1])
		a.IdemBodyNode = kv[1]
	}
	if places != 1 {
		p.errorf(n, "idempotency needs exactly one of header, query or body")
	}
	if kv, ok := m["max_length"]; ok {
		if v, ok := p.integer(kv[1]); ok {
			idem.MaxLength, idem.MaxLengthPos = v, p.pos(kv[1]) // held to the key's bounds by the idempotency rule
		}
	}
	if kv, ok := m["window"]; ok {
		idem.Window = p.window(kv[1])
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

func (p *annotParser) reference(n *yaml.Node) *ReferenceAnswer {
	m := p.mapping(n, "body", "query", "value", "marker", "through")
	if m == nil {
		return nil
	}
	ref := &ReferenceAnswer{Node: n}
	p.through(m, ref)
	if kv, ok := m["marker"]; ok {
		ref.Marker, _ = p.str(kv[1])
		ref.MarkerNode = kv[1]
		if _, ok := m["query"]; ok {
			p.errorf(kv[0], "a marker is appended to a text field of the body: give reference.body, not query")
		}
	}
	places := 0
	if kv, ok := m["body"]; ok {
		places++
		ref.Body, _ = p.pointer(kv[1])
		ref.BodyNode = kv[1]
	}
	if kv, ok := m["query"]; ok {
		places++
		ref.Query, _ = p.str(kv[1])
	}
	if kv, ok := m["value"]; ok {
		ref.Value, _ = p.str(kv[1])
		ref.ValueNode = kv[1]
	}
	if places != 1 {
		p.errorf(n, "reference needs exactly one of body or query")
	}
	return ref
}

func (p *annotParser) response(n *yaml.Node, a *Answers) {
	m := p.mapping(n, "is", "id", "object", "ok", "error")
	if m == nil {
		return
	}
	p.envelope(m, a)
	kv, ok := m["is"]
	if !ok {
		if p.absent(n, m, "is") {
			p.errorf(n, "response needs is: receipt or acknowledgement")
		}
		return
	}
	a.RespIs, _ = p.oneOf(kv[1], "receipt", "acknowledgement")
	if id, ok := m["id"]; ok {
		a.RespID, _ = p.pointer(id[1])
		a.RespIDNode = id[1]
		if a.RespIs == "acknowledgement" {
			p.errorf(id[0], "an acknowledgement has no id: only a receipt names a durable id")
		}
	} else if a.RespIs == "receipt" {
		p.errorf(n, "a receipt needs id: the JSON pointer of the durable id in the 2xx body (like /id)")
	}
}

// through reads reference.through: the name of the oneOf/anyOf variant of the request body that
// reference.body goes through.
func (p *annotParser) through(m map[string][2]*yaml.Node, ref *ReferenceAnswer) {
	kv, ok := m["through"]
	if !ok {
		return
	}
	ref.Through, _ = p.str(kv[1])
	ref.ThroughNode = kv[1]
	if _, ok := m["body"]; !ok {
		p.errorf(kv[0], "reference.through names the variant of the request body that reference.body goes through: give reference.body")
	}
}

// envelope reads where a receipt sits in the 2xx body: response.object, the pointer of the
// receipt's object (Zendesk's {ticket: {...}}), and response.ok with response.error, the
// provider's success flag and error text (Slack's {ok: false, error: "..."}).
func (p *annotParser) envelope(m map[string][2]*yaml.Node, a *Answers) {
	var e EnvelopeAnswer
	read := func(k string, v *string, at **yaml.Node) {
		if kv, ok := m[k]; ok {
			*v, _ = p.pointer(kv[1])
			*at = kv[1]
		}
	}
	read("object", &e.Object, &e.ObjectNode)
	read("ok", &e.OK, &e.OKNode)
	read("error", &e.ErrText, &e.ErrTextNode)
	if e.ObjectNode == nil && e.OKNode == nil && e.ErrTextNode == nil {
		return
	}
	if e.ErrTextNode != nil && e.OKNode == nil {
		p.errorf(e.ErrTextNode, "response.error names the provider's error text when response.ok is false: give response.ok too")
	}
	if kv, ok := m["is"]; ok && kv[1].Value == "acknowledgement" && e.ObjectNode != nil {
		p.errorf(e.ObjectNode, "an acknowledgement has no object: only a receipt names the object the write made")
	}
	a.Envelope = &e
}

func (p *annotParser) lookup(n *yaml.Node) *LookupAnswer {
	m := p.mapping(n, "func", "operation", "params", "body", "found", "match", "pages", "since", "newest_first", "consistency", "escape", "adopt")
	if m == nil {
		return nil
	}
	l := &LookupAnswer{Node: n}
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
			l.Fn, l.fnNode = name, fn[1]
		}
		for _, k := range []string{"params", "body", "found", "match", "pages", "since", "newest_first", "escape", "adopt"} {
			if kv, ok := m[k]; ok {
				p.errorf(kv[0], "%s is only for a lookup operation", k)
			}
		}
	default:
		l.Op, _ = p.opName(op[1])
		l.OpNode = op[1]
	}
	if kv, ok := m["params"]; ok {
		l.Params = p.templates(kv[1])
	}
	if kv, ok := m["body"]; ok {
		l.Body = kv[1]
	}
	if kv, ok := m["found"]; ok {
		if kv[1].Kind == yaml.ScalarNode && kv[1].Value == "" {
			l.Found = ""
		} else {
			l.Found, _ = p.pointer(kv[1])
		}
		l.FoundNode = kv[1]
	}
	if kv, ok := m["match"]; ok {
		l.Match, _ = p.pointer(kv[1])
		l.MatchNode = kv[1]
	}
	if kv, ok := m["since"]; ok {
		l.Since, _ = p.pointer(kv[1])
		l.SinceNode = kv[1]
	}
	if kv, ok := m["pages"]; ok {
		l.Pages = p.pages(kv[1])
	}
	if kv, ok := m["escape"]; ok {
		l.Escape, l.EscapeNode = p.escape(kv[1]), kv[1]
	}
	if kv, ok := m["newest_first"]; ok {
		l.NewestFirst, l.NewestNode = p.templates(kv[1]), kv[1]
		if len(l.NewestFirst) == 0 && kv[1].Kind == yaml.MappingNode {
			p.errorf(kv[1], "newest_first names the read's params that ask for the list newest first, like {sort: created, direction: desc}: it is empty")
		}
	}
	if kv, ok := m["adopt"]; ok {
		l.AdoptNode = kv[1]
		if kv[1].Kind == yaml.MappingNode {
			l.AdoptRead = p.adoptRead(kv[1])
		} else {
			l.Adopt, _ = p.oneOf(kv[1], "fields")
		}
	}
	if kv, ok := m["consistency"]; ok {
		l.Consistency, l.Lag, l.Source, l.SourceNode = p.consistency(kv[1])
		if l.Lag > 0 {
			l.lagNode = kv[1]
		}
	} else if p.absent(n, m, "consistency") {
		p.errorf(n, "lookup needs consistency: eventual, or {eventual: LAG, source: ...} or {strong: SETTLE, source: ...} with where a person checked the provider's word")
	}
	return l
}

// escape reads the query language a lookup's substitutions are escaped for.
func (p *annotParser) escape(n *yaml.Node) ir.Escape {
	names := make([]string, len(ir.Escapes))
	for i, e := range ir.Escapes {
		names[i] = string(e)
	}
	s, _ := p.oneOf(n, names...)
	return ir.Escape(s)
}

// consistency reads a lookup's consistency: eventual (not found proves nothing), or a claim about
// the provider that a person checked, with its source: {strong: 5s, source: URL} (strong, with
// the settle time after which "not found" proves a lost attempt did not commit) or
// {eventual: 30s, source: URL} (eventual, with the lag after which it does).
func (p *annotParser) consistency(n *yaml.Node) (c runtime.Consistency, lag time.Duration, source string, sourceNode *yaml.Node) {
	const form = "{strong: SETTLE, source: ...} or {eventual: LAG, source: ...}"
	strongName, eventualName := runtime.Strong.String(), runtime.Eventual.String()
	if n.Kind != yaml.MappingNode {
		s, ok := p.oneOf(n, strongName, eventualName)
		switch {
		case !ok:
			return runtime.NoLookup, 0, "", nil
		case s == strongName:
			p.errorf(n, "consistency strong says not found proves the write did not commit, a claim about the provider that a person must back: write {strong: SETTLE, source: ...}, with how long the provider may still commit a request whose connection was lost and where that is documented (a URL, or the reason you trust it), or eventual")
			return runtime.NoLookup, 0, "", nil
		}
		return runtime.Eventual, 0, "", nil
	}
	m := p.mapping(n, strongName, eventualName, "source")
	if m == nil {
		return runtime.NoLookup, 0, "", nil
	}
	strong, hasStrong := m[strongName]
	eventual, hasEventual := m[eventualName]
	kv := strong
	c = runtime.Strong
	switch {
	case hasStrong == hasEventual:
		p.errorf(n, "consistency as a mapping is %s: how long after a write's last attempt could run the lookup is sure to see it", form)
		return runtime.NoLookup, 0, "", nil
	case hasEventual:
		kv, c = eventual, runtime.Eventual
	}
	lag, ok := p.duration(kv[1])
	if !ok {
		return runtime.NoLookup, 0, "", nil
	}
	if lag <= 0 {
		p.errorf(kv[1], "consistency %s: %s must be longer than 0", c, kv[1].Value)
		return runtime.NoLookup, 0, "", nil
	}
	src, hasSource := m["source"]
	if !hasSource {
		if p.absent(n, m, "source") {
			p.errorf(n, "consistency {%s: %s} is a claim about the provider: add source: with where a person checked it (the provider's docs URL, or the reason it holds), which WRITE_SAFETY.md shows the reviewer", c, kv[1].Value)
		}
		return runtime.NoLookup, 0, "", nil
	}
	source, ok = p.str(src[1])
	if ok && strings.TrimSpace(source) == "" {
		p.errorf(src[1], "consistency source is empty: give the provider's docs URL, or the reason the %s holds", map[runtime.Consistency]string{runtime.Strong: "settle time", runtime.Eventual: "lag"}[c])
		return runtime.NoLookup, 0, "", nil
	}
	return c, lag, source, src[1]
}

// pages reads the bound of a list walk: {max: 5, cursor: /meta/after_cursor, param: "page[after]"}.
func (p *annotParser) pages(n *yaml.Node) *PagesAnswer {
	m := p.mapping(n, "max", "cursor", "param", "start")
	if m == nil {
		return nil
	}
	pa := &PagesAnswer{Node: n}
	if kv, ok := m["max"]; ok {
		if v, ok := p.integer(kv[1]); ok {
			if v < 1 {
				p.errorf(kv[1], "pages.max must be at least 1: the walk reads that many pages at most")
			}
			pa.Max, pa.maxNode = v, kv[1]
		}
	} else if p.absent(n, m, "max") {
		p.errorf(n, "pages needs max: how many pages the walk reads at most")
	}
	p.pageCursor(n, m, pa)
	if kv, ok := m["param"]; ok {
		pa.Param, _ = p.str(kv[1])
		pa.ParamNode = kv[1]
	} else if p.absent(n, m, "param") {
		p.errorf(n, "pages needs param: the read's parameter that takes the cursor (like \"page[after]\") or, without a cursor, the page number (like page)")
	}
	return pa
}

// pageCursor reads how a walk asks for the next page: by the response's cursor
// ({cursor: /meta/after_cursor, param: "page[after]"}), or, without a cursor, by page number
// ({param: page, start: 1}): the walk passes start, start+1, ... as param.
func (p *annotParser) pageCursor(n *yaml.Node, m map[string][2]*yaml.Node, pa *PagesAnswer) {
	kv, hasCursor := m["cursor"]
	if hasCursor {
		pa.Cursor, _ = p.pointer(kv[1])
		pa.CursorNode = kv[1]
	}
	pa.Start = 1
	if kv, ok := m["start"]; ok {
		pa.startNode = kv[1]
		if hasCursor {
			p.errorf(kv[0], "pages.start is the first page's number, for a walk by page number: a walk by cursor starts where the read starts (leave start out)")
		} else if v, ok := p.integer(kv[1]); ok {
			if v < 0 {
				p.errorf(kv[1], "pages.start must be 0 or more: the number of the list's first page")
			}
			pa.Start = v
		}
	}
}

// templates reads a mapping of parameter names to templates.
func (p *annotParser) templates(n *yaml.Node) []TemplateAnswer {
	var out []TemplateAnswer
	for _, e := range p.pairs(n) {
		name, ok1 := p.str(e[0])
		text, ok2 := p.str(e[1])
		if ok1 && ok2 {
			out = append(out, TemplateAnswer{Name: name, Text: text, NameNode: e[0], ValueNode: e[1]})
		}
	}
	return out
}

func (p *annotParser) retry(n *yaml.Node, a *Answers) {
	m := p.mapping(n, "on", "attempts")
	if m == nil {
		return
	}
	var set runtime.Retry
	if kv, ok := m["on"]; ok {
		for _, item := range p.list(kv[1]) {
			name, ok := p.oneOf(item, RetryNames...)
			if !ok {
				continue
			}
			kind, ok := writegenimpl.ParseRetry(name)
			if !ok {
				panic("spec: retry kind " + name + " has no runtime kind") // retryNames are the runtime's
			}
			if set.Has(kind) {
				p.errorf(item, "%s is listed twice", name)
				continue
			}
			set |= kind
			a.Retry = append(a.Retry, ir.RetryMember{Kind: kind, Name: name, Pos: p.pos(item)})
		}
	}
	a.Attempts = 1
	if len(a.Retry) > 0 {
		a.Attempts = 3
	}
	if kv, ok := m["attempts"]; ok {
		if v, ok := p.integer(kv[1]); ok {
			switch {
			case v < 1:
				p.errorf(kv[1], "attempts must be at least 1")
			case v > 1 && set == 0:
				p.errorf(kv[1], "attempts is %d but retry names nothing to retry on", v)
			case v == 1 && set != 0:
				p.errorf(kv[1], "attempts is 1, so nothing in retry.on is ever retried: raise attempts or leave retry out")
			}
			a.Attempts = v
		}
	}
}

// compensate reads a compensation: an operation's name, or {operation: name, params: {...}}.
// adoptRead reads lookup.adopt as a read of the object by the found element's id:
// {operation: getIssue, params: {issue_number: "{id}"}}.
func (p *annotParser) adoptRead(n *yaml.Node) *CompensateAnswer {
	m := p.mapping(n, "operation", "params")
	if m == nil {
		return nil
	}
	a := &CompensateAnswer{Node: n}
	if kv, ok := m["operation"]; ok {
		a.Op, _ = p.opName(kv[1])
		a.OpNode = kv[1]
	} else {
		p.errorf(n, "lookup adopt needs operation: the read that returns the write's object by the id of what the lookup found")
		return nil
	}
	if kv, ok := m["params"]; ok {
		a.Params = p.templates(kv[1])
	}
	return a
}

func (p *annotParser) compensate(n *yaml.Node) *CompensateAnswer {
	c := &CompensateAnswer{Node: n}
	if n.Kind == yaml.ScalarNode {
		c.Op, _ = p.opName(n)
		c.OpNode = n
		return c
	}
	m := p.mapping(n, "operation", "params")
	if m == nil {
		return nil
	}
	if kv, ok := m["operation"]; ok {
		c.Op, _ = p.opName(kv[1])
		c.OpNode = kv[1]
	} else {
		p.errorf(n, "compensate needs operation: the write that undoes a duplicate")
		return nil
	}
	if kv, ok := m["params"]; ok {
		c.Params = p.templates(kv[1])
	}
	return c
}

func (p *annotParser) inbox(n *yaml.Node) *ir.Inbox {
	m := p.mapping(n, "source", "retention", "order")
	if m == nil {
		return nil
	}
	in := &ir.Inbox{Order: ir.OrderAny, Pos: p.pos(n)}
	if kv, ok := m["source"]; ok {
		in.Source, _ = p.str(kv[1])
		if in.Source != "" && naming.GoName(in.Source) == "X" {
			p.errorf(kv[1], "inbox source %q needs a letter or a digit: it names the inbox's constructor", in.Source)
		}
	} else if p.absent(n, m, "source") {
		p.errorf(n, "inbox needs a source")
	}
	if kv, ok := m["retention"]; ok {
		in.Retention, _ = p.duration(kv[1])
	} else if p.absent(n, m, "retention") {
		p.errorf(n, "inbox needs a retention (at least the provider's retry period)")
	}
	if kv, ok := m["order"]; ok {
		if s, ok := p.str(kv[1]); ok {
			switch ir.Order(s) {
			case ir.OrderAny, ir.OrderInOrder, ir.OrderLatest:
				in.Order = ir.Order(s)
			case "ordered", "in-order":
				p.errorf(kv[1], "inbox order %q: write in_order (the ledger's word)", s)
			default:
				p.errorf(kv[1], "%q is not one of: any, in_order, latest", s)
			}
		}
	}
	return in
}

// acknowledge reads an acknowledgement: a reason and, by kind, the old values given up.
func (p *annotParser) acknowledge(n *yaml.Node) *ir.Acknowledge {
	m := p.mapping(n, append([]string{"reason"}, ackKinds...)...)
	if m == nil {
		return nil
	}
	ack := &ir.Acknowledge{Pos: p.pos(n)}
	if kv, ok := m["reason"]; ok {
		if r, ok := p.str(kv[1]); ok {
			ack.Reason = strings.TrimSpace(r)
		}
	}
	if ack.Reason == "" {
		p.errorf(n, "acknowledge needs a reason: why the change cannot make a retry a second effect")
	}
	for _, kind := range ackKinds {
		kv, ok := m[kind]
		if !ok {
			continue
		}
		old, ok := p.str(kv[1])
		if !ok {
			continue
		}
		switch kind {
		case "retry":
			for _, name := range strings.Split(old, "|") {
				if _, ok := writegenimpl.ParseRetry(name); !ok && old != "none" {
					p.errorf(kv[1], "acknowledge retry %q: want the old set as WRITE_SAFETY.json writes it, like \"not_sent|ambiguous\"", old)
					break
				}
			}
		case "lookup":
			if old != runtime.Strong.String() && old != runtime.Eventual.String() {
				p.errorf(kv[1], "acknowledge lookup %q: want the old consistency, strong or eventual", old)
			}
		case "lag":
			if _, ok := ParseDuration(old); !ok {
				p.errorf(kv[1], "acknowledge lag %q: want the old settle time or lag as WRITE_SAFETY.json writes it, like \"30s\"", old)
			}
		case "dedupe":
			if old != "ledger" {
				p.errorf(kv[1], "acknowledge dedupe %q: only a dropped dedupe: ledger is acknowledged (write ledger)", old)
			}
		case "retention":
			if _, ok := ParseDuration(old); !ok && old != "forever" {
				p.errorf(kv[1], "acknowledge retention %q: want the old retention as WRITE_SAFETY.json writes it, like \"720h\", or forever", old)
			}
		case "max_length":
			if _, err := strconv.Atoi(old); err != nil && old != "none" {
				p.errorf(kv[1], "acknowledge max_length %q: want the old number, or none", old)
			}
		}
		ack.Items = append(ack.Items, ir.AckItem{Kind: kind, Old: old, Pos: p.pos(kv[1])})
	}
	if len(ack.Items) == 0 {
		p.errorf(n, "acknowledge names no change: give the old value of one of %s", strings.Join(ackKinds, ", "))
	}
	return ack
}
