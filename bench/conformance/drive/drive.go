// Package drive is the part of the conformance driver (go run ./conformance) that runs in
// the program it builds beside the generated packages: it serves a generated package's MCP tools
// in memory, calls every tool with arguments filled from its input schema, against a mock server
// of the spec (Prism), and prints one JSON line per call saying how it went.
package drive

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v4"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// A Target is one generated package: Add builds its client on baseURL with opts and adds its
// tools to s.
type Target struct {
	Spec string // the spec's file name: square.json
	Add  func(s *mcp.Server, baseURL string, l runtime.Ledger, opts ...runtime.Option) error
}

// The classes of a call's outcome.
const (
	ClassOK        = "ok"        // a result, and the mock server found nothing wrong with the request
	ClassViolation = "violation" // the mock server found the request breaks the spec
	ClassDecode    = "decode"    // a 2xx answer did not decode
	ClassRefused   = "refused"   // the tool refused arguments filled from its own input schema
	ClassAnswer    = "answer"    // the mock server's own answer breaks the spec (it says so: a 500)
	ClassRejected  = "rejected"  // a 4xx the mock server chose, with no violation
	ClassUncertain = "uncertain" // an uncertain outcome for another reason than decoding
	ClassFailed    = "failed"    // any other tool error
)

// A Record is one call of a tool.
type Record struct {
	Spec   string `json:"spec"`
	Mode   string `json:"mode"`
	Tool   string `json:"tool"`
	Set    string `json:"set"`
	Call   int    `json:"call"`
	Class  string `json:"class"`
	Status int    `json:"status,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Main is the driver program: it drives the tools of the target named by -spec against the
// mock server at -url and prints a Record per call on standard output.
func Main(targets ...Target) {
	specName := flag.String("spec", "", "the spec's file name")
	specFile := flag.String("spec-file", "", "the spec's path, for its security schemes")
	url := flag.String("url", "", "the mock server's base URL")
	mode := flag.String("mode", "", "the mock server's mode, for the records")
	calls := flag.Int("calls", 2, "calls per tool and argument set")
	only := flag.String("tool", "", "drive this tool only")
	flag.Parse()
	i := slices.IndexFunc(targets, func(t Target) bool { return t.Spec == *specName })
	if i < 0 {
		fmt.Fprintf(os.Stderr, "drive: no target %q\n", *specName)
		os.Exit(2)
	}
	if err := run(targets[i], *specFile, *url, *mode, *calls, *only, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "drive:", err)
		os.Exit(1)
	}
}

func run(t Target, specFile, url, mode string, calls int, only string, out io.Writer) error {
	ctx := context.Background()
	auth, err := authOf(specFile)
	if err != nil {
		return err
	}
	rec := &recorder{base: http.DefaultTransport, auth: auth}
	dir, err := os.MkdirTemp("", "drive")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	l, err := sqlite.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		return err
	}
	defer l.Close()
	s := mcp.NewServer(&mcp.Implementation{Name: "conformance", Version: "1"}, nil)
	if err := t.Add(s, url, l, runtime.WithHTTPClient(&http.Client{Transport: rec}), runtime.WithAttemptTimeout(90*time.Second), runtime.WithLease(3*time.Minute),
		runtime.WithBackoff(10*time.Millisecond, 50*time.Millisecond)); err != nil { // the mock answers at once
		return err
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		return err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "driver", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		if only == "" || tool.Name == only {
			tools = append(tools, tool)
		}
	}
	slices.SortFunc(tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	enc := json.NewEncoder(out)
	for _, tool := range tools {
		data, err := json.Marshal(tool.InputSchema)
		if err != nil {
			return err
		}
		var schema jsonschema.Schema
		if err := json.Unmarshal(data, &schema); err != nil {
			return fmt.Errorf("tool %s: input schema: %v", tool.Name, err)
		}
		for _, set := range ArgSets(&schema) {
			for call := range calls {
				args := Fill(&schema, set, seed(t.Spec, mode, tool.Name, set.String(), call))
				r := Record{Spec: t.Spec, Mode: mode, Tool: tool.Name, Set: set.String(), Call: call}
				rec.reset()
				cctx, cancel := context.WithTimeout(ctx, 5*time.Minute) // Prism makes up some answers slowly
				res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
				cancel()
				violations, answer, status := rec.taken()
				r.Status = status
				switch {
				case err != nil:
					r.Class, r.Detail = ClassFailed, err.Error()
				case len(violations) == 0 && len(answer) > 0:
					r.Class, r.Detail = ClassAnswer, strings.Join(answer, "; ")
				default:
					r.Class, r.Detail = classify(res, violations)
				}
				if r.Class != ClassOK {
					a, _ := json.Marshal(args)
					r.Detail += " | arguments: " + clip(string(a), 600)
				}
				if err := enc.Encode(r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// seed is the seed of one call's arguments: the same on every run.
func seed(parts ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return h.Sum64()
}

// classify says how a call went from its result and the violations the mock server reported.
func classify(res *mcp.CallToolResult, violations []string) (string, string) {
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	s := text.String()
	switch {
	case strings.HasPrefix(s, "INVALID ARGUMENTS"):
		return ClassRefused, clip(s, 600)
	case len(violations) > 0:
		return ClassViolation, strings.Join(violations, "; ")
	case decodeFailure(s):
		return ClassDecode, clip(s, 600)
	case !res.IsError:
		return ClassOK, ""
	case strings.HasPrefix(s, "REJECTED"):
		return ClassRejected, clip(s, 600)
	case strings.HasPrefix(s, "UNCERTAIN"):
		return ClassUncertain, clip(s, 600)
	}
	return ClassFailed, clip(s, 600)
}

// decodeFailure reports whether a tool's text says a 2xx answer did not decode.
func decodeFailure(s string) bool {
	// The runtime's words: a read's *runtime.DecodeError, an undecoded receipt, an uncertain
	// write; and those of writegen before runtime.ErrDecode.
	return strings.Contains(s, "did not decode") || strings.Contains(s, `"undecoded":`) ||
		strings.Contains(s, "could not be decoded") || strings.Contains(s, "decode response")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// recorder is the transport of the clients driven: it sets the credentials the spec asks for
// and keeps the violations the mock server reports of each request (Prism's sl-violations
// header) since the last reset.
type recorder struct {
	base http.RoundTripper
	auth func(*http.Request)

	mu         sync.Mutex
	violations []string // in the requests
	answer     []string // in the mock server's answers, when it said so with a 500
	status     int
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if h := req.URL.Hostname(); h != "127.0.0.1" && h != "localhost" {
		// A redirect the mock server answers with (the spec's example Location) leads off the
		// machine: it is not followed.
		return nil, fmt.Errorf("conformance: not sent to %s: only the mock server on 127.0.0.1 is called", req.URL.Host)
	}
	req = req.Clone(req.Context())
	r.auth(req)
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	found := requestViolations(resp.Header.Get("sl-violations"))
	var answer []string
	if resp.StatusCode == http.StatusInternalServerError && len(found) == 0 {
		// With --errors Prism answers 500 when the answer it would give breaks the spec's
		// response schema: the spec's own example, or data it made up.
		answer = responseViolations(resp.Header.Get("sl-violations"))
	}
	if resp.StatusCode == http.StatusUnprocessableEntity || resp.StatusCode == http.StatusBadRequest {
		// Prism answers a request it finds invalid with its own problem, the violations in it,
		// when the spec declares no answer for that.
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var problem struct {
			Type       string      `json:"type"`
			Validation []violation `json:"validation"`
		}
		if json.Unmarshal(body, &problem) == nil && strings.HasPrefix(problem.Type, "https://stoplight.io/prism/errors#") {
			for _, v := range problem.Validation {
				if v.Severity == "Error" {
					found = append(found, "request."+strings.Join(v.Location, ".")+": "+v.Message)
				}
			}
		}
	}
	r.mu.Lock()
	r.violations = append(r.violations, found...)
	r.answer = append(r.answer, answer...)
	r.status = resp.StatusCode
	r.mu.Unlock()
	return resp, nil
}

// responseViolations reads the errors about Prism's own answer in its sl-violations header.
func responseViolations(h string) []string {
	var vs []violation
	if i := strings.IndexByte(h, '['); i < 0 || json.Unmarshal([]byte(h[i:]), &vs) != nil {
		return nil
	}
	var out []string
	for _, v := range vs {
		if v.Severity == "Error" && len(v.Location) > 0 && v.Location[0] == "response" {
			out = append(out, strings.Join(v.Location, ".")+": "+v.Message)
		}
	}
	return out
}

// violation is one that Prism reports.
type violation struct {
	Location []string `json:"location"`
	Severity string   `json:"severity"`
	Message  string   `json:"message"`
}

// requestViolations reads the errors about the request in Prism's sl-violations header (a JSON
// array, after "Too many violations! " when Prism cut it short). The violations of its own
// answer (location response) are Prism's, not the request's.
func requestViolations(h string) []string {
	if h == "" {
		return nil
	}
	var vs []violation
	if i := strings.IndexByte(h, '['); i < 0 || json.Unmarshal([]byte(h[i:]), &vs) != nil {
		return []string{"unreadable sl-violations header: " + clip(h, 300)}
	}
	var out []string
	for _, v := range vs {
		if v.Severity == "Error" && len(v.Location) > 0 && v.Location[0] == "request" {
			out = append(out, strings.Join(v.Location, ".")+": "+v.Message)
		}
	}
	return out
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.violations, r.answer, r.status = nil, nil, 0
	r.mu.Unlock()
}

func (r *recorder) taken() (violations, answer []string, status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.violations), slices.Clone(r.answer), r.status
}

// authOf returns what sets the credentials the spec declares on a request: every API key it
// declares (header, query or cookie), and an Authorization header, Basic when the first
// security requirement names an HTTP basic scheme, else Bearer.
func authOf(specFile string) (func(*http.Request), error) {
	data, err := os.ReadFile(specFile)
	if err != nil {
		return nil, err
	}
	type scheme struct {
		Type   string `json:"type" yaml:"type"`
		Scheme string `json:"scheme" yaml:"scheme"`
		In     string `json:"in" yaml:"in"`
		Name   string `json:"name" yaml:"name"`
	}
	var doc struct {
		Security   []map[string]any `json:"security" yaml:"security"`
		Components struct {
			SecuritySchemes map[string]scheme `json:"securitySchemes" yaml:"securitySchemes"`
		} `json:"components" yaml:"components"`
		SecurityDefinitions map[string]scheme `json:"securityDefinitions" yaml:"securityDefinitions"`
	}
	if filepath.Ext(specFile) == ".json" {
		err = json.Unmarshal(data, &doc)
	} else {
		err = yaml.Unmarshal(data, &doc)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", specFile, err)
	}
	schemes := doc.Components.SecuritySchemes
	if len(schemes) == 0 {
		schemes = doc.SecurityDefinitions
	}
	basic := false
	if len(doc.Security) > 0 {
		for name := range doc.Security[0] {
			s := schemes[name]
			basic = basic || s.Type == "basic" || s.Type == "http" && strings.EqualFold(s.Scheme, "basic")
		}
	} else {
		for _, s := range schemes {
			basic = basic || s.Type == "basic" || s.Type == "http" && strings.EqualFold(s.Scheme, "basic")
		}
	}
	var keys []scheme
	for _, s := range schemes {
		if s.Type == "apiKey" {
			keys = append(keys, s)
		}
	}
	return func(req *http.Request) {
		if basic {
			req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("conformance:secret")))
		} else {
			req.Header.Set("Authorization", "Bearer conformance")
		}
		for _, k := range keys {
			switch k.In {
			case "header":
				if !strings.EqualFold(k.Name, "Authorization") {
					req.Header.Set(k.Name, "conformance")
				}
			case "query":
				q := req.URL.Query()
				q.Set(k.Name, "conformance")
				req.URL.RawQuery = q.Encode()
			case "cookie":
				req.AddCookie(&http.Cookie{Name: k.Name, Value: "conformance"})
			}
		}
	}, nil
}
