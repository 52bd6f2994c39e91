package annot

import (
	"strconv"
	"strings"
)

// Suggest returns the candidate closest to name, as ` (did you mean "x"?)`, or "" when none is
// close: within an edit distance of a quarter of the name's length (at least one), or the name
// with a short suffix more or less, ignoring case, underscores and dashes. Of equally close
// candidates the first one wins, so callers pass them in a stable order.
func Suggest(name string, candidates []string) string {
	if best := Closest(name, candidates); best != "" {
		return " (did you mean " + strconv.Quote(best) + "?)"
	}
	return ""
}

// Closest returns the candidate closest to name, or "" when none is close enough.
func Closest(name string, candidates []string) string {
	n := normName(name)
	limit := max(1, len([]rune(n))/4)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		nc := normName(c)
		d := distance(n, nc)
		if inflected(n, nc) {
			d = min(d, 1) // one is the other with a little more: idempotency_key, idempotency
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// normName is a name in lower case without underscores, dashes and spaces.
func normName(s string) string {
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
}

// inflected reports whether one normalised name is the other with a short suffix more: at
// least three quarters of the longer one is the shorter one.
func inflected(a, b string) bool {
	short, long := min(len(a), len(b)), max(len(a), len(b))
	return 4*short >= 3*long && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a))
}

// SameName reports whether two names clearly name the same thing, as a read's filter and a
// write's field: the same but for case, underscores and dashes (external_id, externalId), or one
// the other with a short suffix (external_ids, reference_id and reference). Unlike Suggest it
// takes no misspelling: a name one letter off may be another field.
func SameName(a, b string) bool {
	return inflected(normName(a), normName(b))
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
