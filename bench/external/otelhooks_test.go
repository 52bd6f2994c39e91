package external

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/otelhooks"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

type thing struct {
	ID string `json:"id"`
}

type thingKey struct{ ID string }

func (k thingKey) BusinessKey() (string, error) { return "thing:" + k.ID, nil }

// createThing is keyed, so a 503 is retried with the same key.
var createThing = &writegenimpl.Operation{
	ID: "createThing", Scope: "create-thing", Method: "POST", Path: "/things",
	Effect: runtime.EffectAmbiguous, Retry: runtime.RetryNotSent | runtime.RetryAmbiguous | runtime.Retry503,
	Attempts: 3, KeyHeader: "Idempotency-Key", Keyed: true, Receipt: true, Owner: "things-team",
}

func call() writegenimpl.Call[*thing] {
	return writegenimpl.Call[*thing]{
		Build: func(string, string) (*writegenimpl.Request, error) {
			r := writegenimpl.NewRequest("POST", "/things")
			return r, r.JSON(map[string]string{"name": "x"})
		},
		ID: func(t *thing) string { return t.ID },
	}
}

// TestSpansAndMetrics makes one write that fails once with a 503 and then succeeds, and one that
// stays uncertain, and checks the spans (a call with one child per attempt, the attempt's span
// around its HTTP request) and the counters.
func TestSpansAndMetrics(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n := calls.Add(1); {
		case n == 1, n >= 3: // the first call's first attempt, and every attempt of the second
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"id":"th_1"}`))
		}
	}))
	defer srv.Close()

	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	hooks, err := otelhooks.New(otelhooks.WithTracerProvider(tp), otelhooks.WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}
	var sent []trace.SpanID // the span in each HTTP request's context
	rt := roundTripper(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, trace.SpanFromContext(r.Context()).SpanContext().SpanID())
		return http.DefaultTransport.RoundTrip(r)
	})
	c, err := writegenimpl.NewClient("things", srv.URL, []runtime.Option{
		runtime.WithHTTPClient(&http.Client{Transport: rt}),
		runtime.WithHooks(hooks), runtime.WithBackoff(time.Microsecond, time.Microsecond),
		runtime.WithNotifier(notifier{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if r, err := writegenimpl.Write(ctx, c, createThing, thingKey{"1"}, call()); err != nil || r.ID != "th_1" {
		t.Fatalf("first write: %v, %v", r, err)
	}
	if _, err := writegenimpl.Write(ctx, c, createThing, thingKey{"2"}, call()); !errors.Is(err, runtime.ErrUncertain) {
		t.Fatalf("second write: %v, want uncertain", err)
	}

	ended := spans.Ended()
	var roots, attempts []sdktrace.ReadOnlySpan
	for _, s := range ended {
		switch s.Name() {
		case "createThing":
			roots = append(roots, s)
		case "createThing attempt":
			attempts = append(attempts, s)
		}
	}
	if len(roots) != 2 || len(attempts) != 5 {
		t.Fatalf("%d call spans and %d attempt spans, want 2 and 5 (%d spans in all)", len(roots), len(attempts), len(ended))
	}
	for _, a := range attempts {
		if !slices.ContainsFunc(roots, func(r sdktrace.ReadOnlySpan) bool { return r.SpanContext().SpanID() == a.Parent().SpanID() }) {
			t.Errorf("attempt span %v is not a child of a call span", a.SpanContext().SpanID())
		}
	}
	for i, id := range sent {
		if !slices.ContainsFunc(attempts, func(a sdktrace.ReadOnlySpan) bool { return a.SpanContext().SpanID() == id }) {
			t.Errorf("HTTP request %d does not run in an attempt's span", i+1)
		}
	}
	if got := attr(roots[0].Attributes(), "writegen.source"); got != "created" {
		t.Errorf("first call's source = %q, want created", got)
	}
	if got := attr(roots[1].Attributes(), "writegen.state"); got != "uncertain" {
		t.Errorf("second call's state = %q, want uncertain", got)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	if got := sum(rm, "writegen.client.attempts", "writegen.attempt.class", "status"); got != 4 {
		t.Errorf("attempts of class status = %d, want 4", got)
	}
	if got := sum(rm, "writegen.client.attempts", "writegen.attempt.class", "ok"); got != 1 {
		t.Errorf("attempts of class ok = %d, want 1", got)
	}
	if got := sum(rm, "writegen.client.uncertain", "writegen.owner", "things-team"); got != 1 {
		t.Errorf("uncertain = %d, want 1", got)
	}
	if got := sum(rm, "writegen.client.calls", "writegen.state", "active"); got != 1 {
		t.Errorf("calls active = %d, want 1", got)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type notifier struct{}

func (notifier) Uncertain(context.Context, *runtime.UncertainError) {}

func attr(kvs []attribute.KeyValue, key string) string {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

// sum adds the points of counter name whose attribute key is value.
func sum(rm metricdata.ResourceMetrics, name, key, value string) int64 {
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				if v, ok := p.Attributes.Value(attribute.Key(key)); ok && v.String() == value {
					n += p.Value
				}
			}
		}
	}
	return n
}
