package ledger_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// A provider delivers the same webhook twice (its first 204 was lost on the way back). The
// inbox verifies both deliveries, answers both 204 at once, stores the event once, and the
// handler does the work once.
func ExampleLedger_Inbox() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "writegen-ledger-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	l, err := sqlite.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		panic(err)
	}
	defer l.Close()

	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("the desk's signing secret"))
	verifier, err := ledger.NewStandardWebhooks(secret, 5*time.Minute)
	if err != nil {
		panic(err)
	}
	inbox, err := l.Inbox(ledger.InboxConfig{
		Source:   "support-desk",
		Verifier: verifier,
		Handle: func(ctx context.Context, e ledger.Event) error {
			fmt.Printf("handled %s: %s\n", e.EventID, e.Body)
			return nil
		},
	})
	if err != nil {
		panic(err)
	}

	body := []byte(`{"type":"reply.created","thread_id":"th_1"}`)
	at := time.Now()
	for range 2 {
		req := httptest.NewRequest("POST", "/webhooks/support-desk", bytes.NewReader(body))
		req.Header.Set("webhook-id", "evt_1")
		req.Header.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
		req.Header.Set("webhook-signature", verifier.Sign("evt_1", at, body))
		rec := httptest.NewRecorder()
		inbox.ServeHTTP(rec, req)
		fmt.Println("delivery answered", rec.Code)
	}
	// A program runs inbox.Run in the background; HandleDue does the same work once, here.
	n, err := inbox.HandleDue(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(n, "event handled")
	// Output:
	// delivery answered 204
	// delivery answered 204
	// handled evt_1: {"type":"reply.created","thread_id":"th_1"}
	// 1 event handled
}
