package templates_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/templates"
)

// FuzzGenerate feeds a spec and an annotation file through spec.LoadBytes and, when they load,
// templates.Generate. Whatever the inputs, the outcome is a clear error or a package that is
// sound: no panic, no half-written output, no text of the spec outside comments and string
// literals. The seeds are the golden cases and hostile inputs; go test without -fuzz runs them.
// The other files a spec refers to are read from the golden case split across several files.
//
//	go test ./templates -run '^$' -fuzz FuzzGenerate -fuzztime 5m
func FuzzGenerate(f *testing.F) {
	root := filepath.Join("..", "testdata", "golden")
	cases, err := os.ReadDir(root)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		specData, err1 := os.ReadFile(filepath.Join(root, c.Name(), "openapi.yaml"))
		annotData, err2 := os.ReadFile(filepath.Join(root, c.Name(), "writesafety.yaml"))
		if err := errors.Join(err1, err2); err != nil {
			f.Fatal(err)
		}
		f.Add(specData, annotData)
	}
	for _, s := range hostileSeeds {
		f.Add([]byte(s.spec), []byte(s.annot))
	}
	for mode := range uint8(3) { // JSON, read by writegen's own parser
		specData, annotData := namedSpec("createThing", "getThing", "Thing", "*/ a\n//go:build x", mode)
		f.Add(specData, annotData)
	}
	warmImporter(f)
	files := os.DirFS(filepath.Join(root, "multi-file"))
	f.Fuzz(func(t *testing.T, specData, annotData []byte) {
		checkGenerate(t, "openapi.yaml", specData, annotData, files)
	})
}

// checkGenerate loads a spec and its annotations, with the other files of the spec in others,
// and generates their package: the outcome must be a clear error or a sound package.
func checkGenerate(t *testing.T, specName string, specData, annotData []byte, others fs.FS) {
	t.Helper()
	api, err := spec.LoadBytes(specName, specData, "writesafety.yaml", annotData, spec.Options{Files: others})
	if err != nil {
		if api != nil {
			t.Error("LoadBytes returned an API with its error")
		}
		checkErrorList(t, "LoadBytes", err)
		return
	}
	files, err := templates.Generate(api, templates.Options{})
	if err != nil {
		if files != nil {
			t.Error("Generate returned files with its error")
		}
		var fe *templates.FormatError
		if errors.As(err, &fe) {
			t.Fatalf("the emitters wrote Go that does not parse: %v", err)
		}
		checkErrorList(t, "Generate", err)
		return
	}
	checkPackage(t, api, files)
	// Text the spec only describes things with (titles, summaries, descriptions) reaches the
	// code as comments only: without it, the code is the same token for token.
	blankDescriptions(api)
	plain, err := templates.Generate(api, templates.Options{})
	if err != nil {
		t.Fatalf("Generate fails once descriptions are blank, not before: %v", err)
	}
	if len(plain) != len(files) {
		t.Fatalf("%d files, then %d once descriptions are blank", len(files), len(plain))
	}
	for i, f := range files {
		if !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		if a, b := codeTokens(f.Data), codeTokens(plain[i].Data); !slices.Equal(a, b) {
			t.Errorf("%s: the code (comments aside) changes with the descriptions:\n%s\nwithout them:\n%s", f.Name, f.Data, plain[i].Data)
		}
	}
}

// FuzzNames puts four strings of the fuzzer in every place of a small spec that takes a name
// (operation ids, schema, property and parameter names, enum values, discriminator values, the
// key format) or a description, so that they reach the emitters far more often than through
// byte mutations of a whole file. mode picks variants of the spec and its annotations (see
// namedSpec).
//
//	go test ./templates -run '^$' -fuzz FuzzNames -fuzztime 5m
func FuzzNames(f *testing.F) {
	for _, seed := range [][4]string{
		{"createThing", "getThing", "Thing", "Creates a thing."},
		{"type", "Type", "func", "*/ func init() {} /*\n//go:generate x"},
		{"a-b", "a_b", "A B", "\u202e`\"\x00"},
		{"名前", "123", "", "\u2028//line x.go:1\u2029"},
		{"id", "ID", "Id", "ids"},
		{"Client", "NewClient", "Runtime", "Resume"},
		{"Infinity", "NaN", "1e30", "-9223372036854775809"},
		{"MarshalJSON", "UnmarshalJSON", "BusinessKey", "x"},
		{"createThing", "getThing", "Thing", "Other"},
		{"createThing", "getThing", "Thing", "CreateThingParams"},
	} {
		for _, mode := range []uint8{0, 1, 2, 3, 4, 5, 6, 8, 16, 26, 32} {
			f.Add(seed[0], seed[1], seed[2], seed[3], mode)
		}
	}
	warmImporter(f)
	f.Fuzz(func(t *testing.T, a, b, c, d string, mode uint8) {
		specData, annotData := namedSpec(a, b, c, d, mode)
		checkGenerate(t, "openapi.json", specData, annotData, nil)
	})
}

// namedSpec returns a spec in JSON and its annotations with a, b and c as names and d as
// descriptions. mode%4 adds a lookup (1 generated, 2 written by hand); bit 2 adds the ledger;
// bit 3 sends the request body as a form; bit 4 puts the provider key in the body; bit 5 names
// schema b d.
func namedSpec(a, b, c, d string, mode uint8) (specData, annotData []byte) {
	type m = map[string]any
	ptr := strings.NewReplacer("~", "~0", "/", "~1").Replace
	ref := func(name string) m { return m{"$ref": "#/components/schemas/" + ptr(name)} }
	content := func(v any) m { return m{"application/json": m{"schema": v}} }
	body := content(ref(c))
	if mode&8 != 0 {
		body = m{"application/x-www-form-urlencoded": m{"schema": ref(c)}}
	}
	str := m{"type": "string", "description": d}
	doc := m{
		"openapi": "3.0.3",
		"info":    m{"title": d, "version": d},
		"paths": m{
			"/things/{" + a + "}": m{
				"post": m{
					"operationId": a, "summary": d, "description": d,
					"parameters": []m{
						{"name": a, "in": "path", "required": true, "schema": str, "description": d},
						{"name": b, "in": "query", "schema": str, "description": d},
						{"name": c, "in": "header", "schema": m{"type": "integer"}},
					},
					"requestBody": m{"required": true, "content": body},
					"responses":   m{"201": m{"description": d, "content": content(ref(a))}},
				},
				"get": m{
					"operationId": b,
					"parameters": []m{
						{"name": a, "in": "path", "required": true, "schema": str},
						{"name": b, "in": "query", "schema": str},
					},
					"responses": m{"200": m{"description": d, "content": content(ref(a))}},
				},
			},
		},
		"components": m{"schemas": m{
			c: m{"type": "object", "description": d, "required": []string{a}, "properties": m{
				a: str,
				b: m{"type": "string", "enum": []string{a, b, c, d}, "description": d},
				c: m{"type": "array", "items": ref(b)},
			}},
			a: m{"type": "object", "description": d, "required": []string{"id"}, "properties": m{
				"id": str,
				"n":  m{"type": "number", "enum": []string{a, b, c, d}},
				"i":  m{"type": "integer", "enum": []string{a, b, c, d}},
				"u":  ref("U"),
				b:    m{"type": "object", "additionalProperties": m{"type": "integer"}},
			}},
			b: m{"type": "string", "enum": []string{a, b, c}},
			"U": m{
				"oneOf": []m{ref(c), ref("Other")},
				"discriminator": m{"propertyName": a, "mapping": m{
					b: "#/components/schemas/" + ptr(c), d: "#/components/schemas/Other",
				}},
			},
			"Other": m{"type": "object", "required": []string{a}, "properties": m{a: str}},
		}},
	}
	specData, err := jsonMarshal(doc)
	if err != nil {
		panic(err)
	}
	q := func(s string) string { out, _ := jsonMarshal(s); return string(out) }
	format := strings.NewReplacer("{", "", "}", "").Replace(d) + "{ref}"
	annot := "version: 1\npackage: p\nscope: p\noperations:\n  " + q(a) + ":\n" +
		"    effect: ambiguous\n" +
		"    key: {fields: {ref: string}, format: " + q(format) + "}\n" +
		"    response: {is: receipt, id: /id}\n" +
		"    retry: {on: [not_sent, ambiguous]}\n" +
		"    owner: " + q(d) + "\n"
	if mode&16 != 0 {
		annot += "    idempotency: {body: " + q("/"+ptr(a)) + "}\n"
	} else {
		annot += "    idempotency: {header: Idempotency-Key}\n"
	}
	if mode%4 != 0 && mode&16 == 0 { // a lookup finds the write by the key stored in its body
		annot += "    reference: {body: " + q("/"+ptr(a)) + "}\n"
	}
	switch mode % 4 {
	case 1:
		annot += "    lookup: {operation: " + q(b) + ", params: {" + q(b) + ": \"ref:{ref}\", " + q(a) + ": \"x\"}, found: \"\", consistency: {strong: 5s, source: provider docs}}\n"
	case 2:
		annot += "    lookup: {func: " + q(c) + ", consistency: {strong: 5s, source: provider docs}}\n"
	}
	if mode&4 != 0 {
		annot += "    dedupe: ledger\n"
	}
	if mode&32 != 0 {
		annot += "names:\n  " + q("#/components/schemas/"+ptr(b)) + ": " + q(d) + "\n"
	}
	return specData, []byte(annot)
}

// checkErrorList checks that err is a non-empty spec.ErrorList whose every defect has a file, a
// line, a message, and one line of printable text.
func checkErrorList(t *testing.T, what string, err error) {
	t.Helper()
	var list ir.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("%s: error %T is not a spec.ErrorList: %v", what, err, err)
	}
	if len(list) == 0 {
		t.Fatalf("%s: empty ErrorList", what)
	}
	for _, e := range list {
		switch {
		case e.Msg == "":
			t.Errorf("%s: %v: empty message", what, e)
		case e.Pos.File == "":
			t.Errorf("%s: %q: no file", what, e)
		case e.Pos.Line == 0:
			t.Errorf("%s: %q: no line", what, e)
		}
		if bad := unsafeRune(e.Error(), false); bad >= 0 {
			t.Errorf("%s: %q holds %U", what, e, bad)
		}
	}
}

// unsafeRune returns the first rune of s that could make text read other than it is (a control
// or format character, a line or paragraph separator, invalid UTF-8), or -1. newlines allows
// "\n" and "\t".
func unsafeRune(s string, newlines bool) rune {
	for i, r := range s {
		switch {
		case newlines && (r == '\n' || r == '\t'):
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return r // invalid UTF-8
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == '\u2028', r == '\u2029':
			return r
		}
	}
	return -1
}

// checkPackage checks the files of a package generated from api: each Go file starts with the
// header, parses, holds no directive, and declares what the IR says; the package type-checks.
func checkPackage(t *testing.T, api *ir.API, files []templates.File) {
	t.Helper()
	fset := token.NewFileSet()
	var asts []*ast.File
	decls := map[string]ast.Node{}
	methods := map[string]bool{}
	for _, f := range files {
		if bad := unsafeRune(string(f.Data), true); bad >= 0 {
			t.Errorf("%s holds %U", f.Name, bad)
		}
		if !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		if !bytes.HasPrefix(f.Data, []byte(templates.Header+"\n\n")) {
			t.Errorf("%s does not start with the generated-code header", f.Name)
		}
		file, err := parser.ParseFile(fset, f.Name, f.Data, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", f.Name, err, f.Data)
		}
		if file.Name.Name != api.Package {
			t.Errorf("%s: package %s, want %s", f.Name, file.Name.Name, api.Package)
		}
		for _, cg := range file.Comments {
			for _, c := range cg.List {
				if c.Text != "//" && !strings.HasPrefix(c.Text, "// ") && !strings.HasPrefix(c.Text, "//\t") {
					t.Errorf("%s:%v: comment %q is not a plain // comment", f.Name, fset.Position(c.Pos()), c.Text)
				}
			}
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					decls[d.Name.Name] = d
				} else if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
					if recv, ok := star.X.(*ast.Ident); ok && recv.Name == "Client" {
						methods[d.Name.Name] = true
					}
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						decls[s.Name.Name] = s
					case *ast.ValueSpec:
						for _, n := range s.Names {
							decls[n.Name] = s
						}
					}
				}
			}
		}
		addLookups(file)
		asts = append(asts, file)
	}
	if decls["init"] != nil || decls["main"] != nil {
		t.Error("the package declares init or main")
	}
	for _, ty := range api.Types {
		checkType(t, ty, decls[ty.Name])
		for _, v := range ty.Enum {
			if _, ok := decls[v.GoName].(*ast.ValueSpec); !ok {
				t.Errorf("enum value %s of %s is not declared", v.GoName, ty.Name)
			}
		}
	}
	for _, op := range api.Operations {
		if !methods[op.GoName] {
			t.Errorf("operation %q: no method Client.%s", op.ID, op.GoName)
		}
	}
	conf := types.Config{Importer: sourceImporter()}
	if _, err := conf.Check(api.Package, fset, asts, nil); err != nil {
		t.Fatalf("the package does not type-check: %v", err)
	}
}

// addLookups adds to file the lookups a person writes by hand, as methods of Client that find
// nothing, with the signatures the file checks at compile time:
//
//	var _ interface {
//		findThread(ctx context.Context, reference string) ([]runtime.Found[*Thread], error)
//	} = (*Client)(nil)
func addLookups(file *ast.File) {
	for _, d := range file.Decls {
		gen, ok := d.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		for _, s := range gen.Specs {
			iface, ok := s.(*ast.ValueSpec).Type.(*ast.InterfaceType)
			if !ok {
				continue
			}
			for _, m := range iface.Methods.List {
				file.Decls = append(file.Decls, &ast.FuncDecl{
					Recv: &ast.FieldList{List: []*ast.Field{{
						Names: []*ast.Ident{ast.NewIdent("c")},
						Type:  &ast.StarExpr{X: ast.NewIdent("Client")},
					}}},
					Name: ast.NewIdent(m.Names[0].Name),
					Type: m.Type.(*ast.FuncType),
					Body: &ast.BlockStmt{List: []ast.Stmt{&ast.ReturnStmt{Results: []ast.Expr{ast.NewIdent("nil"), ast.NewIdent("nil")}}}},
				})
			}
		}
	}
}

// checkType checks the declaration of the named type ty: a struct holds each field under its Go
// name with its wire name in the json tag.
func checkType(t *testing.T, ty *ir.Type, decl ast.Node) {
	t.Helper()
	ts, ok := decl.(*ast.TypeSpec)
	if !ok {
		t.Errorf("type %s is not declared", ty.Name)
		return
	}
	if ty.Same != nil { // an alias of the type it repeats, whose declaration is checked apart
		if id, ok := ts.Type.(*ast.Ident); !ok || !ts.Assign.IsValid() || id.Name != ty.Same.Name {
			t.Errorf("type %s is not declared as an alias of %s", ty.Name, ty.Same.Name)
		}
		return
	}
	if ty.Kind != ir.KindStruct {
		return
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		t.Errorf("type %s is not a struct", ty.Name)
		return
	}
	tags := map[string]string{}
	for _, fl := range st.Fields.List {
		if fl.Tag == nil {
			continue
		}
		tag, err := strconv.Unquote(fl.Tag.Value)
		if err != nil {
			t.Errorf("type %s: tag %s: %v", ty.Name, fl.Tag.Value, err)
			continue
		}
		name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
		for _, n := range fl.Names {
			tags[n.Name] = name
		}
	}
	for _, fl := range ty.Fields {
		want := fl.Name
		if fl.Untagged { // read and written by the struct's JSON methods
			want = "-"
		}
		if got, ok := tags[fl.GoName]; !ok || got != want {
			t.Errorf("type %s: field %s has json name %q, want %q", ty.Name, fl.GoName, got, fl.Name)
		}
	}
}

// warmImporter imports what generated code imports before any input runs: from source, the
// runtime and its dependencies take seconds, and each fuzzing process would otherwise spend
// them on its first input, which counts as a hang when it runs over 10s.
func warmImporter(f *testing.F) {
	for _, path := range []string{"github.com/writegen/writegen/runtime", "bytes", "context", "encoding/json", "errors", "fmt", "maps", "net/http", "strconv", "time"} {
		if _, err := sourceImporter().Import(path); err != nil {
			f.Fatal(err)
		}
	}
}

// sourceImporter type-checks imported packages from source, each once per process.
var sourceImporter = sync.OnceValue(func() types.Importer {
	return &cachingImporter{from: importer.ForCompiler(token.NewFileSet(), "source", nil), pkgs: map[string]*types.Package{}}
})

// cachingImporter remembers the packages it imported: the source importer finds a package
// with the go command before it looks in its own cache. The fuzz target runs one input at a
// time, so the map needs no lock.
type cachingImporter struct {
	from types.Importer
	pkgs map[string]*types.Package
}

// Import returns the package at path, imported once.
func (c *cachingImporter) Import(path string) (*types.Package, error) {
	if p, ok := c.pkgs[path]; ok {
		return p, nil
	}
	p, err := c.from.Import(path)
	if err == nil {
		c.pkgs[path] = p
	}
	return p, err
}

// blankDescriptions removes from api the text that only describes: titles, summaries and
// descriptions.
func blankDescriptions(api *ir.API) {
	api.Title, api.Version = "", ""
	for _, ty := range api.Types {
		ty.Doc = ""
		for _, f := range ty.Fields {
			f.Doc = ""
		}
	}
	for _, op := range api.Operations {
		op.Summary, op.Doc = "", ""
		for _, p := range op.Params {
			p.Doc = ""
		}
	}
}

// codeTokens returns the tokens of Go source src, comments left out.
func codeTokens(src []byte) []string {
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile("", -1, len(src)), src, nil, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.SEMICOLON {
			lit = ";"
		}
		out = append(out, tok.String()+" "+lit)
	}
}

// hostileSeeds are inputs that try to break out of comments and string literals, or to make
// Go names that collide or are not identifiers.
var hostileSeeds = []struct{ spec, annot string }{
	{hostileSpec, hostileAnnot},
	{numbersSpec, "version: 1\npackage: p\nscope: p\n"},
	{swaggerSpec, swaggerAnnot},
	{cyclesSpec, "version: 1\npackage: p\nscope: p\n"},
	{openapi31Spec, "version: 1\npackage: p\nscope: p\ndefaults:\n  effect: idempotent\n  response: {is: acknowledgement}\n"},
	{`openapi: 3.0.3
info: {title: "t\u0007\u001b[2Jx\u202e", version: "1*/"}
paths:
  /a:
    get:
      operationId: "type"
      description: "` + "`" + `raw` + "`" + ` */ \n// injected\nfunc init() {}"
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/E"}}}}}
  /b:
    get:
      operationId: "Type"
      responses: {"200": {description: ok}}
  /c:
    get:
      operationId: "名前"
      responses: {"200": {description: ok}}
  /d:
    get:
      operationId: "123"
      responses: {"200": {description: ok}}
components:
  schemas:
    E:
      type: string
      description: "*/ panic(1) /*"
      enum: ["a-b", "a_b", "A B", "ab", "AB", "", "*/", "\u202e"]
`, "version: 1\npackage: p\nscope: p\n"},
	{`openapi: 3.1.0
info: {title: x, version: "1"}
paths:
  /x/{chan}:
    put:
      operationId: "go"
      summary: "\u2028//go:generate echo\u2029"
      parameters:
        - {name: chan, in: path, required: true, schema: {type: string}}
        - {name: "", in: query, schema: {type: string}}
        - {name: "a-b", in: query, schema: {type: integer}}
        - {name: "a_b", in: query, schema: {type: integer}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                type: {type: string}
                func: {type: string}
                "123": {type: string}
                "a-b": {type: string}
                "ǅx": {type: string}
                "ϒ": {type: string}
      responses: {"204": {description: "*/"}}
`, `version: 1
package: p
scope: p
operations:
  go:
    effect: idempotent
    key: {fields: {chan: string}, format: "{chan}"}
    response: {is: acknowledgement}
`},
}

const swaggerSpec = `swagger: "2.0"
info: {title: "*/ swagger", version: "1"}
basePath: /v1
consumes: [application/json]
produces: [application/json]
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, required: true, type: string}
    post:
      operationId: "func"
      description: "*/ func init() {} /*"
      parameters:
        - {name: body, in: body, required: true, schema: {$ref: "#/definitions/Pet"}}
        - {name: "x-b", in: header, type: integer}
      responses:
        "201": {description: ok, schema: {$ref: "#/definitions/Pet"}}
    put:
      operationId: upload
      consumes: [multipart/form-data]
      parameters:
        - {name: file, in: formData, type: file}
        - {name: "type", in: formData, type: string}
      responses:
        "204": {description: ok}
definitions:
  Pet:
    type: object
    required: [id]
    properties:
      id: {type: string}
      kind: {type: string, enum: ["a b", "a-b", "*/"]}
      tags: {type: array, items: {type: string}}
      extra: {type: object, additionalProperties: {type: integer}}
`

const swaggerAnnot = `version: 1
package: pets
scope: pets
operations:
  func:
    effect: ambiguous
    key: {fields: {id: string}, format: "{id}"}
    idempotency: {header: Idempotency-Key}
    response: {is: receipt, id: /id}
  upload:
    effect: idempotent
    response: {is: acknowledgement}
`

const openapi31Spec = `openapi: 3.1.0
info: {title: "3.1 */", version: "1"}
paths:
  /nodes:
    patch:
      operationId: "chan"
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                name: {type: [string, "null"], const: "x"}
                kids: {type: array, items: {$ref: "#/components/schemas/Node"}}
                any: {}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Node"}
components:
  schemas:
    Node:
      type: object
      required: [next]
      properties:
        next: {$ref: "#/components/schemas/Node"}
        value: {oneOf: [{type: string}, {type: integer}, {type: "null"}]}
`

const cyclesSpec = `openapi: 3.0.3
info: {title: cycles, version: "1"}
paths:
  /a:
    get:
      parameters: [{$ref: "#/components/parameters/p"}]
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  alias: {$ref: "#/components/schemas/A"}
                  list: {$ref: "#/components/schemas/L"}
                  all: {$ref: "#/components/schemas/S"}
                  one: {$ref: "#/components/schemas/O"}
                  map: {$ref: "#/components/schemas/M"}
                  pair: {$ref: "#/components/schemas/P"}
components:
  parameters:
    p: {$ref: "#/components/parameters/p"}
  schemas:
    A: {$ref: "#/components/schemas/B"}
    B: {$ref: "#/components/schemas/A"}
    L: {type: array, items: {$ref: "#/components/schemas/L"}}
    S: {allOf: [{$ref: "#/components/schemas/S"}]}
    O: {oneOf: [{$ref: "#/components/schemas/O"}, {type: string}]}
    M: {type: object, additionalProperties: {$ref: "#/components/schemas/M"}}
    P: {type: object, required: [q], properties: {q: {$ref: "#/components/schemas/Q"}}}
    Q: {type: object, required: [p], properties: {p: {$ref: "#/components/schemas/P"}}}
`

const numbersSpec = `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /a:
    get:
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/N"}}}}}
components:
  schemas:
    N:
      type: object
      properties:
        f: {type: number, enum: ["Infinity", "NaN", "-inf", 2.5]}
        i: {type: integer, enum: [1e30, -1e30, "9223372036854775807", 1.5, 3]}
`

const hostileSpec = `openapi: 3.0.3
info: {title: "a */ b", version: "\n// injected\n"}
paths:
  /items:
    post:
      operationId: "func"
      description: "*/ func init() { panic(0) } /*\n//go:build ignore\n\x60x\x60 \u202e"
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/item"}
      responses:
        "201":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
    get:
      operationId: "Func"
      responses:
        "200": {description: ok}
components:
  schemas:
    item:
      type: object
      properties:
        id: {type: string, description: "*/"}
        kind: {type: string, enum: [x, X, "x "]}
    Item:
      type: object
      required: [id]
      properties:
        id: {type: string}
`

const hostileAnnot = `version: 1
package: p
scope: p
operations:
  func:
    effect: ambiguous
    key: {fields: {id: string}, format: "*/{id}` + "`" + `"}
    idempotency: {header: Idempotency-Key}
    response: {is: receipt, id: /id}
    owner: "*/ \n// x"
`

// jsonMarshal is json.Marshal without HTML escaping, so that the spec holds the text as given.
func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}
