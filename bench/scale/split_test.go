package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegen/writegen/spec"
	"github.com/writegen/writegen/templates"
)

// TestSplitPackagesShareLedger generates two parts of one API as two packages, each from the
// annotation file of its own tag (as -split does and cmd/writegen's documentation advises for a
// large API), and runs a program that imports both and gives their clients one SQLite ledger: a
// keyed write of each package is recorded in its own row of the one provider scope, under its
// own key scope; a repeat of a write is answered from its row without calling the provider; and
// each client's Resume finds nothing to take over (the other's settled rows included). That the
// program compiles shows that the packages coexist: each declares the shared models (Money, Job,
// ...) and a Client of its own.
func TestSplitPackagesShareLedger(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program: not in -short")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rs := resources((groupSize+5)*opsPerResource, 1) // group00 whole, and five resources of group01
	data := synthSpec(rs)
	dir := t.TempDir()
	gomod := fmt.Sprintf("module splitcheck\n\ngo 1.26\n\nrequire github.com/writegen/writegen v0.0.0\n\nreplace github.com/writegen/writegen => %q\n", root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum")) // the ledger's drivers, without the network
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	// The write of each part the program makes: a create deduplicated in the ledger.
	var creates [2]*resource
	for i, part := range [][]*resource{rs[:groupSize], rs[groupSize:]} {
		name := fmt.Sprintf("p%d", i)
		for _, r := range part {
			if r.dedupeCreate && creates[i] == nil {
				creates[i] = r
			}
		}
		if creates[i] == nil {
			t.Fatalf("%s: no resource whose create is deduplicated in the ledger (seed 1)", name)
		}
		api, err := spec.LoadBytes("synthetic.json", data, name+".writesafety.yaml",
			synthAnnotations(part, name, fmt.Sprintf("group%02d", i)), spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		files, err := templates.Generate(api, templates.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, name, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, b := creates[0], creates[1]
	r := strings.NewReplacer("{A}", a.title, "{a}", a.name, "{B}", b.title, "{b}", b.name)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(r.Replace(splitProgram)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", ".", filepath.Join(dir, "ledger.db"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go run: %v\n%s", err, stderr)
	}
	var got struct {
		Writes  map[string]struct{ ID, Source string }
		Creates int
		Rows    []struct{ Scope, Operation, BusinessKey, State, ProviderID string }
		Resumed []int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	wa, wb, again := got.Writes["a"], got.Writes["b"], got.Writes["a again"]
	if wa.Source != "created" || wb.Source != "created" || wa.ID == wb.ID {
		t.Errorf("writes %+v; want both created, two effects", got.Writes)
	}
	if again.Source != "adopted_ledger" || again.ID != wa.ID || got.Creates != 2 {
		t.Errorf("the repeat of a: %+v, %d creates at the provider; want a's receipt from the ledger and 2 creates", again, got.Creates)
	}
	if len(got.Rows) != 2 {
		t.Fatalf("ledger rows %+v; want one for each package's write", got.Rows)
	}
	want := map[string]string{"create" + a.name: wa.ID, "create" + b.name: wb.ID} // the default key scopes
	for _, row := range got.Rows {
		if row.Scope != synthScope || row.State != "active" || want[row.Operation] != row.ProviderID || row.BusinessKey == "" {
			t.Errorf("ledger row %+v; want scope %q, active, one of %v", row, synthScope, want)
		}
		delete(want, row.Operation)
	}
	if len(got.Resumed) != 2 || got.Resumed[0] != 0 || got.Resumed[1] != 0 {
		t.Errorf("Resume took over %v rows; want none in either package", got.Resumed)
	}
}

// splitProgram is the program of TestSplitPackagesShareLedger: {A} and {B} are the resources
// whose creates it calls, one in each package.
const splitProgram = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"

	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/sqlite"

	"splitcheck/p0"
	"splitcheck/p1"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(path string) error {
	var mu sync.Mutex
	creates := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Name              string ` + "`json:\"name\"`" + `
			ExternalReference string ` + "`json:\"external_reference\"`" + `
		}
		if r.Method != "POST" || json.NewDecoder(r.Body).Decode(&in) != nil {
			http.Error(w, "only creates", http.StatusBadRequest)
			return
		}
		mu.Lock()
		creates++
		id := fmt.Sprintf("obj_%d", creates)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"id": id, "created_at": "2026-01-02T03:04:05Z", "status": "state_0",
			"name": in.Name, "external_reference": in.ExternalReference})
	}))
	defer srv.Close()
	ctx := context.Background()
	l, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer l.Close()
	c0, err := p0.NewClient(srv.URL, l)
	if err != nil {
		return err
	}
	c1, err := p1.NewClient(srv.URL, l)
	if err != nil {
		return err
	}
	type write struct{ ID, Source string }
	writes := map[string]write{}
	a, err := c0.Create{A}(ctx, p0.Create{A}Key{{A}Ref: "same"}, p0.{A}Create{Name: "a"})
	if err != nil {
		return err
	}
	writes["a"] = write{a.ID, a.Source.String()}
	b, err := c1.Create{B}(ctx, p1.Create{B}Key{{B}Ref: "same"}, p1.{B}Create{Name: "b"})
	if err != nil {
		return err
	}
	writes["b"] = write{b.ID, b.Source.String()}
	again, err := c0.Create{A}(ctx, p0.Create{A}Key{{A}Ref: "same"}, p0.{A}Create{Name: "a"})
	if err != nil {
		return err
	}
	writes["a again"] = write{again.ID, again.Source.String()}
	var resumed []int
	for _, resume := range []func(context.Context) (int, error){
		func(ctx context.Context) (int, error) { r, err := c0.Resume(ctx); return r.Taken, err },
		func(ctx context.Context) (int, error) { r, err := c1.Resume(ctx); return r.Taken, err },
	} {
		n, err := resume(ctx)
		if err != nil {
			return err
		}
		resumed = append(resumed, n)
	}
	rows, err := l.List(ctx, ledger.Filter{AnyScope: true, AnyTenant: true})
	if err != nil {
		return err
	}
	type row struct{ Scope, Operation, BusinessKey, State, ProviderID string }
	var out []row
	for _, r := range rows {
		out = append(out, row{r.Scope, r.Operation, r.BusinessKey, string(r.State), r.ProviderID})
	}
	mu.Lock()
	defer mu.Unlock()
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"Writes": writes, "Creates": creates, "Rows": out, "Resumed": resumed})
}
`
