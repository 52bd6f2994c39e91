package spec

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/writegen/writegen/internal/corpustest"
	"github.com/writegen/writegen/spec/load"
	"go.yaml.in/yaml/v4"
)

// TestParseJSONAsKin decodes documents from the parsed tree and through kin-openapi's own
// loader: the two must be the same document.
func TestParseJSONAsKin(t *testing.T) {
	docs := map[string][]byte{"escapes": []byte(`{
  "openapi": "3.0.3",
  "info": {"title": "T\u00e9st \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t", "version": "1"},
  "paths": {"/a": {"get": {"operationId": "dup", "operationId": "last", "responses": {"200": {"description": "ok",
    "content": {"application/json": {"schema": {"type": "object", "properties": {
      "n": {"type": "integer", "minimum": -12, "maximum": 1e3, "multipleOf": 0.5, "default": 12345678901234567890},
      "b": {"type": "boolean", "default": false, "nullable": true, "example": null},
      "e": {"type": "string", "enum": ["", "x", "\u0000"]}}}}}}}}}}
}`)}
	if dir, err := corpustest.Find(); err == nil {
		docs["paypal-orders.json"] = corpustest.Read(t, dir+"/paypal-orders.json")
	}
	for name, data := range docs {
		t.Run(name, func(t *testing.T) {
			tree, err := load.ParseJSON(data)
			if err != nil {
				t.Fatal(err)
			}
			var mine openapi3.T
			if err := tree.Decode(&mine); err != nil {
				t.Fatal(err)
			}
			if err := openapi3.NewLoader().ResolveRefsIn(&mine, nil); err != nil {
				t.Fatal(err)
			}
			theirs, err := openapi3.NewLoader().LoadFromData(data)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(&mine)
			b, _ := json.Marshal(theirs)
			if !bytes.Equal(a, b) {
				t.Errorf("documents differ:\n%.600s\n%.600s", a, b)
			}
		})
	}
}

func TestParseJSONPositions(t *testing.T) {
	tree, err := load.ParseJSON([]byte("{\n  \"a\": [1,\n\t\"é\", {\"b\": null}],\r\n  \"c\": true}"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		got = append(got, n.Value+"@"+strconv.Itoa(n.Line)+":"+strconv.Itoa(n.Column)+"/"+n.Tag)
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(tree.Content[0])
	want := "@1:1/!!map a@2:3/!!str @2:8/!!seq 1@2:9/!!int é@3:2/!!str @3:8/!!map b@3:9/!!str null@3:14/!!null c@4:3/!!str true@4:8/!!bool"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
}

func TestParseJSONErrors(t *testing.T) {
	cases := map[string]string{
		"":                         "1:1: unexpected end of JSON input looking for beginning of value",
		"{\"a\" 1}":                "1:6: invalid character '1' after object key",
		"{\"a\": [1, 2}":           "1:12: invalid character '}' after array element",
		"{\"a\": 01}":              "1:7: invalid number literal",
		"{\"a\": 1.}":              "1:9: invalid number literal",
		"{\"a\": -}":               "1:8: invalid number literal",
		"{\"a\": \"x\ny\"}":        "1:9: invalid character '\\n' in string literal",
		"{\"a\": \"\\q\"}":         "1:9: invalid escape 'q' in string literal",
		"{\"a\": \"\\u12\"}":       "1:9: invalid \\u escape in string literal",
		"{\"a\": tru}":             "1:7: invalid character 't' looking for beginning of value",
		"{} {}":                    "1:4: invalid character '{' after top-level value",
		"{\"a\": \"open":           "1:12: unexpected end of JSON input in string literal",
		strings.Repeat("[", 20000): "1:10002: nesting deeper than 10000 levels",
	}
	for in, want := range cases {
		_, err := load.ParseJSON([]byte(in))
		var se *load.JSONSyntaxError
		if !asSyntax(err, &se) {
			t.Errorf("%.20q: got %v, want a syntax error", in, err)
			continue
		}
		if got := strconv.Itoa(se.Line) + ":" + strconv.Itoa(se.Col) + ": " + se.Msg; got != want {
			t.Errorf("%.20q:\ngot  %s\nwant %s", in, got, want)
		}
	}
}

func asSyntax(err error, se **load.JSONSyntaxError) bool {
	e, ok := err.(*load.JSONSyntaxError)
	*se = e
	return ok
}

// FuzzParseJSON checks the parser against encoding/json: the same inputs are valid, and they
// hold the same values.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,-2.5e3,"x\u00e9\ud83d\ude00",true,null,{}]}`, `{"a":1,"a":2}`, `"\ud800"`, `1e400`, `-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || bytes.Count(data, []byte("[")) > load.MaxJSONDepth/2 {
			return
		}
		tree, err := load.ParseJSON(data)
		if valid := json.Valid(data); (err == nil) != valid {
			t.Fatalf("parseJSON: %v, but json.Valid: %v", err, valid)
		}
		var want any
		if err != nil || json.Unmarshal(data, &want) != nil { // out-of-range numbers
			return
		}
		if got := nodeValue(tree.Content[0]); !reflect.DeepEqual(got, want) {
			t.Fatalf("got %#v, want %#v", got, want)
		}
	})
}

// nodeValue turns a parsed tree back into what encoding/json decodes into an any.
func nodeValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any)
		for i := 0; i < len(n.Content); i += 2 {
			m[n.Content[i].Value] = nodeValue(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			s = append(s, nodeValue(c))
		}
		return s
	}
	switch n.Tag {
	case "!!str":
		return n.Value
	case "!!bool":
		return n.Value == "true"
	case "!!null":
		return nil
	}
	f, _ := strconv.ParseFloat(n.Value, 64)
	return f
}
