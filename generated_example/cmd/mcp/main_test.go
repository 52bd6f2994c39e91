package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v4"

	"github.com/writegen/writegen/generated_example/simulator"
	"github.com/writegen/writegen/runtime"
)

// lostKey is the escalation whose first createThread commits and loses its response.
const lostKey = 1001

// loseNext makes the next createThread request with a key not seen before commit and lose its
// answer (the provider key does not show the escalation: it may be a hash).
var loseNext atomic.Bool

// failMessages makes every postMessage request meet a 503.
var failMessages atomic.Bool

// testFaults are the faults of the end-to-end tests: those loseNext and failMessages ask for;
// nothing else fails.
func testFaults(operation, key string, n int) simulator.Fault {
	switch {
	case operation == "createThread" && n == 1 && loseNext.CompareAndSwap(true, false):
		return simulator.LoseResponse
	case operation == "postMessage" && failMessages.Load():
		return simulator.Unavailable
	}
	return simulator.NoFault
}

// openTestDesk opens a desk on a simulator configured by cfg, with its ledger in a temporary
// directory and cheap backoff.
func openTestDesk(t *testing.T, cfg simulator.SupportConfig, opts ...runtime.Option) *desk {
	t.Helper()
	d, err := open(t.Context(), config{
		db:         filepath.Join(t.TempDir(), "ledger.db"),
		tenant:     "test",
		deskConfig: cfg,
		options:    append([]runtime.Option{runtime.WithBackoff(time.Millisecond, 5*time.Millisecond)}, opts...),
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// connect connects the SDK's client over transport.
func connect(t *testing.T, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestToolsInMemory runs the end-to-end checks over the SDK's in-memory transport.
func TestToolsInMemory(t *testing.T) {
	d := openTestDesk(t, simulator.SupportConfig{Faults: testFaults})
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := d.server.Connect(t.Context(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	exercise(t, connect(t, clientT), d.sim)
}

// TestToolsOverStreamableHTTP runs the end-to-end checks over streamable HTTP on 127.0.0.1, as
// -http serves it.
func TestToolsOverStreamableHTTP(t *testing.T) {
	d := openTestDesk(t, simulator.SupportConfig{Faults: testFaults})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { serveHTTP(ctx, ln, d.server) })
	t.Cleanup(func() { stop(); wg.Wait() })
	exercise(t, connect(t, &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp"}), d.sim)
}

// TestToolsOverStdio builds the server, launches it as MCP clients do (CommandTransport, over
// its standard input and output) against a desk simulated in this process, and runs the
// end-to-end checks.
func TestToolsOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sim := simulator.NewSupport(simulator.SupportConfig{Faults: testFaults})
	t.Cleanup(sim.Close)
	access, _, _ := sim.Credentials()
	cmd := exec.Command(bin, "-desk", sim.URL(), "-db", filepath.Join(dir, "ledger.db"))
	cmd.Env = append(os.Environ(), "SUPPORT_DESK_TOKEN="+access)
	cmd.Stderr = &testWriter{t: t}
	exercise(t, connect(t, &mcp.CommandTransport{Command: cmd}), sim)
}

// testWriter logs what the server writes on standard error.
type testWriter struct {
	mu sync.Mutex
	t  *testing.T
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Logf("server: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}

// exercise checks the tools of the support desk through cs, counting effects at sim.
func exercise(t *testing.T, cs *mcp.ClientSession, sim *simulator.Support) {
	ctx := t.Context()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	checkHintsAgainstAnnotations(t, tools)

	t.Run("excluded operation is no tool", func(t *testing.T) {
		if _, ok := tools["issueToken"]; ok {
			t.Fatal("issueToken, excluded in writesafety.yaml, is a tool")
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "issueToken", Arguments: map[string]any{}})
		if err == nil && !res.IsError {
			t.Fatalf("issueToken answered %v", text(res))
		}
	})

	create := func(escalation int, subject string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "createThread", Arguments: map[string]any{
			"escalation_id": escalation,
			"body":          map[string]any{"conversation_id": fmt.Sprintf("conv-%d", escalation), "subject": subject},
		}})
		if err != nil {
			t.Fatal(err)
		}
		validateOutput(t, tools["createThread"], res)
		return res
	}
	threads := func(escalation int) int { // the conversation names the escalation
		n := 0
		for _, th := range sim.Threads() {
			if th.ConversationID == fmt.Sprintf("conv-%d", escalation) {
				n++
			}
		}
		return n
	}

	var threadID string
	t.Run("keyed write twice is one effect", func(t *testing.T) {
		first := create(7, "Refund")
		second := create(7, "Refund")
		if first.IsError || second.IsError {
			t.Fatalf("results %q, %q", text(first), text(second))
		}
		r1, r2 := receiptOf(t, first), receiptOf(t, second)
		if r1.ID != r2.ID || r1.Source != "created" || r2.Source != "adopted_ledger" {
			t.Errorf("receipts %+v then %+v, want one id, created then adopted_ledger", r1, r2)
		}
		if n := threads(7); n != 1 {
			t.Errorf("%d threads at the desk for escalation 7, want 1", n)
		}
		threadID = r1.ID
		conflict := create(7, "Another subject")
		if !conflict.IsError || !strings.HasPrefix(text(conflict), "KEY CONFLICT") {
			t.Errorf("the same key with other arguments: %q", text(conflict))
		}
	})

	t.Run("lost response is a receipt or uncertain, never a duplicate", func(t *testing.T) {
		before := sim.Stats().Writes.Faults[simulator.LoseResponse]
		loseNext.Store(true)
		for range 3 { // as a careless agent does
			res := create(lostKey, "Lost")
			t.Logf("createThread after a lost response: %s", text(res))
			switch txt := text(res); {
			case !res.IsError:
				receiptOf(t, res)
			case strings.HasPrefix(txt, "UNCERTAIN") && strings.Contains(txt, "Do not call it again") && strings.Contains(txt, "support-ops") &&
				strings.Contains(txt, "searchThreads"):
			default:
				t.Errorf("result %q", txt)
			}
		}
		if sim.Stats().Writes.Faults[simulator.LoseResponse] == before {
			t.Error("no response was lost")
		}
		if n := threads(lostKey); n != 1 {
			t.Errorf("%d threads at the desk for escalation %d, want 1", n, lostKey)
		}
	})

	t.Run("missing or wrong-typed business key is refused before anything is sent", func(t *testing.T) {
		before := sim.Stats().Writes.Requests
		for _, c := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"body": map[string]any{"conversation_id": "c", "subject": "s"}}, "INVALID ARGUMENTS"},
			{map[string]any{"escalation_id": 0, "body": map[string]any{"conversation_id": "c", "subject": "s"}}, "MISSING KEY"},
			// A null or a string where the schema wants an integer is named, with the type it wants.
			{map[string]any{"escalation_id": nil, "body": map[string]any{"conversation_id": "c", "subject": "s"}},
				"INVALID ARGUMENTS: argument escalation_id is null: want an integer"},
			{map[string]any{"escalation_id": "42", "body": map[string]any{"conversation_id": "c", "subject": "s"}},
				`INVALID ARGUMENTS: argument escalation_id is the string "42": want an integer`},
		} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "createThread", Arguments: c.args})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("createThread %v: %s", c.args, text(res))
			if txt := text(res); !res.IsError || !strings.HasPrefix(txt, c.want) || !strings.Contains(txt, "escalation_id") || !strings.Contains(txt, "Nothing was sent") {
				t.Errorf("%v: %q", c.args, txt)
			}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "postMessage", Arguments: map[string]any{
			"dedupe_key": "", "thread_id": threadID, "body": map[string]any{"author": "agent", "text": "hello"}}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(text(res), "dedupe_key") {
			t.Errorf("empty dedupe_key: %q", text(res))
		}
		if after := sim.Stats().Writes.Requests; after != before {
			t.Errorf("%d write requests reached the desk", after-before)
		}
	})

	t.Run("uncertain outcome tells the agent not to call again", func(t *testing.T) {
		failMessages.Store(true)
		defer failMessages.Store(false)
		args := map[string]any{"dedupe_key": "reply-1", "thread_id": threadID, "body": map[string]any{"author": "agent", "text": "hello"}}
		committed := sim.Stats().Writes.Committed
		for i := range 2 {
			before := sim.Stats().Writes.Requests
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "postMessage", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			txt := text(res)
			t.Logf("postMessage while the desk answers 503: %s", txt)
			for _, want := range []string{"UNCERTAIN", "Do not call it again", "support-ops was told", "recorded in ledger row", "No read tool can check"} {
				if !res.IsError || !strings.Contains(txt, want) {
					t.Errorf("result %q, want %q in it", txt, want)
				}
			}
			// The second call drives the uncertain row on with the same provider key, as Resume
			// would: the desk still answers 503, so it ends uncertain again, with no effect.
			if sent := sim.Stats().Writes.Requests - before; i == 0 && sent == 0 {
				t.Error("nothing was sent")
			}
			if n := sim.Stats().Writes.Committed - committed; n != 0 {
				t.Errorf("call %d: %d writes committed while the desk answers 503", i+1, n)
			}
		}
	})

	t.Run("reads", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "getThread", Arguments: map[string]any{"thread_id": threadID}})
		if err != nil || res.IsError {
			t.Fatalf("getThread: %v %q", err, text(res))
		}
		validateOutput(t, tools["getThread"], res)
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "getThread", Arguments: map[string]any{"thread_id": "th_missing"}})
		if err != nil || !res.IsError || !strings.Contains(text(res), "404") {
			t.Errorf("getThread of a missing thread: %v %q", err, text(res))
		}
	})
}

// receipt is the structured content of a receipt.
type receipt struct {
	ID     string          `json:"id"`
	Source string          `json:"source"`
	Body   json.RawMessage `json:"body"`
}

func receiptOf(t *testing.T, res *mcp.CallToolResult) receipt {
	t.Helper()
	var r receipt
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &r); err != nil || r.ID == "" {
		t.Fatalf("no receipt in %s (%v)", data, err)
	}
	return r
}

// text is the text of a result.
func text(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// validateOutput checks the structured content of a successful result against the tool's
// output schema, as the client received it.
func validateOutput(t *testing.T, tool *mcp.Tool, res *mcp.CallToolResult) {
	t.Helper()
	if res.IsError {
		return
	}
	data, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	content, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(content, &v)
	if err := rs.Validate(v); err != nil {
		t.Errorf("%s: structured content %s does not match the output schema: %v", tool.Name, content, err)
	}
}

// annotations are the answers of writesafety.yaml that the hints depend on, read from the file
// itself (not through writegen's loader).
type annotations struct {
	Operations map[string]struct {
		Effect      string
		Destructive *bool
		Dedupe      string
		Key         any
		Idempotency *struct{ Window string }
	}
	Exclude map[string]string
}

// checkHintsAgainstAnnotations fails when a listed tool's hint claims more than the annotation
// file and the spec say: readOnlyHint only for reads (GET, or effect read_only); idempotentHint
// only for reads, idempotent effects, a key claimed in the ledger or a provider key kept
// forever; destructiveHint as the destructive answer or the method says; openWorldHint always.
func checkHintsAgainstAnnotations(t *testing.T, tools map[string]*mcp.Tool) {
	t.Helper()
	var ann annotations
	readYAML(t, "../../writesafety.yaml", &ann)
	var doc struct{ Paths map[string]map[string]any }
	readYAML(t, "../../support.yaml", &doc)
	methods := map[string]string{}
	for _, item := range doc.Paths {
		for method, op := range item {
			if op, ok := op.(map[string]any); ok && op["operationId"] != nil {
				methods[op["operationId"].(string)] = strings.ToUpper(method)
			}
		}
	}
	if len(tools) != len(methods)-len(ann.Exclude) {
		t.Errorf("%d tools for %d operations, %d excluded", len(tools), len(methods), len(ann.Exclude))
	}
	for name, tool := range tools {
		method, ok := methods[name]
		if !ok {
			t.Errorf("tool %s is no operation of support.yaml", name)
			continue
		}
		h := tool.Annotations
		if h == nil || h.DestructiveHint == nil || h.OpenWorldHint == nil {
			t.Errorf("%s: hints %+v", name, h)
			continue
		}
		a, annotated := ann.Operations[name]
		read := method == "GET" || annotated && a.Effect == "read_only"
		if h.ReadOnlyHint != read {
			t.Errorf("%s: readOnlyHint %v for a %s %q", name, h.ReadOnlyHint, method, a.Effect)
		}
		if h.IdempotentHint && !read {
			keyed := a.Key != nil && a.Key != "none"
			if !(a.Effect == "idempotent" || keyed && (a.Dedupe == "ledger" || a.Idempotency != nil && a.Idempotency.Window == "")) {
				t.Errorf("%s: idempotentHint, but a repeat can make a second effect (%+v)", name, a)
			}
		}
		destructive := !read && method != "POST"
		if a.Destructive != nil {
			destructive = !read && *a.Destructive
		}
		if *h.DestructiveHint != destructive {
			t.Errorf("%s: destructiveHint %v, the annotations say %v", name, *h.DestructiveHint, destructive)
		}
		if !*h.OpenWorldHint {
			t.Errorf("%s: no openWorldHint", name)
		}
		if !read && !strings.Contains(tool.Description, "do not call it again") {
			t.Errorf("%s: the description does not say what an uncertain outcome means: %q", name, tool.Description)
		}
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestCarelessAgent drives the tools as a careless agent does: 1,000 seeded calls of the support
// desk's tools, many with business keys used before, against a desk where a third of the write
// requests meet a fault (a lost request or response, a slow commit, a 503), and every call that
// ends in a tool error is made again with the same arguments, up to five more times, whatever the
// error says. No business key may have more than one effect at the desk.
func TestCarelessAgent(t *testing.T) {
	const calls, maxRetries, faultRate, seed = 1000, 5, 0.33, 7
	// The retry budget is generous, so that what ends a call is the faults, not the rate of
	// retries per second (which would make the figures depend on the machine's speed).
	d := openTestDesk(t, simulator.SupportConfig{Faults: faults(seed, faultRate)}, runtime.WithRetryBudget(1, 1000))
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := d.server.Connect(t.Context(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs := connect(t, clientT)
	ctx := t.Context()

	rng := rand.New(rand.NewPCG(seed, seed))
	var threads []string            // thread ids the agent got receipts for
	messages := map[string]string{} // dedupe key -> the thread it is for
	var retries, receipts, done, reads int
	sources := map[string]int{}  // receipts by source
	outcomes := map[string]int{} // first word of the final tool error
	for i := range calls {
		var name string
		var args map[string]any
		switch p := rng.IntN(100); {
		case p < 50 || len(threads) == 0:
			e := 1 + rng.IntN(300)
			subject := fmt.Sprintf("Escalation %d", e)
			if rng.IntN(20) == 0 {
				subject = "Changed its mind" // the same key with other arguments
			}
			name, args = "createThread", map[string]any{"escalation_id": e,
				"body": map[string]any{"conversation_id": fmt.Sprintf("conv-%d", e), "subject": subject}}
		case p < 85:
			k := fmt.Sprintf("msg-%d", 1+rng.IntN(250))
			th, ok := messages[k]
			if !ok {
				th = threads[rng.IntN(len(threads))]
				messages[k] = th
			}
			name, args = "postMessage", map[string]any{"dedupe_key": k, "thread_id": th,
				"body": map[string]any{"author": "agent", "text": "reply " + k}}
		case p < 92:
			name, args = "getThread", map[string]any{"thread_id": threads[rng.IntN(len(threads))]}
		case p < 95:
			name, args = "deleteThread", map[string]any{"thread_id": threads[rng.IntN(len(threads))]}
		default:
			name, args = "searchThreads", map[string]any{"external_reference": "nothing-" + fmt.Sprint(i)}
		}
		var res *mcp.CallToolResult
		for attempt := 0; ; attempt++ {
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			if !res.IsError || attempt == maxRetries {
				break
			}
			retries++
		}
		switch txt := text(res); {
		case res.IsError:
			word, _, _ := strings.Cut(txt, ":")
			if word == "UNCERTAIN" && os.Getenv("MCP_DEBUG") != "" {
				t.Logf("%s: %s", name, txt)
			}
			outcomes[word]++
		case name == "createThread" || name == "postMessage":
			r := receiptOf(t, res)
			receipts++
			sources[r.Source]++
			if name == "createThread" && !slices.Contains(threads, r.ID) {
				threads = append(threads, r.ID)
			}
		case name == "deleteThread":
			done++
		default:
			reads++
		}
	}
	d.sim.Wait()

	// Every effect at the desk, by business key: threads by their conversation (which names
	// the escalation), messages by their text (which names the dedupe key).
	effects, duplicates := 0, 0
	perKey := map[string]int{}
	for _, th := range d.sim.Threads() {
		perKey["thread "+th.ConversationID]++
		for _, m := range th.Messages {
			perKey["message "+m.Text]++
		}
	}
	for key, n := range perKey {
		effects += n
		if n > 1 {
			duplicates += n - 1
			t.Errorf("%s: %d effects", key, n)
		}
	}
	st := d.sim.Stats()
	t.Logf("careless agent: %d calls, %d retries of failed calls; %d receipts %v, %d deletes done, %d reads; "+
		"final errors %v; %d effects at the desk (%d threads, %d messages, %d deletes); %d write requests, %d faults injected %v; %d duplicate effects",
		calls, retries, receipts, sources, done, reads, outcomes, effects, st.Threads, st.Messages, st.Deleted,
		st.Writes.Requests, sum(st.Writes.Faults), st.Writes.Faults, duplicates)
	if outcomes["UNCERTAIN"] == 0 || retries == 0 {
		t.Errorf("the faults left nothing uncertain (%d) or nothing to retry (%d): the test shows nothing", outcomes["UNCERTAIN"], retries)
	}
}

func sum(m map[simulator.Fault]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
