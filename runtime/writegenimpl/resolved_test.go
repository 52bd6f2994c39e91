package writegenimpl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// TestPromise29_ResolvedCommittedReceipt: a row a person resolved committed holds the provider's id and
// no body. The next call with its key gets a receipt with that id and a nil Body, never a
// zero-valued one; where the write has a read by id, the object is read with the id and the
// values of the write, and a read that fails leaves Body nil. Nothing is sent.
func TestPromise29_ResolvedCommittedReceipt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		read    bool
		readErr error
		want    string // the Body's title, "" for a nil Body
	}{
		{"no read", false, nil, ""},
		{"read by id", true, nil, "read back"},
		{"read fails", true, errors.New("503"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t)
			op := thingOp(ledgerOnly)
			l := newMemLedger()
			c := newTestClient(t, p.URL, newTestClock(), runtime.WithLedger(l))
			row := claimFor(t, l, c, op, "1", "x", time.Now().Add(time.Hour))
			// what writegen ledger resolve -committed -provider-id th_9 records
			if err := l.Settle(context.Background(), row.ID, row.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "th_9"}); err != nil {
				t.Fatal(err)
			}
			call := thingCall(c, op, "x")
			call.LookupValues = []string{"owner", "acme"}
			var asked []string
			if tc.read {
				call.Read = func(_ context.Context, reference, id string) (*thing, error) {
					asked = append(asked, reference, id)
					if tc.readErr != nil {
						return nil, tc.readErr
					}
					return &thing{ID: id, Title: "read back"}, nil
				}
			}
			r, err := Write(context.Background(), c, op, thingKey{"1"}, call)
			if err != nil {
				t.Fatal(err)
			}
			if r.ID != "th_9" || r.Source != runtime.AdoptedLedger || r.Raw != nil {
				t.Errorf("receipt %+v: want th_9 from the ledger, no raw body", r)
			}
			switch {
			case tc.want == "" && r.Body != nil:
				t.Errorf("Body %+v, want nil", r.Body)
			case tc.want != "" && (r.Body == nil || r.Body.Title != tc.want || r.Body.ID != "th_9"):
				t.Errorf("Body %+v, want th_9 read back", r.Body)
			}
			if tc.read && (len(asked) != 2 || asked[1] != "th_9" || asked[0] != JoinReference("", "owner", "acme")) {
				t.Errorf("read asked %q, want the id and the write's values", asked)
			}
			if n := len(p.seenWrites()); n != 0 {
				t.Errorf("%d writes sent, want none", n)
			}
		})
	}
}
