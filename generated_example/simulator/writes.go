package simulator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Fault is what a server does to one write request.
type Fault uint8

// The faults a write request can meet.
const (
	// NoFault carries the write out and answers it.
	NoFault Fault = iota
	// LoseRequest drops the connection before anything commits, without a byte of answer.
	LoseRequest
	// LoseResponse commits the write, then drops the connection in the middle of the answer.
	LoseResponse
	// SlowCommit commits slowly. By default it drops the connection while the commit is still
	// running, and the commit finishes as soon as a request with the same key has been answered
	// 409, or shortly after (for a request without a key, always shortly after). With a SlowCommitFunc the request is held, unanswered, while the
	// commit runs for as long as the function says (longer than the caller waits, usually),
	// and every request with the same key meanwhile is answered 409 at once.
	SlowCommit
	// Unavailable answers 503 before anything commits.
	Unavailable
	// RotateToken has a concurrent refresh rotate the token the request carries, then answers
	// 401; nothing commits. Only the support desk rotates tokens.
	RotateToken
	// RotateAfterCommit commits the write, then has a concurrent refresh rotate the token the
	// request carries, then answers 401.
	RotateAfterCommit
	numFaults
)

var faultNames = [numFaults]string{"none", "request lost", "response lost", "slow commit", "unavailable", "token rotated", "token rotated after commit"}

// String names the fault.
func (f Fault) String() string {
	if f < numFaults {
		return faultNames[f]
	}
	return "unknown fault"
}

// FaultFunc decides the fault of a write request that is to be carried out (a request answered
// from its idempotency key meets none): operation is the spec's operationId, key the
// Idempotency-Key header (for a request without one, "body:" and a digest of its body, so that the
// tries of one keyless write share it) and n counts the requests with this operation and key,
// 1 for the first.
type FaultFunc func(operation, key string, n int) Fault

// SlowCommitFunc says how long the commit of a write request that meets SlowCommit runs, with
// the same arguments as a FaultFunc; 0 keeps the default behaviour.
type SlowCommitFunc func(operation, key string, n int) time.Duration

// WriteStats counts what the writes of one server did.
type WriteStats struct {
	Requests   int           // write requests received
	Committed  int           // writes committed (each is one effect)
	Replayed   int           // answered with the stored response of an earlier request with the same key
	InProgress int           // answered 409: the first request with the same key was still running
	KeyReused  int           // answered 422: the same key came with another body
	Faults     map[Fault]int // faults injected, by kind
	// Faulted counts, by operation, the writes that met at least one fault: a write is its
	// idempotency key, or its body when it has none. For a write the provider cannot deduplicate
	// and the client cannot look up, each of them ends uncertain.
	Faulted map[string]int
}

// slowCommitCap bounds how long a slow commit waits for a retry before finishing on its own.
const slowCommitCap = 50 * time.Millisecond

// commitFunc carries out a write whose request body is body, committing at at by the server's
// clock, and returns its response.
type commitFunc func(body []byte, at time.Time) (status int, resp any)

// writes runs the write requests of one server: idempotency keys, faults and counts.
type writes struct {
	faults  FaultFunc
	slowFor SlowCommitFunc                  // nil: slow commits drop the connection at once
	rotate  func(ctx context.Context) error // nil: rotation faults are ignored
	slow    inflight                        // slow commits still running
	now     func() time.Time                // the server's clock

	mu       sync.Mutex
	keys     map[string]*keyed // by operation + " " + key
	arrivals map[string]int    // by operation + " " + key
	faulted  map[string]bool   // by operation + " " + key
	pending  []*deferred       // commits due at a time of the server's clock
	stats    WriteStats
}

// keyed is what a server remembers of one idempotency key.
type keyed struct {
	sum     [sha256.Size]byte
	done    chan struct{} // closed once the response is stored (or the request failed)
	release chan struct{} // closed to let a slow commit finish
	held    bool          // a slow commit that holds its request: repeats are answered 409 at once
	once    sync.Once
	status  int // 0 when the request failed before committing
	body    []byte
}

func newWrites(faults FaultFunc, slowFor SlowCommitFunc, rotate func(ctx context.Context) error) *writes {
	if faults == nil {
		faults = func(string, string, int) Fault { return NoFault }
	}
	return &writes{
		faults:   faults,
		slowFor:  slowFor,
		now:      time.Now,
		rotate:   rotate,
		keys:     make(map[string]*keyed),
		arrivals: make(map[string]int),
		faulted:  make(map[string]bool),
		stats:    WriteStats{Faults: make(map[Fault]int), Faulted: make(map[string]int)},
	}
}

// serve runs one write request of operation op.
func (s *writes) serve(w http.ResponseWriter, r *http.Request, op string, commit commitFunc) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		problem(w, http.StatusBadRequest, "unreadable body")
		return
	}
	// A write the server carries out at once commits when it arrives, by the server's clock: a
	// caller that moves the clock meanwhile (a connector paused while the request was on its
	// way, see Fault) finds it committed before the move, as a server that is not paused would.
	arrived := s.now()
	key := r.Header.Get("Idempotency-Key")
	sum := sha256.Sum256(body)
	// A write without a key is told apart by its body, for its faults and arrivals only: the
	// desk carries out every one.
	fkey := key
	if key == "" {
		fkey = "body:" + hex.EncodeToString(sum[:8])
	}
	id := op + " " + fkey

	s.mu.Lock()
	s.stats.Requests++
	s.arrivals[id]++
	n := s.arrivals[id]
	var k *keyed
	if key != "" {
		if prev := s.keys[id]; prev != nil {
			s.mu.Unlock()
			s.repeat(w, prev, sum)
			return
		}
		k = &keyed{sum: sum, done: make(chan struct{}), release: make(chan struct{})}
		s.keys[id] = k
	}
	s.mu.Unlock()

	// Only a request that is carried out meets a fault: a repeat is answered from the key.
	fault := s.faults(op, fkey, n)
	if s.rotate == nil && (fault == RotateToken || fault == RotateAfterCommit) {
		fault = NoFault
	}
	if fault != NoFault {
		s.count(func(st *WriteStats) {
			st.Faults[fault]++
			if !s.faulted[id] {
				s.faulted[id] = true
				st.Faulted[op]++
			}
		})
	}

	switch fault {
	case LoseRequest:
		s.forget(id, k)
		drop(w, false)
		return
	case Unavailable:
		s.forget(id, k)
		problem(w, http.StatusServiceUnavailable, "try again later")
		return
	case RotateToken:
		s.forget(id, k)
		s.rotateDuring(w, r)
		return
	case SlowCommit:
		if d := s.slowFor.duration(op, fkey, n); d > 0 {
			s.holdCommit(w, id, k, commit, body, d)
			return
		}
		s.slow.add()
		if k == nil {
			// Without a key nothing tells the server that the caller asks again: the
			// request runs on after its connection broke, and commits slowCommitCap later by
			// the server's clock (which a caller's instant waits move on as well).
			due := arrived.Add(slowCommitCap)
			s.later(due, func() { s.finishAt(id, k, commit, body, due) })
			drop(w, true)
			return
		}
		go func() {
			defer s.slow.done()
			select {
			case <-k.release:
			case <-time.After(slowCommitCap):
			}
			s.finish(id, k, commit, body)
		}()
		drop(w, true)
		return
	}
	status, resp := s.finishAt(id, k, commit, body, arrived)
	switch fault {
	case LoseResponse:
		drop(w, true)
	case RotateAfterCommit:
		s.rotateDuring(w, r)
	default:
		if k != nil && status < 500 {
			w.Header().Set("Idempotency-Key", key)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(resp)
	}
}

// duration returns how long the slow commit of a request runs, 0 for the default.
func (f SlowCommitFunc) duration(op, key string, n int) time.Duration {
	if f == nil {
		return 0
	}
	return f(op, key, n)
}

// holdCommit runs a slow commit of d while the request waits, unanswered; the commit happens
// even when the caller has given up meanwhile, and its answer is written, if the connection is
// still there to take it.
func (s *writes) holdCommit(w http.ResponseWriter, id string, k *keyed, commit commitFunc, body []byte, d time.Duration) {
	s.slow.add()
	defer s.slow.done()
	if k != nil {
		s.mu.Lock()
		k.held = true
		s.mu.Unlock()
	}
	time.Sleep(d)
	status, resp := s.finish(id, k, commit, body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(resp)
}

// repeat answers a request whose key was seen before.
func (s *writes) repeat(w http.ResponseWriter, k *keyed, sum [sha256.Size]byte) {
	s.mu.Lock()
	held := k.held
	s.mu.Unlock()
	select {
	case <-k.done:
	default:
		if held {
			// The first request is still running, and will be for a while.
			s.count(func(st *WriteStats) { st.InProgress++ })
			problem(w, http.StatusConflict, "a request with this idempotency key is still running")
			return
		}
		// The first request is still running. Let a slow commit finish and answer only once it
		// has, so that the retry after this 409 is served the stored response.
		k.once.Do(func() { close(k.release) })
		<-k.done
		s.count(func(st *WriteStats) { st.InProgress++ })
		problem(w, http.StatusConflict, "a request with this idempotency key is still running")
		return
	}
	switch {
	case k.status == 0:
		// The first request failed before committing and was forgotten after this one looked.
		problem(w, http.StatusConflict, "a request with this idempotency key is still running")
		s.count(func(st *WriteStats) { st.InProgress++ })
	case k.sum != sum:
		s.count(func(st *WriteStats) { st.KeyReused++ })
		problem(w, http.StatusUnprocessableEntity, "idempotency key reused with another request body")
	default:
		s.count(func(st *WriteStats) { st.Replayed++ })
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(k.status)
		w.Write(k.body)
	}
}

// finish commits the write now and stores its response under its key (k may be nil).
func (s *writes) finish(id string, k *keyed, commit commitFunc, body []byte) (int, []byte) {
	return s.finishAt(id, k, commit, body, s.now())
}

// finishAt is finish for a commit at at by the server's clock: a deferred commit that runs late
// (when a request or a watcher finds it due) committed at its due time.
func (s *writes) finishAt(id string, k *keyed, commit commitFunc, body []byte, at time.Time) (int, []byte) {
	status, resp := commit(body, at)
	b, err := json.Marshal(resp)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"title":"cannot encode the response"}`)
	}
	if status >= 200 && status < 300 {
		s.count(func(st *WriteStats) { st.Committed++ })
	}
	if status >= 500 {
		s.forget(id, k)
		return status, b
	}
	if k != nil {
		k.status, k.body = status, b
		close(k.done)
	}
	return status, b
}

// forget removes a key whose request did not commit, so that a retry carries it out.
func (s *writes) forget(id string, k *keyed) {
	if k == nil {
		return
	}
	s.mu.Lock()
	delete(s.keys, id)
	s.mu.Unlock()
	close(k.done)
}

// rotateDuring rotates the token the request carries, as a concurrent refresh would, and
// answers 401.
func (s *writes) rotateDuring(w http.ResponseWriter, r *http.Request) {
	if err := s.rotate(r.Context()); err != nil {
		problem(w, http.StatusInternalServerError, "rotation failed: "+err.Error())
		return
	}
	problem(w, http.StatusUnauthorized, "the access token was rotated")
}

func (s *writes) count(f func(*WriteStats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

func (s *writes) snapshot() WriteStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Faults = make(map[Fault]int, len(s.stats.Faults))
	for f, n := range s.stats.Faults {
		st.Faults[f] = n
	}
	st.Faulted = maps.Clone(s.stats.Faulted)
	return st
}

// drop closes the connection without answering. With partial, the first bytes of a status line
// go out first, as when a connection breaks while the answer is on its way: Go's transport then
// reports the failure instead of quietly sending the request again on a new connection (which it
// does for a request with an Idempotency-Key when a reused connection closes without a byte).
func drop(w http.ResponseWriter, partial bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if partial {
		conn.Write([]byte("HTTP/1.1 2"))
	}
	conn.Close()
}

// problem answers status with a problem body.
func problem(w http.ResponseWriter, status int, title string) {
	writeJSON(w, status, problemBody(title))
}

// newMessage is the body of a message posted to either peer.
type newMessage struct {
	Author    string `json:"author"`
	Text      string `json:"text"`
	InReplyTo string `json:"in_reply_to"` // the chat platform's only
}

// readMessage decodes a message body; ok is false when it is malformed or has no author.
func readMessage(body []byte) (m newMessage, ok bool) {
	return m, decode(body, &m) == nil && m.Author != ""
}

// decode reads a JSON body strictly.
func decode(body []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// deferred is a commit due at a time of the server's clock.
type deferred struct {
	due  time.Time
	once sync.Once
	run  func()
}

// later commits run at due by the server's clock: at the first request the server handles from
// then on (due), or when a watcher sees the clock pass it, whichever comes first. A slow commit
// counts as running until then.
func (s *writes) later(due time.Time, run func()) {
	d := &deferred{due: due, run: func() { run(); s.slow.done() }}
	s.mu.Lock()
	s.pending = append(s.pending, d)
	s.mu.Unlock()
	go func() {
		for s.now().Before(due) {
			time.Sleep(time.Millisecond)
		}
		s.due()
		d.once.Do(d.run)
	}()
}

// due runs the deferred commits whose time has come by the server's clock, and returns once they
// are done, also those another caller started. The server's handlers call it before they answer,
// so that what a request reads never lags the server's clock.
func (s *writes) due() {
	now := s.now()
	var run []*deferred
	s.mu.Lock()
	for _, d := range s.pending {
		if !now.Before(d.due) {
			run = append(run, d)
		}
	}
	s.mu.Unlock()
	for _, d := range run {
		d.once.Do(d.run) // waits for a run another caller started
	}
	if len(run) == 0 {
		return
	}
	s.mu.Lock()
	s.pending = slices.DeleteFunc(s.pending, func(d *deferred) bool { return slices.Contains(run, d) })
	s.mu.Unlock()
}
