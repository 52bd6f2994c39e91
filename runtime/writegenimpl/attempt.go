package writegenimpl

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

	"github.com/writegen/writegen/runtime"
)

// mode is the kind of a logical call.
type mode uint8

const (
	modeRead  mode = iota // a read: retried freely within its set, never uncertain
	modeWrite             // a write with a business key
	modeDo                // a write without a key
)

// logical is one logical call: one request, sent by one or more attempts.
// It belongs to the caller's goroutine; only lease is shared with the
// heartbeat.
type logical struct {
	c    *Client
	op   *Operation
	mode mode
	info runtime.CallInfo // what hooks see; Identity and ProviderKey of a keyed write
	ref  string           // what the lookup searches for

	hc      *http.Client
	request *Request      // as built by generated code
	req     *http.Request // built once (in hreq); each attempt sends a shallow copy
	body    []byte
	enc     []byte // EncodeRequest(request), once needed
	digest  []byte // SHA-256 of enc, keyed writes only

	set     runtime.Retry // the operation's retry set, narrowed by the client
	limit   int           // maximum attempts
	keyTime time.Time     // when the key was first used (first send or ledger claim)
	keyOwn  bool          // this call made the key's first use (an unknown window is relied on only then)
	keyNew  bool          // the ledger row was created by this call: no caller sent the key before it
	codec   codec
	receipt bool // a 2xx must carry a durable id
	lookups bool // the operation has a lookup the call can ask

	attempts   int           // attempts made
	running    int           // attempts answered 409 "still in progress": waits, not counted against limit
	waited     time.Duration // the waits after those 409s, bounded by runningBudget
	sent       bool          // an attempt may have taken effect and nothing proved otherwise
	claimed    bool          // the call won the key's ledger claim: no attempt with the key runs but its own
	status     int           // status of the last attempt, 0 if none
	lastEnd    time.Time     // when the last attempt ended; for a row taken over, when the holder's lease did
	budgeted   bool          // the next retry draws from the client's retry budget
	found      []found       // what the lookup found: the first is adopted, the rest are duplicates
	reask      time.Duration // ending uncertain: asking the lookup again after it may settle the write; 0: it cannot
	redrives   int           // how often the row was taken over uncertain before (Record.Redrives)
	scheduled  bool          // the row was settled uncertain for a later Resume to drive on
	lease      *lease        // the ledger claim held, nil when none
	rowID      int64         // the ledger row claimed, 0 when none
	settledRow int64         // the row settle recorded uncertain, 0 when none

	compensated int             // duplicates compensated
	actx        context.Context // the context AttemptStart gave the last attempt, nil if none
	ending      bool            // the last attempt's AttemptDone is still to be told

	// Storage for req and the first attempt's trace, allocated with x.
	trace attemptTrace
	hreq  http.Request
	url   url.URL
	ctype [1]string // Content-Type
	key   [1]string // the idempotency header
}

// prepare builds the HTTP request of a logical call once.
func (c *Client) prepare(op *Operation, m mode, r *Request) (*logical, error) {
	if r == nil {
		return nil, fmt.Errorf("writegen: operation %q: no request", op.ID)
	}
	x := &logical{c: c, op: op, mode: m, hc: c.write, request: r, body: r.Body,
		set: op.Retry & c.s.RetryMask, limit: max(op.Attempts, 1), keyOwn: true}
	x.info = runtime.CallInfo{OperationID: op.ID, Method: op.Method, Path: op.Path, Write: m != modeRead,
		Identity: runtime.Identity{Scope: c.scope}}
	if m == modeRead {
		x.hc = c.read
		if op.Retry == 0 {
			x.set = runtime.RetryReads & c.s.RetryMask
		}
	} else {
		x.info.Tenant, x.info.Operation = c.s.Tenant, op.keyScope()
		x.keyTime = c.s.Clock.Now() // a read has no key
	}
	if c.s.MaxAttempts > 0 {
		x.limit = min(x.limit, c.s.MaxAttempts)
	}
	u := &x.url
	*u = c.base
	u.Path = c.prefix + r.Path
	if strings.IndexByte(u.Path, '%') >= 0 {
		u.RawPath = u.Path
		var err error
		if u.Path, err = url.PathUnescape(u.RawPath); err != nil {
			return nil, fmt.Errorf("writegen: operation %q: path %q: %w", op.ID, r.Path, err)
		}
	}
	if len(r.Query) > 0 {
		u.RawQuery = r.Query.Encode()
	}
	h := make(http.Header, len(c.s.Header)+len(r.Header)+2)
	for k, v := range c.s.Header {
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
	x.req.ContentLength = int64(len(r.Body))
	if m == modeRead && len(r.Body) > 0 {
		// A read may be sent again by the transport: that is harmless.
		body := r.Body
		x.req.GetBody = func() (io.ReadCloser, error) { return newBody(body), nil }
	}
	return x, nil
}

// setKey records the identity and keys of a keyed write and sets the
// idempotency header, only when the provider honours one.
func (x *logical) setKey(id runtime.Identity, pk, ref string) {
	x.info.Identity, x.info.ProviderKey, x.ref = id, pk, ref
	if x.op.KeyHeader != "" {
		x.key[0] = pk
		x.req.Header[http.CanonicalHeaderKey(x.op.KeyHeader)] = x.key[:]
	}
}

// response is the result of one attempt.
type response struct {
	class  runtime.Class
	status int
	header http.Header
	buf    *bytes.Buffer // the body, from bufPool; nil when none was read
	err    error
	gen    uint64 // generation of the token used
	conns  int    // connections obtained
	wrote  int    // times the request's headers were written
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

// attemptTrace counts, for one attempt, the connections the transport
// obtained and the times it wrote the request's headers. Every attempt has
// its own, so that a late callback of an earlier attempt cannot count.
type attemptTrace struct {
	conns atomic.Int32
	wrote atomic.Int32
	trace httptrace.ClientTrace
	ctx   attemptCtx // the attempt's deadline, when it has one of its own
}

// attemptTrace returns the trace of attempt n: the first is part of x, a
// later one is new.
func (x *logical) attemptTrace(n int) *attemptTrace {
	t := &x.trace
	if n > 1 {
		t = new(attemptTrace)
	}
	t.trace.GotConn = func(httptrace.GotConnInfo) { t.conns.Add(1) }
	t.trace.WroteHeaders = func() { t.wrote.Add(1) }
	return t
}

// send makes attempt n and classifies it: not sent when the request's
// headers were never written, ambiguous when they were but no complete
// response arrived, or when they were written more than once (the
// transport sent the request again) and the status is not a success.
func (x *logical) send(ctx context.Context, n int) response {
	if h := x.c.s.Hooks.AttemptStart; h != nil {
		if hctx := h(ctx, &x.info, n); hctx != nil {
			ctx = hctx
		}
		x.actx = ctx
	}
	var gen uint64
	r := x.req
	if ts := x.c.s.Tokens; ts != nil {
		tok, g, err := ts.Token(ctx)
		if err != nil {
			return response{class: runtime.ClassNotSent, err: fmt.Errorf("token: %w", err)}
		}
		gen = g
		cp := *r
		cp.Header = r.Header.Clone()
		cp.Header.Set("Authorization", "Bearer "+tok)
		r = &cp
	} else if x.hc.Jar != nil {
		cp := *r
		cp.Header = r.Header.Clone() // the client adds cookies to it
		r = &cp
	}
	t := x.attemptTrace(n)
	ctx = httptrace.WithClientTrace(ctx, &t.trace)
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > x.c.s.AttemptTimeout {
		ctx = x.c.deadlines.start(ctx, &t.ctx)
		defer x.c.deadlines.end(&t.ctx)
	}
	r = r.WithContext(ctx)
	switch {
	case x.mode != modeRead:
		r.Body = writeBody(x.body)
		if len(x.body) == 0 {
			// No body: HTTP/1.1 sends neither a Content-Length nor a chunked body of length
			// zero, which servers may read as a body given (empty), so the request has no
			// body, as RFC 9112 reads a request without either.
			r.TransferEncoding = identity
		}
	case len(x.body) > 0:
		r.Body = newBody(x.body)
	}
	resp, err := x.hc.Do(r)
	if err != nil {
		out := response{class: runtime.ClassNotSent, err: err, gen: gen, conns: int(t.conns.Load()), wrote: int(t.wrote.Load())}
		if out.wrote > 0 {
			out.class = runtime.ClassAmbiguous
		}
		return out
	}
	if x.mode == modeRead {
		// A bounded list lookup reads the provider's clock after its own first read
		// (LookupSince): the Date of reads is all it needs, and writes pay nothing.
		x.c.provider.observe(resp.Header, x.c.s.Clock.Now())
	}
	buf := bufPool.Get().(*bytes.Buffer)
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	out := response{class: runtime.ClassStatus, status: resp.StatusCode, header: resp.Header, buf: buf, gen: gen,
		conns: int(t.conns.Load()), wrote: int(t.wrote.Load())}
	switch {
	case err != nil:
		out.release()
		out.class, out.err = runtime.ClassAmbiguous, fmt.Errorf("read response body: %w", err)
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		out.class = runtime.ClassOK
	}
	return out
}

// newBody returns a request body reading b. It must be an io.NopCloser of a
// *bytes.Reader: net/http recognises that as in memory and writes headers
// and body in one segment, where any other reader costs a flush and a
// system call more.
func newBody(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }

// writeBody returns the body of one attempt of a write. The request has no
// GetBody and the body is never http.NoBody, not even when it is empty
// (then it is an emptyBody), so neither HTTP/1.1 nor HTTP/2 can send it
// again by itself: net/http replays a request below its caller only when it
// can rewind the body.
func writeBody(b []byte) io.ReadCloser {
	if len(b) == 0 {
		return emptyBody{}
	}
	return newBody(b)
}

// identity is the Transfer-Encoding of a write without a body.
var identity = []string{"identity"}

// emptyBody is the body of a write without one: a reader at its end.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error) { return 0, io.EOF }
func (emptyBody) Close() error             { return nil }
