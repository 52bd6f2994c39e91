package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/writegen/writegen/spec/scaffold"
)

// TestInitProposalsFind generates a client from what writegen init proposes for the Relay Desk
// spec of the golden case init-lookups, answered where init leaves a TODO and otherwise as
// proposed, and calls two creates against a real HTTP server that commits each and then loses
// its answer: the contact is found again by the proposed POST search, the note by the proposed
// walk through the ticket's notes, on the second page. Each is adopted from its lookup, and the
// server made each once.
func TestInitProposalsFind(t *testing.T) {
	specPath := filepath.Join(goldenRoot(t), "init-lookups", "openapi.yaml")
	out, err := scaffold.Scaffold(specPath, scaffold.Options{Package: "relaydesk"})
	if err != nil {
		t.Fatal(err)
	}
	mod := corpusModuleDir(t)
	annotations := filepath.Join(t.TempDir(), "writesafety.yaml")
	if err := os.WriteFile(annotations, answerInit(out, []string{"createContact", "addNote"}), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	if code := run(t.Context(), []string{"generate", "-spec", specPath, "-annotations", annotations, "-out", filepath.Join(mod, "relaydesk")}, &stdout, &stderr); code != exitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr.String())
	}
	if err := os.MkdirAll(filepath.Join(mod, "relay"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "relay", "main.go"), []byte(`package main

import (
	"context"
	"fmt"
	"os"

	"`+corpusModule+`/relaydesk"
)

func main() {
	ctx := context.Background()
	c, err := relaydesk.NewClient(os.Args[1])
	if err != nil {
		panic(err)
	}
	email := "ada@example.com"
	contact, err := c.CreateContact(ctx, relaydesk.CreateContactKey{RequestID: "crm-1"}, relaydesk.CreateContactRequest{Email: &email})
	if err != nil {
		fmt.Println("createContact:", err)
	} else {
		fmt.Println("createContact:", contact.Source, contact.ID)
	}
	note, err := c.AddNote(ctx, relaydesk.AddNoteKey{RequestID: "note-1"}, relaydesk.AddNoteParams{TicketID: 7}, relaydesk.AddNoteRequest{Text: "called back"})
	if err != nil {
		fmt.Println("addNote:", err)
	} else {
		fmt.Println("addNote:", note.Source, note.ID)
	}
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	goCommand(t, mod, "build", "-trimpath", "-o", "relaybin", "./relay")

	var mu sync.Mutex
	var contacts, notes []map[string]any
	made := map[string]int{}
	// lose commits a write and drops the connection before the answer.
	lose := func(w http.ResponseWriter) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var body map[string]any
		if r.Method == "POST" {
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		reply := func(v any) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(v)
		}
		switch r.Method + " " + r.URL.Path {
		case "POST /contacts":
			made["contact"]++
			contacts = append(contacts, map[string]any{"id": "ct_1", "email": body["email"], "externalId": body["externalId"]})
			lose(w)
		case "POST /contacts/search":
			q, _ := body["query"].(map[string]any)
			data := []map[string]any{{"id": "ct_0", "externalId": "someone else"}}
			for _, c := range contacts {
				if q["field"] == "externalId" && q["operator"] == "=" && c["externalId"] == q["value"] {
					data = append(data, c)
				}
			}
			reply(map[string]any{"data": data})
		case "POST /tickets/7/notes":
			made["note"]++
			notes = append(notes, map[string]any{"id": 70 + len(notes), "text": body["text"], "reference": body["reference"]})
			lose(w)
		case "GET /tickets/7/notes":
			// Two older notes of others on the first page, the new one on the second.
			if r.URL.Query().Get("cursor") == "" {
				reply(map[string]any{"notes": []map[string]any{{"id": 1, "reference": "a"}, {"id": 2}}, "meta": map[string]any{"next_cursor": "p2"}})
				return
			}
			reply(map[string]any{"notes": notes, "meta": map[string]any{}})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	res, err := exec.Command(filepath.Join(mod, "relaybin"), srv.URL).CombinedOutput()
	if err != nil {
		t.Fatalf("the client: %v\n%s", err, res)
	}
	got := string(res)
	if want := "createContact: adopted_lookup ct_1\naddNote: adopted_lookup 70\n"; got != want {
		t.Errorf("the client printed\n%s\nwant\n%s", got, want)
	}
	if made["contact"] != 1 || made["note"] != 1 {
		t.Errorf("the server made %v: want each once", made)
	}
}
