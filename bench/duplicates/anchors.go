package main

import (
	"context"
	"net/http"
	"os"

	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"
)

// pid tells the sendTag ids of one calling process from those of its successor.
var pid = os.Getpid()

// openRetryable is what many teams write: the client oapi-codegen generates from api.yaml, on
// an HTTP client from go-retryablehttp with its default policy (4 retries on connection errors,
// 429 and 5xx, waits from 1s to 30s, Retry-After honoured). No idempotency key is sent. On a
// provider that takes no key it is the careful choice "retry, and accept the duplicates".
func openRetryable(_ context.Context, baseURL string, _ state, pr *profile) (*client, error) {
	// hand:retryablehttp
	rc := retryablehttp.NewClient()
	rc.Logger = nil // it logs every request to stderr by default
	// hand:end
	return oapiKeyed(baseURL, rc, nil, pr)
}

// openSDK is the same generated client with what stripe-go and the Stainless SDKs do: a random
// idempotency key for each logical call, reused by that call's retries and forgotten when the
// process ends, and 409 retried as those SDKs retry it.
func openSDK(ctx context.Context, baseURL string, _ state, pr *profile) (*client, error) {
	// hand:sdk
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err == nil && resp.StatusCode == http.StatusConflict {
			return true, nil // the first request with this key is still running
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	key := func(order) string { return uuid.NewString() }
	// hand:end
	return oapiKeyed(baseURL, rc, key, pr)
}
