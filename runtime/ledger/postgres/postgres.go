// Package postgres keeps a writegen ledger in PostgreSQL, through pgx/v5:
// one ledger shared by the processes of many machines. Outbox and inbox
// workers in several processes share the work (FOR UPDATE SKIP LOCKED).
//
//	l, err := postgres.Open(ctx, "postgres://app@db/app")
//	client, err := support.NewClient(baseURL, l)
package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/writegen/writegen/runtime/ledger"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Ledger is a ledger in a PostgreSQL database. Its methods come from
// *ledger.Ledger, plus Enqueue, which takes a pgx transaction.
type Ledger struct {
	*ledger.Ledger
	pool *pgxpool.Pool
}

// lockMigrations makes processes that start together migrate one at a time.
const lockMigrations = `SELECT pg_advisory_xact_lock(hashtext('writegen_schema_version'))`

// configure, when set, edits the pool's configuration; the package's
// tests trace what pgx prepares through it.
var configure func(*pgxpool.Config)

// Open connects to the database at dsn (a postgres:// URL or a key=value
// string; search_path may be set in it) and migrates its schema.
//
// Statements run in pgx's default mode, which prepares each statement once
// per connection and keeps it in the connection's statement cache.
func Open(ctx context.Context, dsn string, opts ...ledger.Option) (*Ledger, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres ledger: %w", err)
	}
	if configure != nil {
		configure(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres ledger: %w", err)
	}
	d := dialect
	d.Writers = int(cfg.MaxConns) // groups of claims and settlements commit side by side
	l, err := ledger.New(ctx, conn{querier{pool}, pool}, d, opts...)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres ledger: %w", err)
	}
	return &Ledger{Ledger: l, pool: pool}, nil
}

var dialect = ledger.Dialect{
	Name:           "postgres",
	Migrations:     migrations,
	LockMigrations: lockMigrations,
	SkipLocked:     " FOR UPDATE SKIP LOCKED",
	// The server's clock when the statement runs (clock_timestamp, not the
	// transaction's start): every client's lease is set and judged by it.
	Now: `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT`,
}

// Pool returns the connection pool, for the caller's own tables and
// transactions.
func (l *Ledger) Pool() *pgxpool.Pool { return l.pool }

// Enqueue records ob in tx, so that the obligation is committed or rolled
// back with the caller's work.
func (l *Ledger) Enqueue(ctx context.Context, tx pgx.Tx, ob ledger.Obligation) error {
	return l.EnqueueOn(ctx, querier{tx}, ob)
}

// querier adapts a *pgxpool.Pool or a pgx.Tx.
type querier struct {
	q interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	}
}

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (q querier) Query(ctx context.Context, query string, args ...any) (ledger.Rows, error) {
	r, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return rows{r}, nil
}

// rows gives pgx.Rows the Close of database/sql.
type rows struct{ pgx.Rows }

func (r rows) Close() error {
	r.Rows.Close()
	return r.Rows.Err()
}

type conn struct {
	querier
	pool *pgxpool.Pool
}

func (c conn) Shared() ledger.Querier { return c.querier }

func (c conn) Begin(ctx context.Context) (ledger.Tx, error) {
	tx, err := c.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return txConn{querier{tx}, tx}, nil
}

// BeginGroup is Begin: pgx keeps each connection's statements prepared,
// in a transaction too.
func (c conn) BeginGroup(ctx context.Context) (ledger.Tx, error) { return c.Begin(ctx) }

func (c conn) Close() error {
	c.pool.Close()
	return nil
}

type txConn struct {
	querier
	tx pgx.Tx
}

func (t txConn) Commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t txConn) Rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }
