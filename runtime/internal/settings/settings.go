// Package settings holds what the options of package runtime set and its executor,
// runtime/writegenimpl, reads, so that neither exports it to programs: runtime.Option is a
// function of a pointer to it, and writegenimpl names it Settings. Some of its fields have
// runtime's types, which this package cannot import (runtime imports it): they are its type
// parameters, instantiated once, with runtime's Clock, Ledger, TokenSource, Hooks, Notifier and
// Retry.
package settings

import (
	"net/http"
	"time"
)

// Settings is what the options set. Generated clients build it from their defaults (given with
// each field) and the options.
type Settings[Clock, Ledger, TokenSource, Hooks, Notifier any, Retry ~uint32] struct {
	HTTPClient     *http.Client  // default: net/http's default transport, no client timeout
	KeySecret      []byte        // HMAC secret of provider keys; nil: readable keys (see runtime.ProviderKey)
	Tenant         string        // the tenant or account of the provider the client writes to
	Clock          Clock         // default: the system clock
	BackoffBase    time.Duration // default 100ms
	BackoffMax     time.Duration // default 10s
	BudgetRatio    float64       // default 0.2
	BudgetMin      int           // default 10
	MaxAttempts    int           // 0: the operations' own limits
	RetryMask      Retry         // default: every kind (^Retry(0))
	AttemptTimeout time.Duration // default 30s: every attempt has a deadline
	MaxRetryAfter  time.Duration // default 60s: a longer Retry-After ends the call instead of waiting
	Lease          time.Duration // default 60s: the ledger claim's lease, renewed every Lease/3 while the call runs
	Instance       string        // the stable name of this instance of the program (WithInstance); "" for none
	LookupSettle   time.Duration // default 0: the least settle time or lag a lookup's "not found" waits for
	ReaskEvery     time.Duration // default 1m: the first step of Resume's re-asks of a lookup that declares no lag
	ReaskTimes     int           // default 8: how often Resume asks an uncertain write's lookup again
	Ledger         Ledger
	Tokens         TokenSource
	Hooks          Hooks
	Notifier       Notifier
	Header         http.Header // static headers of every request
}
