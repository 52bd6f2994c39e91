package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/writegen/writegen/runtime"
)

// serveTokens serves the desk's credential to the relay processes, as a connector's replicas
// would share one through their database or a secrets service: one refresher, in the Env,
// refreshes it, and every process asks it for the current token and whether the token of a
// request has been rotated since.
//
//	GET /token           {"token": "...", "gen": 3}
//	GET /rotated?gen=3   {"rotated": true}
func serveTokens(ts runtime.TokenSource) (string, *http.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /token", func(w http.ResponseWriter, r *http.Request) {
		tok, gen, err := ts.Token(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		json.NewEncoder(w).Encode(tokenReply{Token: tok, Gen: gen})
	})
	mux.HandleFunc("GET /rotated", func(w http.ResponseWriter, r *http.Request) {
		gen, err := strconv.ParseUint(r.URL.Query().Get("gen"), 10, 64)
		if err != nil {
			http.Error(w, "gen: "+err.Error(), http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(tokenReply{Rotated: ts.Rotated(gen)})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), srv, nil
}

type tokenReply struct {
	Token   string `json:"token,omitempty"`
	Gen     uint64 `json:"gen,omitempty"`
	Rotated bool   `json:"rotated,omitempty"`
}

// remoteTokens is the runtime.TokenSource of a relay process: the token service of its Env.
type remoteTokens struct {
	url    string
	client *http.Client
}

func (t *remoteTokens) get(ctx context.Context, path string) (tokenReply, error) {
	var tr tokenReply
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url+path, nil)
	if err != nil {
		return tr, err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return tr, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return tr, fmt.Errorf("token service: %s: status %d", path, resp.StatusCode)
	}
	return tr, json.NewDecoder(resp.Body).Decode(&tr)
}

// Token implements runtime.TokenSource.
func (t *remoteTokens) Token(ctx context.Context) (string, uint64, error) {
	tr, err := t.get(ctx, "/token")
	return tr.Token, tr.Gen, err
}

// Rotated implements runtime.TokenSource. When the service cannot say, the token may have been
// rotated: an auth failure is then read as ambiguous, never as "not applied".
func (t *remoteTokens) Rotated(gen uint64) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tr, err := t.get(ctx, "/rotated?gen="+strconv.FormatUint(gen, 10))
	return err != nil || tr.Rotated
}
