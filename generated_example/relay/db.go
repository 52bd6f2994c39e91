package relay

import (
	"context"
	"fmt"

	"github.com/writegen/writegen/runtime/ledger"
)

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

// Migrate creates the relay's table in the ledger's database, unless it exists. Relays that
// start together on one PostgreSQL database take turns (CREATE TABLE IF NOT EXISTS alone can
// fail when two run at once); SQLite's transactions take turns anyway. New calls it.
func Migrate(ctx context.Context, l *ledger.Ledger) error {
	autoID, lock := "INTEGER PRIMARY KEY AUTOINCREMENT", ""
	if l.Dialect() == "postgres" {
		autoID, lock = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "SELECT pg_advisory_xact_lock(7301652214512803840)"
	}
	err := l.InTx(ctx, func(tx ledger.Querier) error {
		if lock != "" {
			if _, err := tx.Exec(ctx, lock); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, fmt.Sprintf(schema, autoID))
		return err
	})
	if err != nil {
		return fmt.Errorf("relay: create table: %w", err)
	}
	return nil
}
