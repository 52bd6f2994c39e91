// Package sqlite keeps a writegen ledger in an SQLite file, through the
// pure-Go modernc.org/sqlite driver: the embedded default for a program on
// one machine.
//
//	l, err := sqlite.Open(ctx, "ledger.db")
//	client, err := support.NewClient(baseURL, l)
//
// The file is opened in WAL mode with a busy timeout (10 seconds unless
// WithBusyTimeout says otherwise) and synchronous=FULL: every commit is on
// the disk before the call that made it returns, so a receipt the ledger
// took survives a power loss. WithSynchronousNormal trades that for
// speed.
//
// The ledger runs its statements on one connection of its own, where each
// is prepared once and kept, so the process's writers queue in Go instead
// of sleeping in SQLite's busy handler; writers in other processes still
// meet the busy timeout. DB is a pool of other connections, for the
// caller's own tables and transactions, which begin with the write lock
// taken (BEGIN IMMEDIATE), so that writers queue instead of failing.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/writegen/writegen/runtime/ledger"
	msqlite "modernc.org/sqlite"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Ledger is a ledger in an SQLite file. Its methods come from
// *ledger.Ledger, plus Enqueue, which takes a transaction of DB.
type Ledger struct {
	*ledger.Ledger
	db *sql.DB
}

// settings are what this package's options set.
type settings struct {
	busyTimeout time.Duration
	synchronous string // FULL or NORMAL
}

// option is the value an Option of this package passes with
// ledger.WithDriver.
type option func(*settings)

// WithSynchronousNormal opens the file with synchronous=NORMAL instead of
// FULL. In WAL mode a commit is then written to the operating system but
// not synced to the disk until the next checkpoint: the ledger survives a
// crash of the process, but a power loss or a crash of the operating
// system may lose the last commits before a checkpoint, so a row that was
// claimed and sent can be lost and its key claimed again. Use it only
// where the database's disk, not the ledger, is trusted with durability,
// or where losing the last writes is acceptable. It makes a claim and its
// settlement several times cheaper on disks with a slow sync.
func WithSynchronousNormal() ledger.Option {
	return ledger.WithDriver(option(func(s *settings) { s.synchronous = "NORMAL" }))
}

// WithBusyTimeout sets how long a statement waits for a write lock that
// another process holds before it fails (default 10 seconds).
func WithBusyTimeout(d time.Duration) ledger.Option {
	return ledger.WithDriver(option(func(s *settings) { s.busyTimeout = max(d, time.Millisecond) }))
}

// newConnector opens the driver's connections; the package's tests count
// what the driver prepares through it.
var newConnector = msqlite.NewConnector

// Open opens the ledger in the SQLite file at path, creating it if needed,
// and migrates its schema. opts are the ledger's options and this
// package's (WithSynchronousNormal, WithBusyTimeout).
func Open(ctx context.Context, path string, opts ...ledger.Option) (*Ledger, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite ledger: path %q: must be a non-empty file name without ? or #", path)
	}
	s := settings{busyTimeout: 10 * time.Second, synchronous: "FULL"}
	for _, v := range ledger.DriverOptions(opts) {
		if o, ok := v.(option); ok {
			o(&s)
		}
	}
	pragmas := fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=synchronous(%s)", s.busyTimeout.Milliseconds(), s.synchronous)
	if err := enterWAL(ctx, path+pragmas, s.busyTimeout); err != nil {
		return nil, fmt.Errorf("sqlite ledger: %s: %w", path, err)
	}
	db, err := openDB(path + pragmas + "&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("sqlite ledger: %s: %w", path, err)
	}
	own, err := openDB(path + pragmas + "&_txlock=immediate")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite ledger: %s: %w", path, err)
	}
	// One connection, never closed while the ledger is open: what is
	// prepared on it stays prepared.
	own.SetMaxOpenConns(1)
	own.SetMaxIdleConns(1)
	own.SetConnMaxLifetime(0)
	own.SetConnMaxIdleTime(0)
	c := &conn{db: db, own: own, busyTimeout: s.busyTimeout, stmts: map[string]*prepared{}}
	l, err := ledger.New(ctx, c, dialect, opts...)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("sqlite ledger: %s: %w", path, err)
	}
	return &Ledger{Ledger: l, db: db}, nil
}

// enterWAL puts the file at dsn in WAL mode, which the file then keeps for
// every connection. SQLite takes the file's exclusive lock for the change
// without waiting in its busy handler: a process that opens a new file
// while another one does gets SQLITE_BUSY at once, not after the busy
// timeout. So the change is tried again here, after a short wait that
// doubles, until timeout has passed.
func enterWAL(ctx context.Context, dsn string, timeout time.Duration) error {
	db, err := openDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(timeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		switch {
		case err == nil && strings.EqualFold(mode, "wal"):
			return nil
		case err == nil:
			return fmt.Errorf("the file cannot be put in WAL mode: its journal mode stays %q", mode)
		case !isBusy(err):
			return err
		case time.Now().After(deadline):
			return fmt.Errorf("the database is locked by another process, for longer than the busy timeout (%s), while it is put in WAL mode: %w", timeout, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED.
func isBusy(err error) bool {
	var e *msqlite.Error
	return errors.As(err, &e) && (e.Code()&0xff == 5 || e.Code()&0xff == 6)
}

func openDB(dsn string) (*sql.DB, error) {
	c, err := newConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// dialect judges leases by SQLite's clock, which is the clock of the
// machine that runs the process: every process that opens one SQLite file
// runs on one machine, so they share it. (A file on a network share, used
// from several machines, is neither safe for SQLite's locks nor for
// leases: use the postgres package.)
var dialect = ledger.Dialect{Name: "sqlite", Migrations: migrations,
	Now: `CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)`}

// DB returns the database, for the caller's own tables and transactions.
func (l *Ledger) DB() *sql.DB { return l.db }

// Enqueue records ob in tx, a transaction of DB, so that the obligation is
// committed or rolled back with the caller's work.
func (l *Ledger) Enqueue(ctx context.Context, tx *sql.Tx, ob ledger.Obligation) error {
	return l.EnqueueOn(ctx, querier{tx}, ob)
}

// querier adapts a *sql.DB or a *sql.Tx.
type querier struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
}

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.q.ExecContext(ctx, numbered(query), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q querier) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	return q.q.QueryContext(ctx, numbered(query), args...)
}

// numbered writes the statement's parameters $1, $2, ... (PostgreSQL's
// spelling, which the ledger's statements share) as SQLite's numbered
// parameters ?1, ?2, ...: to SQLite itself "$1" is a parameter named "$1",
// numbered by its first appearance, which only some drivers map to the
// first argument. Quoted text is left as it is.
func numbered(query string) string {
	if !strings.Contains(query, "$") {
		return query
	}
	b := []byte(query)
	var quote byte
	for i, c := range b {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '$' && i+1 < len(b) && b[i+1] >= '0' && b[i+1] <= '9':
			b[i] = '?'
		}
	}
	return string(b)
}

// conn is the ledger's database: its own connection, where the ledger's
// statements are prepared once, and a pool for everything else.
type conn struct {
	db          *sql.DB // the caller's statements, transactions and migrations
	own         *sql.DB // one connection: the ledger's statements
	busyTimeout time.Duration

	mu    sync.Mutex
	stmts map[string]*prepared // by text; nil once closed; guarded by mu
}

// prepared is a statement prepared on own, or being prepared: ready is
// closed once s or err is set. The lock is never held while a statement is
// prepared, since preparing waits for own's connection, which a group's
// transaction may hold while it looks its statements up.
type prepared struct {
	ready chan struct{}
	s     *sql.Stmt
	err   error
}

// stmt returns the statement of query, prepared on the first use.
func (c *conn) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	if c.stmts == nil {
		c.mu.Unlock()
		return nil, errors.New("sqlite ledger: closed")
	}
	p, ok := c.stmts[query]
	if !ok {
		p = &prepared{ready: make(chan struct{})}
		c.stmts[query] = p
	}
	c.mu.Unlock()
	if ok {
		select {
		case <-p.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return p.s, p.err
	}
	// Prepared for every caller that waits for it: not cut off by this
	// caller's context.
	p.s, p.err = c.own.PrepareContext(context.WithoutCancel(ctx), numbered(query))
	if p.err != nil {
		c.mu.Lock()
		if c.stmts != nil {
			delete(c.stmts, query) // the next use tries again
		}
		c.mu.Unlock()
	}
	close(p.ready)
	return p.s, p.err
}

// ready returns query's statement if it is prepared, without waiting.
func (c *conn) ready(query string) *sql.Stmt {
	c.mu.Lock()
	p := c.stmts[query]
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	select {
	case <-p.ready:
		return p.s // nil when it failed
	default:
		return nil
	}
}

func (c *conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return 0, c.explain(err)
	}
	res, err := s.ExecContext(ctx, args...)
	if err != nil {
		return 0, c.explain(err)
	}
	return res.RowsAffected()
}

func (c *conn) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, c.explain(err)
	}
	rows, err := s.QueryContext(ctx, args...)
	if err != nil {
		return nil, c.explain(err)
	}
	return explainRows{rows, c}, nil
}

// explainRows explains the errors of a statement that fails while its
// rows are read (a write with RETURNING takes its lock then).
type explainRows struct {
	*sql.Rows
	c *conn
}

func (r explainRows) Scan(dest ...any) error { return r.c.explain(r.Rows.Scan(dest...)) }
func (r explainRows) Err() error             { return r.c.explain(r.Rows.Err()) }
func (r explainRows) Close() error           { return r.c.explain(r.Rows.Close()) }

// explain says what a lock error means.
func (c *conn) explain(err error) error {
	if isBusy(err) {
		return fmt.Errorf("sqlite ledger: the database is locked by another writer, for longer than the busy timeout (%s): %w",
			c.busyTimeout, err)
	}
	return err
}

func (c *conn) Shared() ledger.Querier { return querier{c.db} }

func (c *conn) Begin(ctx context.Context) (ledger.Tx, error) {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, c.explain(err)
	}
	return txConn{querier{tx}, tx}, nil
}

// BeginGroup starts a transaction on the ledger's own connection, where
// its statements are prepared (BEGIN IMMEDIATE: it takes the write lock
// first). While it runs, it holds that connection.
func (c *conn) BeginGroup(ctx context.Context) (ledger.Tx, error) {
	tx, err := c.own.BeginTx(ctx, nil)
	if err != nil {
		return nil, c.explain(err)
	}
	return &groupTx{c: c, tx: tx}, nil
}

// groupTx runs the ledger's statements in a transaction of its own
// connection, through the statements prepared on it. One not prepared yet
// runs unprepared (the connection that would prepare it is the one the
// transaction holds) and is prepared when the transaction ends.
type groupTx struct {
	c       *conn
	tx      *sql.Tx
	prepare []string // statements run unprepared
}

// stmt returns the transaction's form of query's prepared statement, or
// nil when it has none yet.
func (t *groupTx) stmt(ctx context.Context, query string) *sql.Stmt {
	s := t.c.ready(query)
	if s == nil {
		t.prepare = append(t.prepare, query)
		return nil
	}
	return t.tx.StmtContext(ctx, s)
}

func (t *groupTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if s := t.stmt(ctx, query); s != nil {
		res, err = s.ExecContext(ctx, args...)
	} else {
		res, err = t.tx.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, t.c.explain(err)
	}
	return res.RowsAffected()
}

func (t *groupTx) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	var rows *sql.Rows
	var err error
	if s := t.stmt(ctx, query); s != nil {
		rows, err = s.QueryContext(ctx, args...)
	} else {
		rows, err = t.tx.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, t.c.explain(err)
	}
	return explainRows{rows, t.c}, nil
}

func (t *groupTx) Commit(ctx context.Context) error { return t.end(ctx, t.tx.Commit()) }

func (t *groupTx) Rollback(ctx context.Context) error { return t.end(ctx, t.tx.Rollback()) }

// end prepares, once the transaction has let its connection go, what it
// ran unprepared.
func (t *groupTx) end(ctx context.Context, err error) error {
	for _, q := range t.prepare {
		t.c.stmt(ctx, q) // a statement that fails to prepare fails again where it is used
	}
	return t.c.explain(err)
}

func (c *conn) Close() error {
	c.mu.Lock()
	stmts := c.stmts
	c.stmts = nil
	c.mu.Unlock()
	for _, p := range stmts {
		<-p.ready
		if p.s != nil {
			p.s.Close()
		}
	}
	return errors.Join(c.own.Close(), c.db.Close())
}

type txConn struct {
	querier
	tx *sql.Tx
}

func (t txConn) Commit(context.Context) error   { return t.tx.Commit() }
func (t txConn) Rollback(context.Context) error { return t.tx.Rollback() }
