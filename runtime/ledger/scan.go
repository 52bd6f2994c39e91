package ledger

import (
	"context"
	"time"
)

// scanner is one row of a result.
type scanner interface{ Scan(dest ...any) error }

// scanAll reads every row with scan and closes rows.
func scanAll[T any](rows Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// queryRow runs a query that returns at most one row and scans it into
// dest; found is false when there was no row.
func queryRow(ctx context.Context, q Querier, query string, args ...any) func(dest ...any) (found bool, err error) {
	return func(dest ...any) (bool, error) {
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return false, err
		}
		defer rows.Close()
		if !rows.Next() {
			return false, rows.Err()
		}
		if err := rows.Scan(dest...); err != nil {
			return true, err
		}
		return true, rows.Close()
	}
}

// micros is how times are stored: microseconds since the Unix epoch.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// bytes stores nil as an empty value: every column is NOT NULL.
func bytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
