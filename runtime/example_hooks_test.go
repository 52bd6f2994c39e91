package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/writegen/writegen/runtime"
)

// Hooks connect the runtime to a logger (or a tracer) without the runtime
// importing it. Here every attempt and outcome goes to log/slog, and an
// uncertain outcome is handed to its owner.
func ExampleHooks() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable) // the provider is down; 503 may have committed
	}))
	defer srv.Close()

	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // keep the output stable
			}
			return a
		},
	}))
	hooks := runtime.Hooks{
		AttemptDone: func(ctx context.Context, op *runtime.Operation, a runtime.Attempt) {
			log.InfoContext(ctx, "attempt", "op", op.Name, "n", a.Number, "class", a.Class.String(), "status", a.Status)
		},
		Outcome: func(ctx context.Context, op *runtime.Operation, attempts int, err error) {
			log.InfoContext(ctx, "outcome", "op", op.Name, "attempts", attempts, "uncertain", errors.Is(err, runtime.ErrUncertain))
		},
	}
	c, err := runtime.New(srv.URL, runtime.WithHooks(hooks), runtime.WithBackoff(0, 0), runtime.WithNotifier(pager{}))
	if err != nil {
		panic(err)
	}
	op := &runtime.Operation{
		Name: "createThread", Method: "POST", Path: "/threads", Effect: runtime.EffectAmbiguous,
		Retry: runtime.RetryNotSent | runtime.Retry503, Attempts: 3, Receipt: true, IDPointer: "/id", Owner: "support-ops",
	}
	call := runtime.Call[struct{}]{Request: func(string) (*runtime.Request, error) {
		r := runtime.NewRequest("POST", "/threads")
		return r, r.JSON(map[string]string{"subject": "printer on fire"})
	}}
	runtime.Write(context.Background(), c, op, escalation{7}, call)
	// Output:
	// level=INFO msg=attempt op=createThread n=1 class=status status=503
	// page support-ops: createThread escalation:7 (status 503 without key or lookup)
	// level=INFO msg=outcome op=createThread attempts=1 uncertain=true
}

// pager tells an operation's owner about an uncertain outcome.
type pager struct{}

func (pager) Uncertain(_ context.Context, e *runtime.UncertainError) {
	fmt.Printf("page %s: %s %s (%s)\n", e.Owner, e.Operation, e.BusinessKey, e.Reason)
}
