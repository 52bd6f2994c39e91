package main

import (
	"strings"
	"time"
)

// profile is one provider pattern, taken from a provider's documentation (source), with the
// clients a careful team would choose from for it, writegen's among them.
type profile struct {
	name     string
	title    string // one line, as the table heads it
	source   string // where the pattern is documented
	provider providerConfig
	askAgain bool   // the workload asks some orders again later and some twice at once
	idPrefix string // starts every order id (long business ids)
	// waitAfterLoss: the request after a lost answer meets 503 with the profile's Retry-After.
	waitAfterLoss bool
	// otherPayload: every ask of an order after its first carries another amount, a caller's bug
	// (with askAgain).
	otherPayload bool
	// replicas: how many calling processes share the work (0 or 1: one); with askAgain, an order
	// asked again is picked by another replica, as a queue delivers a message again.
	replicas int
	clients  []string // the rows, by client arg
}

// The APIs a profile's provider serves.
const (
	apiTransfers = ""         // api.yaml: transfers, with a search by reference
	apiComments  = "comments" // api-comments.yaml: a ticket's comments, newest first
)

// profiles are the provider patterns, in the order the table shows them.
var profiles = []*profile{
	{
		name:     "stripe",
		title:    "keyed, 24 h window, keys up to 255 characters",
		source:   "https://docs.stripe.com/idempotency",
		provider: stripeConfig,
		askAgain: true,
		clients:  []string{"retryablehttp", "sdk", "careful", "writegen", "writegen-ledger"},
	},
	{
		// Qonto remembers a key for 30 minutes; scaled here to 1.5 s, and the Retry-After
		// after a lost answer (2 s) outlasts it, as a 30-minute rate limit or outage would.
		name:   "short-window",
		title:  "keyed, short window (Qonto: 30 min, scaled to 1.5 s), a Retry-After longer than the window",
		source: "https://docs.qonto.com/get-started/general/idempotent-requests",
		// Qonto answers a reused key with the first response whatever the body (compares false);
		// here every request of an order has the same body.
		provider:      providerConfig{keyed: true, window: 1500 * time.Millisecond, maxKey: 255, retryAfter: "2"},
		askAgain:      false,
		waitAfterLoss: true,
		clients:       []string{"careful", "writegen-window"},
	},
	{
		name:     "long-ids",
		title:    "keyed, keys up to 45 characters (Square CreatePayment), business ids longer than that",
		source:   "https://developer.squareup.com/docs/working-with-apis/idempotency; the 45-character bound: square/square-php-sdk doc/models/create-payment-request.md",
		provider: providerConfig{keyed: true, window: 24 * time.Hour, maxKey: 45, retryAfter: "1", compares: true},
		askAgain: true,
		idPrefix: "marketplace-eu-west-1:merchant-000482193:",
		clients:  []string{"careful-cut", "careful", "writegen-long"},
	},
	{
		name:     "lookup",
		title:    "no key, a search on a reference field (Zendesk tickets' external_id); a commit may outlast its connection",
		source:   "https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/ (external_id, and the list of tickets by external_id)",
		provider: providerConfig{keyed: false, retryAfter: "1"},
		clients:  []string{"once", "once-key", "retryablehttp", "writegen-lookup"},
	},
	{
		name:     "no-lookup",
		title:    "no key, no lookup (Slack chat.postMessage: no idempotency key, no search by a caller's reference)",
		source:   "https://api.slack.com/methods/chat.postMessage",
		provider: providerConfig{keyed: false, retryAfter: "1"},
		clients:  []string{"once", "once-key", "retryablehttp", "writegen-nolookup"},
	},
	{
		name:     "comments",
		title:    "no key, a comment found by a marker in a bounded, newest-first list of the ticket's comments; a commit may outlast its connection",
		source:   "https://developer.zendesk.com/api-reference/ticketing/tickets/ticket_comments/ (a ticket's comments, sort_order, cursor pagination)",
		provider: providerConfig{keyed: false, retryAfter: "1", api: apiComments},
		clients:  []string{"once", "retryablehttp", "writegen-comments"},
	},
	{
		// A caller's bug: the same order paid again with another amount. Stripe's idempotency
		// layer compares a request that reuses a key with the first one and refuses another.
		name:         "same-key-another-payload",
		title:        "a caller's bug: an order asked again with another amount, on a keyed provider that refuses a key reused with another body (Stripe)",
		source:       "https://docs.stripe.com/idempotency (the idempotency layer compares incoming parameters with the original request's and errors if they differ)",
		provider:     stripeConfig,
		askAgain:     true,
		otherPayload: true,
		clients:      []string{"retryablehttp", "careful", "writegen", "writegen-ledger"},
	},
	{
		// The same bug where the provider answers a reused key with the first response whatever
		// the body: Qonto documents it (its window, 30 minutes, is kept; the second ask comes
		// within seconds).
		name:         "same-key-cached",
		title:        "the same bug on a keyed provider that answers a reused key with the first response, whatever the body (Qonto)",
		source:       "https://docs.qonto.com/get-started/general/idempotent-requests (the cached response is returned even if the request body differs)",
		provider:     providerConfig{keyed: true, window: 30 * time.Minute, maxKey: 255, retryAfter: "1"},
		askAgain:     true,
		otherPayload: true,
		clients:      []string{"careful", "writegen", "writegen-ledger"},
	},
	{
		// Two replicas of the connector share the work, and the queue hands some orders to both.
		// On a provider without keys only what the replicas share can tell that the other one
		// paid the order: writegen's ledger, one SQLite file for both.
		name:     "two-replicas",
		title:    "two replicas share the work and some orders reach both (a queue delivering a message again); no key, a search by reference (the lookup profile's provider)",
		source:   "https://docs.aws.amazon.com/sdk-for-cpp/v1/developer-guide/examples-sqs-visibility-timeout.html (a standard queue may deliver a message more than once); the provider: https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/",
		provider: providerConfig{keyed: false, retryAfter: "1"},
		askAgain: true,
		replicas: 2,
		clients:  []string{"careful", "once", "writegen-lookup"},
	},
	{
		// The same on a keyed provider: the provider's key dedupes what both replicas send, so a
		// derived key on both ties writegen.
		name:     "two-replicas-keyed",
		title:    "two replicas, some orders reaching both, on a keyed provider (Stripe: 24 h window)",
		source:   "https://docs.aws.amazon.com/sdk-for-cpp/v1/developer-guide/examples-sqs-visibility-timeout.html; the provider: https://docs.stripe.com/idempotency",
		provider: stripeConfig,
		askAgain: true,
		replicas: 2,
		clients:  []string{"careful", "writegen-ledger"},
	},
}

// profileNames lists the profiles by the names -profile takes.
func profileNames() string {
	var names []string
	for _, p := range profiles {
		names = append(names, p.name)
	}
	return strings.Join(names, " ")
}

// profileNamed returns the profile called name, nil if there is none.
func profileNamed(name string) *profile {
	for _, p := range profiles {
		if p.name == name {
			return p
		}
	}
	return nil
}
