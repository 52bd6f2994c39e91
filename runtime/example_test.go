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
			conn, _, _ := http.NewResponseController(w).Hijack()
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id": %q}`, threads[key])
	}))
	defer srv.Close()

	// What writegen generates for createThread.
	op := &runtime.Operation{
		Name: "createThread", Method: "POST", Path: "/threads", Effect: runtime.EffectAmbiguous,
		Retry: runtime.RetryNotSent | runtime.RetryAmbiguous | runtime.Retry409, Attempts: 4,
		KeyHeader: "Idempotency-Key", Keyed: true, KeyMaxLength: 255, KeyWindow: 24 * time.Hour,
		Receipt: true, IDPointer: "/id", Owner: "support-ops",
	}
	type Thread struct {
		ID string `json:"id"`
	}
	call := runtime.Call[Thread]{Request: func(providerKey string) (*runtime.Request, error) {
		r := runtime.NewRequest("POST", "/threads")
		return r, r.JSON(map[string]string{"subject": "printer on fire", "external_reference": providerKey})
	}}

	c, err := runtime.New(srv.URL, runtime.WithBackoff(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		panic(err)
	}
	r, err := runtime.Write(context.Background(), c, op, escalation{42}, call)
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
	// Output: th_1 createThread:escalation:42 2 attempts, 1 thread
}

// escalation is the business key of createThread.
type escalation struct{ ID int64 }

func (k escalation) BusinessKey() (string, error) {
	if k.ID == 0 {
		return "", &runtime.EmptyKeyError{Operation: "createThread", Field: "ID"}
	}
	return fmt.Sprintf("escalation:%d", k.ID), nil
}
