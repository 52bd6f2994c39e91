package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNewConnector builds a connector module from nothing, as the README's "Using it in a
// connector" says, and checks what each step prints: go get -tool (with a replace directive to
// this repository instead of a published version), writegen init -include for two operations of
// the Stripe spec, generate refusing the TODOs, the answers, go generate with the flags in
// writegen.yaml, go build, and a call to stripe-mock through the SQLite ledger.
func TestNewConnector(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module from scratch: slow")
	}
	mock := stripeMockBinary(t)
	stripe := filepath.Join(corpusDir(t), "stripe.json")
	mod := t.TempDir()
	step := func(name string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = mod
		// The module is not published: resolve it from the replace directive and the module cache,
		// which this repository's own build filled (a user's go get reaches the proxy instead).
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(name string, args ...string) string {
		t.Helper()
		out, err := step(name, args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return out
	}
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(mod, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	must("go", "mod", "init", "example.com/connector")
	sums, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sums)) // the checksums of writegen's dependencies, as go get would record them
	must("go", "mod", "edit", "-require", "github.com/writegen/writegen@v0.0.0", "-replace", "github.com/writegen/writegen="+moduleRoot(t))
	must("go", "get", "-tool", "github.com/writegen/writegen/cmd/writegen")
	if out := must("go", "tool", "writegen", "version"); !strings.HasPrefix(out, "writegen v0.0.0") {
		t.Errorf("go tool writegen version: %q", out)
	}

	scaffold := must("go", "tool", "writegen", "init", "-spec", stripe, "-package", "stripe", "-include", "PostCustomers,GetCustomersSearch")
	for _, want := range []string{
		"# yaml-language-server: $schema=", "scope: ", "include:\n  operations: [PostCustomers, GetCustomersSearch]",
		"  PostCustomers: # POST /v1/customers", "effect: TODO", "owner: TODO",
		// The lookup init proposes, complete, for a person to confirm.
		"\n    reference: {body: /metadata/writegen_ref} # TODO: confirm",
		"\n    lookup: # TODO: confirm",
		"\n      operation: GetCustomersSearch\n      params: {query: \"metadata['writegen_ref']:{ref}\"}\n      escape: stripe_search\n      found: /data/0\n",
	} {
		if !strings.Contains(scaffold, want) {
			t.Errorf("init does not write %q:\n%s", want, scaffold)
		}
	}
	if strings.Contains(scaffold, "PostCharges") {
		t.Error("init -include writes an operation outside the include filter")
	}
	write("writesafety.yaml", scaffold)
	write("writegen.yaml", "spec: "+stripe+"\nannotations: writesafety.yaml\nout: stripe\n")
	out, err := step("go", "tool", "writegen", "generate")
	if err == nil || !strings.Contains(out, `writesafety.yaml:`) || !strings.Contains(out, `"TODO" is a placeholder left by writegen init: answer it`) {
		t.Fatalf("generate with TODOs left: %v\n%s", err, out)
	}

	// The answers a person gives, in the scaffold's own lines; the lookup init proposed is kept.
	answered := scaffold
	for _, r := range []struct{ old, new string }{
		{"effect: TODO", "effect: ambiguous"},
		{"destructive: TODO", "destructive: false"},
		{"fields: {TODO: string}, format: \"{TODO}\"}", "fields: {customer_ref: string}, format: \"customer:{customer_ref}\"}"},
		{"# idempotency: the spec declares no idempotency key; add {header: Name} if the provider honours one",
			"idempotency: {header: Idempotency-Key, max_length: 255, window: 24h}\n    dedupe: ledger"},
		{"retry: {on: [not_sent], attempts: 3}", "retry: {on: [not_sent, ambiguous, status_409, status_429], attempts: 4}"},
		{"owner: TODO", "owner: crm-team"},
		{"consistency: eventual #", `consistency: {eventual: 1m, source: "https://docs.stripe.com/search#data-freshness"} #`},
	} {
		if !strings.Contains(answered, r.old) {
			t.Fatalf("the scaffold has no %q to answer:\n%s", r.old, scaffold)
		}
		answered = strings.Replace(answered, r.old, r.new, 1)
	}
	// The person checked each proposal init marked "TODO: confirm" and removes the mark.
	answered = regexp.MustCompile(` # TODO: confirm[^\n]*`).ReplaceAllString(answered, "")
	write("writesafety.yaml", answered)
	write("gen.go", "package main\n\n//go:generate go tool writegen generate\n")
	must("go", "generate", "./...")
	for _, f := range []string{"client.go", "operations.go", "models.go", "WRITE_SAFETY.md", "WRITE_SAFETY.json"} {
		if _, err := os.Stat(filepath.Join(mod, "stripe", f)); err != nil {
			t.Errorf("go generate did not write stripe/%s", f)
		}
	}
	report, _ := os.ReadFile(filepath.Join(mod, "stripe", "WRITE_SAFETY.md"))
	if !strings.Contains(string(report), "PostCustomers") || !strings.Contains(string(report), "crm-team") {
		t.Errorf("WRITE_SAFETY.md does not answer for PostCustomers:\n%s", report)
	}
	if out := must("go", "tool", "writegen", "check"); out != "" {
		t.Errorf("check of the fresh package printed %q", out)
	}

	write("main.go", `package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"example.com/connector/stripe"
	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

func main() {
	ctx := context.Background()
	l, err := sqlite.Open(ctx, filepath.Join(os.Args[2], "ledger.db"))
	if err != nil {
		panic(err)
	}
	defer l.Close()
	c, err := stripe.NewClient(os.Args[1], l, runtime.WithHeader("Authorization", "Bearer sk_test_connector"))
	if err != nil {
		panic(err)
	}
	email := "ada@example.com"
	for range 2 {
		r, err := c.PostCustomers(ctx, stripe.PostCustomersKey{CustomerRef: "crm-1"}, stripe.PostCustomersRequest{Email: &email})
		if err != nil {
			panic(err)
		}
		fmt.Println(r.ID != "", r.Source)
	}
}
`)
	must("go", "build", "-o", "connector", ".") // -mod=mod adds what main.go imports to go.mod
	base := startStripeMock(t, mock)
	out = must(filepath.Join(mod, "connector"), base, t.TempDir())
	if out != "true created\ntrue adopted_ledger\n" {
		t.Errorf("the connector printed %q; want a receipt created, then the same adopted from the ledger", out)
	}
}
