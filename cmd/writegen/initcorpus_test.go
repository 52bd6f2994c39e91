package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/writegen/writegen/spec/scaffold"
)

// initEntry matches the first line of a write's entry in what writegen init prints.
var initEntry = regexp.MustCompile(`(?m)^  ("[^"]*"|\S+): # (\w+) (\S+)$`)

// initProposal is what init proposes for one write of a corpus spec.
type initProposal struct {
	id       string
	post     bool
	live     bool // a complete lookup, in the file's answers
	envelope bool // a complete lookup that needs response.object, written as comments
}

// initProposals reads what init proposes for each write out of its output.
func initProposals(out []byte) []initProposal {
	var list []initProposal
	at := initEntry.FindAllSubmatchIndex(out, -1)
	for i, m := range at {
		end := len(out)
		if i+1 < len(at) {
			end = at[i+1][0]
		}
		entry := out[m[1]:end]
		id := string(out[m[2]:m[3]])
		if id[0] == '"' {
			id = id[1 : len(id)-1]
		}
		list = append(list, initProposal{
			id:       id,
			post:     string(out[m[4]:m[5]]) == "POST" && !bytes.Contains(entry, []byte("effect: read_only")),
			live:     bytes.Contains(entry, []byte("\n    lookup:")),
			envelope: bytes.Contains(entry, []byte("\n    # a lookup that needs response.object")),
		})
	}
	return list
}

// answerInit answers what init leaves to a person the same way for every write and leaves
// every line it proposes as it is, its questions answered yes, with the include block naming
// the writes given: the writes are ambiguous and keyed by a request id, a nonce is remembered
// five minutes.
func answerInit(out []byte, include []string) []byte {
	s := string(out)
	for _, r := range []struct{ from, to string }{
		{`effect: TODO #.*`, "effect: ambiguous"},
		{`destructive: TODO #.*`, "destructive: false"},
		{`fields: \{TODO: string\}, format: "\{TODO\}"\}`, `fields: {request_id: string}, format: "{request_id}"}`},
		{`owner: TODO #.*`, "owner: corpus"},
		{`window: TODO\}`, "window: 5m}"},
		{`# TODO: confirm `, "# confirmed: "},
	} {
		s = regexp.MustCompile(r.from).ReplaceAllString(s, r.to)
	}
	quoted := make([]string, len(include))
	for i, id := range include {
		quoted[i] = fmt.Sprintf("%q", id)
	}
	block := "include:\n  operations: [" + strings.Join(quoted, ", ") + "]\n"
	return []byte(regexp.MustCompile(`(?m)^# include:.*\n#   operations: \[\]\n#   tags: \[\]\n`).ReplaceAllLiteralString(s, block))
}

// refusedOperation names the operation a line of writegen's refusal is about.
var refusedOperation = regexp.MustCompile(`operation "([^"]+)"`)

// initFloor is the least each corpus spec must show: complete lookups init proposes, and of
// those that need no envelope, every one generates and passes go vet.
var initFloor = map[string]int{"stripe.json": 8, "square.json": 3}

// TestCorpusInitProposals runs writegen init on every corpus spec and counts the POST writes it
// proposes a complete lookup for; answers what init leaves to a person the same way everywhere,
// keeps every proposed line, and generates those writes with their lookups; and builds and vets
// the packages. A proposal that needs response.object (an envelope) is counted apart: this
// writegen does not read it yet. With -v it prints the table.
func TestCorpusInitProposals(t *testing.T) {
	specsDir := corpusDir(t)
	mod := corpusModuleDir(t)
	type row struct {
		spec                            string
		posts, proposed, envelope, live int
		generated, vetted               int
		refused                         []string
		dir                             string
	}
	var rows []*row
	for _, specFile := range corpusSpecs {
		path := filepath.Join(specsDir, specFile)
		out, err := scaffold.Scaffold(path, scaffold.Options{})
		if err != nil {
			t.Fatalf("init %s: %v", specFile, err)
		}
		r := &row{spec: specFile}
		rows = append(rows, r)
		var live []string
		for _, p := range initProposals(out) {
			if !p.post {
				continue
			}
			r.posts++
			if p.live || p.envelope {
				r.proposed++
			}
			if p.envelope && !p.live {
				r.envelope++
			}
			if p.live {
				live = append(live, p.id)
			}
		}
		r.live = len(live)
		// Generate the writes with a live proposal; a write writegen refuses is named in the
		// refusal, left out, and counted as not generated.
		for len(live) > 0 {
			annotations := filepath.Join(t.TempDir(), "writesafety.yaml")
			if err := os.WriteFile(annotations, answerInit(out, live), 0o644); err != nil {
				t.Fatal(err)
			}
			r.dir = filepath.Join(mod, corpusPackageDir(specFile)+"init")
			var stdout, stderr bytes.Buffer
			if run(context.Background(), []string{"generate", "-spec", path, "-annotations", annotations, "-out", r.dir}, &stdout, &stderr) == exitOK {
				break
			}
			before := len(live)
			for _, line := range strings.Split(stderr.String(), "\n") {
				if m := refusedOperation.FindStringSubmatch(line); m != nil && slices.Contains(live, m[1]) {
					live = slices.DeleteFunc(live, func(id string) bool { return id == m[1] })
					r.refused = append(r.refused, strings.TrimPrefix(line, "writegen: "+path+":"))
				}
			}
			if len(live) == before {
				t.Fatalf("%s: writegen generate refused the proposals for none of their writes:\n%s", specFile, stderr.String())
			}
		}
		r.generated = len(live)
		if len(live) == 0 {
			r.dir = ""
		}
	}
	for _, r := range rows {
		if r.dir == "" {
			continue
		}
		cmd := exec.Command("go", "vet", "-trimpath", "./"+filepath.Base(r.dir))
		cmd.Dir = mod
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: go vet: %v\n%s", r.spec, err, out)
			continue
		}
		r.vetted = r.generated
	}

	var table strings.Builder
	fmt.Fprintf(&table, "%-27s %6s %9s %10s %9s %10s\n", "spec", "POST", "proposed", "envelopes", "answers", "gen+vet")
	var total row
	for _, r := range rows {
		fmt.Fprintf(&table, "%-27s %6d %9d %10d %9d %10d\n", r.spec, r.posts, r.proposed, r.envelope, r.live, r.vetted)
		total.posts += r.posts
		total.proposed += r.proposed
		total.envelope += r.envelope
		total.live += r.live
		total.vetted += r.vetted
		for _, why := range r.refused {
			fmt.Fprintf(&table, "  refused: %s\n", why)
		}
	}
	fmt.Fprintf(&table, "%-27s %6d %9d %10d %9d %10d\n", "total", total.posts, total.proposed, total.envelope, total.live, total.vetted)
	t.Logf("POST writes, those init proposes a complete lookup for, those of them that need response.object (envelopes, written as comments), those proposed in the answers, and those that generate and pass go vet unchanged:\n%s", table.String())

	for _, r := range rows {
		if r.vetted != r.live {
			t.Errorf("%s: %d of the %d lookups init proposes generate and pass go vet", r.spec, r.vetted, r.live)
		}
		if r.proposed < initFloor[r.spec] {
			t.Errorf("%s: init proposes %d complete lookups, at least %d before", r.spec, r.proposed, initFloor[r.spec])
		}
	}
}
