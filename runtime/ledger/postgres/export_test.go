package postgres

import "github.com/jackc/pgx/v5/pgxpool"

// SetConfigure makes Open edit the pool's configuration with f, until
// restore is called.
func SetConfigure(f func(*pgxpool.Config)) (restore func()) {
	configure = f
	return func() { configure = nil }
}
