package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// A provider that commits a thread and then loses the answer: the runtime
// sends the write again with the same idempotency key, and the provider
// answers with the thread it already made.
func Example() {
	var mu sync.Mutex
	threads := map[string]string{} // idempotency key -> thread
	lost := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		defer mu.Unlock()
		key := r.Header.Get("Idempotency-Key")
		if _, ok := threads[key]; !ok {
			threads[key] = fmt.Sprintf("th_%d", len(threads)+1)
		}
		if !lost { // the first answer never arrives
			lost = true
			loseAnswer(w)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id": %q}`, threads[key])
	}))
	defer srv.Close()

	c, err := NewSupportClient(srv.URL, runtime.WithBackoff(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		panic(err)
	}
	r, err := c.CreateThread(context.Background(), CreateThreadKey{EscalationID: 42}, "printer on fire")
	if errors.Is(err, runtime.ErrUncertain) {
		fmt.Println("reconcile:", err)
		return
	}
	if err != nil {
		panic(err)
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Println(r.ID, r.ProviderKey, r.Attempts, "attempts,", len(threads), "thread")
	// Output: th_1 support-desk/create-thread:escalation:42 2 attempts, 1 thread
}

// loseAnswer breaks the connection of w without a byte of answer (a TCP
// reset), as a provider's network does after the write committed.
func loseAnswer(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	conn.(*net.TCPConn).SetLinger(0)
	conn.Close()
}

// What follows is, in short, what writegen generates for one write of a
// support desk's API.

// CreateThreadKey is the business key of CreateThread.
type CreateThreadKey struct{ EscalationID int64 }

// BusinessKey formats the key as "escalation:{escalation_id}".
func (k CreateThreadKey) BusinessKey() (string, error) {
	if k.EscalationID == 0 {
		return "", &runtime.EmptyKeyError{Operation: "createThread", Field: "EscalationID"}
	}
	return fmt.Sprintf("escalation:%d", k.EscalationID), nil
}

// Thread is the receipt of CreateThread.
type Thread struct {
	ID string `json:"id"`
}

var createThreadOp = &writegenimpl.Operation{
	ID: "createThread", Scope: "create-thread", Method: "POST", Path: "/threads", Effect: runtime.EffectAmbiguous,
	Retry: runtime.RetryNotSent | runtime.RetryAmbiguous | runtime.Retry409 | runtime.Retry503, Attempts: 4,
	KeyHeader: "Idempotency-Key", Keyed: true, KeyMaxLength: 255, KeyWindow: 24 * time.Hour,
	Receipt: true, Owner: "support-ops",
}

// SupportClient calls the support desk.
type SupportClient struct{ rt *writegenimpl.Client }

// NewSupportClient returns a client of the support desk at baseURL.
func NewSupportClient(baseURL string, opts ...runtime.Option) (*SupportClient, error) {
	rt, err := writegenimpl.NewClient("support-desk", baseURL, opts)
	if err != nil {
		return nil, err
	}
	return &SupportClient{rt: rt}, nil
}

// CreateThread opens a thread for an escalation.
func (c *SupportClient) CreateThread(ctx context.Context, key CreateThreadKey, subject string) (*runtime.Receipt[Thread], error) {
	return writegenimpl.Write(ctx, c.rt, createThreadOp, key, writegenimpl.Call[*Thread]{
		Build: func(providerKey, reference string) (*writegenimpl.Request, error) {
			r := writegenimpl.NewRequest("POST", "/threads")
			return r, r.JSON(map[string]string{"subject": subject, "external_reference": reference})
		},
		ID: func(t *Thread) string { return t.ID },
	})
}
