package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// How slow a slow commit is, and when the gateway in front of it gives up on the connection.
const (
	slowCommitTime  = 300 * time.Millisecond
	slowGatewayTime = 100 * time.Millisecond
)

// sendHeader carries an id the baselines' transport wrapper gives each request it is handed
// (sendTag): a second request with the same id was sent again by net/http itself.
const sendHeader = "X-Bench-Send"

// provider is the payments provider of api.yaml on 127.0.0.1: it makes transfers, counts them
// per order (the business identity), honours Idempotency-Key as its profile says (Stripe: 24 h),
// keeps each transfer's reference with a strongly consistent search by it, and injects the
// faults of its schedule into create requests. It also serves api-comments.yaml: a comment on a
// ticket, without key or reference field, and the ticket's comments newest first, a page at a
// time; a comment's effect is counted for the order its text names.
type provider struct {
	srvs  []*http.Server
	urls  []string // one listener per calling process (replica), so that a crash kills the sender
	cfg   providerConfig
	fault func(orderID string, n int) fault
	procs []process
	slow  sync.WaitGroup // slow commits still running

	mu      sync.Mutex
	keys    map[string]*keyed    // by idempotency key
	byRef   map[string][][]byte  // transfers (their JSON) by reference, oldest first
	tickets map[string][]comment // comments by ticket, oldest first
	effects map[string]int       // transfers (or comments) committed by order id
	owner   map[string]string    // transfer (or comment) id -> order id
	amount  map[string]int64     // transfer (or comment) id -> the amount it pays
	paid    map[string][]int64   // the amounts of the transfers of each order id
	history map[string][]request // create requests by order id, in order of arrival
	sends   map[string]bool      // the sendHeader ids seen
	made    int
	stats   providerStats
}

// process is what the provider knows of one calling process (a replica) and its restarts.
type process struct {
	// gen returns the generation of the process running now, stamped on each connection to the
	// replica's listener.
	gen func() int
	// kill kills the process if the request came from the one running now (gen is the
	// generation of the connection) and returns once it is dead.
	kill func(gen int)
}

// providerStats counts what the provider saw.
type providerStats struct {
	Calls      int // requests of any kind, faulted or not
	Creates    int // create requests
	Lookups    int // searches by reference
	Replayed   int // creates answered with the stored response of their key
	Conflicts  int // creates answered 409: the first request with the key was still running
	KeyReused  int // creates whose key came with another body: answered 422, or as the first was when the provider does not compare
	KeyTooLong int // creates answered 400: the key is longer than the provider takes
	Replays    int // creates net/http sent again by itself (a sendHeader id seen before)
	Faults     [numFaults]int
}

// request is what the provider remembers of one create request, to say what each duplicate
// effect came from.
type request struct {
	proc   int   // the calling process (replica), from 0
	gen    int   // the generation of the calling process
	fault  fault // the fault it met
	keyed  bool  // it carried an idempotency key the provider honours
	replay bool  // net/http sent it again by itself
	commit bool  // it made a transfer (or will: a slow commit)
}

func (r request) String() string {
	s := fmt.Sprintf("process %d: %s", r.gen, r.fault)
	if r.proc > 0 {
		s = fmt.Sprintf("replica %d %s", r.proc+1, s)
	}
	if !r.keyed {
		s += ", no key"
	}
	if r.replay {
		s += ", replayed by net/http"
	}
	if r.commit {
		s += ", committed"
	}
	return s
}

// keyed is what the provider remembers of one idempotency key.
type keyed struct {
	sum    [sha256.Size]byte
	at     time.Time
	done   bool // the response is stored
	status int
	body   []byte
}

// newTransfer is the body of a create request (NewTransfer in api.yaml).
type newTransfer struct {
	OrderID   string  `json:"order_id"`
	Amount    int64   `json:"amount"`
	Currency  string  `json:"currency"`
	Reference *string `json:"reference,omitempty"`
}

// transfer is a transfer as the provider answers it (Transfer in api.yaml).
type transfer struct {
	ID        string    `json:"id"`
	OrderID   string    `json:"order_id"`
	Amount    int64     `json:"amount"`
	Currency  string    `json:"currency"`
	Reference *string   `json:"reference,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// comment is a comment as the provider answers it (Comment in api-comments.yaml).
type comment struct {
	ID        string    `json:"id"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
}

// commentPage is one page of a ticket's comments (CommentPage in api-comments.yaml).
type commentPage struct {
	Comments []comment `json:"comments"`
	Meta     struct {
		HasMore     bool   `json:"has_more"`
		AfterCursor string `json:"after_cursor,omitempty"`
	} `json:"meta"`
}

// A ticket's comments: how many a page lists (Zendesk's cursor pagination lists up to 100,
// scaled down here so that a walk reads several pages), and how many other agents wrote on the
// ticket an hour before the benchmark's comments.
const (
	commentPageSize = 2
	earlierComments = 2
)

// commentOrder reads the order and the amount a comment's text names (commentText).
var commentOrder = regexp.MustCompile(`^Order (\S+) paid out: (\d+) `)

// commentText is the text of the comment that says an order was paid out.
func commentText(o order) string {
	return fmt.Sprintf("Order %s paid out: %d %s.", o.id, o.amount, currency)
}

// procKey is the context key of a connection's calling process: a [2]int of its replica and
// generation.
type procKey struct{}

// providerConfig is what a profile sets of the provider's behaviour.
type providerConfig struct {
	keyed      bool          // it honours Idempotency-Key; else it ignores the header
	window     time.Duration // how long it remembers a key
	maxKey     int           // the longest key it takes (400 beyond), 0 for no limit
	retryAfter string        // seconds, on 429 and 503
	// compares: a key that comes again with another body is refused (422); else the stored
	// answer of its first request is returned whatever the body.
	compares bool
	api      string // apiTransfers (api.yaml) or apiComments (api-comments.yaml)
}

// stripeConfig is the provider as Stripe documents its idempotency keys.
var stripeConfig = providerConfig{keyed: true, window: 24 * time.Hour, maxKey: 255, retryAfter: "1", compares: true}

// startProvider starts a provider on 127.0.0.1, with one listener for each calling process.
func startProvider(cfg providerConfig, fault func(string, int) fault, procs ...process) (*provider, error) {
	p := &provider{
		cfg:     cfg,
		sends:   make(map[string]bool),
		fault:   fault,
		procs:   procs,
		keys:    make(map[string]*keyed),
		byRef:   make(map[string][][]byte),
		tickets: make(map[string][]comment),
		effects: make(map[string]int),
		owner:   make(map[string]string),
		amount:  make(map[string]int64),
		paid:    make(map[string][]int64),
		history: make(map[string][]request),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /transfers", p.create)
	mux.HandleFunc("GET /transfers", p.search)
	mux.HandleFunc("POST /tickets/{ticket_id}/comments", p.createComment)
	mux.HandleFunc("GET /tickets/{ticket_id}/comments", p.listComments)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.count(func(s *providerStats) { s.Calls++ })
		mux.ServeHTTP(w, r)
	})
	for i, proc := range procs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.closeServers()
			return nil, err
		}
		srv := &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: 10 * time.Second,
			// Each connection remembers which process opened it, so that a crash fault kills the
			// process that sent the request and never its successor, nor another replica.
			ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
				return context.WithValue(ctx, procKey{}, [2]int{i, proc.gen()})
			},
		}
		p.srvs = append(p.srvs, srv)
		p.urls = append(p.urls, "http://"+ln.Addr().String())
		go srv.Serve(ln)
	}
	return p, nil
}

// close waits for the slow commits and stops the provider.
func (p *provider) close() {
	p.slow.Wait()
	p.closeServers()
}

func (p *provider) closeServers() {
	for _, srv := range p.srvs {
		srv.Close()
	}
}

// effectRequest is a create request the provider has read: the order it is for, what it pays,
// its body, and how to keep the effect it makes.
type effectRequest struct {
	orderID string
	amount  int64
	body    []byte
	// keep stores the effect with its id, made at, and returns its JSON; it runs under p.mu.
	keep func(id string, at time.Time) []byte
}

// create is POST /transfers.
func (p *provider) create(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	var in newTransfer
	if err != nil || json.Unmarshal(body, &in) != nil || in.OrderID == "" {
		problem(w, http.StatusBadRequest, "a transfer needs an order_id")
		return
	}
	p.serve(w, r, effectRequest{orderID: in.OrderID, amount: in.Amount, body: body, keep: func(id string, at time.Time) []byte {
		t := transfer{ID: id, OrderID: in.OrderID, Amount: in.Amount, Currency: in.Currency, Reference: in.Reference, CreatedAt: at}
		b, _ := json.Marshal(t)
		if in.Reference != nil {
			p.byRef[*in.Reference] = append(p.byRef[*in.Reference], b)
		}
		return b
	}})
}

// createComment is POST /tickets/{ticket_id}/comments: no key, no reference field; the comment
// counts for the order its text names.
func (p *provider) createComment(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	var in struct {
		Body string `json:"body"`
	}
	if err != nil || json.Unmarshal(body, &in) != nil {
		problem(w, http.StatusBadRequest, "a comment needs a body")
		return
	}
	m := commentOrder.FindStringSubmatch(in.Body)
	if m == nil {
		problem(w, http.StatusBadRequest, "the benchmark's comments name their order")
		return
	}
	amount, _ := strconv.ParseInt(m[2], 10, 64)
	ticket := r.PathValue("ticket_id")
	p.serve(w, r, effectRequest{orderID: m[1], amount: amount, body: body, keep: func(id string, at time.Time) []byte {
		c := comment{ID: id, Body: in.Body, CreatedAt: at}
		p.tickets[ticket] = append(p.ticketLocked(ticket), c)
		b, _ := json.Marshal(c)
		return b
	}})
}

// ticketLocked returns a ticket's comments, oldest first, starting it with the comments other
// agents wrote an hour ago when it has none yet. p.mu is held.
func (p *provider) ticketLocked(ticket string) []comment {
	cs, ok := p.tickets[ticket]
	if !ok {
		at := time.Now().UTC().Add(-time.Hour)
		for i := range earlierComments {
			cs = append(cs, comment{ID: fmt.Sprintf("%s-earlier-%d", ticket, i+1), Body: "An agent's earlier reply.",
				CreatedAt: at.Add(time.Duration(i) * time.Minute)})
		}
		p.tickets[ticket] = cs
	}
	return cs
}

// listComments is GET /tickets/{ticket_id}/comments: newest first with sort_order=desc (oldest
// first otherwise, as Zendesk's default), commentPageSize a page, the next page by the cursor
// page[after].
func (p *provider) listComments(w http.ResponseWriter, r *http.Request) {
	start := 0
	if c := r.URL.Query().Get("page[after]"); c != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(c, "c"))
		if err != nil || n < 0 {
			problem(w, http.StatusBadRequest, "bad cursor")
			return
		}
		start = n
	}
	desc := r.URL.Query().Get("sort_order") == "desc"
	p.mu.Lock()
	p.stats.Lookups++
	cs := p.ticketLocked(r.PathValue("ticket_id"))
	page := commentPage{Comments: []comment{}}
	for i := start; i < len(cs) && len(page.Comments) < commentPageSize; i++ {
		at := i
		if desc {
			at = len(cs) - 1 - i
		}
		page.Comments = append(page.Comments, cs[at])
	}
	if start+commentPageSize < len(cs) {
		page.Meta.HasMore, page.Meta.AfterCursor = true, "c"+strconv.Itoa(start+commentPageSize)
	}
	p.mu.Unlock()
	b, _ := json.Marshal(page)
	writeJSON(w, http.StatusOK, b)
}

// serve runs one create request: its fault, its idempotency key, its commit.
func (p *provider) serve(w http.ResponseWriter, r *http.Request, in effectRequest) {
	proc, _ := r.Context().Value(procKey{}).([2]int)
	key := r.Header.Get("Idempotency-Key")
	if !p.cfg.keyed {
		key = "" // this provider ignores the header
	}
	p.mu.Lock()
	p.stats.Creates++
	replay := false
	if id := r.Header.Get(sendHeader); id != "" {
		replay = p.sends[id]
		p.sends[id] = true
		if replay {
			p.stats.Replays++
		}
	}
	h := p.history[in.orderID]
	f := p.fault(in.orderID, len(h)+1)
	p.stats.Faults[f]++
	p.history[in.orderID] = append(h, request{proc: proc[0], gen: proc[1], fault: f, keyed: key != "", replay: replay})
	i := len(h)
	tooLong := p.cfg.maxKey > 0 && len(key) > p.cfg.maxKey
	if tooLong {
		p.stats.KeyTooLong++
	}
	p.mu.Unlock()
	mark := func() { // this request makes a transfer
		p.mu.Lock()
		p.history[in.orderID][i].commit = true
		p.mu.Unlock()
	}

	switch {
	case f == requestLost:
		hijack(w).Close()
		return
	case tooLong:
		problem(w, http.StatusBadRequest, fmt.Sprintf("the idempotency key is longer than %d characters", p.cfg.maxKey))
		return
	}
	switch f {
	case unavailable, rateLimited:
		w.Header().Set("Retry-After", p.cfg.retryAfter)
		if f == unavailable {
			problem(w, http.StatusServiceUnavailable, "try again later")
		} else {
			problem(w, http.StatusTooManyRequests, "slow down")
		}
		return
	}

	status, resp, k := p.begin(key, sha256.Sum256(in.body))
	if status == 0 {
		mark()
	}
	if status == 0 && f == slowCommit {
		p.slow.Add(1)
		go func() {
			defer p.slow.Done()
			time.Sleep(slowCommitTime)
			p.commit(k, in)
		}()
		time.Sleep(slowGatewayTime)
		hijack(w).Close()
		return
	}
	if status == 0 {
		status, resp = p.commit(k, in)
	}
	switch f {
	case responseLost:
		conn := hijack(w)
		conn.Write([]byte("HTTP/1.1 2"))
		conn.Close()
	case resetAfterCommit:
		conn := hijack(w)
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	case crash:
		p.procs[proc[0]].kill(proc[1])
		hijack(w).Close()
	default:
		writeJSON(w, status, resp)
	}
}

// begin looks up the request's idempotency key. It returns the answer when the key settles the
// request (the stored response, 409 or 422), else status 0 and the entry the commit fills (nil
// without a key).
func (p *provider) begin(key string, sum [sha256.Size]byte) (status int, resp []byte, k *keyed) {
	if key == "" {
		return 0, nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev := p.keys[key]; prev != nil && time.Since(prev.at) < p.cfg.window {
		switch {
		case !prev.done:
			p.stats.Conflicts++
			return http.StatusConflict, problemBody("a request with this idempotency key is still running"), nil
		case prev.sum != sum && p.cfg.compares:
			p.stats.KeyReused++
			return http.StatusUnprocessableEntity, problemBody("idempotency key reused with another request body"), nil
		case prev.sum != sum:
			p.stats.KeyReused++ // answered as the first request was
		}
		p.stats.Replayed++
		return prev.status, prev.body, nil
	}
	k = &keyed{sum: sum, at: time.Now()}
	p.keys[key] = k
	return 0, nil, k
}

// commit makes the transfer (or the comment) and stores the response under k (nil without a
// key).
func (p *provider) commit(k *keyed, in effectRequest) (int, []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.made++
	id := fmt.Sprintf("tr_%07d", p.made)
	if p.cfg.api == apiComments {
		id = fmt.Sprintf("c_%07d", p.made)
	}
	b := in.keep(id, time.Now().UTC())
	p.effects[in.orderID]++
	p.owner[id] = in.orderID
	p.amount[id] = in.amount
	p.paid[in.orderID] = append(p.paid[in.orderID], in.amount)
	if k != nil {
		k.done, k.status, k.body = true, http.StatusCreated, b
	}
	return http.StatusCreated, b
}

// search answers GET /transfers?reference=R with every transfer made with R, oldest first.
func (p *provider) search(w http.ResponseWriter, r *http.Request) {
	ref := r.URL.Query().Get("reference")
	p.mu.Lock()
	p.stats.Lookups++
	items := append([][]byte(nil), p.byRef[ref]...)
	p.mu.Unlock()
	raw := make([]json.RawMessage, len(items))
	for i, b := range items {
		raw[i] = b
	}
	b, _ := json.Marshal(struct {
		Items []json.RawMessage `json:"items"`
	}{raw})
	writeJSON(w, http.StatusOK, b)
}

func (p *provider) count(f func(*providerStats)) {
	p.mu.Lock()
	f(&p.stats)
	p.mu.Unlock()
}

// result is what the provider holds at the end of a run.
type providerResult struct {
	stats   providerStats
	effects map[string]int
	owner   map[string]string
	amount  map[string]int64   // by effect id
	paid    map[string][]int64 // by order id
	causes  [numCauses]int     // duplicate effects by cause
	history map[string][]request
}

func (p *provider) result() providerResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	res := providerResult{stats: p.stats, effects: p.effects, owner: p.owner, amount: p.amount, paid: p.paid, history: p.history}
	for _, h := range p.history {
		for c, k := range causes(h) {
			res.causes[c] += k
		}
	}
	return res
}

// What a duplicate effect came from.
const (
	causeLostAnswer = iota // a retry by the same process after an answer was lost (response lost, reset, slow commit)
	causeRestart           // the work done again by the process restarted after a crash
	causeAskedAgain        // the order was asked for again, later or at the same moment (by another replica too)
	numCauses
)

var causeNames = [numCauses]string{"retry after a lost answer", "work redone after a restart", "order asked again"}

// causes attributes each transfer of one order beyond the first, in order of arrival: to a
// retry when the same process lost the answer to an earlier request without a key (a retry
// with the key would have been answered from it), else to the order being asked again when
// another replica made it, else to a restart when it was made by a later process of the replica
// than the first transfer, else to the order being asked again.
func causes(h []request) (n [numCauses]int) {
	type procID struct{ replica, gen int }
	var first *procID
	lost := make(map[procID]int) // answers lost to each calling process
	for _, r := range h {
		if !r.commit {
			continue
		}
		at := procID{r.proc, r.gen}
		switch {
		case first == nil:
			first = &at
		case lost[at] > 0:
			lost[at]--
			n[causeLostAnswer]++
		case at.replica != first.replica:
			n[causeAskedAgain]++
		case at.gen != first.gen:
			n[causeRestart]++
		default:
			n[causeAskedAgain]++
		}
		switch r.fault {
		case responseLost, resetAfterCommit, slowCommit:
			if !r.keyed {
				lost[at]++
			}
		}
	}
	return n
}

// hijack takes the connection of w over, to break it.
func hijack(w http.ResponseWriter) net.Conn {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	return conn
}

func problemBody(title string) []byte {
	b, _ := json.Marshal(struct {
		Title string `json:"title"`
	}{title})
	return b
}

func problem(w http.ResponseWriter, status int, title string) {
	writeJSON(w, status, problemBody(title))
}

func writeJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
