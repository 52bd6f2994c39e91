package ledgertest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
)

// command is what the suite asks a ledger process to do: one call of the
// runtime.Ledger interface, made by N goroutines at once (their owners
// numbered), which start together when the suite says "go".
type command struct {
	Op         string             `json:"op"` // claim, renew, settle, await, takeover
	N          int                `json:"n,omitempty"`
	Record     runtime.Record     `json:"record"`
	ID         int64              `json:"id,omitempty"`
	Fence      int64              `json:"fence,omitempty"`
	Owner      string             `json:"owner,omitempty"`
	Lease      time.Duration      `json:"lease"`
	Now        time.Time          `json:"now"`
	State      runtime.State      `json:"state,omitempty"`
	Settlement runtime.Settlement `json:"settlement"`
	Limit      int                `json:"limit,omitempty"` // takeover: per call; calls repeat until one hands out nothing
}

// result is what one goroutine of a command got.
type result struct {
	Records    []runtime.Record `json:"records,omitempty"`
	Won        bool             `json:"won,omitempty"`
	Err        string           `json:"err,omitempty"`
	LeaseLost  bool             `json:"lease_lost,omitempty"` // Err matches runtime.ErrLeaseLost
	Transition bool             `json:"transition,omitempty"` // Err matches ledger.ErrTransition
}

// reply is a ledger process's answer to a command: first "ready" when N
// goroutines wait for "go", then their results.
type reply struct {
	Ready   bool     `json:"ready,omitempty"`
	Results []result `json:"results,omitempty"`
}

// childLedger runs the commands on its input, one JSON object a line, and
// answers each on its output.
func childLedger(ctx context.Context, l *ledger.Ledger) error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<24)
	out := json.NewEncoder(os.Stdout)
	fmt.Println("ready")
	for in.Scan() {
		var c command
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			return err
		}
		n := max(c.N, 1)
		start := make(chan struct{})
		results := make([]result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				results[i] = c.run(ctx, l, i)
			})
		}
		if c.N > 1 {
			if err := out.Encode(reply{Ready: true}); err != nil {
				return err
			}
			if !in.Scan() {
				return in.Err()
			}
		}
		close(start)
		wg.Wait()
		if err := out.Encode(reply{Results: results}); err != nil {
			return err
		}
	}
	return in.Err()
}

// run makes the call of goroutine i.
func (c command) run(ctx context.Context, l *ledger.Ledger, i int) result {
	var r result
	var err error
	owner := c.Owner
	if c.N > 1 {
		owner = fmt.Sprint(c.Owner, "-", i)
	}
	switch c.Op {
	case "claim":
		var rec runtime.Record
		rec, r.Won, err = l.Claim(ctx, c.Record, runtime.Holder{Owner: owner}, c.Lease)
		r.Records = []runtime.Record{rec}
	case "renew":
		err = l.Renew(ctx, c.ID, c.Fence, c.Lease)
	case "settle":
		err = l.Settle(ctx, c.ID, c.Fence, c.State, c.Settlement)
	case "await":
		var rec runtime.Record
		rec, err = l.Await(ctx, c.ID)
		r.Records = []runtime.Record{rec}
	case "takeover":
		for {
			var got []runtime.Record
			got, err = l.TakeOver(ctx, c.Record.Scope, c.Record.Tenant, c.Record.Operation, c.Now, runtime.Holder{Owner: owner}, c.Lease, c.Limit)
			r.Records = append(r.Records, got...)
			if err != nil || len(got) == 0 {
				break
			}
		}
	default:
		err = fmt.Errorf("unknown command %q", c.Op)
	}
	if err != nil {
		r.Err = err.Error()
		r.LeaseLost, r.Transition = errors.Is(err, runtime.ErrLeaseLost), errors.Is(err, ledger.ErrTransition)
	}
	return r
}

// ledgerProcess is a child process that runs ledger commands.
type ledgerProcess struct {
	*child
	enc *json.Encoder
}

// startLedgerProcess starts a process that runs commands on the ledger at
// dsn, migrated already.
func startLedgerProcess(t testing.TB, dsn string) *ledgerProcess {
	t.Helper()
	c := startChild(t, childArgs{Role: "ledger", DSN: dsn})
	if got := c.line(); got != "ready" {
		t.Fatalf("ledger process said %q, want ready\n%s", got, c.stderr.String())
	}
	return &ledgerProcess{child: c, enc: json.NewEncoder(c.stdin)}
}

func (p *ledgerProcess) send(c command) {
	p.t.Helper()
	if err := p.enc.Encode(c); err != nil {
		p.t.Fatalf("ledger process: %v\n%s", err, p.stderr.String())
	}
}

func (p *ledgerProcess) reply() reply {
	p.t.Helper()
	line := p.line()
	var r reply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		p.t.Fatalf("ledger process said %q: %v\n%s", line, err, p.stderr.String())
	}
	return r
}

// do runs a command of one goroutine and returns its result.
func (p *ledgerProcess) do(c command) result {
	p.t.Helper()
	c.N = 1
	p.send(c)
	r := p.reply()
	if len(r.Results) != 1 {
		p.t.Fatalf("ledger process answered %+v", r)
	}
	return r.Results[0]
}

// together runs c in every process, c.N goroutines each, started at once,
// and returns every goroutine's result.
func together(t testing.TB, procs []*ledgerProcess, c command) []result {
	t.Helper()
	for _, p := range procs {
		p.send(c)
	}
	for _, p := range procs {
		if r := p.reply(); !r.Ready {
			t.Fatalf("ledger process answered %+v, want ready", r)
		}
	}
	for _, p := range procs {
		if _, err := p.stdin.Write([]byte("go\n")); err != nil {
			t.Fatal(err)
		}
	}
	var all []result
	for _, p := range procs {
		all = append(all, p.reply().Results...)
	}
	return all
}

// processes starts n ledger processes on dsn.
func processes(t testing.TB, dsn string, n int) []*ledgerProcess {
	var procs []*ledgerProcess
	for range n {
		procs = append(procs, startLedgerProcess(t, dsn))
	}
	return procs
}

// testLeaseAcrossProcesses: two OS processes share the database; one
// claims and renews, this one takes over. Nothing is taken over while the
// lease is renewed; once it has passed, the row is taken over, the old
// holder's renewal and settlement fail with ErrLeaseLost, and a waiter in
// a third process gets the taker's outcome (promises 20 and 24).
func testLeaseAcrossProcesses(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	l := open(t, dsn)
	procs := processes(t, dsn, 2)
	holder, waiter := procs[0], procs[1]
	t0 := time.Now()
	take := func(at time.Time) []runtime.Record {
		t.Helper()
		got, err := l.TakeOver(ctx, scope, "", "thing", at, runtime.Holder{Owner: "taker"}, lease, 0)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	claimed := holder.do(command{Op: "claim", Record: claimOf(ident("thing", "k"), "req"), Owner: "holder", Lease: lease})
	if !claimed.Won || claimed.Err != "" {
		t.Fatalf("the holder's claim: %+v", claimed)
	}
	row := claimed.Records[0]
	if got := take(t0.Add(lease / 2)); len(got) != 0 {
		t.Fatalf("took over a live lease of another process: %+v", got)
	}
	if r := holder.do(command{Op: "renew", ID: row.ID, Fence: row.Fence, Lease: 2 * lease}); r.Err != "" {
		t.Fatalf("renew: %s", r.Err)
	}
	if got := take(t0.Add(lease + time.Second)); len(got) != 0 {
		t.Fatalf("took over a lease another process renewed: %+v", got)
	}
	// The holder's last renewal ends its lease before the database's now:
	// the lease has passed.
	if r := holder.do(command{Op: "renew", ID: row.ID, Fence: row.Fence, Lease: -time.Second}); r.Err != "" {
		t.Fatalf("renew: %s", r.Err)
	}
	waiter.send(command{Op: "await", ID: row.ID, N: 1})
	taken := take(t0.Add(2*lease + time.Second))
	if len(taken) != 1 || taken[0].ID != row.ID || taken[0].Fence != row.Fence+1 {
		t.Fatalf("takeover after the lease passed: %+v", taken)
	}
	if r := holder.do(command{Op: "renew", ID: row.ID, Fence: row.Fence, Lease: lease}); !r.LeaseLost {
		t.Fatalf("the old holder's renewal: %+v, want ErrLeaseLost", r)
	}
	if r := holder.do(command{Op: "settle", ID: row.ID, Fence: row.Fence, State: runtime.StateActive,
		Settlement: runtime.Settlement{ProviderID: "from-the-old-holder"}}); !r.LeaseLost {
		t.Fatalf("the old holder's settlement: %+v, want ErrLeaseLost", r)
	}
	if err := l.Settle(ctx, taken[0].ID, taken[0].Fence, runtime.StateActive, runtime.Settlement{ProviderID: "from-the-taker"}); err != nil {
		t.Fatal(err)
	}
	if r := waiter.reply(); len(r.Results) != 1 || r.Results[0].Err != "" || r.Results[0].Records[0].ProviderID != "from-the-taker" {
		t.Fatalf("the waiter got %+v, want the taker's outcome", r)
	}
	again := holder.do(command{Op: "claim", Record: claimOf(ident("thing", "k"), "req"), Owner: "holder", Lease: lease})
	if again.Won || again.Records[0].State != runtime.StateActive || again.Records[0].ProviderID != "from-the-taker" {
		t.Fatalf("the old holder's claim afterwards: %+v, want the taker's outcome", again)
	}
	for _, p := range procs {
		p.finish()
	}
}

// concurrentCallers is how many goroutines, over all processes, claim one
// identity at once.
const concurrentCallers = 100

// testConcurrentClaims: 100 concurrent claims of one identity from several
// OS processes: exactly one wins, and every other gets the winner's row;
// once it is not applied, exactly one wins it again; once it is settled,
// none (promises 15, 17, 20 and 30).
func testConcurrentClaims(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	l := open(t, dsn)
	procs := processes(t, dsn, max(b.Processes, 2))
	per := (concurrentCallers + len(procs) - 1) / len(procs)
	id := ident("thing", "order:42")
	claim := func(round string) (winner runtime.Record, wins int) {
		t.Helper()
		results := together(t, procs, command{Op: "claim", N: per, Record: claimOf(id, "req"), Owner: round, Lease: time.Hour})
		if len(results) < concurrentCallers {
			t.Fatalf("%d results, want %d", len(results), concurrentCallers)
		}
		var rowID int64
		for i, r := range results {
			if r.Err != "" {
				t.Fatalf("%s: claim %d failed: %s", round, i, r.Err)
			}
			if rowID == 0 {
				rowID = r.Records[0].ID
			}
			if r.Records[0].ID != rowID {
				t.Fatalf("%s: claims saw rows %d and %d of one identity", round, rowID, r.Records[0].ID)
			}
			if r.Won {
				wins++
				winner = r.Records[0]
			}
		}
		return winner, wins
	}
	first, wins := claim("first")
	if wins != 1 {
		t.Fatalf("%d of %d concurrent claims won; want exactly one", wins, per*len(procs))
	}
	if err := l.Settle(ctx, first.ID, first.Fence, runtime.StateNotApplied, runtime.Settlement{Status: 429}); err != nil {
		t.Fatal(err)
	}
	second, wins := claim("second")
	if wins != 1 || second.Fence != first.Fence+1 {
		t.Fatalf("%d claims of the not_applied row won, fence %d; want exactly one, with fence %d", wins, second.Fence, first.Fence+1)
	}
	if err := l.Settle(ctx, second.ID, second.Fence, runtime.StateActive, runtime.Settlement{ProviderID: "p"}); err != nil {
		t.Fatal(err)
	}
	if _, wins := claim("third"); wins != 0 {
		t.Fatalf("%d claims of an active row won; want none", wins)
	}
	for _, p := range procs {
		p.finish()
	}
}

// takenRows is how many expired claims testConcurrentTakeOver shares out.
const takenRows = 40

// testConcurrentTakeOver: several OS processes, several goroutines each,
// take over the same expired claims at once: each row goes to exactly
// one caller (promises 20 and 24).
func testConcurrentTakeOver(t *testing.T, b Backend) {
	ctx := context.Background()
	dsn := b.NewDSN(t)
	l := open(t, dsn)
	t0 := time.Now()
	want := map[int64]bool{}
	for i := range takenRows {
		r, _, err := l.Claim(ctx, claimOf(ident("thing", fmt.Sprint("k", i)), "req"), runtime.Holder{Owner: "dead"}, -time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want[r.ID] = true
	}
	procs := processes(t, dsn, max(b.Processes, 2))
	results := together(t, procs, command{Op: "takeover", N: 5, Record: runtime.Record{Identity: ident("", "")},
		Owner: "resumer", Now: t0.Add(time.Second), Lease: time.Hour, Limit: 3})
	got := map[int64]string{}
	for _, r := range results {
		if r.Err != "" {
			t.Fatalf("takeover failed: %s", r.Err)
		}
		for _, rec := range r.Records {
			if other, dup := got[rec.ID]; dup {
				t.Fatalf("row %d was handed to %s and to %s", rec.ID, other, rec.LeaseOwner)
			}
			if !want[rec.ID] || rec.Fence != 2 {
				t.Fatalf("taken row %+v", rec)
			}
			got[rec.ID] = rec.LeaseOwner
		}
	}
	if len(got) != takenRows {
		t.Fatalf("%d of %d expired rows taken over", len(got), takenRows)
	}
	for _, p := range procs {
		p.finish()
	}
}
