package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/writegen/writegen/internal/corpustest"
	"github.com/writegen/writegen/spec/ir"
)

// multiRoot is the root of the multi-file specs below: an operation whose response schema and
// request body are in other files, the first through a path item in another file.
const multiRoot = `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /tickets:
    $ref: paths/tickets.yaml
`

// multiFiles are the files of a sound spec split across several, under api/.
func multiFiles() fstest.MapFS {
	return fstest.MapFS{
		"paths/tickets.yaml": {Data: []byte(`post:
  operationId: createTicket
  requestBody:
    content:
      application/json:
        schema: {$ref: "../schemas/Ticket.yaml"}
  responses:
    "201":
      description: created
      content:
        application/json:
          schema: {$ref: "../schemas/Ticket.yaml"}
    default:
      description: failed
      content:
        application/json:
          schema: {$ref: "../common/errors.yaml#/components/schemas/Error"}
`)},
		"schemas/Ticket.yaml": {Data: []byte(`type: object
properties:
  id: {type: string}
  status: {$ref: "status.yaml#/Status"}
`)},
		"schemas/status.yaml": {Data: []byte("Status: {type: string, enum: [open, closed]}\n")},
		"common/errors.yaml":  {Data: []byte("components:\n  schemas:\n    Error: {type: object, properties: {code: {type: string}}}\n")},
	}
}

// multiAnnot answers createTicket.
const multiAnnot = `version: 1
package: x
scope: x
operations:
  createTicket: {effect: idempotent, response: {is: acknowledgement}}
`

// loadMulti loads the root spec named name with the other files files, and returns its errors
// (or its warnings when it loads), one per line.
func loadMulti(t *testing.T, name, root string, files fstest.MapFS, annot string) (api *ir.API, errs, warnings string) {
	t.Helper()
	api, err := LoadBytes(name, []byte(root), "ws.yaml", []byte(annot), Options{Files: files})
	if err != nil {
		var list ir.ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("got %v, want an ErrorList", err)
		}
		return nil, err.Error(), ""
	}
	return api, "", api.Warnings.Error()
}

// TestMultiFile checks that a spec split across files loads, with the types of other files
// named as components are, and each position in the file it is written in, named as the user
// named the root spec's directory.
func TestMultiFile(t *testing.T) {
	api, errs, warnings := loadMulti(t, "api/openapi.yaml", multiRoot, multiFiles(), multiAnnot)
	if errs != "" || warnings != "" {
		t.Fatalf("errors:\n%s\nwarnings:\n%s", errs, warnings)
	}
	got := map[string]string{}
	for _, ty := range api.Types {
		got[ty.Name] = ty.Pos.String()
	}
	want := map[string]string{"Ticket": "api/schemas/Ticket.yaml:1:1", "Status": "api/schemas/status.yaml:1:1"}
	for name, pos := range want {
		if got[name] != pos {
			t.Errorf("type %s at %q, want %q (types: %v)", name, got[name], pos, got)
		}
	}
	if len(api.Operations) != 1 || api.Operations[0].Pos.String() != "api/paths/tickets.yaml:1:1" {
		t.Errorf("operations: %v", api.Operations)
	}

	// A defect in another file is reported where it is written.
	files := multiFiles()
	files["schemas/Ticket.yaml"] = &fstest.MapFile{Data: []byte(`type: object
properties:
  id: {type: string, required: true}
`)}
	_, errs, _ = loadMulti(t, "api/openapi.yaml", multiRoot, files, multiAnnot)
	if want := `api/schemas/Ticket.yaml:3:32: operation "createTicket": required: true on a schema: OpenAPI lists the required properties in the object's required list (required: [name]); correct the spec, or leave the operation out of scope`; errs != want {
		t.Errorf("errors:\n%s\nwant:\n%s", errs, want)
	}
}

// TestMultiFileNames checks the names of components of other files: a whole file is named
// after the file, a component of the root that is only a reference to a file is that file's
// schema, and two schemas of one name in different files are told apart as any colliding names
// are, or by the annotation file's names, which name a schema of another file by its path.
func TestMultiFileNames(t *testing.T) {
	root := `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  ticket: {$ref: "#/components/schemas/Ticket"}
                  page: {$ref: "#/components/schemas/Page"}
                  other: {$ref: "common/paging.yaml#/Page"}
                  note: {$ref: "schemas/note-item.yaml"}
components:
  schemas:
    Ticket: {$ref: "./schemas/Ticket.yaml"}
    Page: {type: object, properties: {n: {type: integer}}}
`
	files := fstest.MapFS{
		"schemas/Ticket.yaml":    {Data: []byte("type: object\nproperties: {id: {type: string}}\n")},
		"schemas/note-item.yaml": {Data: []byte("type: object\nproperties: {text: {type: string}}\n")},
		"common/paging.yaml":     {Data: []byte("Page: {type: object, properties: {next: {type: string}}}\n")},
	}
	names := func(annot string) string {
		t.Helper()
		api, errs, _ := loadMulti(t, "openapi.yaml", root, files, annot)
		if errs != "" {
			t.Fatal(errs)
		}
		var out []string
		for _, ty := range api.Types {
			out = append(out, ty.Name+"="+ty.SchemaName+"@"+ty.Pos.String())
		}
		return strings.Join(out, " ")
	}
	const base = "version: 1\npackage: x\nscope: x\n"
	if got, want := names(base), "GetAResponse=@openapi.yaml:12:15 NoteItem=note-item@schemas/note-item.yaml:1:1 Page1=Page@openapi.yaml:22:5 Page2=Page@common/paging.yaml:1:1 Ticket=Ticket@schemas/Ticket.yaml:1:1"; got != want {
		t.Errorf("types:\n%s\nwant:\n%s", got, want)
	}
	if got, want := names(base+"names:\n  common/paging.yaml#/Page: NextPage\n  ./schemas/note-item.yaml: Note\n"), "GetAResponse=@openapi.yaml:12:15 NextPage=Page@common/paging.yaml:1:1 Note=note-item@schemas/note-item.yaml:1:1 Page=Page@openapi.yaml:22:5 Ticket=Ticket@schemas/Ticket.yaml:1:1"; got != want {
		t.Errorf("types with names:\n%s\nwant:\n%s", got, want)
	}
	_, errs, _ := loadMulti(t, "openapi.yaml", root, files, base+"names:\n  common/nope.yaml#/Page: NextPage\n")
	if want := `ws.yaml:5:3: names: "common/nope.yaml#/Page" names nothing in the spec`; errs != want {
		t.Errorf("errors:\n%s\nwant:\n%s", errs, want)
	}
	_, errs, _ = loadMulti(t, "openapi.yaml", root, files, base+"names:\n  \"#Page\": NextPage\n")
	if want := `ws.yaml:5:3: names: "#Page" is not a reference (want "#/components/schemas/...", or "schemas/Ticket.yaml" for a schema of another file)`; errs != want {
		t.Errorf("errors:\n%s\nwant:\n%s", errs, want)
	}
}

// TestMultiFileRefusals checks each reference to another file that cannot be read: the exact
// message, at the reference.
func TestMultiFileRefusals(t *testing.T) {
	// The schema of createTicket's request body refers to ref from paths/tickets.yaml, at
	// line 6, column 17 of it.
	withRef := func(ref string, more fstest.MapFS) fstest.MapFS {
		files := multiFiles()
		files["paths/tickets.yaml"] = &fstest.MapFile{Data: []byte(strings.Replace(string(files["paths/tickets.yaml"].Data),
			`schema: {$ref: "../schemas/Ticket.yaml"}`, `schema: {$ref: "`+ref+`"}`, 1))}
		for name, f := range more {
			files[name] = f
		}
		return files
	}
	const at = `api/paths/tickets.yaml:6:24: operation "createTicket": `
	const fix = "; correct the spec, or leave the operation out of scope"
	for _, c := range []struct {
		name, ref string
		more      fstest.MapFS
		errs      string
	}{
		{name: "escape", ref: "../../shared/Ticket.yaml",
			errs: at + `reference "../../shared/Ticket.yaml" leaves the directory of openapi.yaml: move the file under it, or bundle the spec into one file` + fix},
		{name: "absolute", ref: "/etc/schemas/Ticket.yaml",
			errs: at + `reference "/etc/schemas/Ticket.yaml" is an absolute path: refer to the file by its path relative to api/paths/tickets.yaml, under the directory of openapi.yaml, or bundle the spec into one file` + fix},
		{name: "url", ref: "https://example.com/schemas/Ticket.yaml",
			errs: at + `reference "https://example.com/schemas/Ticket.yaml" is a URL: writegen reads the spec's own files only; download the file under the directory of openapi.yaml and refer to it by its relative path, or bundle the spec into one file` + fix},
		{name: "scheme", ref: "file:schemas/Ticket.yaml",
			errs: at + `reference "file:schemas/Ticket.yaml" is not a path to a file (scheme "file"): refer to a file of the spec by its relative path` + fix},
		{name: "missing", ref: "../schemas/Missing.yaml#/Ticket",
			errs: at + `reference "../schemas/Missing.yaml#/Ticket": file not found: api/schemas/Missing.yaml` + fix},
		{name: "nothing there", ref: "../schemas/status.yaml#/Nope",
			errs: at + `unresolved reference "../schemas/status.yaml#/Nope": nothing in api/schemas/status.yaml is at that path` + fix},
		{name: "anchor", ref: "../schemas/status.yaml#Status",
			errs: at + `unresolved reference "../schemas/status.yaml#Status": a reference into another file is a JSON pointer ("errors.yaml#/components/schemas/Error")` + fix},
		{name: "not yaml", ref: "../schemas/broken.yaml", more: fstest.MapFS{"schemas/broken.yaml": {Data: []byte("type: object\nproperties: [a\n")}},
			errs: `api/schemas/broken.yaml:3:1: operation "createTicket": did not find expected ',' or ']'` + fix},
		{name: "empty", ref: "../schemas/empty.yaml", more: fstest.MapFS{"schemas/empty.yaml": {Data: []byte("")}},
			errs: `api/schemas/empty.yaml:1:1: operation "createTicket": the file is empty: a reference to it names nothing` + fix},
		// A cycle of references that defines nothing: each of them is refused.
		{name: "cycle", ref: "../schemas/a.yaml", more: fstest.MapFS{
			"schemas/a.yaml": {Data: []byte(`$ref: "b.yaml"` + "\n")},
			"schemas/b.yaml": {Data: []byte(`$ref: "./a.yaml"` + "\n")},
		}, errs: `api/schemas/a.yaml:1:7: operation "createTicket": reference "b.yaml" leads back to itself through references that define nothing: point one of them at a definition` + fix + `
api/schemas/b.yaml:1:7: operation "createTicket": reference "./a.yaml" leads back to itself through references that define nothing: point one of them at a definition` + fix},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs, _ := loadMulti(t, "api/openapi.yaml", multiRoot, withRef(c.ref, c.more), multiAnnot)
			if errs != c.errs {
				t.Errorf("errors:\n%s\nwant:\n%s", errs, c.errs)
			}
		})
	}
}

// TestMultiFileRefusalsElsewhere checks the references to other files that are not a schema's:
// a path item or an operation that cannot be read is an error whatever is in scope (what it
// holds is unknown), one that holds itself too, and a discriminator's mapping into a file that
// is not there is refused at the value.
func TestMultiFileRefusalsElsewhere(t *testing.T) {
	runCase := func(t *testing.T, root string, files fstest.MapFS, annot, want string) {
		t.Helper()
		_, errs, warnings := loadMulti(t, "openapi.yaml", root, files, annot)
		if errs+warnings != want {
			t.Errorf("errors:\n%s\nwarnings:\n%s\nwant:\n%s", errs, warnings, want)
		}
	}
	t.Run("path item", func(t *testing.T) {
		runCase(t, multiRoot, fstest.MapFS{}, "version: 1\npackage: x\nscope: x\n",
			`openapi.yaml:5:11: reference "paths/tickets.yaml": file not found: paths/tickets.yaml`)
	})
	t.Run("operation", func(t *testing.T) {
		root := strings.Replace(multiRoot, "    $ref: paths/tickets.yaml\n", "    post: {$ref: \"ops/create.yaml\"}\n", 1)
		runCase(t, root, fstest.MapFS{}, "version: 1\npackage: x\nscope: x\nexclude: {POST /tickets: not used}\n",
			`openapi.yaml:5:18: reference "ops/create.yaml": file not found: ops/create.yaml`)
	})
	t.Run("itself", func(t *testing.T) {
		files := fstest.MapFS{"paths/tickets.yaml": {Data: []byte(`get:
  operationId: listTickets
  responses: {"204": {description: ok}}
  callbacks:
    again:
      "{$request.body#/url}": {$ref: "tickets.yaml"}
`)}}
		runCase(t, multiRoot, files, "version: 1\npackage: x\nscope: x\n",
			`paths/tickets.yaml:6:38: reference "tickets.yaml" leads back into what holds it: what it names would be written inside itself without end`)
	})
	t.Run("mapping", func(t *testing.T) {
		files := multiFiles()
		files["schemas/Ticket.yaml"] = &fstest.MapFile{Data: []byte(`oneOf:
  - $ref: "open.yaml"
discriminator:
  propertyName: kind
  mapping:
    open: "open.yaml"
    closed: "./closed.yaml"
`)}
		files["schemas/open.yaml"] = &fstest.MapFile{Data: []byte("type: object\nproperties: {kind: {type: string}}\n")}
		runCase(t, multiRoot, files, multiAnnot,
			`schemas/Ticket.yaml:7:13: operation "createTicket": reference "./closed.yaml": file not found: schemas/closed.yaml; correct the spec, or leave the operation out of scope`)
	})
}

// TestMultiFileSymlink checks that a file reached through a symbolic link out of the spec's
// directory is refused, and one inside it is read, on disk.
func TestMultiFileSymlink(t *testing.T) {
	dir := t.TempDir()
	api := filepath.Join(dir, "api")
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, f := range multiFiles() {
		write(filepath.Join(api, filepath.FromSlash(name)), string(f.Data))
	}
	write(filepath.Join(dir, "outside", "Ticket.yaml"), "type: object\n")
	if err := os.Symlink(filepath.Join("..", "..", "outside"), filepath.Join(api, "schemas", "out")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink("Ticket.yaml", filepath.Join(api, "schemas", "Same.yaml")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(api, "openapi.yaml"), multiRoot)
	write(filepath.Join(dir, "ws.yaml"), multiAnnot)
	t.Chdir(dir)
	tickets := filepath.Join(api, "paths", "tickets.yaml")
	data, err := os.ReadFile(tickets)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(data), `schema: {$ref: "../schemas/Ticket.yaml"}`, `schema: {$ref: "../schemas/out/Ticket.yaml"}`, 1)
	body = strings.Replace(body, `schema: {$ref: "../schemas/Ticket.yaml"}`, `schema: {$ref: "../schemas/Same.yaml"}`, 1)
	write(tickets, body)
	_, err = Load(filepath.Join("api", "openapi.yaml"), "ws.yaml", Options{})
	want := `api/paths/tickets.yaml:6:24: operation "createTicket": reference "../schemas/out/Ticket.yaml": api/schemas/out/Ticket.yaml is reached through a symbolic link that leads out of the directory of openapi.yaml (an absolute link counts as out): move the file under it, or bundle the spec into one file; correct the spec, or leave the operation out of scope`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestMultiFileOrder checks that what the references to other files name is named and placed
// the same whatever order they are met (and the files read) in.
func TestMultiFileOrder(t *testing.T) {
	files := fstest.MapFS{
		"a/Item.yaml": {Data: []byte("type: object\nproperties: {a: {type: string}}\n")},
		"b/Item.yaml": {Data: []byte("type: object\nproperties: {b: {type: string}}\n")},
		"c/defs.yaml": {Data: []byte("Item: {type: object, properties: {c: {type: string}}}\n")},
	}
	refs := []string{`{$ref: "a/Item.yaml"}`, `{$ref: "b/Item.yaml"}`, `{$ref: "c/defs.yaml#/Item"}`}
	loadIn := func(order []int) string {
		t.Helper()
		root := "openapi: 3.0.3\ninfo: {title: x, version: \"1\"}\npaths:\n  /a:\n    get:\n      operationId: getA\n      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n              schema:\n                properties:\n"
		for _, i := range order {
			root += "                  p" + string(rune('a'+i)) + ": " + refs[i] + "\n"
		}
		api, errs, _ := loadMulti(t, "openapi.yaml", root, files, "version: 1\npackage: x\nscope: x\n")
		if errs != "" {
			t.Fatal(errs)
		}
		var out []string
		for _, ty := range api.Types {
			if ty.SchemaName == "" {
				continue // the response, whose properties are in the order given
			}
			var fields []string
			for _, f := range ty.Fields {
				fields = append(fields, f.Name+":"+f.Type.String())
			}
			out = append(out, ty.Name+"{"+strings.Join(fields, ",")+"}@"+ty.Pos.String())
		}
		return strings.Join(out, " ")
	}
	want := loadIn([]int{0, 1, 2})
	if w := "Item1{a:string}@a/Item.yaml:1:1 Item2{b:string}@b/Item.yaml:1:1 Item3{c:string}@c/defs.yaml:1:1"; want != w {
		t.Errorf("types:\n%s\nwant:\n%s", want, w)
	}
	for _, order := range [][]int{{2, 1, 0}, {1, 2, 0}} {
		if got := loadIn(order); got != want {
			t.Errorf("order %v:\n%s\nwant:\n%s", order, got, want)
		}
	}
}

// TestMultiFileProperties checks that a map of properties that is a reference to another file
// as a whole (DigitalOcean writes properties: {$ref: attributes.yml#/droplet_ids}) is read as
// the properties it names.
func TestMultiFileProperties(t *testing.T) {
	files := multiFiles()
	files["schemas/Ticket.yaml"] = &fstest.MapFile{Data: []byte("type: object\nproperties:\n  $ref: \"attributes.yaml#/ticket\"\n")}
	files["schemas/attributes.yaml"] = &fstest.MapFile{Data: []byte("ticket:\n  id: {type: string}\n  status: {$ref: \"status.yaml#/Status\"}\n")}
	api, errs, warnings := loadMulti(t, "openapi.yaml", multiRoot, files, multiAnnot)
	if errs != "" || warnings != "" {
		t.Fatalf("errors:\n%s\nwarnings:\n%s", errs, warnings)
	}
	var got []string
	for _, ty := range api.Types {
		if ty.Name == "Ticket" {
			for _, f := range ty.Fields {
				got = append(got, f.Name+":"+f.Type.String()+"@"+f.Pos.String())
			}
		}
	}
	if want := "id:string@schemas/attributes.yaml:2:3 status:Status@schemas/attributes.yaml:3:3"; strings.Join(got, " ") != want {
		t.Errorf("fields of Ticket: %s, want %s", strings.Join(got, " "), want)
	}
}

// digitalOceanRoot is where the corpus keeps DigitalOcean's spec, split across some 2,900 files
// (the specification directory of github.com/digitalocean/openapi), when it has it.
const digitalOceanRoot = "digitalocean/specification/DigitalOcean-public.v2.yaml"

// TestCorpusDigitalOcean loads DigitalOcean's spec from its files, when the corpus has them:
// every operation, every name a valid unique Go identifier, no defect.
func TestCorpusDigitalOcean(t *testing.T) {
	dir, err := corpustest.Find()
	root := filepath.Join(dir, filepath.FromSlash(digitalOceanRoot))
	if err == nil {
		_, err = os.Stat(root)
	}
	if err != nil {
		t.Skipf("DigitalOcean's spec is not in the corpus at ../shared/corpus/specs/%s from the module root (%v): skipping", digitalOceanRoot, err)
	}
	ws := filepath.Join(t.TempDir(), "ws.yaml")
	if err := os.WriteFile(ws, []byte(corpustest.Lenient), 0o644); err != nil {
		t.Fatal(err)
	}
	api, err := Load(root, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(api.Operations) != 659 || len(api.Warnings) != 0 {
		t.Errorf("%d operations, %d warnings (want 659 and none): %v", len(api.Operations), len(api.Warnings), api.Warnings)
	}
	checkNames(t, api)
	t.Logf("%d operations, %d types", len(api.Operations), len(api.Types))
}

// TestMultiFileSwagger checks a Swagger 2.0 spec split across files: its definitions,
// parameters and responses of other files become the root's.
func TestMultiFileSwagger(t *testing.T) {
	root := `swagger: "2.0"
info: {title: x, version: "1"}
paths:
  /pets:
    post:
      operationId: addPet
      consumes: [application/json]
      parameters:
        - {name: body, in: body, schema: {$ref: "defs/pet.yaml#/Pet"}}
        - $ref: "defs/params.yaml#/limit"
      responses:
        "200": {description: ok, schema: {$ref: "defs/pet.yaml#/Pet"}}
        default: {$ref: "defs/responses.yaml#/Problem"}
`
	files := fstest.MapFS{
		"defs/pet.yaml":       {Data: []byte("Pet:\n  type: object\n  required: [name]\n  properties:\n    name: {type: string}\n    tag: {$ref: \"#/Tag\"}\nTag: {type: string, enum: [a, b]}\n")},
		"defs/params.yaml":    {Data: []byte("limit: {name: limit, in: query, type: integer}\n")},
		"defs/responses.yaml": {Data: []byte("Problem: {description: bad, schema: {type: object, properties: {code: {type: integer}}}}\n")},
	}
	api, errs, warnings := loadMulti(t, "swagger.yaml", root, files, "version: 1\npackage: x\nscope: x\noperations:\n  addPet: {effect: idempotent, response: {is: acknowledgement}}\n")
	if errs != "" || warnings != "" {
		t.Fatalf("errors:\n%s\nwarnings:\n%s", errs, warnings)
	}
	var got []string
	for _, ty := range api.Types {
		got = append(got, ty.Name+"@"+ty.Pos.String())
	}
	if want := "Pet@defs/pet.yaml:1:1 Tag@defs/pet.yaml:7:1"; strings.Join(got, " ") != want {
		t.Errorf("types: %s, want %s", strings.Join(got, " "), want)
	}
	op := api.Operations[0]
	if len(op.Params) != 1 || op.Params[0].Name != "limit" || op.Params[0].Pos.String() != "defs/params.yaml:1:1" || op.Body == nil {
		t.Errorf("params %+v, body %+v", op.Params[0], op.Body)
	}
}
