// Package sqlite keeps a writegen ledger in an SQLite file, through the
// pure-Go modernc.org/sqlite driver: the embedded default for a program on
// one machine.
//
//	l, err := sqlite.Open(ctx, "ledger.db")
//	client, err := support.NewClient(baseURL, l)
//
// The file is opened in WAL mode with a busy timeout, and transactions
// begun on DB take the write lock at once (BEGIN IMMEDIATE), so that
// writers queue instead of failing.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/writegen/writegen/runtime/ledger"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// Ledger is a ledger in an SQLite file. Its methods come from
// *ledger.Ledger, plus Enqueue, which takes a transaction of DB.
type Ledger struct {
	*ledger.Ledger
	db *sql.DB
}

// options are the connection settings: WAL, a busy timeout of 10 seconds,
// BEGIN IMMEDIATE.
const options = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"

// Open opens the ledger in the SQLite file at path, creating it if needed,
// and migrates its schema.
func Open(ctx context.Context, path string, opts ...ledger.Option) (*Ledger, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite ledger: path %q: must be a non-empty file name without ? or #", path)
	}
	db, err := sql.Open("sqlite", path+options)
	if err != nil {
		return nil, fmt.Errorf("sqlite ledger: %s: %w", path, err)
	}
	l, err := ledger.New(ctx, conn{querier{db}, db, new(sync.Mutex)}, dialect, opts...)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite ledger: %s: %w", path, err)
	}
	return &Ledger{Ledger: l, db: db}, nil
}

var dialect = ledger.Dialect{Name: "sqlite", Migrations: migrations}

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
	res, err := q.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q querier) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	return q.q.QueryContext(ctx, query, args...)
}

// conn is the ledger's own database. Its writes take a process-wide lock
// first, so that the process's writers queue in Go instead of sleeping in
// SQLite's busy handler; writers in other processes still meet the busy
// timeout.
type conn struct {
	querier
	db     *sql.DB
	writer *sync.Mutex
}

// Exec runs a write.
func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	c.writer.Lock()
	defer c.writer.Unlock()
	return c.querier.Exec(ctx, query, args...)
}

// Query runs a read, or a write that returns rows (INSERT, UPDATE or
// DELETE ... RETURNING), which holds the lock until its rows are closed.
func (c conn) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	if strings.HasPrefix(query, "SELECT") {
		return c.querier.Query(ctx, query, args...)
	}
	c.writer.Lock()
	rows, err := c.querier.Query(ctx, query, args...)
	if err != nil {
		c.writer.Unlock()
		return nil, err
	}
	return &unlockRows{Rows: rows, unlock: c.writer.Unlock}, nil
}

// unlockRows releases the writer lock when closed.
type unlockRows struct {
	ledger.Rows
	once   sync.Once
	unlock func()
}

func (r *unlockRows) Close() error {
	err := r.Rows.Close()
	r.once.Do(r.unlock)
	return err
}

func (c conn) Begin(ctx context.Context) (ledger.Tx, error) {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return txConn{querier{tx}, tx}, nil
}

func (c conn) Close() error { return c.db.Close() }

type txConn struct {
	querier
	tx *sql.Tx
}

func (t txConn) Commit(context.Context) error   { return t.tx.Commit() }
func (t txConn) Rollback(context.Context) error { return t.tx.Rollback() }
