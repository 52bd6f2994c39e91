// Package sloghooks logs the calls of writegen's generated clients with log/slog:
//
//	client, err := support.NewClient(baseURL, l, runtime.WithHooks(sloghooks.New(slog.Default())))
//
// A successful attempt is logged at Debug, a failed one at Warn; a call's outcome at Info when it
// succeeded, at Warn when the provider refused it or nothing was applied, and at Error when it is
// uncertain (a person must reconcile it) or when the ledger could not record it. Business and
// provider keys are logged: they name the caller's intent and find the ledger row.
package sloghooks

import (
	"context"
	"errors"
	"log/slog"

	"github.com/writegen/writegen/runtime"
)

// New returns hooks that log to l.
func New(l *slog.Logger) runtime.Hooks {
	return runtime.Hooks{
		AttemptDone: func(ctx context.Context, c *runtime.CallInfo, a runtime.Attempt) {
			level := slog.LevelDebug
			attrs := []slog.Attr{op(c), slog.Int("attempt", a.Number), slog.String("class", a.Class.String())}
			if a.Status != 0 {
				attrs = append(attrs, slog.Int("status", a.Status))
			}
			if a.Conns > 1 {
				attrs = append(attrs, slog.Int("connections", a.Conns))
			}
			if a.Class != runtime.ClassOK {
				level = slog.LevelWarn
				if a.Err != nil && a.Class != runtime.ClassStatus { // a status says it all
					attrs = append(attrs, slog.String("err", a.Err.Error()))
				}
				if a.Delay > 0 {
					attrs = append(attrs, slog.Duration("retry_in", a.Delay))
				}
			}
			l.LogAttrs(ctx, level, "writegen attempt", attrs...)
		},
		LookupDone: func(ctx context.Context, c *runtime.CallInfo, found int, err error) {
			attrs := []slog.Attr{op(c), slog.Int("found", found)}
			if err != nil {
				l.LogAttrs(ctx, slog.LevelWarn, "writegen lookup", append(attrs, slog.String("err", err.Error()))...)
				return
			}
			l.LogAttrs(ctx, slog.LevelInfo, "writegen lookup", attrs...)
		},
		CallDone: func(ctx context.Context, c *runtime.CallInfo, o runtime.Outcome) {
			attrs := []slog.Attr{op(c)}
			if c.BusinessKey != "" {
				attrs = append(attrs, slog.String("business_key", c.BusinessKey), slog.String("provider_key", c.ProviderKey))
			}
			if c.Tenant != "" {
				attrs = append(attrs, slog.String("tenant", c.Tenant))
			}
			attrs = append(attrs, slog.Int("attempts", o.Attempts))
			if o.State != "" {
				attrs = append(attrs, slog.String("state", string(o.State)))
			}
			var ue *runtime.UncertainError
			switch {
			case o.Err == nil:
				if c.Write {
					attrs = append(attrs, slog.String("source", o.Source.String()))
				}
				l.LogAttrs(ctx, slog.LevelInfo, "writegen call", attrs...)
			case errors.As(o.Err, &ue):
				attrs = append(attrs, slog.String("owner", ue.Owner), slog.String("reason", ue.Reason), slog.String("recorded", ue.Recorded))
				l.LogAttrs(ctx, slog.LevelError, "writegen call uncertain", attrs...)
			default:
				l.LogAttrs(ctx, slog.LevelWarn, "writegen call failed", append(attrs, slog.String("err", o.Err.Error()))...)
			}
		},
		LedgerFailed: func(ctx context.Context, c *runtime.CallInfo, err error) {
			l.LogAttrs(ctx, slog.LevelError, "writegen ledger could not record the outcome", op(c),
				slog.String("business_key", c.BusinessKey), slog.String("err", err.Error()))
		},
	}
}

func op(c *runtime.CallInfo) slog.Attr { return slog.String("operation", c.OperationID) }
