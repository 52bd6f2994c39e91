package simulator

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
)

// server is what both peers are made of: an HTTP server on 127.0.0.1, the idempotent writes it
// serves and the webhook it sends.
type server struct {
	srv      *httptest.Server
	writes   *writes
	webhook  *webhook
	instance string // makes event ids unique across servers, as a provider's are
}

func newServer(h http.Handler, w *writes, hook *webhook) server {
	var b [4]byte
	rand.Read(b[:])
	return server{srv: httptest.NewServer(h), writes: w, webhook: hook, instance: hex.EncodeToString(b[:])}
}

// eventID returns the id of the server's n-th event: "evc_1f2e3d4c_000001".
func (s *server) eventID(kind string, n int) string {
	return fmt.Sprintf("%s_%s_%06d", kind, s.instance, n)
}

// URL is the server's base URL.
func (s *server) URL() string { return s.srv.URL }

// Wait blocks until a moment when no slow commit is running and every webhook event sent has
// been acknowledged or abandoned (work that starts meanwhile may still run when it returns).
// Events held back to arrive late are let go at once.
func (s *server) Wait() {
	s.writes.slow.wait()
	s.webhook.wait()
}

// Events returns the ids of every webhook event sent so far, in order.
func (s *server) Events() []string {
	s.webhook.mu.Lock()
	defer s.webhook.mu.Unlock()
	return slices.Clone(s.webhook.ids)
}

// Close waits as Wait does and stops the server.
func (s *server) Close() {
	s.Wait()
	s.srv.Close()
}
