package writegenimpl

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegen/writegen/runtime"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/postgres"
	"github.com/writegen/writegen/runtime/ledger/postgres/pgtest"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// The tests of this file hold the lookups to what they prove (promises 47, 49 and 50), against
// a provider on a real HTTP server: a store of notes whose search matches loosely and whose index
// may lag its commits, as real ones do. Its clock is the test's: commits and the index follow
// the time the runtime sleeps through.

// store is the provider: POST /notes commits a note (or loses the request, or commits and loses
// the answer, or takes the request and commits it later); GET /notes?q= searches its index.
type store struct {
	t   *testing.T
	clk *testClock
	mu  sync.Mutex
	// notes, in the order they committed; a note is indexed lag after it committed.
	notes []storeNote
	lag   time.Duration
	// next is how the next POSTs end, one entry each: "" commits and answers, "lost" loses the
	// request, "answer" commits and loses the answer, "late" loses the answer and commits at
	// lateAt (a request still running at the provider).
	next   []string
	lateAt time.Time
	late   *storeNote
	posts  int
	lookup int
}

type storeNote struct {
	ID        string    `json:"id"`
	Ref       string    `json:"ref"`
	Text      string    `json:"text"`
	committed time.Time // by the provider's clock, the test's
}

func newStore(t *testing.T, clk *testClock, lag time.Duration, next ...string) (*store, string) {
	s := &store{t: t, clk: clk, lag: lag, next: next}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /notes", func(w http.ResponseWriter, r *http.Request) {
		var n storeNote
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.posts++
		how := ""
		if len(s.next) > 0 {
			how, s.next = s.next[0], s.next[1:]
		}
		switch how {
		case "lost":
		case "late":
			n.ID = "note_" + strconv.Itoa(len(s.notes)+1)
			s.late = &n
		default:
			n.ID, n.committed = "note_"+strconv.Itoa(len(s.notes)+1), clk.Now()
			s.notes = append(s.notes, n)
		}
		s.mu.Unlock()
		if how != "" {
			drop(w, true)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(n)
	})
	mux.HandleFunc("GET /notes", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		s.mu.Lock()
		s.commitLate()
		s.lookup++
		out := []storeNote{}
		for _, n := range s.notes {
			// The search matches loosely: a query is a prefix of the reference.
			if strings.HasPrefix(n.Ref, q) && !clk.Now().Before(n.committed.Add(s.lag)) {
				out = append(out, n)
			}
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// commitLate commits the request still running once the provider's clock reaches lateAt.
func (s *store) commitLate() {
	if s.late != nil && !s.clk.Now().Before(s.lateAt) {
		s.late.committed = s.lateAt
		s.notes = append(s.notes, *s.late)
		s.late = nil
	}
}

// add commits a note of another write.
func (s *store) add(ref string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, storeNote{ID: "note_" + strconv.Itoa(len(s.notes)+1), Ref: ref, committed: s.clk.Now().Add(-time.Hour)})
}

// with returns how many notes carry ref, and how many posts the provider got.
func (s *store) with(ref string) (notes, posts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commitLate()
	for _, n := range s.notes {
		if n.Ref == ref {
			notes++
		}
	}
	return notes, s.posts
}

// noteOp is POST /notes with no key, claimed in the ledger, looked up by its reference with
// consistency c and lag (its settle time when strong).
func noteOp(c runtime.Consistency, lag time.Duration) *Operation {
	return &Operation{ID: "createNote", Scope: "create-note", Method: "POST", Path: "/notes", Effect: runtime.EffectAmbiguous,
		Retry: runtime.RetryNotSent | runtime.RetryAmbiguous, Attempts: 3, Receipt: true, Lookup: c, LookupLag: lag, Dedupe: true,
		Owner: "notes-ops"}
}

// noteCall writes a note whose reference is ref (the business key's, not the provider key), and
// looks it up with the provider's loose search; ref "" leaves Found.Ref empty, as a lookup
// written by hand that forgot it would.
func noteCall(c *Client, ref string, setRef bool) Call[*storeNote] {
	return Call[*storeNote]{
		Build: func(_, reference string) (*Request, error) {
			r := NewRequest("POST", "/notes")
			return r, r.JSON(storeNote{Ref: reference, Text: "hello"})
		},
		Reference: ref,
		ID:        func(n *storeNote) string { return n.ID },
		Lookup: func(ctx context.Context, reference string) ([]runtime.Found[*storeNote], error) {
			r := NewRequest("GET", "/notes")
			r.AddQuery("q", reference)
			var list []storeNote
			if err := Read(ctx, c, listOp, r, &list); err != nil {
				return nil, err
			}
			out := make([]runtime.Found[*storeNote], len(list))
			for i := range list {
				out[i] = runtime.Found[*storeNote]{ID: list[i].ID, Body: &list[i]}
				if setRef {
					out[i].Ref = list[i].Ref
				}
			}
			return out, nil
		},
	}
}

type noteKey string

func (k noteKey) BusinessKey() (string, error) { return string(k), nil }

// TestPromise47_FoundIsOurs: the provider's search for "wiki:a/b" also finds the note of another
// write, "wiki:a/b/c". The write's request was lost: the lookup must not adopt the other note
// (a lost write reported done, and every later call adopting it too), but see that nothing
// carries its reference, wait out the settle time and send the note. One note each; the ledger
// row holds the write's own note. A lookup that returns what it found without the text that
// carries the reference proves nothing: the call ends uncertain, and the note is not sent again.
func TestPromise47_FoundIsOurs(t *testing.T) {
	for _, tl := range testLedgers() {
		t.Run(tl.name, func(t *testing.T) {
			clk := newTestClock()
			s, url := newStore(t, clk, 0, "lost")
			s.add("wiki:a/b/c")
			l := tl.open(t, clk)
			c := newTestClient(t, url, clk, runtime.WithLedger(l))
			op := noteOp(runtime.Strong, time.Second)
			r, err := Write(context.Background(), c, op, noteKey("k1"), noteCall(c, "wiki:a/b", true))
			if err != nil || r.Source != runtime.Created || r.Body.Ref != "wiki:a/b" {
				t.Fatalf("receipt %+v, err %v; want the write's own note, created by a second post", r, err)
			}
			if mine, posts := s.with("wiki:a/b"); mine != 1 || posts != 2 {
				t.Errorf("%d notes carry the reference after %d posts, want 1 after 2", mine, posts)
			}
			if other, _ := s.with("wiki:a/b/c"); other != 1 {
				t.Errorf("the other write's notes: %d, want 1", other)
			}
			again, err := Write(context.Background(), c, op, noteKey("k1"), noteCall(c, "wiki:a/b", true))
			if err != nil || again.ID != r.ID || again.Source != runtime.AdoptedLedger {
				t.Errorf("the same write again: %+v, %v; want %s from the ledger", again, err, r.ID)
			}
		})
	}
	t.Run("found without its reference", func(t *testing.T) {
		clk := newTestClock()
		s, url := newStore(t, clk, 0, "answer")
		c := newTestClient(t, url, clk, runtime.WithLedger(newMemLedgerOn(clk)))
		_, err := Write(context.Background(), c, noteOp(runtime.Strong, time.Second), noteKey("k2"), noteCall(c, "wiki:x", false))
		if reason := uncertainReason(t, err); reason != "lookup failed" || !strings.Contains(err.Error(), "runtime.Found.Ref") {
			t.Errorf("err %v; want uncertain: the lookup returned an effect without its reference", err)
		}
		if mine, posts := s.with("wiki:x"); mine != 1 || posts != 1 {
			t.Errorf("%d notes after %d posts, want 1 after 1: never sent again", mine, posts)
		}
	})
}

// TestPromise49_FastRestartWaitsForTheDeadAttempt: a process of instance "pod-1" claimed a note,
// sent it, and died; its request is still running at the provider, which commits it 10s after
// it arrived (within the attempt timeout of 30s). The restarted instance (another process: its
// own handle of the ledger) repeats the write one second later and takes its dead run's claim at
// once. Its lookup finds nothing yet; "not found" must count only once the dead attempt could no
// longer commit (the end of its holder's lease, which covered the attempt, plus the settle
// time), not the settle time from the takeover: by then the provider has committed the note,
// and it is adopted. One note.
func TestPromise49_FastRestartWaitsForTheDeadAttempt(t *testing.T) {
	for _, tl := range sharedLedgers() {
		t.Run(tl.name, func(t *testing.T) {
			clk := newTestClock()
			s, url := newStore(t, clk, 0)
			deadLedger, l := tl.open(t, clk)
			op := noteOp(runtime.Strong, 5*time.Second)
			opts := []runtime.Option{runtime.WithInstance("pod-1"), runtime.WithLease(40 * time.Second), runtime.WithAttemptTimeout(30 * time.Second)}

			// The dead run: incarnation 1 of pod-1 claimed the write; its request is at the provider.
			dead := newTestClient(t, url, clk, append(opts, runtime.WithLedger(deadLedger))...)
			h, err := dead.holderOf(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			id := runtime.Identity{Scope: testScope, Operation: op.keyScope(), BusinessKey: "k1"}
			pk := pkOf(op, "k1")
			req, err := noteCall(dead, "", true).Build(pk, pk)
			if err != nil {
				t.Fatal(err)
			}
			enc := EncodeRequest(req)
			sum := sha256.Sum256(enc)
			if _, won, err := deadLedger.Claim(context.Background(), runtime.Record{Identity: id, OperationID: op.ID, ProviderKey: pk,
				Owner: op.Owner, Request: enc, Digest: sum[:], CreatedAt: clk.Now()}, h, 40*time.Second); err != nil || !won {
				t.Fatal(won, err)
			}
			s.mu.Lock()
			s.late, s.lateAt = &storeNote{ID: "note_1", Ref: pk, Text: "hello"}, clk.Now().Add(10*time.Second)
			s.posts++
			s.mu.Unlock()

			clk.advance(time.Second)
			c := newTestClient(t, url, clk, append(opts, runtime.WithLedger(l))...) // the restart: incarnation 2
			r, err := Write(context.Background(), c, op, noteKey("k1"), noteCall(c, "", true))
			if err != nil || r.Source != runtime.AdoptedLookup || r.ID != "note_1" {
				t.Fatalf("receipt %+v, err %v; want note_1, the dead run's, adopted", r, err)
			}
			if mine, posts := s.with(pk); mine != 1 || posts != 1 {
				t.Errorf("%d notes after %d posts, want 1 after 1", mine, posts)
			}
			if slept := clk.slept(); len(slept) == 0 || slept[len(slept)-1] < 40*time.Second {
				t.Errorf("slept %v; want the rest of the dead run's lease and the settle time (44s)", slept)
			}
		})
	}
}

// sharedLedgers are the ledgers that two processes can open at once, each with a handle of its
// own: an SQLite file, and PostgreSQL when WRITEGEN_PG_DSN is set. open returns two handles.
func sharedLedgers() []struct {
	name string
	open func(t *testing.T, clk runtime.Clock) (a, b runtime.Ledger)
} {
	type shared = struct {
		name string
		open func(t *testing.T, clk runtime.Clock) (a, b runtime.Ledger)
	}
	handle := func(t *testing.T, l runtime.Ledger, err error) runtime.Ledger {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.(interface{ Close() error }).Close() })
		return l
	}
	out := []shared{{"sqlite", func(t *testing.T, clk runtime.Clock) (runtime.Ledger, runtime.Ledger) {
		file := filepath.Join(t.TempDir(), "ledger.db")
		a, err := sqlite.Open(context.Background(), file, ledger.WithClock(clk))
		la := handle(t, a, err)
		b, err := sqlite.Open(context.Background(), file, ledger.WithClock(clk))
		return la, handle(t, b, err)
	}}}
	if dsn := os.Getenv("WRITEGEN_PG_DSN"); dsn != "" {
		out = append(out, shared{"postgres", func(t *testing.T, clk runtime.Clock) (runtime.Ledger, runtime.Ledger) {
			schema := pgtest.Schema(t, dsn, "proof")
			a, err := postgres.Open(context.Background(), schema, ledger.WithClock(clk))
			la := handle(t, a, err)
			b, err := postgres.Open(context.Background(), schema, ledger.WithClock(clk))
			return la, handle(t, b, err)
		}})
	}
	return out
}

// TestPromise50_ResumeAsksAgain: an eventual lookup whose lag (30s) is longer than the call can
// wait leaves the write uncertain, marked for Resume once the lag has passed: not before. After
// it, Resume asks again and settles the write by what it finds, before a person is asked: the
// note the lost answer left behind is adopted; a request lost before the provider committed
// anything is sent again, once (the lag has passed since the last moment it could commit).
func TestPromise50_ResumeAsksAgain(t *testing.T) {
	for _, tl := range testLedgers() {
		for _, tc := range []struct {
			name   string
			how    string
			source runtime.Source
			posts  int
		}{
			{"answer lost", "answer", runtime.AdoptedLookup, 1},
			{"request lost", "lost", runtime.Created, 2},
		} {
			t.Run(tl.name+"/"+tc.name, func(t *testing.T) {
				clk := newTestClock()
				s, url := newStore(t, clk, 20*time.Second, tc.how)
				l := tl.open(t, clk)
				c := newTestClient(t, url, clk, runtime.WithLedger(l), runtime.WithAttemptTimeout(5*time.Second), runtime.WithLease(10*time.Second))
				op := noteOp(runtime.Eventual, 30*time.Second)
				call := noteCall(c, "", true)
				_, err := Write(context.Background(), c, op, noteKey("k1"), call)
				if reason := uncertainReason(t, err); !strings.Contains(reason, "attempt budget") {
					t.Fatalf("reason %q; want uncertain: the lag is longer than the call can wait", reason)
				}
				clk.advance(10 * time.Second)
				rep, err := Resume(context.Background(), c, op, call)
				if err != nil || rep.Taken != 0 {
					t.Fatalf("resume before the lag: %+v, %v; want nothing taken", rep, err)
				}
				clk.advance(25 * time.Second)
				rep, err = Resume(context.Background(), c, op, call)
				if err != nil || rep.Taken != 1 || rep.Reasked != 1 || rep.Active != 1 {
					t.Fatalf("resume after the lag: %+v, %v; want the row asked again and settled active", rep, err)
				}
				r, err := Write(context.Background(), c, op, noteKey("k1"), call)
				if err != nil || r.Source != runtime.AdoptedLedger {
					t.Fatalf("the write after resume: %+v, %v; want its receipt from the ledger", r, err)
				}
				if mine, posts := s.with(pkOf(op, "k1")); mine != 1 || posts != tc.posts {
					t.Errorf("%d notes after %d posts, want 1 after %d", mine, posts, tc.posts)
				}
			})
		}
	}
	t.Run("eventual without a lag", func(t *testing.T) {
		// Found is adopted; not found proves nothing: Resume asks on its schedule, each step twice
		// the one before, then leaves the row to a person.
		clk := newTestClock()
		s, url := newStore(t, clk, 0, "lost")
		l := newMemLedgerOn(clk)
		c := newTestClient(t, url, clk, runtime.WithLedger(l), runtime.WithReask(time.Minute, 3))
		op := noteOp(runtime.Eventual, 0)
		call := noteCall(c, "", true)
		_, err := Write(context.Background(), c, op, noteKey("k1"), call)
		uncertainReason(t, err)
		var reports []runtime.ResumeReport
		for range 6 {
			clk.advance(5 * time.Minute)
			rep, err := Resume(context.Background(), c, op, call)
			if err != nil {
				t.Fatal(err)
			}
			reports = append(reports, rep)
		}
		asked, scheduled := 0, 0
		for _, rep := range reports {
			asked += rep.Taken
			scheduled += rep.Scheduled
		}
		if asked != 3 || scheduled != 2 || reports[len(reports)-1].Taken != 0 {
			t.Errorf("reports %+v; want three asks, the last left to a person", reports)
		}
		if row := l.row(1); row.State != runtime.StateUncertain || row.redrive {
			t.Errorf("row %s, redrive %v; want uncertain for a person", row.State, row.redrive)
		}
		if _, posts := s.with(pkOf(op, "k1")); posts != 1 {
			t.Errorf("%d posts, want 1: never sent again on a not found that proves nothing", posts)
		}
	})
}
