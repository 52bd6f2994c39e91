package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/writegen/writegen/runtime"
)

// A provider whose answers never arrive: every attempt may have created the thread, and the
// attempts run out. The write ends uncertain, an outcome of its own type, with what a person
// needs to reconcile it; the program tells that person instead of guessing.
func ExampleUncertainError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // read, maybe committed, and the connection breaks
		loseAnswer(w)
	}))
	defer srv.Close()

	// Without a ledger or a Notifier (runtime.WithNotifier) the outcome is logged with log/slog.
	c, err := NewSupportClient(srv.URL, runtime.WithBackoff(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		panic(err)
	}
	_, err = c.CreateThread(context.Background(), CreateThreadKey{EscalationID: 7}, "refund twice?")
	var ue *runtime.UncertainError
	if errors.As(err, &ue) { // errors.Is(err, runtime.ErrUncertain) holds as well
		fmt.Println("operation:", ue.OperationID)
		fmt.Println("business key:", ue.BusinessKey)
		fmt.Println("provider key:", ue.ProviderKey)
		fmt.Println("attempts:", ue.Attempts)
		fmt.Println("reason:", ue.Reason)
		fmt.Println("owner:", ue.Owner)
		fmt.Println("recorded in:", ue.Recorded)
	}
	// Output:
	// operation: createThread
	// business key: escalation:7
	// provider key: support-desk/create-thread:escalation:7
	// attempts: 4
	// reason: attempts exhausted
	// owner: support-ops
	// recorded in: log
}
