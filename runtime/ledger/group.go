package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// A group commit. One deduplicated write needs two durable commits: its
// claim, before the request is sent, and its settlement, after the answer.
// Alone, that is its floor. Under concurrency the claims and settlements
// that arrive while the database commits others wait for it anyway; the
// group makes them share the next commit: one transaction, one sync to the
// disk, one WAL flush. It adds no delay: a write that finds nothing
// committing is run at once, alone, as its own statements, and a group is
// whatever queued meanwhile. Where the database lets several transactions
// write at once (PostgreSQL), Dialect.Writers groups commit side by side,
// each taking what queued while the others commit.
//
// Nothing is weaker for it. Claim and Settle return after the commit that
// holds their statements, so a claim is durable before its request is
// sent, as alone. The statements of a group run in arrival order in one
// transaction, so that each sees those before it: two claims of one key in
// one group find each other as two in a row would. When a statement of a
// group fails (a deadlock between two processes' groups, a busy timeout),
// the transaction is rolled back, which leaves nothing of it, and each
// write is run again alone, so that one write's failure is never another's.
// When the commit itself fails, every write of the group gets the error, as
// each would had its own commit failed: the commit may or may not have
// happened, which the caller finds out (Claim claims again, recognising its
// own claim by its token; a settlement is made again).
//
// A caller is told how its write ended, never only that it stopped
// waiting. A write whose caller's context ends while it is queued is
// dropped, and the caller learns that it was never begun (errNotBegun);
// once a group has begun it, it runs to its end on a context of the
// group's own, bounded by groupTimeout, whatever becomes of the caller's,
// and the caller is answered with its outcome. So a claim is never
// reported as not made while it commits behind the caller's back.

// maxGroup bounds the writes of one transaction, so that its locks are
// held for a bounded time.
const maxGroup = 128

// groupTimeout bounds a group's transaction, or a write run alone, once
// begun: its caller waits for it even after its own context has ended.
const groupTimeout = 30 * time.Second

// The states of a groupJob.
const (
	jobQueued  int32 = iota
	jobBegun         // a group runs it: it runs to its end
	jobDropped       // its caller's context ended first: it is never run
)

// errNotBegun is matched by the error of a write whose caller's context
// ended before a group began it: nothing of it was made, nor ever will be.
var errNotBegun = errors.New("ledger: the write was not begun")

// notBegun returns the error of a write dropped because of cause.
func notBegun(cause error) error { return fmt.Errorf("%w: %w", errNotBegun, cause) }

// groupJob is one claim or settlement waiting for the group.
type groupJob struct {
	ctx context.Context
	// run makes the write's statements on q and keeps what they return in
	// the caller's variables: it is run again, alone, when its group
	// fails, so it starts each run afresh.
	run   func(ctx context.Context, q Querier) error
	done  chan error   // buffered: the group never waits for its caller
	state atomic.Int32 // jobQueued, then jobBegun (by the group) or jobDropped
}

// begin marks j begun, unless it was dropped or its caller's context has
// ended: then it is dropped, its caller told, and begin returns false.
func (j *groupJob) begin() bool {
	if err := j.ctx.Err(); err != nil {
		if j.state.CompareAndSwap(jobQueued, jobDropped) {
			j.done <- notBegun(err)
		}
		return false
	}
	return j.state.CompareAndSwap(jobQueued, jobBegun)
}

// group runs the jobs of one ledger handle, in up to Dialect.Writers
// transactions at a time.
type group struct {
	conn Conn
	jobs chan *groupJob

	ctx    context.Context // ends when the ledger closes
	cancel context.CancelFunc
	ended  chan struct{} // closed when every loop has returned

	commits atomic.Int64 // transactions and lone writes committed
	writes  atomic.Int64 // claims and settlements they held
}

// newGroup starts writers loops committing the jobs made on c.
func newGroup(c Conn, writers int) *group {
	ctx, cancel := context.WithCancel(context.Background())
	g := &group{conn: c, jobs: make(chan *groupJob, maxGroup), ctx: ctx, cancel: cancel, ended: make(chan struct{})}
	var wg sync.WaitGroup
	for range max(writers, 1) {
		wg.Go(g.loop)
	}
	go func() {
		wg.Wait()
		close(g.ended)
	}()
	return g
}

// errClosed is returned to a write made after the ledger closed.
var errClosed = errors.New("ledger: closed")

// do runs fn in the next group and returns once it is committed, or
// failed. A caller whose ctx ends before a group began its write gets an
// error matching errNotBegun: the write is never made. Once begun, the
// write runs to its end, bounded by groupTimeout, and do returns its
// outcome even though ctx has ended.
func (g *group) do(ctx context.Context, fn func(ctx context.Context, q Querier) error) error {
	j := &groupJob{ctx: ctx, run: fn, done: make(chan error, 1)}
	select {
	case g.jobs <- j:
	case <-ctx.Done():
		return notBegun(ctx.Err())
	case <-g.ctx.Done():
		return notBegun(errClosed)
	}
	select {
	case err := <-j.done:
		return err
	case <-ctx.Done():
		if j.state.CompareAndSwap(jobQueued, jobDropped) {
			return notBegun(ctx.Err())
		}
	case <-g.ended:
		if j.state.CompareAndSwap(jobQueued, jobDropped) {
			return notBegun(errClosed)
		}
	}
	// Begun (or dropped by the group, which told it): its outcome comes,
	// the group's loops end only after they have answered every write
	// they took.
	return <-j.done
}

func (g *group) loop() {
	batch := make([]*groupJob, 0, maxGroup)
	for {
		select {
		case j := <-g.jobs:
			batch = append(batch[:0], j)
		case <-g.ctx.Done():
			return
		}
	fill:
		for len(batch) < maxGroup {
			select {
			case j := <-g.jobs:
				batch = append(batch, j)
			default:
				break fill
			}
		}
		g.commit(batch)
		clear(batch) // the jobs' closures are not kept until the next group
	}
}

// commit runs the jobs whose callers still wait: one alone, as its own
// statements; several in one transaction.
func (g *group) commit(batch []*groupJob) {
	live := batch[:0]
	for _, j := range batch {
		if j.begin() {
			live = append(live, j)
		}
	}
	if len(live) == 1 {
		g.alone(live[0])
		return
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(g.ctx), groupTimeout)
	defer cancel()
	tx, err := g.conn.BeginGroup(ctx)
	if err != nil {
		g.each(live)
		return
	}
	for _, j := range live {
		if err := j.run(ctx, tx); err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
			g.each(live)
			return
		}
	}
	if err := tx.Commit(ctx); err != nil {
		err = fmt.Errorf("ledger: commit %d claims and settlements together: %w", len(live), err)
		for _, j := range live {
			j.done <- err
		}
		return
	}
	g.commits.Add(1)
	g.writes.Add(int64(len(live)))
	for _, j := range live {
		j.done <- nil
	}
}

// each runs the jobs of a group that failed, alone.
func (g *group) each(jobs []*groupJob) {
	for _, j := range jobs {
		g.alone(j)
	}
}

// alone runs one job that was begun as its own statements, on a context
// of the group's: its caller learns how it ended.
func (g *group) alone(j *groupJob) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(j.ctx), groupTimeout)
	defer cancel()
	err := j.run(ctx, g.conn)
	if err == nil {
		g.commits.Add(1)
		g.writes.Add(1)
	}
	j.done <- err
}

// close stops the loop once the group it runs is done.
func (g *group) close() {
	g.cancel()
	<-g.ended
}

// Stats counts what a ledger handle has committed since it was opened.
type Stats struct {
	// Writes is the claims and settlements made.
	Writes int64
	// Commits is the commits that held them: a write alone is one (a claim
	// that finds its key taken reads and writes again, in statements of its
	// own), a group of writes made together is one.
	Commits int64
}

// Stats returns what this handle has committed; Writes/Commits is the
// size of the average group.
func (l *Ledger) Stats() Stats {
	return Stats{Writes: l.group.writes.Load(), Commits: l.group.commits.Load()}
}
