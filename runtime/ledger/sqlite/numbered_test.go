package sqlite

import "testing"

// TestNumbered: $N becomes SQLite's ?N outside quoted text, so that every driver binds the Nth
// argument, whatever order the parameters first appear in.
func TestNumbered(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"UPDATE t SET a = $2 WHERE id = $1", "UPDATE t SET a = ?2 WHERE id = ?1"},
		{"SELECT $10, $1", "SELECT ?10, ?1"},
		{"SELECT '$1' || $1, \"$2\"", "SELECT '$1' || ?1, \"$2\""},
		{"SELECT 'it''s $1', $3", "SELECT 'it''s $1', ?3"},
		{"SELECT $a, $", "SELECT $a, $"},
	} {
		if got := numbered(c.in); got != c.want {
			t.Errorf("numbered(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
