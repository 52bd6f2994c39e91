package writegenimpl

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/writegen/writegen/runtime"
)

type traceKey struct{}

// traced returns the trace path ctx carries: "call/attempt 1".
func traced(ctx context.Context) string {
	s, _ := ctx.Value(traceKey{}).(string)
	return s
}

func within(ctx context.Context, name string) context.Context {
	if p := traced(ctx); p != "" {
		name = p + "/" + name
	}
	return context.WithValue(ctx, traceKey{}, name)
}

// tracing is a RoundTripper that records the trace path of each request.
type tracing struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (tr *tracing) RoundTrip(r *http.Request) (*http.Response, error) {
	tr.mu.Lock()
	tr.seen = append(tr.seen, traced(r.Context()))
	tr.mu.Unlock()
	return tr.next.RoundTrip(r)
}

// TestHooksContexts: the contexts CallStart, AttemptStart and LookupStart
// return carry the call, each attempt's HTTP request and the lookup, and
// are the ones the matching Done hooks get: a tracer makes a span per
// logical write with a child per attempt and per lookup.
func TestHooksContexts(t *testing.T) {
	p := newProvider(t, step{loss: lostResponse})
	op := thingOp(withLookup)
	var mu sync.Mutex
	var events []string
	event := func(ctx context.Context, what string) {
		mu.Lock()
		events = append(events, traced(ctx)+" "+what)
		mu.Unlock()
	}
	writes := true // only the write's hooks are recorded, not the lookup's read
	hooks := runtime.Hooks{
		CallStart: func(ctx context.Context, c *runtime.CallInfo) context.Context {
			return within(ctx, c.OperationID)
		},
		AttemptStart: func(ctx context.Context, c *runtime.CallInfo, n int) context.Context {
			return within(ctx, fmt.Sprint("attempt ", n))
		},
		AttemptDone: func(ctx context.Context, c *runtime.CallInfo, a runtime.Attempt) {
			if c.Write {
				event(ctx, a.Class.String())
			}
		},
		LookupStart: func(ctx context.Context, c *runtime.CallInfo) context.Context {
			return within(ctx, "lookup")
		},
		LookupDone: func(ctx context.Context, c *runtime.CallInfo, found int, err error) {
			event(ctx, fmt.Sprint("found ", found))
		},
		CallDone: func(ctx context.Context, c *runtime.CallInfo, o runtime.Outcome) {
			if c.Write && writes {
				event(ctx, fmt.Sprint(o.State, " ", o.Source, " ", o.Attempts, " ", c.BusinessKey, " ", c.ProviderKey == pkOf(op, "thing:1")))
			}
		},
	}
	tr := &tracing{next: http.DefaultTransport}
	c := newTestClient(t, p.URL, newTestClock(), runtime.WithHooks(hooks), runtime.WithHTTPClient(&http.Client{Transport: tr}))
	if _, err := Write(context.Background(), c, op, thingKey{"1"}, thingCall(c, op, "x")); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"createThing/attempt 1 ambiguous",
		"createThing/lookup found 1",
		"createThing active adopted_lookup 1 thing:1 true",
	}
	if fmt.Sprint(events) != fmt.Sprint(want) {
		t.Errorf("events\n%q\nwant\n%q", events, want)
	}
	// The write's attempt, then the lookup's read (a call of its own).
	if want := []string{"createThing/attempt 1", "createThing/lookup/listThings/attempt 1"}; fmt.Sprint(tr.seen) != fmt.Sprint(want) {
		t.Errorf("requests ran in %q, want %q", tr.seen, want)
	}
}

// TestHooksCostNoAllocations: hooks that are set but do nothing add no
// allocation to a write, and the write's allocations stay within budget.
func TestHooksCostNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	resp := []byte(`{"id":"th_1","title":"printer jammed","reference":"r"}`)
	hc := &http.Client{Transport: fixedRT{resp}}
	op := thingOp(withKey)
	allocs := func(h runtime.Hooks) float64 {
		c, err := NewClient(testScope, "http://127.0.0.1:1", []runtime.Option{runtime.WithHTTPClient(hc), runtime.WithHooks(h)})
		if err != nil {
			t.Fatal(err)
		}
		call := thingCall(c, op, "printer jammed")
		return testing.AllocsPerRun(200, func() {
			if _, err := Write(context.Background(), c, op, thingKey{"42"}, call); err != nil {
				t.Fatal(err)
			}
		})
	}
	none := allocs(runtime.Hooks{})
	noop := allocs(runtime.Hooks{
		CallStart:    func(ctx context.Context, _ *runtime.CallInfo) context.Context { return nil },
		AttemptStart: func(ctx context.Context, _ *runtime.CallInfo, _ int) context.Context { return nil },
		AttemptDone:  func(context.Context, *runtime.CallInfo, runtime.Attempt) {},
		CallDone:     func(context.Context, *runtime.CallInfo, runtime.Outcome) {},
	})
	if noop != none {
		t.Errorf("a write allocates %v times with no-op hooks, %v without", noop, none)
	}
	const budget = 45
	if none > budget {
		t.Errorf("a write allocates %v times, budget %d", none, budget)
	}
	t.Logf("a keyed write allocates %v times", none)
}
