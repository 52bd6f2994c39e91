package writegenimpl

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
)

// A bounded list lookup counts the write's first send in the provider's time: a process whose
// clock runs years ahead of the provider's (the test clock says 2030) still walks back to the
// note the lost answer left behind, and adopts it, instead of stopping at once and sending the
// note a second time.
func TestLookupSinceInProviderTime(t *testing.T) {
	type note struct {
		ID        string    `json:"id"`
		Text      string    `json:"text"`
		CreatedAt time.Time `json:"created_at"`
	}
	var mu sync.Mutex
	var notes []note
	mux := http.NewServeMux()
	mux.HandleFunc("POST /notes", func(w http.ResponseWriter, r *http.Request) {
		var n note
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		n.ID, n.CreatedAt = "note_"+string(rune('a'+len(notes))), time.Now().UTC()
		notes = append(notes, n)
		first := len(notes) == 1
		mu.Unlock()
		if first {
			drop(w, true) // committed, and the answer is lost
			return
		}
		json.NewEncoder(w).Encode(n)
	})
	mux.HandleFunc("GET /notes", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		page := make([]note, 0, len(notes))
		for i := len(notes) - 1; i >= 0; i-- { // newest first
			page = append(page, notes[i])
		}
		mu.Unlock()
		json.NewEncoder(w).Encode(page) // the server sets Date: the provider's time
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	clk := newTestClock()
	if !clk.Now().After(time.Now().Add(time.Hour)) {
		t.Fatal("the test clock must run well ahead of the provider's")
	}
	c := newTestClient(t, srv.URL, clk)
	op := thingOp(withLookup)
	op.Marker = " [ref:{ref}]" // appended to the note's text
	walked := 0
	call := Call[*note]{
		Build: func(_, ref string) (*Request, error) {
			r := NewRequest("POST", "/notes")
			return r, r.JSON(note{Text: "escalated [ref:" + ref + "]"})
		},
		ID: func(n *note) string { return n.ID },
		Lookup: func(ctx context.Context, ref string) ([]runtime.Found[*note], error) {
			var page []note
			if err := Read(ctx, c, listOp, NewRequest("GET", "/notes"), &page); err != nil {
				return nil, err
			}
			since, bounded := runtime.LookupSince(ctx) // after the read, as generated lookups ask
			if !bounded {
				t.Error("the runtime gave the lookup no time bound")
			}
			var found []runtime.Found[*note]
			for i := range page {
				if page[i].CreatedAt.Before(since) {
					break // older than the write: so is the rest
				}
				walked++
				if strings.Contains(page[i].Text, "[ref:"+ref+"]") {
					found = append(found, runtime.Found[*note]{ID: page[i].ID, Body: &page[i], Ref: page[i].Text})
				}
			}
			return found, nil
		},
	}
	r, err := Write(context.Background(), c, op, thingKey{"1"}, call)
	mu.Lock()
	n := len(notes)
	mu.Unlock()
	if err != nil || n != 1 || r.ID != "note_a" || walked == 0 {
		t.Fatalf("receipt %+v, err %v, %d notes at the provider, %d walked; want note_a adopted, one note", r, err, n, walked)
	}
}
