package spec

import (
	"encoding/json"
	"fmt"
	"go/token"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/writegen/writegen/internal/corpustest"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
	"github.com/writegen/writegen/spec/load"
	"github.com/writegen/writegen/spec/naming"
	"go.yaml.in/yaml/v4"
)

// TestSettleNamesOrder checks that the claims' order does not matter and that nobody keeps a
// contested name by arriving first.
func TestSettleNamesOrder(t *testing.T) {
	make := func() ([]*naming.Claim, map[string]*string) {
		got := map[string]*string{}
		var claims []*naming.Claim
		add := func(c naming.Claim) {
			c.Got = new(string)
			got[c.Key] = c.Got
			claims = append(claims, &c)
		}
		add(naming.Claim{Want: "Card", Key: "#/components/schemas/card", Rank: build.RankComponent})
		add(naming.Claim{Want: "Card", Key: "#/paths/x/card", Rank: build.RankInline, Alt: "Object"})
		add(naming.Claim{Want: "IssuingCard", Literal: "IssuingDotCard", Key: "#/components/schemas/issuing.card", Rank: build.RankComponent})
		add(naming.Claim{Want: "IssuingCard", Literal: "Issuing_Card", Key: "#/components/schemas/issuing_card", Rank: build.RankComponent})
		add(naming.Claim{Want: "Client", Key: "#/components/schemas/Client", Rank: build.RankComponent, Alt: "Object"})
		add(naming.Claim{Want: "Client", Key: "reserved", Fixed: true})
		add(naming.Claim{Want: "AB", Literal: "A_B", Key: "a-b"})
		add(naming.Claim{Want: "AB", Literal: "A_B", Key: "a_b"})
		add(naming.Claim{Want: "AB", Literal: "AB", Key: "AB"})
		return claims, got
	}
	want := map[string]string{
		"#/components/schemas/card": "Card", "#/paths/x/card": "CardObject",
		"#/components/schemas/issuing.card": "IssuingDotCard", "#/components/schemas/issuing_card": "Issuing_Card",
		"#/components/schemas/Client": "ClientObject", "reserved": "Client",
		"a-b": "AB1", "a_b": "AB2", "AB": "AB",
	}
	for seed := range uint64(20) {
		claims, got := make()
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(claims), func(i, j int) { claims[i], claims[j] = claims[j], claims[i] })
		naming.Settle(claims)
		for k, w := range want {
			if *got[k] != w {
				t.Errorf("seed %d: %s got %q, want %q", seed, k, *got[k], w)
			}
		}
	}
}

// TestHostileNames loads a spec written to break name generation: Go keywords, unicode,
// leading digits, empty names, colliding spellings, names the generated code reserves,
// recursive schemas and comment terminators in descriptions.
func TestHostileNames(t *testing.T) {
	api, err := LoadBytes("hostile.yaml", corpustest.Read(t, "testdata/hostile.yaml"), "ws.yaml", []byte(hostileAnnot), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkNames(t, api)
	if got := dumpAPI(api); got != wantHostile {
		t.Errorf("got:\n%s\nwant:\n%s", got, wantHostile)
	}
	client := api.Types[slices.IndexFunc(api.Types, func(t *ir.Type) bool { return t.SchemaName == "Client" })]
	if client.Doc != "a */ comment terminator" || client.Fields[0].Doc != "*/ func init() { panic(1) } /*" {
		t.Errorf("descriptions are not kept raw: %q, %q", client.Doc, client.Fields[0].Doc)
	}
	if op := api.Operations[len(api.Operations)-1]; op.Doc != "ends a comment */ and starts /* another" {
		t.Errorf("operation description not kept raw: %q", op.Doc)
	}
}

const hostileAnnot = "version: 1\npackage: hostile\ndefaults:\n  effect: idempotent\n  response: {is: acknowledgement}\nscope: hostile\n"

const wantHostile = `package hostile (Hostile */ names 1) from hostile.yaml and ws.yaml ledger=false
type AB1 kind=1 schema="a-b" at hostile.yaml:77:5
  field B "b" string required=false nullable=false readonly=false
type AB2 kind=1 schema="a_b" at hostile.yaml:80:5
  field A "a" string required=false nullable=false readonly=false
type Cat kind=1 schema="Cat" at hostile.yaml:101:5
  field PetType "pet_type" string required=true nullable=false readonly=false
  field Name "name" string required=false nullable=true readonly=false
  field Born "born" time.Time required=false nullable=false readonly=false
  field Photo "photo" []byte required=false nullable=false readonly=false
  field Weight "weight" float32 required=false nullable=false readonly=false
  field Age "age" int32 required=false nullable=false readonly=false
  field Tags "tags" map[string]string required=false nullable=false readonly=false
  field Extra "extra" any required=false nullable=false readonly=false
  field Meows "meows" bool required=false nullable=false readonly=false
type ClientKind kind=2 schema="" at hostile.yaml:69:9
  const ClientKindAB1 = "a-b" (string)
  const ClientKindAB2 = "a_b" (string)
  const ClientKindEmpty = "" (string)
  const ClientKindNotEq = "!=" (string)
  const ClientKindEq = "=" (string)
  const ClientKind名 = "名" (string)
  const ClientKindEtcGMTPlus1 = "Etc/GMT+1" (string)
  const ClientKindEtcGMTMinus1 = "Etc/GMT-1" (string)
type ClientObject kind=1 schema="Client" at hostile.yaml:53:5
  field Type "type" string required=false nullable=false readonly=false
  field Func "func" string required=false nullable=false readonly=false
  field X名前 "名前" string required=false nullable=false readonly=false
  field Café "café" string required=false nullable=false readonly=false
  field X1st "1st" int64 required=false nullable=false readonly=false
  field Empty "" string required=false nullable=false readonly=false
  field XY1 "x-y" string required=false nullable=false readonly=false
  field Foo_Bar "foo_bar" string required=false nullable=false readonly=false
  field XY2 "x_y" string required=false nullable=false readonly=false
  field FooBar "fooBar" string required=false nullable=false readonly=false
  field Plus1 "+1" int64 required=false nullable=false readonly=false
  field Minus1 "-1" int64 required=false nullable=false readonly=false
  field Kind "kind" ClientKind required=false nullable=false readonly=false
  field Status "status" ClientStatus required=false nullable=true readonly=false
type ClientStatus kind=2 schema="" at hostile.yaml:70:9
  const ClientStatusOpen = "open" (string)
type Dog kind=1 schema="Dog" at hostile.yaml:107:5
  field PetType "pet_type" string required=true nullable=false readonly=false
  field Name "name" string required=false nullable=true readonly=false
  field Born "born" time.Time required=false nullable=false readonly=false
  field Photo "photo" []byte required=false nullable=false readonly=false
  field Weight "weight" float32 required=false nullable=false readonly=false
  field Age "age" int32 required=false nullable=false readonly=false
  field Tags "tags" map[string]string required=false nullable=false readonly=false
  field Extra "extra" any required=false nullable=false readonly=false
  field Barks "barks" bool required=true nullable=false readonly=false
type GetRangeRequest kind=1 schema="" at hostile.yaml:40:13
  field Tree "tree" Tree required=false nullable=false readonly=false
  field Pets "pets" Pets required=false nullable=false readonly=false
  field Pet "pet" Pet required=false nullable=false readonly=false
  field Key "key" TypeKeyObject required=false nullable=false readonly=false
  field Dash "dash" AB1 required=false nullable=false readonly=false
  field Underscore "underscore" AB2 required=false nullable=false readonly=false
type IssuingDotCard kind=1 schema="issuing.card" at hostile.yaml:71:5
  field ID "id" string required=false nullable=false readonly=false
type Issuing_Card kind=1 schema="issuing_card" at hostile.yaml:74:5
  field ID "id" string required=false nullable=false readonly=false
type Pet kind=3 schema="Pet" at hostile.yaml:94:5
  variant Cat Cat tags=[cat kitty]
  variant Dog Dog tags=[Dog]
  discriminator pet_type
type Pets kind=4 schema="Pets" at hostile.yaml:91:5
  elem []Pets
type Tree kind=1 schema="Tree" at hostile.yaml:86:5
  field Children "children" []Tree required=false nullable=false readonly=false
  field Parent "parent" Tree required=false nullable=false readonly=false
type TypeKeyObject kind=1 schema="TypeKey" at hostile.yaml:83:5
  field ID "id" string required=false nullable=false readonly=false
op GetRange = getRange PUT /range write=true at hostile.yaml:35:5
  body json application/json GetRangeRequest required=false
  response 204 "" <nil>
  safety at ws.yaml:3:1 effect=idempotent destructive=true receipt=false id="" retry=none attempts=1 dedupe=false uncertain=reconcile owner="" inherited=[effect response]
op Get_Range = get-range GET /range write=false at hostile.yaml:27:5
  response 200 "application/json" Issuing_Card
op Type = type POST /type/{func} write=true at hostile.yaml:7:5
  param Func path "func" string required=true style=simple explode=false
  param DateCreated query "DateCreated" string required=false style=form explode=true
  param DateCreatedLt query "DateCreated<" string required=false style=form explode=true
  param DateCreatedGt query "DateCreated>" string required=false style=form explode=true
  param X header "" string required=false style=simple explode=false
  body json application/json ClientObject required=false
  response 200 "application/json" IssuingDotCard
  safety at ws.yaml:3:1 effect=idempotent destructive=false receipt=false id="" retry=none attempts=1 dedupe=false uncertain=reconcile owner="" inherited=[effect response]
`

// TestShuffledDeclarations loads specs whose mappings (paths, components, properties) are
// written in other orders: every name must come out the same.
func TestShuffledDeclarations(t *testing.T) {
	specs := map[string][]byte{"hostile.yaml": corpustest.Read(t, "testdata/hostile.yaml"), "threads.yaml": corpustest.Read(t, "testdata/threads.yaml")}
	if testing.Short() {
		t.Log("short: corpus specs left out")
	} else if dir, err := corpustest.Find(); err == nil {
		for _, name := range []string{"paypal-orders.json", "adyen-checkout.json"} {
			specs[name] = corpustest.Read(t, dir+"/"+name)
		}
	}
	for name, data := range specs {
		t.Run(name, func(t *testing.T) {
			base := nameSignature(t, name, data)
			for seed := range uint64(3) {
				shuffled := shuffleDocument(t, data, seed)
				if got := nameSignature(t, name, shuffled); got != base {
					t.Errorf("seed %d: names differ:\n%s", seed, firstDiff(base, got))
				}
			}
		})
	}
}

// nameSignature lists every name of the IR with what it names, sorted.
func nameSignature(t *testing.T, file string, data []byte) string {
	t.Helper()
	api, err := LoadBytes(file, data, "ws.yaml", []byte(corpustest.Lenient), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, ty := range api.Types {
		lines = append(lines, fmt.Sprintf("type %s %s %d", ty.Name, ty.SchemaName, ty.Kind))
		for _, f := range ty.Fields {
			lines = append(lines, fmt.Sprintf("  %s.%s %s %s", ty.Name, f.GoName, f.Name, f.Type))
		}
		for _, v := range ty.Enum {
			lines = append(lines, fmt.Sprintf("  %s = %v", v.GoName, v.Value))
		}
		for _, v := range ty.Variants {
			lines = append(lines, fmt.Sprintf("  %s | %s %s", ty.Name, v.GoName, v.Type))
		}
	}
	for _, op := range api.Operations {
		lines = append(lines, fmt.Sprintf("op %s %s", op.GoName, op.ID))
		for _, p := range op.Params {
			lines = append(lines, fmt.Sprintf("  %s.%s %s %s", op.GoName, p.GoName, p.In, p.Name))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "  " + al[i] + "\n  " + bl[i]
		}
	}
	return fmt.Sprintf("  %d lines against %d", len(al), len(bl))
}

// shuffleDocument rewrites a spec as JSON with every mapping's keys in a random order.
func shuffleDocument(t *testing.T, data []byte, seed uint64) []byte {
	t.Helper()
	tree, _, err := load.ParseTree(data)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	var write func(n *yaml.Node)
	write = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.DocumentNode:
			write(n.Content[0])
		case yaml.MappingNode:
			idx := make([]int, 0, len(n.Content)/2)
			for i := 0; i < len(n.Content); i += 2 {
				idx = append(idx, i)
			}
			rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			b.WriteString("{")
			for k, i := range idx {
				if k > 0 {
					b.WriteString(",")
				}
				key, _ := json.Marshal(n.Content[i].Value)
				b.Write(key)
				b.WriteString(":\n")
				write(n.Content[i+1])
			}
			b.WriteString("}")
		case yaml.SequenceNode:
			b.WriteString("[")
			for i, c := range n.Content {
				if i > 0 {
					b.WriteString(",")
				}
				write(c)
			}
			b.WriteString("]")
		case yaml.ScalarNode:
			switch n.Tag {
			case "!!str":
				s, _ := json.Marshal(n.Value)
				b.Write(s)
			case "!!null":
				b.WriteString("null")
			default:
				b.WriteString(n.Value)
			}
		}
	}
	write(tree)
	return []byte(b.String())
}

// FuzzGoName checks that any text gives a valid exported identifier.
func FuzzGoName(f *testing.F) {
	for _, s := range []string{"", "type", "名前", "1st", "*/", "a_b", "DateCreated<", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range []string{naming.GoName(s), naming.GoLiteral(s), "T" + build.ValueWord(s)} {
			if !token.IsIdentifier(name) || !token.IsExported(name) {
				t.Errorf("%q gives %q, not an exported identifier", s, name)
			}
		}
	})
}

// TestOddReferences loads references to the whole document, to a schema inside a component and
// cycles of references with no type between them: it must end, with the same names whichever
// path reaches a schema first.
func TestOddReferences(t *testing.T) {
	api, err := LoadBytes("odd-refs.yaml", corpustest.Read(t, "testdata/odd-refs.yaml"), "ws.yaml", []byte(hostileAnnot), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ty := range api.Types {
		got = append(got, strings.TrimSpace(dumpType(ty)))
	}
	want := []string{
		`type A kind=1 schema="A" at odd-refs.yaml:21:5
  field B "b" AB required=false nullable=false readonly=false`,
		`type AB kind=1 schema="" at odd-refs.yaml:24:9
  field C "c" AB required=false nullable=false readonly=false`,
		`type ARequest kind=1 schema="" at odd-refs.yaml:10:13
  field Root "root" any required=false nullable=false readonly=false
  field Inner "inner" AB required=false nullable=false readonly=false
  field Outer "outer" A required=false nullable=false readonly=false
  field Self "self" any required=false nullable=false readonly=false
  field Loop "loop" any required=false nullable=false readonly=false`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{"CreateThread": "createThread", "URLCreate": "urlCreate", "ID": "id", "X": "x", "Über": "über"} {
		if got := build.LowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReservedNames holds the names the generated package declares for itself (the client, its
// constructor, the default base URL and the writes' descriptions) against schemas that want them.
func TestReservedNames(t *testing.T) {
	const doc = `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /things:
    put:
      operationId: putThing
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Writes"}}}}
      responses: {"204": {description: done}}
components:
  schemas:
    Writes: {type: object, properties: {a: {$ref: "#/components/schemas/Client"}}}
    Client: {type: object, properties: {b: {$ref: "#/components/schemas/NewClient"}}}
    NewClient: {type: object, properties: {c: {$ref: "#/components/schemas/DefaultBaseURL"}}}
    DefaultBaseURL: {type: object, properties: {d: {type: string}}}
`
	api, errs, _ := loadCase(t, "reserved.yaml", doc, answerAll)
	if errs != "" {
		t.Fatal(errs)
	}
	var got []string
	for _, ty := range api.Types {
		got = append(got, ty.SchemaName+"="+ty.Name)
	}
	slices.Sort(got)
	want := []string{"Client=ClientObject", "DefaultBaseURL=DefaultBaseURLObject", "NewClient=NewClientObject", "Writes=WritesObject"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
