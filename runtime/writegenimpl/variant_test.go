package writegenimpl

import (
	"encoding/json"
	"testing"
)

func TestSetInVariant(t *testing.T) {
	admin := &Variant{Name: "UserForAdmin", Properties: []string{"name", "email", "external_id", "profile"}, Required: []string{"name"}}
	tagged := &Variant{Name: "Card", Discriminator: "type", Tags: []string{"card"}}
	for _, tc := range []struct {
		name  string
		v     *Variant
		raw   string
		path  []string
		want  string // "" when the union does not hold the variant
		fails bool
	}{
		{"holds", admin, `{"name":"Ada","email":"a@x"}`, []string{"external_id"}, `{"email":"a@x","external_id":"R","name":"Ada"}`, false},
		{"overwrites", admin, `{"name":"Ada","external_id":"old"}`, []string{"external_id"}, `{"external_id":"R","name":"Ada"}`, false},
		{"nested, created", admin, `{"name":"Ada"}`, []string{"profile", "ref"}, `{"name":"Ada","profile":{"ref":"R"}}`, false},
		{"nested, kept", admin, `{"name":"Ada","profile":{"a":1}}`, []string{"profile", "ref"}, `{"name":"Ada","profile":{"a":1,"ref":"R"}}`, false},
		{"nested, null", admin, `{"name":"Ada","profile":null}`, []string{"profile", "ref"}, `{"name":"Ada","profile":{"ref":"R"}}`, false},
		{"a property of another variant", admin, `{"name":"Ada","locale":"fr"}`, []string{"external_id"}, "", false},
		{"a required property missing", admin, `{"email":"a@x"}`, []string{"external_id"}, "", false},
		{"not an object", admin, `"Ada"`, []string{"external_id"}, "", false},
		{"empty", admin, ``, []string{"external_id"}, "", false},
		{"null", admin, `null`, []string{"external_id"}, "", false},
		{"tag", tagged, `{"type":"card","x":1}`, []string{"ref"}, `{"ref":"R","type":"card","x":1}`, false},
		{"another tag", tagged, `{"type":"bank","x":1}`, []string{"ref"}, "", false},
		{"no tag", tagged, `{"x":1}`, []string{"ref"}, "", false},
		{"a tag that is no string", tagged, `{"type":1}`, []string{"ref"}, "", false},
		{"a nested property that is no object", admin, `{"name":"Ada","profile":3}`, []string{"profile", "ref"}, "", true},
		{"broken JSON", admin, `{"name":`, []string{"external_id"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, sent, err := SetInVariant(json.RawMessage(tc.raw), tc.v, "R", tc.path...)
			switch {
			case tc.fails:
				if err == nil {
					t.Fatalf("got %s, %v: want an error", out, sent)
				}
			case err != nil:
				t.Fatal(err)
			case tc.want == "":
				if sent || string(out) != tc.raw {
					t.Fatalf("got %s, sent %v: want the JSON unchanged, not sent", out, sent)
				}
			case !sent || string(out) != tc.want:
				t.Fatalf("got %s, sent %v: want %s", out, sent, tc.want)
			}
		})
	}
	if _, _, err := SetInVariant(json.RawMessage(`{}`), admin, "R"); err == nil {
		t.Fatal("no path: want an error")
	}
}

func TestEncodeRequestKeepsNoReference(t *testing.T) {
	r := NewRequest("POST", "/users")
	r.NoReference = true
	got, err := DecodeRequest(EncodeRequest(r))
	if err != nil || !got.NoReference {
		t.Fatalf("decoded %+v, %v: want NoReference kept", got, err)
	}
	r.NoReference = false
	if b := EncodeRequest(r); json.Valid(b) && string(b) != `{"v":1,"method":"POST","path":"/users"}` {
		t.Fatalf("a request with its reference encodes as before: %s", b)
	}
}
