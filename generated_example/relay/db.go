package relay

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/writegen/writegen/runtime/ledger"
	"github.com/writegen/writegen/runtime/ledger/postgres"
	"github.com/writegen/writegen/runtime/ledger/sqlite"
)

// DB is a ledger and the database it is kept in, which the relay's own table shares, so that
// the relay's writes and the outbox obligations they create commit in one transaction. SQLite
// and Postgres return one.
type DB interface {
	ledger.Querier
	// InTx runs fn in a transaction, committed when fn returns nil and rolled back otherwise.
	InTx(ctx context.Context, fn func(tx ledger.Querier) error) error
	// Ledger returns the ledger.
	Ledger() *ledger.Ledger
	// autoID is the column type of a surrogate key.
	autoID() string
}

// SQLite returns the ledger l with its SQLite file.
func SQLite(l *sqlite.Ledger) DB { return sqliteDB{sqlQuerier{l.DB()}, l} }

// Postgres returns the ledger l with its PostgreSQL database.
func Postgres(l *postgres.Ledger) DB { return pgDB{pgQuerier{l.Pool()}, l} }

type sqliteDB struct {
	sqlQuerier
	l *sqlite.Ledger
}

func (d sqliteDB) Ledger() *ledger.Ledger { return d.l.Ledger }

func (d sqliteDB) InTx(ctx context.Context, fn func(ledger.Querier) error) error {
	tx, err := d.l.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(sqlQuerier{tx}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (sqliteDB) autoID() string { return "INTEGER PRIMARY KEY AUTOINCREMENT" }

// sqlQuerier adapts a *sql.DB or a *sql.Tx.
type sqlQuerier struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
}

func (q sqlQuerier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q sqlQuerier) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	return q.q.QueryContext(ctx, query, args...)
}

type pgDB struct {
	pgQuerier
	l *postgres.Ledger
}

func (d pgDB) Ledger() *ledger.Ledger { return d.l.Ledger }

func (d pgDB) InTx(ctx context.Context, fn func(ledger.Querier) error) error {
	return pgx.BeginFunc(ctx, d.l.Pool(), func(tx pgx.Tx) error { return fn(pgQuerier{tx}) })
}

func (pgDB) autoID() string { return "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" }

// pgQuerier adapts a *pgxpool.Pool or a pgx.Tx.
type pgQuerier struct {
	q interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	}
}

func (q pgQuerier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (q pgQuerier) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	r, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgRows{r}, nil
}

// pgRows gives pgx.Rows the Close of database/sql.
type pgRows struct{ pgx.Rows }

func (r pgRows) Close() error {
	r.Rows.Close()
	return r.Rows.Err()
}

// queryRow runs a query that returns at most one row and scans it into dest; found reports
// whether there was one.
func queryRow(ctx context.Context, q ledger.Querier, query string, args []any, dest ...any) (found bool, err error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return false, err
		}
		found = true
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	return found, rows.Close()
}

// migrate creates the relay's table.
func migrate(ctx context.Context, db DB) error {
	if _, err := db.Exec(ctx, fmt.Sprintf(schema, db.autoID())); err != nil {
		return fmt.Errorf("relay: create table: %w", err)
	}
	return nil
}
