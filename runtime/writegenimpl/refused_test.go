package writegenimpl

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/writegen/writegen/runtime"
)

type okBody struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	TS    string `json:"ts"`
}

func okRefused(body any) string {
	if b, _ := body.(*okBody); b != nil && !b.OK {
		return "/ok is false: " + b.Error
	}
	return ""
}

// TestRefusedTwoHundred: a 2xx that Operation.Refused reads as the provider's refusal settles
// the call rejected, once, for a write with a key and one without; a success is a receipt.
func TestRefusedTwoHundred(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path == "/ok" {
			w.Write([]byte(`{"ok":true,"ts":"1.2"}`))
			return
		}
		w.Write([]byte(`{"ok":false,"error":"channel_not_found"}`))
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, newTestClock())
	op := &Operation{ID: "post", Scope: "post", Method: "POST", Path: "/refuse", Effect: runtime.EffectAmbiguous,
		Retry: runtime.RetryNotSent | runtime.Retry5xx, Attempts: 3, Receipt: true, Refused: okRefused}
	call := Call[*okBody]{Request: NewRequest("POST", "/refuse"), ID: func(b *okBody) string { return b.TS }}
	_, err := Write(context.Background(), c, op, thingKey{"k1"}, call)
	var se *runtime.StatusError
	if !errors.Is(err, runtime.ErrRejected) || !errors.As(err, &se) || se.Refusal != "/ok is false: channel_not_found" || se.Status != 200 {
		t.Fatalf("err = %v, want a rejection quoting the refusal", err)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d calls, want 1", calls.Load())
	}

	do := &Operation{ID: "set", Method: "POST", Path: "/refuse", Effect: runtime.EffectIdempotent,
		Retry: runtime.RetryNotSent | runtime.RetryAmbiguous, Attempts: 3, Refused: okRefused}
	if err := Do(context.Background(), c, do, NewRequest("POST", "/refuse"), new(okBody)); !errors.Is(err, runtime.ErrRejected) {
		t.Fatalf("Do: err = %v, want rejected", err)
	}

	op.Path = "/ok"
	call.Request = NewRequest("POST", "/ok")
	rc, err := Write(context.Background(), c, op, thingKey{"k2"}, call)
	if err != nil || rc.ID != "1.2" {
		t.Fatalf("a success: %+v, %v", rc, err)
	}
}
