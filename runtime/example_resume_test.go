package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

// A write claimed in an SQLite ledger ends uncertain while the desk is failing (it created the
// thread, and no answer came back). Once the desk is back, Resume, which a program runs at
// start-up and now and then, sends the stored request again with the same idempotency key:
// the desk answers with the thread it made, and the row is settled. A later call with the same
// business key gets that receipt from the ledger without calling the desk.
func ExampleWithLedger_resume() {
	var mu sync.Mutex
	threads := map[string]string{} // idempotency key -> thread
	down, calls := true, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		defer mu.Unlock()
		calls++
		key := r.Header.Get("Idempotency-Key")
		if _, ok := threads[key]; !ok {
			threads[key] = fmt.Sprintf("th_%d", len(threads)+1)
		}
		if down { // committed, and the answer is lost
			loseAnswer(w)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id": %q}`, threads[key])
	}))
	defer srv.Close()

	ctx := context.Background()
	dir, err := os.MkdirTemp("", "writegen-resume-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	l, err := sqlite.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		panic(err)
	}
	defer l.Close()
	c, err := NewLedgerSupportClient(srv.URL, l, runtime.WithBackoff(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		panic(err)
	}

	key := CreateThreadKey{EscalationID: 42}
	_, err = c.CreateThread(ctx, key, "printer on fire")
	fmt.Println("while the desk fails:", errors.Is(err, runtime.ErrUncertain))

	mu.Lock()
	down = false
	mu.Unlock()
	report, err := c.Resume(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Printf("resume: %d taken, %d settled active\n", report.Taken, report.Active)

	mu.Lock()
	before := calls
	mu.Unlock()
	r, err := c.CreateThread(ctx, key, "printer on fire")
	if err != nil {
		panic(err)
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Println("later:", r.ID, r.Source, calls-before, "calls,", len(threads), "thread")
	// Output:
	// while the desk fails: true
	// resume: 1 taken, 1 settled active
	// later: th_1 adopted_ledger 0 calls, 1 thread
}

var createThreadLedgerOp = func() *writegenimpl.Operation {
	op := *createThreadOp
	op.Dedupe = true
	return &op
}()

// LedgerSupportClient calls the support desk, claiming each thread in a ledger first.
type LedgerSupportClient struct{ rt *writegenimpl.Client }

// NewLedgerSupportClient returns a client of the support desk at baseURL with ledger l.
func NewLedgerSupportClient(baseURL string, l runtime.Ledger, opts ...runtime.Option) (*LedgerSupportClient, error) {
	rt, err := writegenimpl.NewClient("support-desk", baseURL, append([]runtime.Option{runtime.WithLedger(l)}, opts...))
	if err != nil {
		return nil, err
	}
	return &LedgerSupportClient{rt: rt}, nil
}

// CreateThread opens a thread for an escalation.
func (c *LedgerSupportClient) CreateThread(ctx context.Context, key CreateThreadKey, subject string) (*runtime.Receipt[Thread], error) {
	return writegenimpl.Write(ctx, c.rt, createThreadLedgerOp, key, writegenimpl.Call[*Thread]{
		Build: func(providerKey, reference string) (*writegenimpl.Request, error) {
			r := writegenimpl.NewRequest("POST", "/threads")
			return r, r.JSON(map[string]string{"subject": subject})
		},
		ID: func(t *Thread) string { return t.ID },
	})
}

// Resume drives on the client's claimed and uncertain writes.
func (c *LedgerSupportClient) Resume(ctx context.Context) (runtime.ResumeReport, error) {
	return writegenimpl.ResumeAll(ctx, c.rt, c, []writegenimpl.Resumable[*LedgerSupportClient]{
		&writegenimpl.ResumableWrite[*LedgerSupportClient, *Thread]{Op: createThreadLedgerOp, ID: func(t *Thread) string { return t.ID }},
	})
}
