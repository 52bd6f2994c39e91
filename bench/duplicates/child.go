package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/writegen/writegen/runtime"
)

// workers is how many logical writes the caller runs at once.
const workers = 16

// client is one way of making the logical write: pay out an order. pay returns the transfer's
// id, or an error (which matches runtime.ErrUncertain when the client says so).
type client struct {
	pay   func(ctx context.Context, o order) (id string, err error)
	close func() error // nil when there is nothing to close
}

// opener builds a client for the provider at baseURL, with what the calling process keeps
// across restarts.
type opener func(ctx context.Context, baseURL string, st state, pr *profile) (*client, error)

// state is what a calling process keeps across restarts, and shares with the other replicas.
type state struct {
	// ledger names the ledger the replicas share: "sqlite:PATH" or a postgres:// URL.
	ledger string
	// restarted: an earlier process of this replica ran (it was killed by a crash fault).
	restarted bool
}

// The outcomes the caller records.
const (
	outcomeOK        = "ok"
	outcomeFailed    = "failed"
	outcomeUncertain = "uncertain"
)

// entry is the caller's record of one logical write.
type entry struct {
	slot    int
	outcome string
	id      string
	err     string
}

// journalPath is where replica r (from 0) of a client keeps its journal, in the client's
// directory.
func journalPath(dir string, r int) string {
	return filepath.Join(dir, "journal-"+strconv.Itoa(r+1))
}

// runChild is the calling process, replica r (from 0) of the client: a connector that works
// through its part of the plan, records each outcome in its journal (its own database) as soon
// as a call returns, and, when it is started again after a crash, does every logical write the
// journal does not record, including those the crash interrupted.
func runChild(ctx context.Context, open opener, pr *profile, baseURL, dir, ledger string, r int, seed uint64, n int) error {
	pl := newPlan(seed, n, pr)
	path := journalPath(dir, r)
	_, statErr := os.Stat(path)
	done, err := readJournal(path)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	c, err := open(ctx, baseURL, state{ledger: ledger, restarted: statErr == nil}, pr)
	if err != nil {
		return err
	}
	if c.close != nil {
		defer c.close()
	}

	var mu sync.Mutex
	var failed error
	record := func(e entry) {
		line := fmt.Sprintf("%d\t%s\t%s\t%s\n", e.slot, e.outcome, e.id, oneLine(e.err))
		mu.Lock()
		defer mu.Unlock()
		// One write per record: a crash loses the records not yet written, never half of one.
		if _, err := f.WriteString(line); err != nil && failed == nil {
			failed = err
		}
	}
	call := func(slot int) {
		id, err := c.pay(ctx, pl.write(slot))
		e := entry{slot: slot, outcome: outcomeOK, id: id}
		switch {
		case errors.Is(err, runtime.ErrUncertain):
			e.outcome, e.err = outcomeUncertain, err.Error()
		case err != nil:
			e.outcome, e.err = outcomeFailed, err.Error()
		}
		record(e)
	}

	tasks := make(chan task)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for t := range tasks {
				var both sync.WaitGroup
				for _, s := range t.slots {
					if pl.replica[s] == r && !done[s] {
						both.Go(func() { call(s) })
					}
				}
				both.Wait()
			}
		})
	}
	for _, t := range pl.tasks {
		tasks <- t
	}
	close(tasks)
	wg.Wait()
	return failed
}

// readJournal returns the slots the journal records.
func readJournal(path string) (map[int]bool, error) {
	done := make(map[int]bool)
	es, err := loadJournal(path)
	for _, e := range es {
		done[e.slot] = true
	}
	return done, err
}

// loadJournal reads the caller's records; a missing journal has none.
func loadJournal(path string) ([]entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var es []entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 4)
		if len(parts) != 4 {
			return nil, fmt.Errorf("%s: malformed record %q", path, sc.Text())
		}
		slot, err := strconv.Atoi(parts[0])
		if err != nil {
			return nil, fmt.Errorf("%s: malformed record %q", path, sc.Text())
		}
		es = append(es, entry{slot: slot, outcome: parts[1], id: parts[2], err: parts[3]})
	}
	return es, sc.Err()
}

// oneLine keeps an error message on one line of the journal.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
}
