package sloghooks_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/sloghooks"
	"github.com/writegen/writegen/runtime/writegenimpl"
)

type thing struct {
	ID string `json:"id"`
}

type thingKey struct{ ID string }

func (k thingKey) BusinessKey() (string, error) { return "thing:" + k.ID, nil }

// A write whose provider answers 503 once, then 201: the failed attempt is a warning, the
// outcome is logged with where its receipt came from. (Generated clients call writegenimpl;
// programs pass the hooks to the generated NewClient.)
func Example() {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n++; n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"id":"th_1"}`))
	}))
	defer srv.Close()

	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "retry_in" {
				return slog.Attr{} // keep the output stable
			}
			return a
		},
	}))
	c, err := writegenimpl.NewClient("things", srv.URL, []runtime.Option{runtime.WithHooks(sloghooks.New(log)), runtime.WithBackoff(0, 0)})
	if err != nil {
		panic(err)
	}
	op := &writegenimpl.Operation{ID: "createThing", Scope: "create-thing", Method: "POST", Path: "/things",
		Effect: runtime.EffectAmbiguous, Retry: runtime.Retry503, Attempts: 2, KeyHeader: "Idempotency-Key", Keyed: true, Receipt: true}
	writegenimpl.Write(context.Background(), c, op, thingKey{"1"}, writegenimpl.Call[*thing]{
		Request: writegenimpl.NewRequest("POST", "/things"),
		ID:      func(t *thing) string { return t.ID },
	})
	// Output:
	// level=WARN msg="writegen attempt" operation=createThing attempt=1 class=status status=503
	// level=DEBUG msg="writegen attempt" operation=createThing attempt=2 class=ok status=201
	// level=INFO msg="writegen call" operation=createThing business_key=thing:1 provider_key=things/create-thing:thing:1 attempts=2 state=active source=created
}
