package writegenimpl

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/writegen/writegen/runtime"
)

// TestPromise01_SameKeyAcrossClients: the same business key gives the same
// provider key in two clients, as in two processes or on two machines, and
// the provider makes one effect. (runtime's
// TestPromise01_SameBusinessKeySameProviderKey pins the derivation.)
func TestPromise01_SameKeyAcrossClients(t *testing.T) {
	create := thingOp(withKey)
	// Two clients, as two processes would be: the second sends the same key
	// and the provider replays the first write instead of making another.
	p := newProvider(t)
	var keys []string
	for range 2 {
		c := newTestClient(t, p.URL, newTestClock(), runtime.WithKeySecret([]byte("s3cret")))
		r, err := Write(context.Background(), c, create, thingKey{"42"}, thingCall(c, create, "printer jammed"))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, r.ProviderKey)
	}
	w := p.seenWrites()
	if len(w) != 2 || w[0].key != keys[0] || w[1].key != keys[0] || keys[1] != keys[0] {
		t.Errorf("keys sent %q, %q; receipts %q", w[0].key, w[1].key, keys)
	}
	if n := p.effectCount(); n != 1 {
		t.Errorf("provider has %d effects, want 1", n)
	}
}

type emptyKey struct{}

func (emptyKey) BusinessKey() (string, error) { return "", nil }

// TestPromise03_EmptyKeyRefusedBeforeSend: an empty or zero business key is
// an error before any byte is sent.
func TestPromise03_EmptyKeyRefusedBeforeSend(t *testing.T) {
	p := newProvider(t)
	op := thingOp(withKey)
	c := newTestClient(t, p.URL, newTestClock())
	built := false
	call := thingCall(c, op, "x")
	inner := call.Build
	call.Build = func(pk, ref string) (*Request, error) { built = true; return inner(pk, ref) }
	for name, key := range map[string]runtime.Key{"empty field": thingKey{}, "empty key": emptyKey{}, "nil key": nil} {
		_, err := Write(context.Background(), c, op, key, call)
		var ek *runtime.EmptyKeyError
		if !errors.Is(err, runtime.ErrEmptyKey) || !errors.As(err, &ek) || ek.Operation != "createThing" {
			t.Errorf("%s: err = %v, want an *EmptyKeyError for createThing", name, err)
		}
	}
	if _, err := Submit(context.Background(), c, op, thingKey{}, call); !errors.Is(err, runtime.ErrEmptyKey) {
		t.Errorf("Submit: err = %v, want ErrEmptyKey", err)
	}
	if built || p.conns.Load() != 0 {
		t.Errorf("request built %v, %d connections: want nothing before the key is checked", built, p.conns.Load())
	}
}

// TestPromise04_RetriesAreByteIdentical: every attempt of one logical write
// sends the same body and key, also after a restart (EncodeRequest).
func TestPromise04_RetriesAreByteIdentical(t *testing.T) {
	p := newProvider(t, step{loss: lostRequest}, step{status: 503}, step{loss: lostResponse})
	op := thingOp(withKey)
	c := newTestClient(t, p.URL, newTestClock())
	builds := 0
	call := Call[*thing]{Build: func(pk, ref string) (*Request, error) {
		builds++
		r := NewRequest("POST", "/things")
		return r, r.Form(map[string]any{"title": "printer", "reference": ref, "tags": []string{"b", "a"}, "meta": map[string]any{"z": 1, "a": true}})
	}, ID: thingID}
	r, err := Write(context.Background(), c, op, thingKey{"7"}, call)
	if err != nil {
		t.Fatal(err)
	}
	w := p.seenWrites()
	if len(w) != 4 || builds != 1 {
		t.Fatalf("%d writes seen, request built %d times; want 4 and 1", len(w), builds)
	}
	for i, s := range w[1:] {
		if s.key != w[0].key || !bytes.Equal(s.body, w[0].body) {
			t.Errorf("attempt %d sent key %q body %q; attempt 1 sent %q %q", i+2, s.key, s.body, w[0].key, w[0].body)
		}
	}
	if want := "meta%5Ba%5D=true&meta%5Bz%5D=1&reference=things%2Fcreate-thing%3Athing%3A7&tags%5B0%5D=b&tags%5B1%5D=a&title=printer"; string(w[0].body) != want {
		t.Errorf("form body = %s, want %s", w[0].body, want)
	}
	if r.ID != "th_1" || p.effectCount() != 1 {
		t.Errorf("receipt %q, %d effects; want th_1 and 1", r.ID, p.effectCount())
	}

	// The stored form of a request decodes to the same bytes.
	req := NewRequest("POST", "/things/a%2Fb")
	req.AddQueryList("expand", []string{"x", "y"}, "")
	req.SetHeader("Stripe-Version", "2024-06-20")
	if err := req.Multipart([]Part{{Name: "file", FileName: "a.txt", ContentType: "text/plain", Data: []byte("hello")}, {Name: "purpose", Data: []byte("dispute")}}); err != nil {
		t.Fatal(err)
	}
	again := NewRequest("POST", "/things/a%2Fb")
	again.Multipart([]Part{{Name: "file", FileName: "a.txt", ContentType: "text/plain", Data: []byte("hello")}, {Name: "purpose", Data: []byte("dispute")}})
	if !bytes.Equal(req.Body, again.Body) || req.ContentType != again.ContentType {
		t.Errorf("multipart encoding differs between two builds")
	}
	dec, err := DecodeRequest(EncodeRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(EncodeRequest(dec), EncodeRequest(req)) || !bytes.Equal(dec.Body, req.Body) || dec.Query.Encode() != "expand=x&expand=y" {
		t.Errorf("decoded request %+v differs from %+v", dec, req)
	}
}
