package simulator

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Delivery is how a webhook event is delivered. Every event is delivered again until a delivery
// is answered 2xx (or, after maxDeliveries, it is abandoned and counted).
type Delivery uint8

// The ways an event can be delivered.
const (
	// Once delivers the event.
	Once Delivery = iota
	// Twice delivers the event twice at the same moment.
	Twice
	// AckLost delivers the event, treats its 2xx as lost in transit, and delivers it again.
	AckLost
	// Late holds the event back until the next event has been delivered, so it arrives out of
	// order (or until the server's Wait, or a second, when no event follows).
	Late
)

// DeliveryFunc decides how the event with the given id is delivered.
type DeliveryFunc func(eventID string) Delivery

// WebhookStats counts the deliveries of one sender.
type WebhookStats struct {
	Events      int // distinct events sent
	Deliveries  int // HTTP requests made
	Acked       int // events answered 2xx at least once
	Duplicated  int // events delivered Twice
	AckLost     int // events delivered again because their 2xx was treated as lost
	Late        int // events held back so that a later one overtook them
	Redelivered int // deliveries repeated because no 2xx came back
	Abandoned   int // events never answered 2xx
}

const (
	maxDeliveries = 25
	lateCap       = time.Second
)

// Sign returns the headers of a delivery of event id with body, sent at t and signed with
// secret as the Standard Webhooks specification says: webhook-id, webhook-timestamp (Unix
// seconds) and webhook-signature, "v1," and the base64 HMAC-SHA256 of "id.timestamp.body". The
// receiver knows the secret as "whsec_" followed by its base64.
func Sign(secret []byte, id string, t time.Time, body []byte) http.Header {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	h := make(http.Header, 3)
	h.Set("Webhook-Id", id)
	h.Set("Webhook-Timestamp", ts)
	h.Set("Webhook-Signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return h
}

// RouteFunc chooses the URL that delivery n (1 for the first) of the event with the given id is
// made to, as a load balancer in front of several receivers would.
type RouteFunc func(eventID string, n int) string

// webhook delivers events to one URL, or to the URLs a RouteFunc chooses.
type webhook struct {
	route  RouteFunc
	now    func() time.Time
	secret []byte
	plan   DeliveryFunc
	client *http.Client
	wg     inflight // events not yet acknowledged or abandoned

	mu       sync.Mutex
	next     chan struct{} // closed when the next event has been delivered, or by wait
	flushing bool          // wait is running: late events are not held back
	ids      []string      // every event sent, in order
	stats    WebhookStats
}

func newWebhook(url string, route RouteFunc, now func() time.Time, secret []byte, plan DeliveryFunc) *webhook {
	if plan == nil {
		plan = func(string) Delivery { return Once }
	}
	if route == nil {
		route = func(string, int) string { return url }
	}
	if now == nil {
		now = time.Now
	}
	return &webhook{
		route:  route,
		now:    now,
		secret: secret,
		plan:   plan,
		client: &http.Client{Timeout: 10 * time.Second},
		next:   make(chan struct{}),
	}
}

// send delivers one event in the background.
func (h *webhook) send(id string, body []byte) {
	mode := h.plan(id)
	h.mu.Lock()
	h.stats.Events++
	h.ids = append(h.ids, id)
	switch mode {
	case Twice:
		h.stats.Duplicated++
	case AckLost:
		h.stats.AckLost++
	case Late:
		if h.flushing {
			mode = Once
		} else {
			h.stats.Late++
		}
	}
	next := h.next
	h.mu.Unlock()

	h.wg.add()
	go func() {
		defer h.wg.done()
		var n atomic.Int32 // deliveries of the event so far
		untilAcked := func(id string, body []byte) bool { return h.untilAcked(id, body, &n) }
		var acked bool
		switch mode {
		case Late:
			select {
			case <-next:
			case <-time.After(lateCap):
			}
			acked = untilAcked(id, body)
		case Twice:
			other := make(chan bool)
			go func() { other <- untilAcked(id, body) }()
			acked = untilAcked(id, body)
			acked = <-other || acked
		case AckLost:
			untilAcked(id, body) // its 2xx is treated as lost
			acked = untilAcked(id, body)
		default:
			acked = untilAcked(id, body)
		}
		h.mu.Lock()
		if acked {
			h.stats.Acked++
		} else {
			h.stats.Abandoned++
		}
		if mode != Late {
			h.release()
		}
		h.mu.Unlock()
	}()
}

// release lets the events held back go; h.mu must be held.
func (h *webhook) release() {
	close(h.next)
	h.next = make(chan struct{})
}

// wait releases the events held back and blocks until every event has been acknowledged or
// abandoned.
func (h *webhook) wait() {
	h.mu.Lock()
	h.flushing = true
	h.release()
	h.mu.Unlock()
	h.wg.wait()
	h.mu.Lock()
	h.flushing = false
	h.mu.Unlock()
}

// untilAcked delivers the event until a delivery is answered 2xx, and reports whether one was;
// sent counts the deliveries of the event.
func (h *webhook) untilAcked(id string, body []byte, sent *atomic.Int32) bool {
	for n := 1; n <= maxDeliveries; n++ {
		if h.post(id, int(sent.Add(1)), body) {
			return true
		}
		h.mu.Lock()
		h.stats.Redelivered++
		h.mu.Unlock()
		time.Sleep(time.Duration(n) * time.Millisecond)
	}
	return false
}

// post makes delivery n of an event and reports whether it was answered 2xx.
func (h *webhook) post(id string, n int, body []byte) bool {
	h.mu.Lock()
	h.stats.Deliveries++
	h.mu.Unlock()
	req, err := http.NewRequest(http.MethodPost, h.route(id, n), bytes.NewReader(body))
	if err != nil {
		return false
	}
	req.Header = Sign(h.secret, id, h.now(), body)
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode >= 200 && resp.StatusCode < 300
}

func (h *webhook) snapshot() WebhookStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stats
}
