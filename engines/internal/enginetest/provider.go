// Package enginetest holds what the tests of the engine modules share: a
// payments provider on 127.0.0.1 that commits effects, counts them per
// order, honours Idempotency-Key and loses answers after committing, and
// the figures of a seeded run.
package enginetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/writegen/writegen/runtime/ledger"
)

// Provider serves the API of payments.yaml:
//
//	POST /payments, /notices  {"order": O, "cents": N}  201 {"id", "order", "cents"}
//	POST /payouts             {"order": O, "cents": N}  202 {"status": "accepted"}, then a
//	                          payout.paid webhook to the URL given to Webhooks
//
// A POST with an Idempotency-Key it has seen is answered with the first
// answer for that key and commits nothing; every other POST commits one
// effect. The provider loses answers, first ones and repeated ones, as
// often as Lose says: it closes the connection without a word. After
// committing it calls OnCommit, whose answer can lose the answer too.
type Provider struct {
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	rnd      *rand.Rand        // guarded by mu
	lose     float64           // guarded by mu
	throttle int               // POSTs still to answer 429 without committing; guarded by mu
	effects  map[string]int    // "path order" → committed effects; guarded by mu
	answers  map[string][]byte // "path key" → the first answer; guarded by mu
	lost     int               // answers lost; guarded by mu
	onCommit func(path, order, worker string) (lose bool)
	hook     *webhooks
	nextID   int // guarded by mu
}

// NewProvider starts a provider whose losses are drawn from seed; Close
// stops it.
func NewProvider(seed uint64) *Provider {
	p := &Provider{
		rnd:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		effects: map[string]int{},
		answers: map[string][]byte{},
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	return p
}

// Close stops the provider.
func (p *Provider) Close() { p.srv.Close() }

// Lose makes the provider lose the answer of a committed POST with
// probability f.
func (p *Provider) Lose(f float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lose = f
}

// Throttle answers the next n POSTs 429 without committing anything.
func (p *Provider) Throttle(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.throttle = n
}

// OnCommit sets f, called after each effect is committed and before it is
// answered; when f returns true the answer is lost. Set it before the
// first request.
func (p *Provider) OnCommit(f func(path, order string) (lose bool)) {
	p.onCommit = func(path, order, _ string) bool { return f(path, order) }
}

// WorkerHeader is the request header in which a test's worker process
// names itself, for OnCommitBy.
const WorkerHeader = "X-Test-Worker"

// OnCommitBy is OnCommit whose f is also told the worker that sent the
// request (its WorkerHeader), to kill that one.
func (p *Provider) OnCommitBy(f func(path, order, worker string) (lose bool)) { p.onCommit = f }

// Draw returns a number in [0, 1) from the provider's seeded source, for
// schedules that belong with its losses.
func (p *Provider) Draw() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rnd.Float64()
}

// Effects returns how many effects the provider committed for order on
// path ("/payments").
func (p *Provider) Effects(path, order string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.effects[path+" "+order]
}

// Lost returns how many answers the provider lost.
func (p *Provider) Lost() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lost
}

// Webhooks makes the provider deliver a payout.paid event to url, signed
// with the Standard Webhooks secret, after each payout it commits.
func (p *Provider) Webhooks(url, secret string) error {
	v, err := ledger.NewStandardWebhooks(secret, 5*time.Minute)
	if err != nil {
		return err
	}
	p.hook = &webhooks{url: url, signer: v}
	return nil
}

// PayoutEvent is the body of a payout.paid webhook.
type PayoutEvent struct {
	Type string `json:"type"` // "payout.paid"
	Key  string `json:"key"`  // the Idempotency-Key of the payout's request
	ID   string `json:"id"`   // the payout's id
}

type webhooks struct {
	url    string
	signer *ledger.StandardWebhooks
}

// deliver posts e until the inbox answers 2xx, as providers retry.
func (w *webhooks) deliver(id string, e PayoutEvent) {
	body, _ := json.Marshal(e)
	for range 50 {
		req, _ := http.NewRequest(http.MethodPost, w.url, bytes.NewReader(body))
		now := time.Now()
		req.Header.Set("webhook-id", id)
		req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
		req.Header.Set("webhook-signature", w.signer.Sign(id, now, body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *Provider) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if r.Method != http.MethodPost || path != "/payments" && path != "/payouts" && path != "/notices" {
		http.NotFound(w, r)
		return
	}
	var in struct {
		Order string `json:"order"`
		Cents int64  `json:"cents"`
	}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &in)
	}
	if err != nil || in.Order == "" {
		http.Error(w, `{"error":"bad body"}`, http.StatusBadRequest)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	slot := path + " " + key

	p.mu.Lock()
	if p.throttle > 0 {
		p.throttle--
		p.mu.Unlock()
		http.Error(w, `{"error":"slow down"}`, http.StatusTooManyRequests)
		return
	}
	if key != "" {
		if a, ok := p.answers[slot]; ok {
			lose := p.rnd.Float64() < p.lose
			if lose {
				p.lost++
			}
			p.mu.Unlock()
			if lose {
				hangUp(w)
			} else {
				answer(w, path, a)
			}
			return
		}
	}
	p.nextID++
	id := fmt.Sprintf("%s_%d", path[1:4], p.nextID)
	p.effects[path+" "+in.Order]++
	var a []byte
	if path == "/payouts" {
		a, _ = json.Marshal(map[string]string{"status": "accepted"})
	} else {
		a, _ = json.Marshal(map[string]any{"id": id, "order": in.Order, "cents": in.Cents})
	}
	if key != "" {
		p.answers[slot] = a
	}
	lose := p.rnd.Float64() < p.lose
	p.mu.Unlock()

	if path == "/payouts" && p.hook != nil {
		go p.hook.deliver("evt_"+id, PayoutEvent{Type: "payout.paid", Key: key, ID: id})
	}
	if p.onCommit != nil && p.onCommit(path, in.Order, r.Header.Get(WorkerHeader)) {
		lose = true
	}
	if lose {
		p.mu.Lock()
		p.lost++
		p.mu.Unlock()
		hangUp(w)
		return
	}
	answer(w, path, a)
}

func answer(w http.ResponseWriter, path string, a []byte) {
	w.Header().Set("Content-Type", "application/json")
	if path == "/payouts" {
		w.WriteHeader(http.StatusAccepted)
	} else {
		w.WriteHeader(http.StatusCreated)
	}
	w.Write(a) //nolint:errcheck // the caller may be gone
}

// hangUp closes the connection without answering: the caller cannot tell
// whether the write happened.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) //nolint:errcheck // a reset is as good as a close
	}
	conn.Close()
}
