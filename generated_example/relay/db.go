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

// migrate creates the relay's table in the ledger's database.
func migrate(ctx context.Context, l *ledger.Ledger) error {
	autoID := "INTEGER PRIMARY KEY AUTOINCREMENT"
	if l.Dialect() == "postgres" {
		autoID = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
	}
	if _, err := l.Querier().Exec(ctx, fmt.Sprintf(schema, autoID)); err != nil {
		return fmt.Errorf("relay: create table: %w", err)
	}
	return nil
}
