package load

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/writegen/writegen/spec/ir"
	"go.yaml.in/yaml/v4"
)

// A spec may be split across several files: a reference names another file by its path
// relative to the file it is written in ("../common/errors.yaml#/components/schemas/Error",
// "./schemas/Ticket.yaml"), the fragment being a JSON pointer into that file (none: the whole
// file). Only the root spec's directory and what is below it can be read; a reference that
// leaves it (through .. or a symbolic link), an absolute path and a URL are defects of their
// own, at the reference.
//
// What the references name is bundled into the one tree the rest of spec/ reads, before any
// other reading of it: a schema, parameter, response, request body, header, example, link,
// callback or security scheme of another file becomes a component of the root (in Swagger 2.0:
// a definition, parameter, response or security definition), and the reference a local one to
// it; a path item or an operation is written in place of its reference. A component of the root
// that is only a reference to another file's schema (`Ticket: {$ref: schemas/Ticket.yaml}`, as
// `redocly split` writes them) is replaced by what it names. Any other component takes the name
// its reference gives it: the last segment of the pointer (Error), or for a whole file its name
// without the extension (Ticket.yaml: Ticket); when the root or another file already has a
// component of that name in that section, each of them is keyed by the name and the file
// ("Error@common/errors.yaml") and still wants the name it was given, so that the package's
// name settling tells them apart as it does any other names that collide.
//
// Every node keeps its file and position: the lines of the k-th file read are shifted by the
// lines of the files read before it, so a line of the tree says which file it is in (posAt).

// specFile is one file of a spec split across several.
type specFile struct {
	rel   string     // the slash-separated path relative to the root spec's directory
	name  string     // as positions name it: under the directory the user named the root spec in
	base  int        // the lines of its nodes are shifted by base
	lines int        // how many lines it has
	root  *yaml.Node // its top node; nil when it could not be read
	// fail is why it cannot be read (not found, outside the spec's directory ...), "" when it
	// was; errs are its defects when it was read but is not YAML or JSON.
	fail string
	errs ir.ErrorList
}

// posAt returns the position of line (of the tree, shifted) and col.
func (d *Document) posAt(line, col int) ir.Pos {
	if len(d.Files) < 2 || line <= 0 {
		return ir.Pos{File: d.File, Line: line, Col: col}
	}
	f := d.FileAt(line)
	return ir.Pos{File: f.name, Line: line - f.base, Col: col}
}

// FileAt returns the file a line of the tree is in.
func (d *Document) FileAt(line int) *specFile {
	i, _ := slices.BinarySearchFunc(d.Files, line, func(f *specFile, line int) int { return cmp.Compare(f.base, line) })
	return d.Files[max(i-1, 0)]
}

// lineCount is the number of lines of data.
func lineCount(data []byte) int { return bytes.Count(data, []byte("\n")) + 1 }

// shiftLines adds by to the line of every node of the tree at n.
func shiftLines(n *yaml.Node, by int) {
	if n.Line > 0 {
		n.Line += by
	}
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// DirFS reads the files of a spec from a directory on disk, and refuses what leaves it, also
// through a symbolic link. It opens the directory on first use; Close releases it.
type DirFS struct {
	Dir  string
	root *os.Root
	err  error
}

func (f *DirFS) open() error {
	if f.root == nil && f.err == nil {
		f.root, f.err = os.OpenRoot(f.Dir)
	}
	return f.err
}

func (f *DirFS) Open(name string) (fs.File, error) {
	if err := f.open(); err != nil {
		return nil, err
	}
	return f.root.Open(name)
}

func (f *DirFS) ReadFile(name string) ([]byte, error) {
	if err := f.open(); err != nil {
		return nil, err
	}
	return f.root.ReadFile(name)
}

func (f *DirFS) Close() {
	if f.root != nil {
		f.root.Close()
	}
}

// escapes reports whether err says a path left an os.Root (through a symbolic link: the paths
// read are checked lexically before).
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}

// open returns the file at rel, reading it on first use.
func (d *Document) open(rel string) *specFile {
	if f := d.byRel[rel]; f != nil {
		return f
	}
	f := &specFile{rel: rel, name: filepath.Join(filepath.Dir(d.File), filepath.FromSlash(rel))}
	last := d.Files[len(d.Files)-1]
	f.base = last.base + last.lines
	d.Files = append(d.Files, f)
	d.byRel[rel] = f
	var data []byte
	err := fs.ErrNotExist
	if d.src != nil {
		data, err = fs.ReadFile(d.src, rel)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.fail = "file not found: " + f.name
	case escapes(err):
		f.fail = fmt.Sprintf("%s is reached through a symbolic link that leads out of the directory of %s (an absolute link counts as out): move the file under it, or bundle the spec into one file", f.name, filepath.Base(d.File))
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		f.fail = fmt.Sprintf("cannot read %s: %v", f.name, err)
	}
	if f.fail != "" {
		return f
	}
	f.lines = lineCount(data)
	tree, isJSON, err := ParseTree(data)
	if err != nil {
		f.errs = (&Document{File: f.name, index: d.index}).TreeError(err, data)
		return f
	}
	if tree == nil || len(tree.Content) == 0 {
		f.errs = ir.ErrorList{{Pos: ir.Pos{File: f.name, Line: 1, Col: 1}, Msg: "the file is empty: a reference to it names nothing"}}
		return f
	}
	shiftLines(tree, f.base)
	if !isJSON {
		if n := aliasCycle(tree.Content[0]); n != nil {
			f.errs = ir.ErrorList{d.Errorf(n, "", "alias %q leads back into itself: the value would never end", n.Value)}
			return f
		}
		d.prepareYAML(tree.Content[0])
	}
	f.root = tree.Content[0]
	return f
}

// outsideRefs reports whether the tree at n may hold a reference to another file: a $ref, or a
// value of a discriminator's mapping, that does not start with #.
func outsideRefs(n *yaml.Node) bool {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode && v.Value != "" && v.Value[0] != '#' {
				return true
			}
			if k.Value == "mapping" && v.Kind == yaml.MappingNode {
				for j := 1; j < len(v.Content); j += 2 {
					if m := v.Content[j]; m.Kind == yaml.ScalarNode && !strings.HasPrefix(m.Value, "#") && mappingRef(m.Value) {
						return true
					}
				}
			}
		}
	}
	for _, c := range n.Content {
		if outsideRefs(c) {
			return true
		}
	}
	return false
}

// mappingRef reports whether a value of a discriminator's mapping is a reference rather than
// the name of a component schema: it holds a / or a #, or names a YAML or JSON file.
func mappingRef(v string) bool {
	if strings.ContainsAny(v, "/#") {
		return true
	}
	switch strings.ToLower(path.Ext(v)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// bundler brings what the references to other files name into the tree.
type bundler struct {
	d      *Document
	seen   map[*yaml.Node]bool // the $ref values (and mapping values) dealt with
	sites  []*refUse
	grafts map[*yaml.Node]*graft
	order  []*graft
	queue  []*graft
	used   map[*yaml.Node]bool // written in place once: a later use is a copy
	inside map[*yaml.Node]bool // written in place, and being walked
	cuts   []cut
}

// refUse is one reference to a part of another file that becomes a component.
type refUse struct {
	ref    *yaml.Node // the $ref value, or the value of a discriminator's mapping
	holder *yaml.Node // the object holding the $ref; nil for a mapping value
	g      *graft
	// home is set when the holder is a component of the root that holds nothing but this
	// reference: what it names may take its place.
	homeParent *yaml.Node
	homeKey    string
	dead       bool // replaced by what it names
}

// graft is a part of another file that references name and that becomes a component.
type graft struct {
	node    *yaml.Node
	file    *specFile
	frag    string // the JSON pointer in the file, "" for the whole file
	segs    []string
	section string // the components section (Swagger 2.0: the top-level map) it goes into
	want    string // the key it wants there
	placed  bool   // in the tree
	nested  bool   // inside another graft, placed with it
	uses    []*refUse
}

// target is what a reference to another file names.
type target struct {
	file *specFile
	frag string
	segs []string
	node *yaml.Node
}

// bundle brings the parts of other files the tree refers to into it (see the top of this file).
// data is the root file's contents.
func (d *Document) bundle(data []byte) {
	if !outsideRefs(d.Root) {
		return
	}
	root := &specFile{rel: path.Base(filepath.ToSlash(d.File)), name: d.File, lines: lineCount(data), root: d.Root}
	d.Files = []*specFile{root}
	d.byRel = map[string]*specFile{root.rel: root}
	if d.v31 {
		d.indexIDs()
	}
	b := &bundler{d: d, seen: make(map[*yaml.Node]bool), grafts: make(map[*yaml.Node]*graft),
		used: make(map[*yaml.Node]bool), inside: make(map[*yaml.Node]bool)}
	d.walk(d.Root, d.top(), b.visit)
	for len(b.queue) > 0 {
		g := b.queue[0]
		b.queue = b.queue[1:]
		at := place{role: roleObject, key: g.want, in: g.section, of: g.section, parentRole: roleNames, parentOf: g.section, base: documentBase}
		if g.section == "callbacks" {
			at.role, at.of = roleNames, "callback" // a map of expressions to path items
		}
		d.walk(g.node, at, b.visit)
	}
	b.cycles()
	d.remove(b.cuts)
	b.place()
	d.patched = true
}

// visit is the walk that finds the references to other files: on the object that holds a $ref
// (whose kind says where what it names goes), and on the values of a discriminator's mapping.
func (b *bundler) visit(n *yaml.Node, at place) bool {
	d := b.d
	if at.role == roleData || at.role == roleRef {
		return false
	}
	if n.Kind == yaml.ScalarNode && at.role == roleObject && at.of == "mapping" && at.parent != nil {
		b.mappingValue(n, at)
		return false
	}
	if n.Kind != yaml.MappingNode || at.role != roleObject && at.role != roleNames {
		return true
	}
	_, v := d.Child(n, "$ref")
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" || b.seen[v] {
		return true
	}
	// In a map of names "$ref" is a name, unless it is a string: a callback (a map of
	// expressions to path items) may be a reference as a whole, and so may a map of properties
	// (DigitalOcean's properties: {$ref: attributes.yml#/droplet_ids}), read as what it names.
	names := at.role == roleNames && at.of != "callback"
	if names && v.Tag != "!!str" {
		return true
	}
	b.seen[v] = true
	t, errs, leave := b.resolve(v, at.base)
	if leave {
		return true
	}
	kind := d.kindOf(at)
	section := d.section(kind)
	switch {
	case names:
		kind, section = "names", ""
	case kind == "":
		section = d.sectionOf(t.segs)
	}
	holder := n
	if kind == "pathItem" || kind == "operation" || section == "" && !names {
		// What a path item or an operation holds is unknown without it: always an error.
		holder = d.Root
	}
	if errs == nil && section == "" && at.parent == nil {
		errs = ir.ErrorList{d.Errorf(v, "", "reference %q names a part of another file that cannot be written here: bundle the spec into one file", v.Value)}
	}
	if errs != nil {
		b.refuse(n, v, errs, holder)
		return true
	}
	if section == "" {
		b.writeInPlace(n, v, t, at)
		return false
	}
	u := &refUse{ref: v, holder: n}
	if d.FileAt(n.Line) == d.Files[0] && refOnly(n) && at.parent == d.sectionMap(section, false) {
		u.homeParent, u.homeKey = at.parent, at.key
	}
	b.use(u, t, section)
	return true
}

// refOnly reports whether the mapping n holds a $ref and nothing else.
func refOnly(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "$ref"
}

// mappingValue deals with a value of a discriminator's mapping that refers to another file.
func (b *bundler) mappingValue(n *yaml.Node, at place) {
	if !mappingRef(n.Value) || b.seen[n] {
		return
	}
	b.seen[n] = true
	t, errs, leave := b.resolve(n, at.base)
	switch {
	case leave:
	case errs != nil:
		for _, e := range errs {
			e := *e
			b.d.Defects = append(b.d.Defects, &Defect{Err: &e, Holder: at.parent})
		}
		b.cuts = append(b.cuts, cut{at.parent, at.i})
	default:
		b.use(&refUse{ref: n}, t, b.d.section("schemas"))
	}
}

// use records a reference to t, which becomes a component of section.
func (b *bundler) use(u *refUse, t target, section string) {
	g := b.grafts[t.node]
	if g == nil {
		g = &graft{node: t.node, file: t.file, frag: t.frag, segs: t.segs, section: section}
		switch {
		case len(t.segs) > 0:
			g.want = t.segs[len(t.segs)-1]
		default:
			base := path.Base(t.file.rel)
			g.want = strings.TrimSuffix(base, path.Ext(base))
		}
		b.grafts[t.node] = g
		b.order = append(b.order, g)
		if t.file != b.d.Files[0] { // the root's own parts are walked already
			b.queue = append(b.queue, g)
		}
	}
	u.g = g
	g.uses = append(g.uses, u)
	b.sites = append(b.sites, u)
}

// refuse records the defects errs of the reference v that n holds, and cuts the reference out.
func (b *bundler) refuse(n, v *yaml.Node, errs ir.ErrorList, holder *yaml.Node) {
	for _, e := range errs {
		e := *e
		b.d.Defects = append(b.d.Defects, &Defect{Err: &e, Holder: holder})
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i+1] == v {
			b.cuts = append(b.cuts, cut{n, i})
		}
	}
}

// writeInPlace writes what the reference v of n names (a path item, an operation, a map of
// properties) in place of n, and walks it. The keys n holds besides the $ref are kept, over the same keys of what it names.
func (b *bundler) writeInPlace(n, v *yaml.Node, t target, at place) {
	d := b.d
	if b.inside[t.node] {
		b.refuse(n, v, ir.ErrorList{d.Errorf(v, "", "reference %q leads back into what holds it: what it names would be written inside itself without end", v.Value)}, d.Root)
		return
	}
	repl := t.node
	if b.used[t.node] || t.file == d.Files[0] {
		repl = copyTree(t.node)
	}
	b.used[t.node] = true
	if len(n.Content) > 2 && repl.Kind == yaml.MappingNode {
		merged := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
		own := make(map[string]bool)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Value != "$ref" {
				merged.Content = append(merged.Content, k, n.Content[i+1])
				own[k.Value] = true
			}
		}
		for i := 0; i+1 < len(repl.Content); i += 2 {
			if !own[repl.Content[i].Value] {
				merged.Content = append(merged.Content, repl.Content[i], repl.Content[i+1])
			}
		}
		repl = merged
	}
	at.parent.Content[at.i] = repl
	b.inside[t.node] = true
	d.walk(repl, at, b.visit)
	delete(b.inside, t.node)
}

// copyTree returns a deep copy of the tree at n (an alias still names its anchor).
func copyTree(n *yaml.Node) *yaml.Node {
	c := *n
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, k := range n.Content {
			c.Content[i] = copyTree(k)
		}
	}
	return &c
}

// resolve returns what the reference v names in another file, or its defects, or leave when it
// is not a reference to another file (a local one of the root, a 3.1 $id of the root): the rest
// of spec/ deals with it. base is the 3.1 base URI in scope.
func (b *bundler) resolve(v *yaml.Node, base string) (t target, errs ir.ErrorList, leave bool) {
	d := b.d
	from := d.FileAt(v.Line)
	ref := v.Value
	fail := func(format string, args ...any) (target, ir.ErrorList, bool) {
		return t, ir.ErrorList{d.Errorf(v, "", format, args...)}, false
	}
	var frag string
	if local, ok := strings.CutPrefix(ref, "#"); ok {
		if from == d.Files[0] {
			return t, nil, true
		}
		t.file, frag = from, local
	} else {
		if ref == "" || from == d.Files[0] && d.v31 && (base != documentBase || d.idOf(ref)) {
			return t, nil, true
		}
		u, err := url.Parse(ref)
		if err != nil {
			return t, nil, true // not a URI: mend says so
		}
		file, f, _ := strings.Cut(ref, "#")
		frag = f
		switch {
		case (u.Scheme == "http" || u.Scheme == "https" || u.Host != "" || strings.HasPrefix(ref, "//")) && d.v31:
			return fail("reference %q is a URL, and no schema of the spec has it as $id: writegen reads the spec's own files only; download the file under the directory of %s and refer to it by its relative path, or bundle the spec into one file", ref, filepath.Base(d.File))
		case u.Scheme == "http" || u.Scheme == "https" || u.Host != "" || strings.HasPrefix(ref, "//"):
			return fail("reference %q is a URL: writegen reads the spec's own files only; download the file under the directory of %s and refer to it by its relative path, or bundle the spec into one file", ref, filepath.Base(d.File))
		case len(u.Scheme) == 1 || strings.HasPrefix(file, "/") || strings.HasPrefix(file, `\`):
			return fail("reference %q is an absolute path: refer to the file by its path relative to %s, under the directory of %s, or bundle the spec into one file", ref, from.name, filepath.Base(d.File))
		case u.Scheme != "":
			return fail("reference %q is not a path to a file (scheme %q): refer to a file of the spec by its relative path", ref, u.Scheme)
		}
		p, err := url.PathUnescape(file)
		if err != nil {
			return t, nil, true
		}
		rel := path.Join(path.Dir(from.rel), p)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return fail("reference %q leaves the directory of %s: move the file under it, or bundle the spec into one file", ref, filepath.Base(d.File))
		}
		if rel == "." {
			return fail("reference %q names a directory, not a file", ref)
		}
		t.file = d.open(rel)
		switch {
		case t.file.fail != "":
			return fail("reference %q: %s", ref, t.file.fail)
		case t.file.errs != nil:
			return t, t.file.errs, false
		}
	}
	if frag != "" && frag[0] != '/' {
		return fail("unresolved reference %q: a reference into another file is a JSON pointer (\"errors.yaml#/components/schemas/Error\")", ref)
	}
	n, ok := d.resolveIn(t.file.root, frag)
	if !ok {
		return fail("unresolved reference %q: nothing in %s is at that path", ref, t.file.name)
	}
	if strings.Contains(frag, "%") {
		if u, err := url.PathUnescape(frag); err == nil {
			frag = u
		}
	}
	t.frag, t.segs, t.node = frag, ir.SplitPointer(frag), n
	return t, nil, false
}

// idOf reports whether an OpenAPI 3.1 reference names a schema of the root by its $id.
func (d *Document) idOf(ref string) bool {
	u, _, _ := strings.Cut(resolveURI(documentBase, ref), "#")
	_, ok := d.ids[u]
	return ok
}

// kindOf says what the object at at is, as far as where a reference to another file puts what
// it names: a components section ("schemas" ...), "pathItem" or "operation" (written in place),
// or "" when its place does not say.
func (d *Document) kindOf(at place) string {
	if at.role == roleNames && at.of == "callback" {
		return "callbacks"
	}
	switch {
	case at.of != "":
		switch at.of {
		case "schemas", "properties", "patternProperties", "$defs", "dependentSchemas", "definitions":
			return "schemas"
		case "parameters", "headers", "requestBodies", "responses", "links", "examples", "securitySchemes":
			return at.of
		case "securityDefinitions":
			return "securitySchemes"
		case "paths", "webhooks", "pathItems", "callback":
			return "pathItem"
		}
	case at.key != "":
		switch at.key {
		case "schema", "items", "not", "additionalProperties", "contains", "if", "then", "else", "propertyNames",
			"unevaluatedProperties", "unevaluatedItems", "additionalItems", "contentSchema":
			return "schemas"
		case "requestBody":
			return "requestBodies"
		}
		switch at.parentOf {
		case "paths", "webhooks", "pathItems", "callback":
			if isMethod(at.key) {
				return "operation"
			}
		}
	default:
		switch at.in {
		case "allOf", "oneOf", "anyOf", "prefixItems", "items":
			return "schemas"
		case "parameters":
			return "parameters"
		}
	}
	return ""
}

// section returns the components section (Swagger 2.0: the top-level map) a kind of object
// goes into, or "" when there is none (it is written in place).
func (d *Document) section(kind string) string {
	if d.V2 {
		return map[string]string{"schemas": "definitions", "parameters": "parameters", "responses": "responses",
			"securitySchemes": "securityDefinitions"}[kind]
	}
	switch kind {
	case "schemas", "parameters", "headers", "requestBodies", "responses", "links", "examples", "callbacks", "securitySchemes":
		return kind
	}
	return ""
}

// sectionOf returns the section a pointer into another file names a component of, or "".
func (d *Document) sectionOf(segs []string) string {
	switch {
	case d.V2 && len(segs) == 2:
		switch segs[0] {
		case "definitions", "parameters", "responses", "securityDefinitions":
			return segs[0]
		}
	case !d.V2 && len(segs) == 3 && segs[0] == "components":
		return d.section(segs[1])
	}
	return ""
}

// sectionMap returns the root's mapping of a components section, made when make is set (nil
// when it is not there).
func (d *Document) sectionMap(section string, make bool) *yaml.Node {
	holder := d.Root
	if !d.V2 {
		holder = d.mapping(d.Root, "components", make)
		if holder == nil {
			return nil
		}
	}
	return d.mapping(holder, section, make)
}

// mapping returns the mapping under key in n, made (or made a mapping) when make is set.
func (d *Document) mapping(n *yaml.Node, key string, make bool) *yaml.Node {
	i, v := d.childIndex(n, key)
	if v != nil && v.Kind == yaml.MappingNode || !make {
		if v != nil && v.Kind != yaml.MappingNode {
			return nil
		}
		return v
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if i >= 0 {
		n.Content[i] = m
	} else {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, m)
		delete(d.index, n)
	}
	return m
}

// cycles finds the references to other files that lead back to themselves through objects that
// are only references: they name nothing, a defect of each of them.
func (b *bundler) cycles() {
	link := make(map[*yaml.Node]*refUse)
	for _, u := range b.sites {
		if u.holder != nil && refOnly(u.holder) {
			link[u.holder] = u
		}
	}
	for _, u := range b.sites {
		if link[u.holder] != u {
			continue
		}
		if b.endOf(link, u) == u {
			// Kept, so that what reaches one of them reaches all: read, they name nothing (any).
			e := b.d.Errorf(u.ref, "", "reference %q leads back to itself through references that define nothing: point one of them at a definition", u.ref.Value)
			b.d.Defects = append(b.d.Defects, &Defect{Err: e, Holder: u.holder})
		}
	}
}

// endOf follows the references from what u names while they are all there is, and returns the
// use it comes back to, or nil.
func (b *bundler) endOf(link map[*yaml.Node]*refUse, u *refUse) *refUse {
	seen := map[*refUse]bool{}
	for next := link[u.g.node]; next != nil; next = link[next.g.node] {
		if next == u || seen[next] {
			return next
		}
		seen[next] = true
	}
	return nil
}

// place puts every graft into the tree and points every reference at it.
func (b *bundler) place() {
	d := b.d
	inTree := make(map[*yaml.Node]bool)
	var mark func(n *yaml.Node)
	mark = func(n *yaml.Node) {
		inTree[n] = true
		for _, c := range n.Content {
			mark(c)
		}
	}
	mark(d.Root)
	slices.SortFunc(b.order, func(x, y *graft) int {
		return cmp.Or(strings.Compare(x.file.rel, y.file.rel), strings.Compare(x.frag, y.frag))
	})
	// A graft inside another one is placed with it.
	rest := make(map[*yaml.Node]*graft)
	for _, g := range b.order {
		if inTree[g.node] {
			g.placed = true
		} else {
			rest[g.node] = g
		}
	}
	var inner func(n *yaml.Node)
	inner = func(n *yaml.Node) {
		for _, c := range n.Content {
			if h := rest[c]; h != nil {
				h.nested = true
			}
			inner(c)
		}
	}
	for _, g := range b.order {
		if !g.placed {
			inner(g.node)
		}
	}
	// A component of the root that is only a reference to a graft: the first by key takes it.
	standIn := make(map[*yaml.Node]*yaml.Node) // what took the place of such a component, by it
	for _, g := range b.order {
		if g.placed || g.nested {
			continue
		}
		var home *refUse
		for _, u := range g.uses {
			if u.homeParent != nil && !u.dead && (home == nil || u.homeKey < home.homeKey) {
				home = u
			}
		}
		if home == nil {
			continue
		}
		for i := 1; i < len(home.homeParent.Content); i += 2 {
			if home.homeParent.Content[i] == home.holder {
				home.homeParent.Content[i] = g.node
				standIn[home.holder] = g.node
				home.dead = true
				g.placed = true
				break
			}
		}
	}
	// The keys: the name wanted, unless another component of the section has it.
	count := make(map[string]int)
	for _, g := range b.order {
		if !g.placed && !g.nested {
			count[g.section+"/"+g.want]++
		}
	}
	sections := make(map[string]map[string]bool)
	for _, g := range b.order {
		if g.placed || g.nested || sections[g.section] != nil {
			continue
		}
		taken := make(map[string]bool)
		for _, k := range Keys(d.sectionMap(g.section, false)) {
			taken[k] = true
			count[g.section+"/"+k]++
		}
		sections[g.section] = taken
	}
	type entry struct {
		key string
		g   *graft
	}
	var entries []entry
	for _, g := range b.order {
		if g.placed || g.nested {
			continue
		}
		taken := sections[g.section]
		key := g.want
		if count[g.section+"/"+key] > 1 {
			key = g.want + "@" + g.file.rel
			if taken[key] {
				key += "@" + g.frag
			}
			if d.GraftNames == nil {
				d.GraftNames = make(map[string]string)
			}
			d.GraftNames[d.v3Section(g.section)+"/"+key] = g.want
		}
		taken[key] = true
		entries = append(entries, entry{key, g})
	}
	slices.SortFunc(entries, func(x, y entry) int {
		return cmp.Or(strings.Compare(x.g.section, y.g.section), strings.Compare(x.key, y.key))
	})
	for _, e := range entries {
		m := d.sectionMap(e.g.section, true)
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.key, Line: e.g.node.Line, Column: e.g.node.Column}
		if n := len(e.g.segs); n > 0 {
			parent, _ := d.resolveIn(e.g.file.root, joinPointer(e.g.segs[:n-1]))
			if pk, _ := d.Child(parent, e.g.segs[n-1]); pk != nil {
				k.Line, k.Column = pk.Line, pk.Column
			}
		}
		m.Content = append(m.Content, k, e.g.node)
		delete(d.index, m)
		e.g.placed = true
	}
	// Every reference points at where what it names now is.
	want := make(map[*yaml.Node]bool)
	for _, u := range b.sites {
		want[u.g.node] = true
	}
	for _, n := range standIn {
		want[n] = true
	}
	ptrs := make(map[*yaml.Node]string)
	inTree = make(map[*yaml.Node]bool)
	d.walk(d.Root, d.top(), func(n *yaml.Node, at place) bool {
		inTree[n] = true
		if _, ok := ptrs[n]; want[n] && !ok {
			ptrs[n] = at.pointer()
		}
		return true
	})
	for _, g := range b.order {
		if p, ok := ptrs[g.node]; ok {
			if d.Origins == nil {
				d.Origins = make(map[string]string)
			}
			d.Origins[g.file.rel+"#"+g.frag] = "#" + p
		}
	}
	for _, u := range b.sites {
		if u.dead {
			continue
		}
		n := u.g.node
		if s := standIn[n]; s != nil {
			n = s
		}
		p, ok := ptrs[n]
		if !ok {
			// Not expected: every graft is placed above.
			e := d.Errorf(u.ref, "", "reference %q names a part of another file that cannot be written here: bundle the spec into one file", u.ref.Value)
			d.Defects = append(d.Defects, &Defect{Err: e, Holder: d.Root})
			continue
		}
		u.ref.Value, u.ref.Tag = "#"+p, "!!str"
	}
	// The defects of the parts of other files that no reference brought in are not the spec's.
	d.Defects = slices.DeleteFunc(d.Defects, func(df *Defect) bool {
		return df.Holder != nil && !inTree[df.Holder] && d.FileAt(df.Holder.Line) != d.Files[0]
	})
}

// v3Section is the OpenAPI 3 name of a section: what kin-openapi's references name.
func (d *Document) v3Section(section string) string {
	switch section {
	case "definitions":
		return "schemas"
	case "securityDefinitions":
		return "securitySchemes"
	}
	return section
}

// joinPointer writes unescaped segments as a JSON pointer.
func joinPointer(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(ir.EscapePointer(s))
	}
	return b.String()
}

// OriginKey is the key of d.origins a reference to another file written relative to the root
// spec's directory has ("./schemas/Ticket.yaml" is "schemas/Ticket.yaml#"), or "".
func OriginKey(ref string) string {
	file, frag, _ := strings.Cut(ref, "#")
	if file == "" {
		return ""
	}
	if u, err := url.PathUnescape(file); err == nil {
		file = u
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	return path.Clean(file) + "#" + frag
}
