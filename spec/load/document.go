package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/naming"
	"go.yaml.in/yaml/v4"
)

// Document is a loaded OpenAPI document together with the node tree its positions are read from.
// The tree is parsed once and kin-openapi decodes from it, so an 8 MB spec is read once.
type Document struct {
	File string
	Root *yaml.Node // the mapping at the top of the file
	V2   bool       // Swagger 2.0, converted: components live elsewhere in the tree
	v31  bool       // OpenAPI 3.1: $id and $anchor name schemas
	API  *openapi3.T
	// index holds the key -> Content index of large mappings, built on first use.
	index map[*yaml.Node]map[string]int
	// Defects are what was cut out of the tree (or read another way) so that kin-openapi reads
	// the rest; Load sorts them into errors and warnings by what the operations in scope reach.
	Defects []*Defect
	patched bool              // the tree is no longer what the file says
	ids     map[string]string // OpenAPI 3.1: JSON pointers of schemas by $id URI and URI#anchor
	// Files are the files of a spec split across several: the root first, then the others in
	// the order their references were met (see files.go). Empty for a spec of one file.
	Files []*specFile
	byRel map[string]*specFile
	// src reads the files besides the root, by their slash-separated paths relative to the
	// root's directory; nil when there are none to read.
	src fs.FS
	// GraftNames are the names wanted by the schemas of other files that were given a
	// component key of their own to tell them apart ("Error@common/errors.yaml"), by
	// section/key ("schemas/Error@common/errors.yaml").
	GraftNames map[string]string
	// Origins are the pointers in the tree of what references to other files name, by the
	// file's path and the JSON pointer in it ("common/errors.yaml#/components/schemas/Error").
	Origins map[string]string
}

// maxRounds bounds how many times kin-openapi reads a document whose defects it finds one at a
// time (each one is cut out, and the rest read again).
const maxRounds = 32

// Read reads and resolves an OpenAPI 3.x or Swagger 2.0 document. A reference to
// another file is read from src (nil: there is none), by its path relative to the directory of
// file, and what it names is bundled into the tree (files.go). The errors it returns are those
// that leave no document to read; the defects of a part of it are kept in d.defects.
func Read(file string, data []byte, src fs.FS) (*Document, ir.ErrorList) {
	d := &Document{File: file, index: make(map[*yaml.Node]map[string]int), src: src}
	tree, isJSON, err := ParseTree(data)
	if err != nil {
		return nil, d.TreeError(err, data)
	}
	if tree == nil || len(tree.Content) == 0 {
		return nil, ir.ErrorList{{Pos: ir.Pos{File: file, Line: 1, Col: 1}, Msg: "not an OpenAPI document: the file is empty"}}
	}
	if tree.Content[0].Kind != yaml.MappingNode {
		return nil, ir.ErrorList{d.Errorf(tree, "", "not an OpenAPI document: the top level is not a mapping")}
	}
	d.Root = tree.Content[0]
	if err := d.checkVersion(); err != nil {
		return nil, ir.ErrorList{err}
	}
	if !isJSON {
		if n := aliasCycle(d.Root); n != nil {
			return nil, ir.ErrorList{d.Errorf(n, "", "alias %q leads back into itself: the value would never end", n.Value)}
		}
		d.prepareYAML(d.Root)
	}
	d.bundle(data)
	d.cutNullKeys()
	d.mend()
	if d.V2 {
		d.checkSwagger()
	}
	for round := 1; ; round++ {
		err := d.decode(data)
		if err == nil {
			break
		}
		placed, cuts := d.placeError(err, data)
		if len(cuts) < len(placed) || round == maxRounds {
			return nil, placed
		}
		d.remove(cuts)
	}
	if d.API.Info == nil {
		d.API.Info = &openapi3.Info{} // required by OpenAPI, but only ever read for the docs
	}
	return d, nil
}

// decode has kin-openapi read the tree: an OpenAPI 3 tree as it is, Swagger 2.0 through its
// converter, from the file's bytes when the tree is still what they say, else from the tree.
func (d *Document) decode(data []byte) error {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	if d.V2 {
		if d.patched {
			var err error
			if data, err = treeJSON(d.Root); err != nil {
				return err
			}
		}
		var doc2 openapi2.T
		if err := openapi2.UnmarshalFromData(data, &doc2); err != nil {
			return err
		}
		api, err := openapi2conv.ToV3WithLoader(&doc2, loader, nil)
		d.API = api
		return err
	}
	d.API = &openapi3.T{}
	if err := d.Root.Decode(d.API); err != nil {
		return err
	}
	return loader.ResolveRefsIn(d.API, nil)
}

// treeJSON writes the tree as JSON, for the readers that only read bytes.
func treeJSON(root *yaml.Node) ([]byte, error) {
	var v any
	if err := root.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// ParseTree reads data as JSON when it starts like JSON, else as YAML.
func ParseTree(data []byte) (tree *yaml.Node, isJSON bool, err error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		tree, err = ParseJSON(data)
		return tree, true, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, false, err
	}
	return &n, false, nil
}

func (d *Document) checkVersion() *ir.Error {
	if k, v := d.Child(d.Root, "swagger"); k != nil {
		if v.Kind != yaml.ScalarNode || v.Value != "2.0" {
			return d.Errorf(v, "", "unsupported swagger version %q (want 2.0)", v.Value)
		}
		d.V2 = true
		return nil
	}
	k, v := d.Child(d.Root, "openapi")
	if k == nil {
		return d.Errorf(d.Root, "", `not an OpenAPI document: neither "openapi" nor "swagger" is set`)
	}
	if v.Kind != yaml.ScalarNode || !strings.HasPrefix(v.Value, "3.") {
		return d.Errorf(v, "", "unsupported openapi version %q (want 3.0 or 3.1)", v.Value)
	}
	d.v31 = !strings.HasPrefix(v.Value, "3.0")
	return nil
}

// Errorf makes an Error at node n (nil: the file).
func (d *Document) Errorf(n *yaml.Node, op, format string, args ...any) *ir.Error {
	return &ir.Error{Pos: d.Pos(n), Operation: op, Msg: fmt.Sprintf(format, args...)}
}

func (d *Document) Pos(n *yaml.Node) ir.Pos {
	if n == nil {
		return ir.Pos{File: d.File}
	}
	return d.posAt(n.Line, n.Column)
}

// TreeError turns a parser or kin-openapi error about data into positioned Errors: the parsers
// know the position (the YAML reader's, of a character it cannot read, is found again), and a
// kin-openapi message is placed at its culprit.
func (d *Document) TreeError(err error, data []byte) ir.ErrorList {
	errs, _ := d.placeError(err, data)
	return errs
}

// placeError is treeError, with the cuts that take each culprit out of the tree: one per error
// when every one was found in the tree.
func (d *Document) placeError(err error, data []byte) (ir.ErrorList, []cut) {
	var syn *JSONSyntaxError
	if errors.As(err, &syn) {
		return ir.ErrorList{{Pos: d.posAt(syn.Line, syn.Col), Msg: syn.Msg}}, nil
	}
	var out ir.ErrorList
	var cuts []cut
	var les *yaml.LoadErrors
	if errors.As(err, &les) {
		for _, e := range les.Errors {
			pe := &ir.Error{Pos: d.posAt(e.Mark.Line, e.Mark.Column), Msg: e.Message}
			out = append(out, pe)
			if d.Root != nil {
				if at, _, ok := d.locate(e.Mark.Line, e.Mark.Column); ok {
					pe.Msg = typeMessage(at.key, e.Message)
					cuts = append(cuts, d.cutOut(at, pe))
				}
			}
		}
		ir.SortErrors(out)
		return out, cuts
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		e := &ir.Error{Pos: d.posAt(le.Mark.Line, le.Mark.Column), Msg: le.Message}
		if e.Pos.Line == 0 {
			e.Pos.Line, e.Pos.Col = unreadable(data)
		}
		if h := syntaxHint(e.Msg, data, e.Pos.Line, e.Pos.Col); h != "" {
			e.Msg += "; " + h
		}
		return ir.ErrorList{e}, nil
	}
	e := &ir.Error{Pos: ir.Pos{File: d.File}, Msg: err.Error()}
	n := d.culprit(e.Msg)
	if m := badData.FindStringSubmatch(e.Msg); m != nil {
		e.Msg = fmt.Sprintf("reference %q names something else than a %s: point it at one", m[1], m[2])
	}
	if m := jsonType.FindStringSubmatch(e.Msg); m != nil && n != nil {
		e.Msg = typeMessage(m[3], fmt.Sprintf("cannot construct %s into %s", jsonKinds[m[1]].tag+quoteValue(m[2]), m[4]))
	}
	if n != nil {
		e.Pos = d.Pos(n)
		if at, ok := d.locateNode(n); ok {
			cuts = append(cuts, d.cutOut(at, e))
		}
	}
	return ir.ErrorList{e}, cuts
}

// badData matches kin-openapi's message for a reference to a thing of another kind.
var badData = regexp.MustCompile(`^bad data in "(.*)" \(expecting (?:ref to )?(.+)\)$`)

// cannotConstruct matches the YAML decoder's message for a value of the wrong type.
var cannotConstruct = regexp.MustCompile("^cannot construct (!!\\w+)(?: `(.*)`)? into (.+)$")

// typeMessage says what the YAML decoder's message about a value of the wrong type under key
// means in the words of the spec: what the value is, and what must be there.
func typeMessage(key, msg string) string {
	m := cannotConstruct.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	tag, value, goType := m[1], m[2], m[3]
	if key == "required" && tag == "!!bool" {
		return "required: " + value + " on a schema: OpenAPI lists the required properties in the object's required list (required: [name])"
	}
	what := map[string]string{"!!bool": "a boolean", "!!int": "an integer", "!!float": "a number", "!!str": "a string",
		"!!seq": "a list", "!!map": "a mapping", "!!null": "null", "!!timestamp": "a date", "!!binary": "binary data"}[tag]
	if what == "" {
		what = tag
	}
	if value != "" && tag != "!!null" {
		what += " (" + value + ")"
	}
	if key != "" {
		what = key + " is " + what
	}
	return what + " where " + goWords(goType) + " must be"
}

// goWords names a Go type of kin-openapi's in the words of the spec: []string is a list of
// strings, openapi3.RequestBody a request body object.
func goWords(t string) string {
	t = strings.TrimPrefix(t, "*")
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "uint"):
		return "a whole number of 0 or more"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "float"):
		return "a number"
	case t == "[]string":
		return "a list of strings"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	}
	name, ok := strings.CutPrefix(t, "openapi3.")
	if !ok {
		return t
	}
	if plural, ok := strings.CutSuffix(name, "s"); ok && plural != "" && name != "Paths" && name != "Types" {
		return "a list of " + strings.ToLower(strings.Join(naming.Words(plural), " ")) + "s"
	}
	w := strings.ToLower(strings.Join(naming.Words(name), " "))
	article := "a "
	if strings.ContainsRune("aeiou", rune(w[0])) {
		article = "an "
	}
	return article + w + " object"
}

// jsonType matches encoding/json's message for a value of the wrong type, which kin-openapi's
// Swagger 2.0 reader reports without a place: the kind, the value (for a number), the field.
var jsonType = regexp.MustCompile(`cannot unmarshal (bool|number|string|array|object)(?: (\S+))? into (?:Go struct )?field (?:\w+\.)*([^ .]+) of type ([^\s,]+)`)

// jsonKinds are the YAML tags of encoding/json's kinds of values.
var jsonKinds = map[string]struct{ tag, alt string }{
	"bool": {"!!bool", ""}, "number": {"!!int", "!!float"}, "string": {"!!str", ""}, "array": {"!!seq", ""}, "object": {"!!map", ""},
}

// quoteValue writes a value for cannotConstruct's pattern, or nothing.
func quoteValue(v string) string {
	if v == "" {
		return ""
	}
	return " `" + v + "`"
}

// culprit returns the node a kin-openapi message that names no place is about, or nil: the
// reference it quotes, the first null where the object it names must be, the first parameter
// with both a schema and content, the first value of the wrong kind under the field named.
func (d *Document) culprit(msg string) *yaml.Node {
	if d.Root == nil {
		return nil
	}
	if m := jsonType.FindStringSubmatch(msg); m != nil {
		kind := jsonKinds[m[1]]
		return d.find(func(n *yaml.Node, at place) bool {
			return at.key == m[3] && at.parentRole == roleObject && (n.Tag == kind.tag || kind.alt != "" && n.Tag == kind.alt) &&
				(m[2] == "" || n.Value == m[2])
		})
	}
	if m := quotedRef.FindStringSubmatch(msg); m != nil {
		return d.findRef(m[1])
	}
	if m := notObject.FindStringSubmatch(msg); m != nil {
		h := nullHolders[m[1]]
		return d.find(func(n *yaml.Node, at place) bool {
			return n.Tag == "!!null" && (slices.Contains(h.in, at.in) || at.key != "" && slices.Contains(h.at, at.key))
		})
	}
	if msg == "cannot contain both schema and content in a parameter" {
		return d.find(func(n *yaml.Node, at place) bool {
			_, schema := d.Child(n, "schema")
			_, content := d.Child(n, "content")
			return at.in == "parameters" && schema != nil && content != nil
		})
	}
	return nil
}

// notObject matches kin-openapi's message for a null where an object must be, and names what
// must be there.
var notObject = regexp.MustCompile(`^invalid (callback|example|header|link|parameter|path item|requestBody|response|schema|securityScheme): value MUST be an object$`)

// nullHolders are, for each thing kin-openapi names in that message, the keys whose mapping
// values or list items must be one, and the keys whose own value must be one.
var nullHolders = map[string]struct{ in, at []string }{
	"callback":       {in: []string{"callbacks"}},
	"example":        {in: []string{"examples"}},
	"header":         {in: []string{"headers"}},
	"link":           {in: []string{"links"}},
	"parameter":      {in: []string{"parameters"}},
	"path item":      {in: []string{"paths"}},
	"requestBody":    {in: []string{"requestBodies"}, at: []string{"requestBody"}},
	"response":       {in: []string{"responses"}},
	"securityScheme": {in: []string{"securitySchemes"}},
	"schema": {
		in: []string{"schemas", "properties", "patternProperties", "allOf", "oneOf", "anyOf", "prefixItems", "$defs", "dependentSchemas"},
		at: []string{"schema", "items", "not", "additionalProperties", "contains", "if", "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"},
	},
}

// find returns the first node, in document order and outside literal data, that match accepts.
func (d *Document) find(match func(n *yaml.Node, at place) bool) *yaml.Node {
	var found *yaml.Node
	d.walk(d.Root, d.top(), func(n *yaml.Node, at place) bool {
		if found != nil || at.role == roleData {
			return false
		}
		if match(n, at) {
			found = n
			return false
		}
		return true
	})
	return found
}

// unreadable returns the line and column of the first character of UTF-8 data that YAML does not
// read (a byte that is not UTF-8, a control character), or zeros.
func unreadable(data []byte) (line, col int) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n <= 1, !yamlPrintable(r):
			return line, col
		case r == '\n':
			line, col = line+1, 1
		default:
			col++
		}
		i += n
	}
	return 0, 0
}

// yamlPrintable reports whether r is in YAML's printable set, which a file may hold.
func yamlPrintable(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0x7e || r == 0x85 ||
		r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff
}

var quotedRef = regexp.MustCompile(`"(#[^"]*)"`)

// findRef returns the first $ref value, in document order, that is ref.
func (d *Document) findRef(ref string) *yaml.Node {
	return d.find(func(n *yaml.Node, at place) bool {
		return at.role == roleRef && n.Kind == yaml.ScalarNode && n.Value == ref
	})
}

// ResolvePointer returns the node a JSON pointer (the fragment of a local reference) names.
func (d *Document) ResolvePointer(ptr string) (*yaml.Node, bool) {
	return d.resolveIn(d.Root, ptr)
}

// resolveIn returns the node a JSON pointer names in the tree at root.
func (d *Document) resolveIn(root *yaml.Node, ptr string) (*yaml.Node, bool) {
	if strings.Contains(ptr, "%") {
		if u, err := url.PathUnescape(ptr); err == nil {
			ptr = u
		}
	}
	if ptr == "" {
		return root, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	n := root
	for _, seg := range ir.SplitPointer(ptr) {
		if n = d.step(n, seg); n == nil {
			return nil, false
		}
	}
	return n, true
}

// step returns the child of n named by one pointer segment, or nil.
func (d *Document) step(n *yaml.Node, seg string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		_, v := d.Child(n, seg)
		return v
	case yaml.SequenceNode:
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	case yaml.AliasNode:
		return d.step(n.Alias, seg)
	}
	return nil
}

// Child returns the key and value nodes of key in mapping n, or nils.
func (d *Document) Child(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	const small = 32
	if len(n.Content) < 2*small {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i], n.Content[i+1]
			}
		}
		return nil, nil
	}
	idx, ok := d.index[n]
	if !ok {
		idx = make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if _, dup := idx[n.Content[i].Value]; !dup {
				idx[n.Content[i].Value] = i
			}
		}
		d.index[n] = idx
	}
	if i, ok := idx[key]; ok {
		return n.Content[i], n.Content[i+1]
	}
	return nil, nil
}

// Keys returns the keys of mapping n in document order.
func Keys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]string, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i].Value)
	}
	return out
}
