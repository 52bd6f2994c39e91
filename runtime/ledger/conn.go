package ledger

import (
	"context"
	"io/fs"
)

// Querier runs statements: a database, or a transaction of the caller's.
// The sqlite and postgres packages adapt their drivers to it. Statements
// use $1, $2, ... placeholders.
type Querier interface {
	// Exec runs a statement and returns the number of rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Query runs a statement that returns rows.
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Rows is the result of Query.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// Conn is a database the ledger owns. Its Exec and Query run the
// ledger's own statements, a fixed set of texts that the Conn prepares
// once per database connection and keeps.
type Conn interface {
	Querier
	// Shared runs the caller's statements (Ledger.Querier), which the Conn
	// does not keep prepared.
	Shared() Querier
	// Begin starts a transaction that holds the database's write lock, or
	// takes it with the dialect's LockMigrations statement.
	Begin(ctx context.Context) (Tx, error)
	// BeginGroup starts a transaction for the ledger's own statements
	// (claims and settlements committed together), on a connection where
	// they stay prepared, holding the database's write lock as Begin does.
	BeginGroup(ctx context.Context) (Tx, error)
	Close() error
}

// Tx is a transaction started by Conn.Begin.
type Tx interface {
	Querier
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Dialect is what differs between databases. The sqlite and postgres
// packages provide theirs.
type Dialect struct {
	// Name is "sqlite" or "postgres"; it appears in errors.
	Name string
	// Migrations holds the files that bring the schema from one version to
	// the next, migrations/NNN_name.sql, applied in name order: file i
	// (from 1) makes version i. A file may hold several statements.
	Migrations fs.FS
	// LockMigrations is run first in the migration transaction so that
	// processes starting together migrate one at a time; "" when Begin
	// already takes the write lock.
	LockMigrations string
	// SkipLocked ends the sub-select with which a worker picks the next
	// item: " FOR UPDATE SKIP LOCKED" where workers run concurrently in
	// transactions that can lock rows, "" where writes are serialised.
	SkipLocked string
	// Now is the SQL expression of the database's clock, in microseconds
	// since the Unix epoch: the clock that sets and judges every lease of a
	// claim, so that callers whose clocks disagree agree on leases.
	Now string
	// Writers is how many transactions of the ledger's claims and
	// settlements commit at once: 1 where the database has one writer
	// (SQLite), the connections it may use where transactions write side
	// by side (PostgreSQL). 0 is 1.
	Writers int
}
