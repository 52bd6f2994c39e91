package writegenimpl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Request is an HTTP request built once per logical write and then sent
// byte-identically on every attempt, including attempts made after a
// restart (see EncodeRequest).
type Request struct {
	Method      string
	Path        string // expanded and escaped, relative to the client's base URL
	Query       url.Values
	Header      http.Header
	ContentType string
	Body        []byte
	// NoReference is set by a write whose reference goes through a variant
	// of a oneOf/anyOf the caller did not send (SetInVariant): the request
	// carries no reference, so its lookup cannot find it and is not asked.
	// An ambiguous failure of such a write ends uncertain.
	NoReference bool
}

// NewRequest returns a request without query, headers or body.
//
//go:noinline
func NewRequest(method, path string) *Request {
	return &Request{Method: method, Path: path}
}

// JSON sets the body to the JSON encoding of v.
func (r *Request) JSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("writegen: encode json body: %w", err)
	}
	r.Body, r.ContentType = b, "application/json"
	return nil
}

// Form sets the body to v encoded as application/x-www-form-urlencoded in
// the nested style Stripe uses (a[b][0]=x): v is first encoded as JSON, so
// json tags name the fields; object keys are sorted at every level, array
// elements keep their order, nulls are left out.
func (r *Request) Form(v any) error {
	var vals []string
	if uv, ok := v.(url.Values); ok {
		r.Body, r.ContentType = []byte(uv.Encode()), "application/x-www-form-urlencoded"
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("writegen: encode form body: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return fmt.Errorf("writegen: encode form body: %w", err)
	}
	if _, ok := tree.(map[string]any); !ok && tree != nil {
		return fmt.Errorf("writegen: encode form body: %T is not an object", v)
	}
	vals = flattenForm(vals, "", tree)
	r.Body, r.ContentType = []byte(strings.Join(vals, "&")), "application/x-www-form-urlencoded"
	return nil
}

// flattenForm appends the escaped name=value pairs of v under prefix.
func flattenForm(dst []string, prefix string, v any) []string {
	switch v := v.(type) {
	case nil:
		return dst
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name := k
			if prefix != "" {
				name = prefix + "[" + k + "]"
			}
			dst = flattenForm(dst, name, v[k])
		}
		return dst
	case []any:
		for i, e := range v {
			dst = flattenForm(dst, prefix+"["+strconv.Itoa(i)+"]", e)
		}
		return dst
	case string:
		return append(dst, url.QueryEscape(prefix)+"="+url.QueryEscape(v))
	default: // json.Number, bool
		return append(dst, url.QueryEscape(prefix)+"="+url.QueryEscape(fmt.Sprint(v)))
	}
}

// Part is one part of a multipart/form-data body.
type Part struct {
	Name        string
	FileName    string // "" for a plain field
	ContentType string // "" for none
	Data        []byte
}

// Multipart sets the body to parts encoded as multipart/form-data, with a
// boundary derived from the content so that the same parts always give the
// same bytes.
func (r *Request) Multipart(parts []Part) error {
	h := sha256.New()
	for _, p := range parts {
		for _, s := range []string{p.Name, p.FileName, p.ContentType} {
			h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
		}
		h.Write([]byte(strconv.Itoa(len(p.Data)) + ":"))
		h.Write(p.Data)
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary("wg" + hex.EncodeToString(h.Sum(nil))[:40]); err != nil {
		return fmt.Errorf("writegen: encode multipart body: %w", err)
	}
	for _, p := range parts {
		disp := "form-data; name=" + strconv.Quote(p.Name)
		if p.FileName != "" {
			disp += "; filename=" + strconv.Quote(p.FileName)
		}
		ph := textproto.MIMEHeader{"Content-Disposition": {disp}}
		if p.ContentType != "" {
			ph.Set("Content-Type", p.ContentType)
		}
		pw, err := w.CreatePart(ph)
		if err != nil {
			return fmt.Errorf("writegen: encode multipart body: %w", err)
		}
		if _, err := pw.Write(p.Data); err != nil {
			return fmt.Errorf("writegen: encode multipart body: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writegen: encode multipart body: %w", err)
	}
	r.Body, r.ContentType = buf.Bytes(), w.FormDataContentType()
	return nil
}

// header returns r.Header, made if nil.
func (r *Request) header() http.Header {
	if r.Header == nil {
		r.Header = http.Header{}
	}
	return r.Header
}

// encodedRequest is the stored form of a Request.
type encodedRequest struct {
	V           int         `json:"v"`
	Method      string      `json:"method"`
	Path        string      `json:"path"`
	Query       url.Values  `json:"query,omitempty"`
	Header      http.Header `json:"header,omitempty"`
	ContentType string      `json:"content_type,omitempty"`
	Body        []byte      `json:"body,omitempty"`
	NoReference bool        `json:"no_reference,omitempty"`
}

// EncodeRequest encodes r for the ledger, so that a resume after a restart
// sends the same bytes. The encoding is deterministic.
func EncodeRequest(r *Request) []byte {
	b, err := json.Marshal(encodedRequest{1, r.Method, r.Path, r.Query, r.Header, r.ContentType, r.Body, r.NoReference})
	if err != nil { // unreachable: every field encodes
		panic("writegen: encode request: " + err.Error())
	}
	return b
}

// DecodeRequest decodes what EncodeRequest returned.
func DecodeRequest(b []byte) (*Request, error) {
	var e encodedRequest
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("writegen: decode request: %w", err)
	}
	if e.V != 1 {
		return nil, errors.New("writegen: decode request: unknown version " + strconv.Itoa(e.V))
	}
	return &Request{e.Method, e.Path, e.Query, e.Header, e.ContentType, e.Body, e.NoReference}, nil
}
