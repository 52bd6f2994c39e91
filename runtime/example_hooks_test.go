package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/writegen/writegen/runtime"
)

// Hooks connect the runtime to a logger (or a tracer) without the runtime
// importing it. Here every attempt and outcome goes to log/slog, and an
// uncertain outcome is handed to its owner.
func ExampleHooks() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable) // the provider is down; a 503 may have committed
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
		AttemptDone: func(ctx context.Context, c *runtime.CallInfo, a runtime.Attempt) {
			log.InfoContext(ctx, "attempt", "op", c.OperationID, "n", a.Number, "class", a.Class.String(), "status", a.Status)
		},
		CallDone: func(ctx context.Context, c *runtime.CallInfo, o runtime.Outcome) {
			log.InfoContext(ctx, "outcome", "op", c.OperationID, "attempts", o.Attempts, "state", o.State,
				"uncertain", errors.Is(o.Err, runtime.ErrUncertain))
		},
	}
	c, err := NewSupportClient(srv.URL, runtime.WithHooks(hooks), runtime.WithBackoff(0, 0), runtime.WithNotifier(pager{}))
	if err != nil {
		panic(err)
	}
	c.CreateThread(context.Background(), CreateThreadKey{EscalationID: 7}, "printer on fire")
	// Output:
	// level=INFO msg=attempt op=createThread n=1 class=status status=503
	// level=INFO msg=attempt op=createThread n=2 class=status status=503
	// level=INFO msg=attempt op=createThread n=3 class=status status=503
	// level=INFO msg=attempt op=createThread n=4 class=status status=503
	// page support-ops: createThread escalation:7 (attempts exhausted), recorded in notifier
	// level=INFO msg=outcome op=createThread attempts=4 state=uncertain uncertain=true
}

// pager tells an operation's owner about an uncertain outcome.
type pager struct{}

func (pager) Uncertain(_ context.Context, e *runtime.UncertainError) {
	fmt.Printf("page %s: %s %s (%s), recorded in %s\n", e.Owner, e.OperationID, e.BusinessKey, e.Reason, e.Recorded)
}

// span is what a tracer keeps in a context: here only its name and its
// parent's.
type span struct {
	name   string
	parent *span
}

type spanKey struct{}

func start(ctx context.Context, name string) context.Context {
	parent, _ := ctx.Value(spanKey{}).(*span)
	return context.WithValue(ctx, spanKey{}, &span{name: name, parent: parent})
}

func end(ctx context.Context, status string) {
	s := ctx.Value(spanKey{}).(*span)
	var path []string
	for p := s; p != nil; p = p.parent {
		path = append([]string{p.name}, path...)
	}
	fmt.Println(strings.Join(path, " > "), status)
}

// The hooks that start a call, an attempt or a lookup may return a context:
// an OpenTelemetry adapter begins a span there, so that a logical write is
// one span with a child per attempt, and the attempt's HTTP request (and
// so an instrumented transport) runs inside its span.
func ExampleHooks_spans() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id": "th_1"}`)
	}))
	defer srv.Close()

	hooks := runtime.Hooks{
		CallStart: func(ctx context.Context, c *runtime.CallInfo) context.Context {
			return start(ctx, c.OperationID+" "+c.BusinessKey)
		},
		AttemptStart: func(ctx context.Context, c *runtime.CallInfo, n int) context.Context {
			return start(ctx, fmt.Sprint("attempt ", n))
		},
		AttemptDone: func(ctx context.Context, c *runtime.CallInfo, a runtime.Attempt) {
			end(ctx, fmt.Sprint(a.Class, " ", a.Status))
		},
		CallDone: func(ctx context.Context, c *runtime.CallInfo, o runtime.Outcome) {
			end(ctx, fmt.Sprint(o.State, " ", o.Source))
		},
	}
	c, err := NewSupportClient(srv.URL, runtime.WithHooks(hooks))
	if err != nil {
		panic(err)
	}
	c.CreateThread(context.Background(), CreateThreadKey{EscalationID: 7}, "printer on fire")
	// Output:
	// createThread escalation:7 > attempt 1 ok 201
	// createThread escalation:7 active created
}
