package runtime

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// mode is the kind of a logical call.
type mode uint8

const (
	modeRead  mode = iota // a read: retried freely within its set, never uncertain
	modeWrite             // a write with a business key
	modeDo                // a write without a key
)

// logical is one logical call: one request, sent by one or more attempts.
type logical struct {
	c    *Client
	op   *Operation
	mode mode
	bk   string // business key, "" for reads and unkeyed writes
	pk   string // provider key, "" when unkeyed

	hc   *http.Client
	req  *http.Request // built once (in hreq); each attempt sends a shallow copy
	body []byte

	set     Retry     // the operation's retry set, narrowed by the client
	limit   int       // maximum attempts
	keyTime time.Time // when the key was first used (first send or ledger claim)
	lookup  lookupFunc

	attempts int  // attempts made
	sent     bool // an attempt may have taken effect and nothing proved otherwise
	status   int  // status of the last attempt, 0 if none
	budgeted bool // the next retry draws from the client's retry budget

	// gotConn records whether the current attempt obtained a connection.
	gotConn atomic.Bool
	trace   httptrace.ClientTrace

	// Storage for req, allocated with x.
	hreq  http.Request
	url   url.URL
	ctype [1]string // Content-Type
	key   [1]string // the idempotency header
}

// lookupFunc asks the provider whether an earlier attempt took effect.
type lookupFunc func(ctx context.Context) (found bool, err error)

// prepare builds the HTTP request of a logical call once.
func (c *Client) prepare(op *Operation, m mode, r *Request) (*logical, error) {
	x := &logical{c: c, op: op, mode: m, hc: c.write, body: r.Body,
		set: op.Retry & c.cfg.mask, limit: max(op.Attempts, 1), keyTime: c.cfg.clock.Now()}
	if m == modeRead {
		x.hc = c.read
		if op.Retry == 0 {
			x.set = RetryReads & c.cfg.mask
		}
	}
	if c.cfg.maxAttempts > 0 {
		x.limit = min(x.limit, c.cfg.maxAttempts)
	}
	u := &x.url
	*u = c.base
	u.Path = c.prefix + r.Path
	if strings.IndexByte(u.Path, '%') >= 0 {
		u.RawPath = u.Path
		var err error
		if u.Path, err = url.PathUnescape(u.RawPath); err != nil {
			return nil, fmt.Errorf("runtime: operation %q: path %q: %w", op.Name, r.Path, err)
		}
	}
	if len(r.Query) > 0 {
		u.RawQuery = r.Query.Encode()
	}
	h := make(http.Header, len(c.cfg.header)+len(r.Header)+2)
	for k, v := range c.cfg.header {
		h[k] = v
	}
	for k, v := range r.Header {
		h[k] = v
	}
	if r.ContentType != "" {
		x.ctype[0] = r.ContentType
		h["Content-Type"] = x.ctype[:]
	}
	x.req = &x.hreq
	*x.req = http.Request{Method: r.Method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Host: u.Host}
	if len(r.Body) > 0 {
		body := r.Body
		x.req.ContentLength = int64(len(body))
		x.req.GetBody = func() (io.ReadCloser, error) { return newBody(body), nil }
	}
	x.trace.GotConn = x.onGotConn
	return x, nil
}

// setKey records the keys of a keyed write and sets the idempotency header,
// only when the provider honours one: net/http re-sends a request carrying
// Idempotency-Key on a broken reused connection by itself, which is safe
// only when the provider deduplicates on it.
func (x *logical) setKey(bk, pk string) {
	x.bk, x.pk = bk, pk
	if x.op.KeyHeader != "" {
		x.key[0] = pk
		x.req.Header[http.CanonicalHeaderKey(x.op.KeyHeader)] = x.key[:]
	}
}

func (x *logical) onGotConn(httptrace.GotConnInfo) { x.gotConn.Store(true) }

// response is the result of one attempt.
type response struct {
	class  Class
	status int
	header http.Header
	buf    *bytes.Buffer // the body, from bufPool; nil when none was read
	err    error
	gen    uint64 // generation of the token used
}

// bytes returns the body read, nil if none.
func (r *response) bytes() []byte {
	if r.buf == nil {
		return nil
	}
	return r.buf.Bytes()
}

// release returns the body buffer to the pool; r must not be used after.
func (r *response) release() {
	if r.buf != nil && r.buf.Cap() <= 1<<16 {
		r.buf.Reset()
		bufPool.Put(r.buf)
	}
	r.buf = nil
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// send makes one attempt and classifies it: not sent when no connection was
// obtained, ambiguous when one was but no complete response arrived.
// tctx is the call's context carrying x.trace (see run).
func (x *logical) send(ctx, tctx context.Context, n int) response {
	if h := x.c.cfg.hooks.AttemptStart; h != nil {
		h(ctx, x.op, n)
	}
	var gen uint64
	r := x.req.WithContext(tctx)
	if ts := x.c.cfg.tokens; ts != nil {
		tok, g, err := ts.Token(ctx)
		if err != nil {
			return response{class: ClassNotSent, err: fmt.Errorf("token: %w", err)}
		}
		gen = g
		r.Header = r.Header.Clone()
		r.Header.Set("Authorization", "Bearer "+tok)
	} else if x.hc.Jar != nil {
		r.Header = r.Header.Clone() // the client adds cookies to it
	}
	if len(x.body) > 0 {
		r.Body = newBody(x.body)
	}
	x.gotConn.Store(false)
	resp, err := x.hc.Do(r)
	if err != nil {
		c := ClassNotSent
		if x.gotConn.Load() {
			c = ClassAmbiguous
		}
		return response{class: c, err: err, gen: gen}
	}
	buf := bufPool.Get().(*bytes.Buffer)
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	out := response{class: ClassStatus, status: resp.StatusCode, header: resp.Header, buf: buf, gen: gen}
	switch {
	case err != nil:
		out.release()
		out.class, out.err = ClassAmbiguous, fmt.Errorf("read response body: %w", err)
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		out.class = ClassOK
	}
	return out
}

// newBody returns a request body reading b. It must be an io.NopCloser of a
// *bytes.Reader: net/http recognises that as in memory and writes headers
// and body in one segment, where any other reader costs a flush and a
// system call more.
func newBody(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
