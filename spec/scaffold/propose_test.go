package scaffold

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/writegen/writegen/internal/corpustest"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/spec/ir"
)

// relayDesk is the spec of the golden case of init's lookups (see cmd/writegen's TestGoldenInit).
const relayDesk = "../../testdata/golden/init-lookups/openapi.yaml"

// answerTODOs answers what writegen init leaves to a person, the same way for every write, and
// leaves every line init proposes as it is: the writes are ambiguous, keyed by an event id,
// and a nonce is remembered five minutes.
func answerTODOs(scaffold []byte) []byte {
	out := string(scaffold)
	for _, r := range []struct{ from, to string }{
		{`effect: TODO #.*`, "effect: ambiguous"},
		{`destructive: TODO #.*`, "destructive: false"},
		{`fields: \{TODO: string\}, format: "\{TODO\}"\}`, `fields: {event_id: string}, format: "{event_id}"}`},
		{`owner: TODO #.*`, "owner: desk-team"},
		{`window: TODO\}`, "window: 5m}"},
		{`response: \{is: TODO, id: /id\} #.*`, "response: {is: receipt, id: /id}"},
		{`response: \{is: TODO\} #.*`, "response: {is: acknowledgement}"},
		{`response: \{is: receipt, id: TODO\} #.*`, "response: {is: acknowledgement}"},
		{`# TODO: confirm `, "# confirmed: "},
	} {
		out = regexp.MustCompile(r.from).ReplaceAllString(out, r.to)
	}
	return []byte(out)
}

// TestScaffoldProposals checks the lookups init proposes complete, one of each form: a search
// sent as POST with a {field, operator, value} query, a GET search in Stripe's query language
// by a metadata key, a walk through a ticket's notes a page at a time, matched on the client,
// a list filter whose answer is an envelope, and a list filter by the field a nonce travels in. Answered where init leaves a TODO and left as
// proposed, the file loads, and each write has the lookup proposed.
func TestScaffoldProposals(t *testing.T) {
	out, err := Scaffold(relayDesk, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ticket := `    response: {is: receipt, object: /ticket, id: /id} # TODO: confirm /ticket/id is the durable id of what the write made: the lookup adopts it
    reference: {body: /ticket/external_id} # TODO: confirm the provider keeps /ticket/external_id as sent: the write stores its reference there, the provider key, or a value of yours with value: "{field}"
    lookup: # TODO: confirm listTickets filters by external_id exactly
      operation: listTickets
      params: {external_id: "{ref}"}
      found: /tickets/0
      consistency: eventual # TODO: confirm how soon listTickets shows a write, as the provider documents it: {eventual: LAG, source: URL} where it bounds the lag, {strong: SETTLE, source: URL} where it shows a write at once (SETTLE: how long it may still commit a request whose answer was lost); plain eventual leaves each lost answer to Resume, then a person
`
	if !envelopesKnown() { // proposed as comments until writegen reads response.object
		ticket = "    response: {is: receipt, id: TODO} # 201 Created: where is the id of what was created?\n" +
			"    # a lookup that needs response.object (the receipt inside an envelope), which this writegen does not read yet:\n" +
			regexp.MustCompile(`(?m)^    `).ReplaceAllString(ticket, "    # ")
	}
	for _, want := range []string{
		`
  createContact: # POST /contacts
    effect: TODO # read_only | idempotent | compensatable | ambiguous
    destructive: TODO # true if it overwrites or deletes, else false
    key: {scope: createcontact, fields: {TODO: string}, format: "{TODO}"} # the business key callers pass: name: string or int64; keep scope when the operation is renamed
    # idempotency: the spec declares no idempotency key; add {header: Name} if the provider honours one
    response: {is: receipt, id: /id} # TODO: confirm /id is the durable id of what the write made: the lookup adopts it
    reference: {body: /externalId} # TODO: confirm the provider keeps /externalId as sent: the write stores its reference there, the provider key, or a value of yours with value: "{field}"
    lookup: # TODO: confirm the search searchContacts finds externalId by its exact value (the client keeps only what holds it)
      operation: searchContacts
      body: {query: {field: externalId, operator: "=", value: "{ref}"}}
      found: /data/0
      match: /externalId
      consistency: eventual # TODO: confirm how soon searchContacts shows a write, as the provider documents it: {eventual: LAG, source: URL} where it bounds the lag, {strong: SETTLE, source: URL} where it shows a write at once (SETTLE: how long it may still commit a request whose answer was lost); plain eventual leaves each lost answer to Resume, then a person
    retry: {on: [not_sent], attempts: 3}
`,
		`
    reference: {body: /metadata/writegen_ref} # TODO: confirm the write may add the key writegen_ref to the metadata, which the provider's users see
    lookup: # TODO: confirm the query metadata['writegen_ref']:{ref} finds writegen_ref by its exact value in searchCharges's query language (the client keeps only what holds it)
      operation: searchCharges
      params: {query: "metadata['writegen_ref']:{ref}"}
      escape: stripe_search
      found: /data/0
      match: /metadata/writegen_ref
      consistency: eventual #`,
		`
    reference: {body: /reference} # TODO: confirm the provider keeps /reference as sent: the write stores its reference there, the provider key, or a value of yours with value: "{field}"
    lookup: # TODO: confirm listNotes lists what the write made, and that 5 pages reach back to a write's first attempt; it cannot be asked for newest first, so not found counts only when the walk reaches the end of the list
      operation: listNotes
      params: {ticket_id: "{ticket_id}"}
      found: /notes/0
      match: /reference
      pages: {max: 5, cursor: /meta/next_cursor, param: cursor}
      consistency: eventual #`,
		"\n" + ticket + "    retry:",
		// A nonce is the reference too: no reference of its own.
		`
    idempotency: {body: /client_msg_id, max_length: 36, window: TODO} # TODO: confirm the provider deduplicates writes by /client_msg_id, and answer window: how long it remembers one (a nonce is often kept minutes, not forever)
    response: {is: receipt, id: /id} # TODO: confirm /id is the durable id of what the write made: the lookup adopts it
    lookup: # TODO: confirm listChatMessages filters by client_msg_id exactly
      operation: listChatMessages
      params: {client_msg_id: "{ref}"}
      found: /messages/0
      consistency: eventual #`,
		// listTicketAudits needs a ticket_id createTicket does not know, listContacts a
		// workspace createContact does not know: neither is a candidate.
		"\n  createTicket: # POST /tickets\n",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("scaffold lacks\n%s\n\nscaffold:\n%s", want, out)
		}
	}
	for _, not := range []string{"listTicketAudits", "listContacts"} {
		if bytes.Contains(out, []byte(not)) {
			t.Errorf("scaffold names %s, which needs a parameter the write does not know", not)
		}
	}

	answered := answerTODOs(bytes.Replace(out, []byte("{is: receipt, id: TODO} # 201 Created: where is the id of what was created?"), []byte("{is: receipt, id: /ticket/id}"), 1))
	api, err := spec.LoadBytes("openapi.yaml", corpustest.Read(t, relayDesk), "ws.yaml", answered, spec.Options{})
	if err != nil {
		t.Fatalf("the answered scaffold is refused: %v\n%s", err, answered)
	}
	lookups := map[string]string{}
	for _, op := range api.Operations {
		if op.Safety == nil {
			continue
		}
		if l := op.Safety.Lookup; l != nil && l.Operation != nil {
			var form []string
			if l.Body != nil {
				form = append(form, "body "+l.Body.JSON)
			}
			for _, p := range l.Params {
				form = append(form, p.Param.Name+"="+p.Text)
			}
			if l.Match != nil {
				form = append(form, "match "+l.Match.Pointer)
			}
			if l.Pages != nil {
				form = append(form, "pages "+l.Pages.Param.Name)
			}
			lookups[op.ID] = l.Operation.ID + ": " + strings.Join(form, ", ")
		}
	}
	want := map[string]string{
		"createContact": `searchContacts: body {"query":{"field":"externalId","operator":"=","value":"{ref}"}}, match /externalId`,
		"createCharge":  `searchCharges: query=metadata['writegen_ref']:{ref}, match /metadata/writegen_ref`,
		"addNote":       `listNotes: ticket_id={ticket_id}, match /reference, pages cursor`,
		// The provider key travels in client_msg_id, which the list filters by, and which
		// carries it back (match, found where the write stores it).
		"postChatMessage": `listChatMessages: client_msg_id={ref}, match /client_msg_id`,
	}
	if envelopesKnown() {
		want["createTicket"] = `listTickets: external_id={ref}, match /external_id`
	}
	for id, w := range want {
		if lookups[id] != w {
			t.Errorf("%s: lookup %q, want %q", id, lookups[id], w)
		}
	}
	if len(lookups) != len(want) {
		t.Errorf("lookups %v, want %d", lookups, len(want))
	}
}

// TestScaffoldNonce checks that init notices a nonce the provider deduplicates by without
// calling it an idempotency key, with the switch that turns it on, and proposes it with the
// window left to a person; a payment token called nonce is not one.
func TestScaffoldNonce(t *testing.T) {
	out, err := Scaffold(relayDesk, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "\n  createMessage: # POST /channels/{channel_id}/messages\n" +
		"    effect: TODO # read_only | idempotent | compensatable | ambiguous\n" +
		"    destructive: TODO # true if it overwrites or deletes, else false\n" +
		`    key: {scope: createmessage, fields: {TODO: string}, format: "{TODO}"} # the business key callers pass: name: string or int64; keep scope when the operation is renamed` + "\n" +
		"    idempotency: {body: /nonce, max_length: 25, window: TODO} # TODO: confirm the provider deduplicates writes by /nonce (only with enforce_nonce: true, which the caller sends), and answer window: how long it remembers one (a nonce is often kept minutes, not forever)\n"
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("scaffold lacks\n%s\nscaffold:\n%s", want, out)
	}
	payment := out[bytes.Index(out, []byte("\n  createPayment:")):]
	payment = payment[:bytes.Index(payment, []byte("\n    retry:"))]
	if !bytes.Contains(payment, []byte("# idempotency: the spec declares no idempotency key")) {
		t.Errorf("a payment token is proposed as a nonce:\n%s", payment)
	}
	// Left untouched, the window is refused as a placeholder: a nonce is never kept forever
	// unless a person says so.
	_, err = spec.LoadBytes("openapi.yaml", corpustest.Read(t, relayDesk), "ws.yaml",
		bytes.Replace(answerTODOs(out), []byte("window: 5m}"), []byte("window: TODO}"), 1), spec.Options{})
	if err == nil || !strings.Contains(err.Error(), `"TODO" is a placeholder left by writegen init`) {
		t.Errorf("a nonce's window left TODO: got %v", err)
	}
	api, err := spec.LoadBytes("openapi.yaml", corpustest.Read(t, relayDesk), "ws.yaml", answerTODOs(out), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range api.Operations {
		if op.ID != "createMessage" {
			continue
		}
		if i := op.Safety.Idempotency; i == nil || i.Body == nil || i.Body.Pointer != "/nonce" || i.MaxLength != 25 || i.Window.Minutes() != 5 {
			t.Errorf("createMessage: idempotency %+v", i)
		}
	}
}

// TestScaffoldProposesOnlyWhatWorks checks what init does not propose: a list whose elements are
// not what the write answers (named among the candidates, with its filter, but not written out),
// an action on an object that exists before it, a create-or-update, and a list that needs a
// parameter the write does not know (not named at all).
func TestScaffoldProposesOnlyWhatWorks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.yaml")
	if err := os.WriteFile(path, []byte(`openapi: 3.0.3
info: {title: Shop, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      requestBody: {content: {application/json: {schema: {type: object, properties: {reference: {type: string}}}}}}
      responses: {"201": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Order"}}}}}
    get:
      operationId: listOrders
      parameters: [{name: reference, in: query, schema: {type: string}}]
      responses: {"200": {description: ok, content: {application/json: {schema: {type: object, properties: {items: {type: array, items: {$ref: "#/components/schemas/OrderSummary"}}}}}}}}
  /orders/{order_id}/capture:
    parameters: [{name: order_id, in: path, required: true, schema: {type: string}}]
    post:
      operationId: captureOrder
      requestBody: {content: {application/json: {schema: {type: object, properties: {reference: {type: string}}}}}}
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Order"}}}}}
  /widgets:
    post:
      operationId: putWidget
      summary: Create or update a widget
      requestBody: {content: {application/json: {schema: {type: object, properties: {external_id: {type: string}}}}}}
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Order"}}}}}
    get:
      operationId: listWidgets
      parameters: [{name: external_id, in: query, schema: {type: string}}]
      responses: {"200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Order"}}}}}}
  /labels:
    post:
      operationId: createLabel
      requestBody: {content: {application/json: {schema: {type: object, properties: {external_id: {type: string}}}}}}
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Order"}}}}}
    get:
      operationId: listLabels
      parameters:
        - {name: account, in: query, required: true, schema: {type: string}}
        - {name: external_id, in: query, schema: {type: string}}
      responses: {"200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Order"}}}}}}
components:
  schemas:
    Order: {type: object, properties: {id: {type: string}, reference: {type: string}, external_id: {type: string}}}
    OrderSummary: {type: object, properties: {id: {type: string}}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Scaffold(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("\n    lookup:")) || bytes.Contains(out, []byte("\n    reference:")) {
		t.Errorf("init proposes a lookup:\n%s", out)
	}
	if want := "\n    # lookup candidates: listOrders (GET /orders?reference=, the body field /reference)\n"; !bytes.Contains(out, []byte(want)) {
		t.Errorf("scaffold lacks %q:\n%s", want, out)
	}
	if bytes.Contains(out, []byte("listLabels")) {
		t.Errorf("scaffold names listLabels, which needs an account createLabel does not know:\n%s", out)
	}
}

// TestQueryTemplate checks the search queries init proposes by query language: Stripe's by a
// metadata key or a field and JQL, each with {ref} bare and the escape that writes it as one
// literal, and a field search in a language writegen does not know, quoted as it is; by a
// metadata key in such a language, none.
func TestQueryTemplate(t *testing.T) {
	meta := refField{pointer: "/metadata/writegen_ref", name: "writegen_ref", meta: true}
	field := refField{pointer: "/external_id", name: "external_id"}
	for _, tt := range []struct {
		lang   string
		rf     refField
		want   string
		escape ir.Escape
	}{
		{"stripe", meta, `metadata['writegen_ref']:{ref}`, ir.EscapeStripeSearch},
		{"stripe", field, `external_id:{ref}`, ir.EscapeStripeSearch},
		{"jql", field, `external_id = {ref}`, ir.EscapeJQL},
		{"", field, `external_id:"{ref}"`, ""},
		{"", meta, "", ""},
	} {
		if got, esc := queryTemplate(tt.lang, tt.rf, &ir.Operation{Path: "/tickets"}); got != tt.want || esc != tt.escape {
			t.Errorf("queryTemplate(%q, %s) = %q, %q; want %q, %q", tt.lang, tt.rf.pointer, got, esc, tt.want, tt.escape)
		}
	}
}

// TestScaffoldProposesGitHubLookups checks what init proposes for GitHub's issues and comments,
// which have no field for a reference and no idempotency key: a marker in the Markdown
// body, found by the issue search (GitHub's query language, escaped), 100 a page, and read again
// by its number with issues/get, whose number becomes the receipt's id; a comment found in its
// issue's comments, a walk by page number to the end of the list (the list cannot be asked for
// newest first, so no since is proposed). Every proposal is eventual with a question, and a
// file whose questions are left is refused; answered, it loads with those lookups.
func TestScaffoldProposesGitHubLookups(t *testing.T) {
	const github = "../../testdata/golden/github-issues/openapi.yaml"
	out, err := Scaffold(github, Options{})
	if err != nil {
		t.Fatal(err)
	}
	consistency := func(read string) string {
		return "      consistency: eventual # TODO: confirm how soon " + read + " shows a write, as the provider documents it: {eventual: LAG, source: URL} where it bounds the lag, {strong: SETTLE, source: URL} where it shows a write at once (SETTLE: how long it may still commit a request whose answer was lost); plain eventual leaves each lost answer to Resume, then a person\n"
	}
	for _, want := range []string{`
    response: {is: receipt, id: /number} # TODO: confirm /number is the durable id of what the write made: issues/get reads what the lookup found by it
    reference: {body: /body, marker: "\n\n<!-- ref:{ref} -->"} # TODO: confirm the write may append the marker to /body: the provider's users see it, and the business key in it unless the client sets runtime.WithKeySecret; and the provider keeps the text as sent
    lookup: # TODO: confirm the query repo:{owner}/{repo} is:issue in:body {ref} finds the text that holds the marker in search/issues-and-pull-requests's query language (the client keeps only what holds the marker whole)
      operation: "search/issues-and-pull-requests"
      params: {q: "repo:{owner}/{repo} is:issue in:body {ref}", per_page: 100}
      escape: github_search
      found: /items/0
      match: /body
      adopt: {operation: "issues/get", params: {owner: "{owner}", repo: "{repo}", issue_number: "{id}"}}
` + consistency("search/issues-and-pull-requests"), `
    lookup: # TODO: confirm issues/list-comments lists what the write made, and that 5 pages reach back to a write's first attempt; it cannot be asked for newest first, so not found counts only when the walk reaches the end of the list
      operation: "issues/list-comments"
      params: {owner: "{owner}", repo: "{repo}", issue_number: "{issue_number}", per_page: 100}
      found: /0
      match: /body
      pages: {max: 5, param: page}
` + consistency("issues/list-comments"),
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("scaffold lacks\n%s\n\nscaffold:\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte("strong:")) && !bytes.Contains(out, []byte("{strong: SETTLE, source: URL}")) || bytes.Contains(out, []byte("since:")) {
		t.Errorf("init proposes strong or a walk by time over a list it cannot order:\n%s", out)
	}
	data, err := os.ReadFile(github)
	if err != nil {
		t.Fatal(err)
	}
	// Answered but for the questions: refused at each.
	answered := bytes.ReplaceAll(answerTODOs(out), []byte("# confirmed: "), []byte("# TODO: confirm "))
	_, err = spec.LoadBytes("openapi.yaml", data, "ws.yaml", answered, spec.Options{})
	if err == nil || strings.Count(err.Error(), "is a question writegen init left") != 8 {
		t.Fatalf("questions left: err %v, want each of the 8 refused", err)
	}
	api, err := spec.LoadBytes("openapi.yaml", data, "ws.yaml", answerTODOs(out), spec.Options{})
	if err != nil {
		t.Fatalf("answered: %v", err)
	}
	checked := 0
	for _, op := range api.Operations {
		if !op.Write || op.Safety == nil {
			continue
		}
		checked++
		switch l := op.Safety.Lookup; {
		case l == nil:
			t.Errorf("%s: no lookup", op.ID)
		case op.ID == "issues/create" && (l.Escape != ir.EscapeGitHubSearch || l.Adopt == nil || l.Adopt.Operation.ID != "issues/get" || op.Safety.Reference.Marker == nil):
			t.Errorf("issues/create: lookup %+v", l)
		case op.ID == "issues/create-comment" && (l.Pages == nil || l.Since != nil || l.Consistency == runtime.Strong):
			t.Errorf("issues/create-comment: lookup %+v", l)
		}
	}
	if checked != 2 {
		t.Errorf("%d writes checked, want 2", checked)
	}
}

// TestScaffoldProposesNewestFirst checks a walk init proposes over a list the spec lets it
// order: newest_first with the value the spec lists (sort_order=desc), since with when an element
// was created, pages by number and the largest page its description states; over a list whose
// order parameter lists no descending value, no walk by time. The marker of a text that is not
// Markdown is a bracket.
func TestScaffoldProposesNewestFirst(t *testing.T) {
	specOf := func(order string) string {
		return `openapi: 3.0.3
info: {title: Desk, version: "1"}
paths:
  /tickets/{ticket_id}/comments:
    parameters: [{name: ticket_id, in: path, required: true, schema: {type: integer}}]
    post:
      operationId: addComment
      requestBody: {content: {application/json: {schema: {type: object, required: [body], properties: {body: {type: string}}}}}}
      responses: {"201": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Comment"}}}}}
    get:
      operationId: listComments
      parameters:
        - {name: sort_order, in: query, schema: {type: string, enum: [` + order + `]}}
        - {name: per_page, in: query, description: "Page size (max 100).", schema: {type: integer}}
        - {name: page, in: query, schema: {type: integer}}
      responses: {"200": {description: ok, content: {application/json: {schema: {type: object, properties: {comments: {type: array, items: {$ref: "#/components/schemas/Comment"}}}}}}}}
components:
  schemas:
    Comment: {type: object, required: [id], properties: {id: {type: integer}, body: {type: string}, created_at: {type: string, format: date-time}}}
`
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		order string
		want  string
	}{
		{"asc, desc", `
    reference: {body: /body, marker: " [ref:{ref}]"} # TODO: confirm the write may append the marker to /body: the provider's users see it, and the business key in it unless the client sets runtime.WithKeySecret; and the provider keeps the text as sent
    lookup: # TODO: confirm listComments lists what the write made newest first when asked with sort_order=desc, and that 5 pages reach back to a write's first attempt
      operation: listComments
      params: {ticket_id: "{ticket_id}", per_page: 100}
      found: /comments/0
      match: /body
      pages: {max: 5, param: page}
      newest_first: {sort_order: desc}
      since: /created_at
`},
		{"asc", `
      found: /comments/0
      match: /body
      pages: {max: 5, param: page}
      consistency: eventual`},
	} {
		path := filepath.Join(dir, "desk.yaml")
		if err := os.WriteFile(path, []byte(specOf(tc.order)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := Scaffold(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out, []byte(tc.want)) {
			t.Errorf("order [%s]: scaffold lacks\n%s\n\nscaffold:\n%s", tc.order, tc.want, out)
		}
		if _, err := spec.LoadBytes("desk.yaml", []byte(specOf(tc.order)), "ws.yaml", answerTODOs(out), spec.Options{}); err != nil {
			t.Errorf("order [%s]: answered: %v", tc.order, err)
		}
	}
}
