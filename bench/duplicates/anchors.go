package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/writegen/writegen/bench/duplicates/oapitransfers"
)

// openRetryable is what many teams write: the client oapi-codegen generates from api.yaml, on
// an HTTP client from go-retryablehttp with its default policy (4 retries on connection errors,
// 429 and 5xx, waits from 1s to 30s, Retry-After honoured). No idempotency key is sent.
func openRetryable(_ context.Context, baseURL, _ string) (*client, error) {
	rc := retryablehttp.NewClient()
	rc.Logger = nil // it logs every request to stderr by default
	return oapiClient(baseURL, rc, false)
}

// openSDK is the same generated client with what stripe-go and the Stainless SDKs do: a random
// idempotency key for each logical call, reused by that call's retries and forgotten when the
// process ends, and 409 retried as those SDKs retry it.
func openSDK(_ context.Context, baseURL, _ string) (*client, error) {
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err == nil && resp.StatusCode == http.StatusConflict {
			return true, nil // the first request with this key is still running
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	return oapiClient(baseURL, rc, true)
}

func oapiClient(baseURL string, rc *retryablehttp.Client, keyed bool) (*client, error) {
	c, err := oapitransfers.NewClientWithResponses(baseURL, oapitransfers.WithHTTPClient(rc.StandardClient()))
	if err != nil {
		return nil, err
	}
	pay := func(ctx context.Context, o order) (string, error) {
		var params oapitransfers.CreateTransferParams
		if keyed {
			key := uuid.NewString()
			params.IdempotencyKey = &key
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
