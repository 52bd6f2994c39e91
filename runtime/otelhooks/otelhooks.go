// Package otelhooks turns the hooks of writegen's runtime into OpenTelemetry traces and metrics,
// so that the core runtime keeps to the standard library:
//
//	hooks, err := otelhooks.New() // the global tracer and meter providers
//	client, err := support.NewClient(baseURL, l, runtime.WithHooks(hooks))
//
// Every logical call is a span named after its operation ("createThread"), with a child span
// per attempt ("createThread attempt") and per lookup ("createThread lookup"). An attempt's span
// is the context of its HTTP request, so an instrumented transport (otelhttp) nests under it.
// Spans carry the operation, its scope and key scope, the tenant, the attempt's class and
// status, the receipt's source and the state the call settled in; business and provider keys
// only with WithKeys, since they may hold business data.
//
// The metrics, all with the attribute writegen.operation:
//
//	writegen.client.attempts        counter    attempts, by writegen.attempt.class and http.response.status_code
//	writegen.client.calls           counter    logical calls, by writegen.state and writegen.source
//	writegen.client.uncertain       counter    calls that ended uncertain, by writegen.owner
//	writegen.client.ledger.failures counter    outcomes the ledger could not record
//	writegen.client.call.duration   histogram  seconds from the call's start to its outcome
//
// Its test reads the spans and metrics with the OpenTelemetry SDK, so it lives in bench/external,
// in the bench module: the SDK stays out of writegen's go.mod.
package otelhooks

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/writegen/writegen/runtime"
)

// instrumentation is the name of the tracer and the meter.
const instrumentation = "github.com/writegen/writegen/runtime/otelhooks"

// The attribute keys.
const (
	keyOperation   = attribute.Key("writegen.operation")
	keyScope       = attribute.Key("writegen.scope")
	keyKeyScope    = attribute.Key("writegen.key_scope")
	keyTenant      = attribute.Key("writegen.tenant")
	keyBusinessKey = attribute.Key("writegen.business_key")
	keyProviderKey = attribute.Key("writegen.provider_key")
	keyAttempt     = attribute.Key("writegen.attempt")
	keyClass       = attribute.Key("writegen.attempt.class")
	keyConns       = attribute.Key("writegen.attempt.connections")
	keyDelay       = attribute.Key("writegen.attempt.delay_ms")
	keyState       = attribute.Key("writegen.state")
	keySource      = attribute.Key("writegen.source")
	keyOwner       = attribute.Key("writegen.owner")
	keyFound       = attribute.Key("writegen.lookup.found")
	keyStatus      = attribute.Key("http.response.status_code")
	keyMethod      = attribute.Key("http.request.method")
	keyRoute       = attribute.Key("url.template")
)

// Option configures New.
type Option func(*config)

type config struct {
	tracers trace.TracerProvider
	meters  metric.MeterProvider
	keys    bool
}

// WithTracerProvider sets the tracer provider (default otel.GetTracerProvider()).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tracers = tp } }

// WithMeterProvider sets the meter provider (default otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.meters = mp } }

// WithKeys records the business key and the provider key on every call's span. They name the
// caller's intent and may hold business data (an order number, an email address): leave them
// out of traces unless the traces may hold it.
func WithKeys() Option { return func(c *config) { c.keys = true } }

// observer holds the instruments.
type observer struct {
	tracer    trace.Tracer
	keys      bool
	attempts  metric.Int64Counter
	calls     metric.Int64Counter
	uncertain metric.Int64Counter
	ledger    metric.Int64Counter
	duration  metric.Float64Histogram
}

// New returns hooks that report to OpenTelemetry.
func New(opts ...Option) (runtime.Hooks, error) {
	c := config{tracers: otel.GetTracerProvider(), meters: otel.GetMeterProvider()}
	for _, o := range opts {
		o(&c)
	}
	m := c.meters.Meter(instrumentation)
	o := &observer{tracer: c.tracers.Tracer(instrumentation), keys: c.keys}
	var errs [5]error
	o.attempts, errs[0] = m.Int64Counter("writegen.client.attempts", metric.WithDescription("Attempts of provider calls, by class."), metric.WithUnit("{attempt}"))
	o.calls, errs[1] = m.Int64Counter("writegen.client.calls", metric.WithDescription("Logical calls, by the state they settled in."), metric.WithUnit("{call}"))
	o.uncertain, errs[2] = m.Int64Counter("writegen.client.uncertain", metric.WithDescription("Calls whose outcome is uncertain: a person reconciles each."), metric.WithUnit("{call}"))
	o.ledger, errs[3] = m.Int64Counter("writegen.client.ledger.failures", metric.WithDescription("Outcomes the ledger could not record."), metric.WithUnit("{failure}"))
	o.duration, errs[4] = m.Float64Histogram("writegen.client.call.duration", metric.WithDescription("Time from a call's start to its outcome."), metric.WithUnit("s"))
	if err := errors.Join(errs[:]...); err != nil {
		return runtime.Hooks{}, err
	}
	return runtime.Hooks{
		CallStart:    o.callStart,
		AttemptStart: o.attemptStart,
		AttemptDone:  o.attemptDone,
		LookupStart:  o.lookupStart,
		LookupDone:   o.lookupDone,
		CallDone:     o.callDone,
		LedgerFailed: o.ledgerFailed,
	}, nil
}

// startKey is the context key of a call's start time.
type startKey struct{}

func (o *observer) callStart(ctx context.Context, c *runtime.CallInfo) context.Context {
	attrs := []attribute.KeyValue{keyOperation.String(c.OperationID), keyMethod.String(c.Method), keyRoute.String(c.Path)}
	if c.Scope != "" {
		attrs = append(attrs, keyScope.String(c.Scope))
	}
	if c.Operation != "" {
		attrs = append(attrs, keyKeyScope.String(c.Operation))
	}
	if c.Tenant != "" {
		attrs = append(attrs, keyTenant.String(c.Tenant))
	}
	if o.keys && c.BusinessKey != "" {
		attrs = append(attrs, keyBusinessKey.String(c.BusinessKey), keyProviderKey.String(c.ProviderKey))
	}
	ctx, _ = o.tracer.Start(ctx, c.OperationID, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return context.WithValue(ctx, startKey{}, time.Now())
}

func (o *observer) attemptStart(ctx context.Context, c *runtime.CallInfo, n int) context.Context {
	ctx, _ = o.tracer.Start(ctx, c.OperationID+" attempt", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(keyOperation.String(c.OperationID), keyAttempt.Int(n)))
	return ctx
}

func (o *observer) attemptDone(ctx context.Context, c *runtime.CallInfo, a runtime.Attempt) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(keyClass.String(a.Class.String()), keyConns.Int(a.Conns))
	if a.Status != 0 {
		span.SetAttributes(keyStatus.Int(a.Status))
	}
	if a.Delay > 0 {
		span.SetAttributes(keyDelay.Int64(a.Delay.Milliseconds()))
	}
	if a.Class != runtime.ClassOK {
		if a.Err != nil {
			span.RecordError(a.Err)
		}
		span.SetStatus(codes.Error, a.Class.String())
	}
	span.End()
	o.attempts.Add(ctx, 1, metric.WithAttributes(keyOperation.String(c.OperationID), keyClass.String(a.Class.String()), keyStatus.Int(a.Status)))
}

func (o *observer) lookupStart(ctx context.Context, c *runtime.CallInfo) context.Context {
	ctx, _ = o.tracer.Start(ctx, c.OperationID+" lookup", trace.WithAttributes(keyOperation.String(c.OperationID)))
	return ctx
}

func (o *observer) lookupDone(ctx context.Context, _ *runtime.CallInfo, found int, err error) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(keyFound.Int(found))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "lookup failed")
	}
	span.End()
}

func (o *observer) callDone(ctx context.Context, c *runtime.CallInfo, out runtime.Outcome) {
	span := trace.SpanFromContext(ctx)
	state := string(out.State)
	if state == "" {
		state = "ok" // a read, or a write whose outcome needed no ledger word
	}
	attrs := []attribute.KeyValue{keyOperation.String(c.OperationID), keyState.String(state)}
	if out.Err == nil && c.Write {
		attrs = append(attrs, keySource.String(out.Source.String()))
	}
	span.SetAttributes(attrs...)
	if out.Err != nil {
		span.RecordError(out.Err)
		span.SetStatus(codes.Error, state)
	}
	span.End()
	o.calls.Add(ctx, 1, metric.WithAttributes(attrs...))
	if ue := (*runtime.UncertainError)(nil); errors.As(out.Err, &ue) {
		o.uncertain.Add(ctx, 1, metric.WithAttributes(keyOperation.String(c.OperationID), keyOwner.String(ue.Owner)))
	}
	if start, ok := ctx.Value(startKey{}).(time.Time); ok {
		o.duration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
	}
}

func (o *observer) ledgerFailed(ctx context.Context, c *runtime.CallInfo, err error) {
	trace.SpanFromContext(ctx).AddEvent("ledger could not record the outcome", trace.WithAttributes(attribute.String("error", err.Error())))
	o.ledger.Add(ctx, 1, metric.WithAttributes(keyOperation.String(c.OperationID)))
}
