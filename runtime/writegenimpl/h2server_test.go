package writegenimpl

import (
	"bufio"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// HTTP/2 frame types and flags (RFC 9113 §6) that h2server uses.
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	framePing         = 0x6
	frameGoAway       = 0x7
	flagEndStream     = 0x1
	flagAck           = 0x1
	flagEndHeaders    = 0x4
	codeNoError       = 0x0
	codeRefusedStream = 0x7
	clientPreface     = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
)

// h2server is an HTTP/2 server written frame by hand on 127.0.0.1, so that
// it can do what net/http's server never does: commit a request and then
// refuse its stream (RST_STREAM REFUSED_STREAM) or go away (GOAWAY naming
// an earlier stream as the last processed), which tell a client that the
// request was not processed and may be sent again. Each complete request
// is one effect; the first refuse requests are refused so, the others
// answered 200 with a thing.
type h2server struct {
	URL    string
	how    string // "rst" or "goaway"
	refuse int

	ln net.Listener

	mu      sync.Mutex // guards effects and conns
	effects int
	conns   []net.Conn // every connection accepted, closed by the test's cleanup
}

// newH2Server starts an h2server; tlsConfig nil means h2c (HTTP/2 over
// cleartext with prior knowledge).
func newH2Server(t *testing.T, how string, refuse int, tlsConfig *tls.Config) *h2server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &h2server{how: how, refuse: refuse, ln: ln, URL: "http://" + ln.Addr().String()}
	if tlsConfig != nil {
		s.ln = tls.NewListener(ln, tlsConfig)
		s.URL = "https://" + ln.Addr().String()
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		s.ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := s.ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, conn)
			s.mu.Unlock()
			wg.Go(func() { s.serve(conn) })
		}
	})
	return s
}

// tlsH2 returns the TLS configuration of an httptest server with HTTP/2
// enabled, for an h2server, and a client that trusts it and speaks HTTP/2.
func tlsH2(t *testing.T) (*tls.Config, *http.Client) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &tls.Config{Certificates: srv.TLS.Certificates, NextProtos: []string{"h2"}}, srv.Client()
}

// h2cClient returns a client that speaks HTTP/2 over cleartext.
func h2cClient(t *testing.T) *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &p}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func (s *h2server) effectCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.effects
}

// serve speaks HTTP/2 on conn until the client closes it.
func (s *h2server) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	preface := make([]byte, len(clientPreface))
	if _, err := io.ReadFull(r, preface); err != nil || string(preface) != clientPreface {
		return
	}
	if writeFrame(conn, frameSettings, 0, 0, nil) != nil {
		return
	}
	for {
		var h [9]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return
		}
		n := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
		typ, flags, stream := h[3], h[4], binary.BigEndian.Uint32(h[5:])&0x7fffffff
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return
		}
		var err error
		switch typ {
		case frameSettings:
			if flags&flagAck == 0 {
				err = writeFrame(conn, frameSettings, flagAck, 0, nil)
			}
		case framePing:
			if flags&flagAck == 0 {
				err = writeFrame(conn, framePing, flagAck, 0, payload)
			}
		case frameHeaders, frameData:
			// A request ends with END_STREAM, on its HEADERS when it has no
			// body, else on its last DATA frame.
			if flags&flagEndStream != 0 {
				err = s.request(conn, stream)
			}
		case frameGoAway:
			return
		}
		if err != nil {
			return
		}
	}
}

// request commits the request of stream and answers it.
func (s *h2server) request(conn net.Conn, stream uint32) error {
	s.mu.Lock()
	s.effects++
	n := s.effects
	s.mu.Unlock()
	if n <= s.refuse {
		var p [8]byte
		if s.how == "rst" {
			binary.BigEndian.PutUint32(p[:], codeRefusedStream)
			return writeFrame(conn, frameRSTStream, 0, stream, p[:4])
		}
		last := uint32(0) // the last stream processed: the one before, if any
		if stream > 2 {
			last = stream - 2
		}
		binary.BigEndian.PutUint32(p[:], last)
		binary.BigEndian.PutUint32(p[4:], codeNoError)
		return writeFrame(conn, frameGoAway, 0, 0, p[:])
	}
	// 0x88: HPACK's static table entry 8, ":status: 200".
	if err := writeFrame(conn, frameHeaders, flagEndHeaders, stream, []byte{0x88}); err != nil {
		return err
	}
	return writeFrame(conn, frameData, flagEndStream, stream, fmt.Appendf(nil, `{"id":"th_%d","title":"x"}`, n))
}

func writeFrame(w io.Writer, typ, flags byte, stream uint32, payload []byte) error {
	b := make([]byte, 9, 9+len(payload))
	b[0], b[1], b[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	b[3], b[4] = typ, flags
	binary.BigEndian.PutUint32(b[5:], stream)
	_, err := w.Write(append(b, payload...))
	return err
}
