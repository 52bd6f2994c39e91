package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/writegen/writegen/bench/duplicates/oapicomments"
	"github.com/writegen/writegen/bench/duplicates/oapitransfers"
)

// The careful baselines: what a team that read the provider's documentation writes by hand on
// the client oapi-codegen generates. The lines between "hand:NAME" and "hand:end" are the ones
// each needed; the table counts them (lines.go).

// openCareful derives the idempotency key from the business identity, so that every retry,
// every second ask and every restart sends the same key; retries 409 (the first request with
// the key still runs) on top of go-retryablehttp's policy, which honours Retry-After on 429
// and 503. A key longer than the provider takes is hashed to 43 characters, as its docs
// would lead a careful engineer to do.
func openCareful(_ context.Context, baseURL string, _ state, pr *profile) (*client, error) {
	// hand:careful
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err == nil && resp.StatusCode == http.StatusConflict {
			return true, nil
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	key := func(o order) string {
		k := "order:" + o.id
		if pr.provider.maxKey > 0 && len(k) > pr.provider.maxKey {
			sum := sha256.Sum256([]byte(k))
			k = base64.RawURLEncoding.EncodeToString(sum[:])
		}
		return k
	}
	// hand:end
	return oapiKeyed(baseURL, rc, key, pr)
}

// openCarefulCut is the same, with the key cut to the provider's bound instead of hashed: the
// shortcut of a team that met the 400 and fixed it in one line.
func openCarefulCut(_ context.Context, baseURL string, _ state, pr *profile) (*client, error) {
	// hand:careful-cut
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err == nil && resp.StatusCode == http.StatusConflict {
			return true, nil
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	key := func(o order) string {
		k := "order:" + o.id
		if pr.provider.maxKey > 0 && len(k) > pr.provider.maxKey {
			k = k[:pr.provider.maxKey]
		}
		return k
	}
	// hand:end
	return oapiKeyed(baseURL, rc, key, pr)
}

// openOnce sends each write once and never retries it, since the provider cannot deduplicate
// a second send: a lost answer is reported as a failure.
func openOnce(_ context.Context, baseURL string, _ state, pr *profile) (*client, error) {
	// hand:once
	hc := &http.Client{}
	// hand:end
	return oapiClientOn(baseURL, hc, nil, pr)
}

// openOnceKeyed is the same with the derived key sent in an Idempotency-Key header anyway, in
// case the provider honours it: net/http then treats the POST as replayable and sends it again
// by itself when a reused connection breaks before the answer (net/http isReplayable).
func openOnceKeyed(_ context.Context, baseURL string, _ state, pr *profile) (*client, error) {
	// hand:once-key
	hc := &http.Client{}
	key := func(o order) string { return "order:" + o.id }
	// hand:end
	return oapiClientOn(baseURL, hc, key, pr)
}

func oapiKeyed(baseURL string, rc *retryablehttp.Client, key func(order) string, pr *profile) (*client, error) {
	rc.HTTPClient.Transport = &sendTag{base: rc.HTTPClient.Transport}
	return oapiClientOn(baseURL, rc.StandardClient(), key, pr)
}

// oapiClientOn is the oapi-codegen client of the profile's API on hc, sending key(o) as the
// idempotency key when key is not nil (the comments API takes none). hc's transport is wrapped
// in a sendTag when it is not one already.
func oapiClientOn(baseURL string, hc *http.Client, key func(order) string, pr *profile) (*client, error) {
	if hc.Transport == nil {
		hc.Transport = &sendTag{base: http.DefaultTransport.(*http.Transport).Clone()}
	}
	if pr.provider.api == apiComments {
		return oapiComments(baseURL, hc)
	}
	c, err := oapitransfers.NewClientWithResponses(baseURL, oapitransfers.WithHTTPClient(hc))
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		var params oapitransfers.CreateTransferParams
		if key != nil {
			k := key(o)
			params.IdempotencyKey = &k
		}
		resp, err := c.CreateTransferWithResponse(ctx, &params, oapitransfers.CreateTransferJSONRequestBody{
			OrderId:  o.id,
			Amount:   o.amount,
			Currency: currency,
		})
		if err != nil {
			return "", err
		}
		if resp.JSON201 == nil {
			return "", fmt.Errorf("create transfer: %s", resp.Status())
		}
		return resp.JSON201.Id, nil
	}
	return &client{pay: pay}, nil
}

// oapiComments is the oapi-codegen client of api-comments.yaml on hc: a comment on the order's
// ticket that says the order was paid out.
func oapiComments(baseURL string, hc *http.Client) (*client, error) {
	c, err := oapicomments.NewClientWithResponses(baseURL, oapicomments.WithHTTPClient(hc))
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		resp, err := c.CreateCommentWithResponse(ctx, o.ticket, oapicomments.CreateCommentJSONRequestBody{Body: commentText(o)})
		if err != nil {
			return "", err
		}
		if resp.JSON201 == nil {
			return "", fmt.Errorf("create comment: %s", resp.Status())
		}
		return resp.JSON201.Id, nil
	}
	return &client{pay: pay}, nil
}

// sendTag stamps each request it is handed with an id of its own (sendHeader), beneath any
// retry policy and above net/http's transport: the provider sees the same id twice only when
// net/http sent the request again by itself.
type sendTag struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (t *sendTag) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(sendHeader, strconv.FormatInt(t.n.Add(1), 10)+"-"+strconv.Itoa(pid))
	return t.base.RoundTrip(r)
}
