package spec

import (
	"strconv"
	"strings"
)

// Suggest returns the candidate closest to name, as ` (did you mean "x"?)`, or "" when none is
// close: within an edit distance of a quarter of the name's length (at least one), or the name
// with a short suffix more or less, ignoring case, underscores and dashes. Of equally close
// candidates the first one wins, so callers pass them in a stable order.
func Suggest(name string, candidates []string) string {
	if best := closest(name, candidates); best != "" {
		return " (did you mean " + strconv.Quote(best) + "?)"
	}
	return ""
}

// closest returns the candidate closest to name, or "" when none is close enough.
func closest(name string, candidates []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	n := norm(name)
	limit := max(1, len([]rune(n))/4)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		nc := norm(c)
		d := distance(n, nc)
		short, long := min(len(n), len(nc)), max(len(n), len(nc))
		if 4*short >= 3*long && (strings.HasPrefix(n, nc) || strings.HasPrefix(nc, n)) {
			d = min(d, 1) // one is the other with a little more: idempotency_key, idempotency
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the optimal string alignment distance between a and b: insertions, deletions,
// substitutions and transpositions of adjacent runes each cost one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
