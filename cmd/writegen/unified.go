package main

import (
	"fmt"
	"io"
	"strings"
)

// writeUnified writes a unified diff of one file, from old (nil: absent) to new (nil: removed),
// with three lines of context, as "diff -u" would.
func writeUnified(w io.Writer, path string, old, new []byte) {
	from, to := "a/"+path, "b/"+path
	if old == nil {
		from = "/dev/null"
	}
	if new == nil {
		to = "/dev/null"
	}
	a, b := splitLines(old), splitLines(new)
	edits := lineEdits(a, b)
	if edits == nil {
		fmt.Fprintf(w, "--- %s\n+++ %s\n@@ files differ in more lines than a diff is shown for @@\n", from, to)
		return
	}
	fmt.Fprintf(w, "--- %s\n+++ %s\n", from, to)
	const context = 3
	for i := 0; i < len(edits); {
		if edits[i].op == ' ' {
			i++
			continue
		}
		// A hunk: from context lines before the first change to context lines after the last
		// change that is within 2*context lines of the next.
		start := max(0, i-context)
		end := i
		for j := i; j < len(edits); j++ {
			if edits[j].op != ' ' {
				end = j
			} else if j-end > 2*context {
				break
			}
		}
		end = min(len(edits), end+context+1)
		aStart, bStart, aLen, bLen := edits[start].a, edits[start].b, 0, 0
		for _, e := range edits[start:end] {
			if e.op != '+' {
				aLen++
			}
			if e.op != '-' {
				bLen++
			}
		}
		fmt.Fprintf(w, "@@ -%s +%s @@\n", span(aStart, aLen), span(bStart, bLen))
		for _, e := range edits[start:end] {
			line := a
			n := e.a
			if e.op == '+' {
				line, n = b, e.b
			}
			fmt.Fprintf(w, "%c%s\n", e.op, line[n])
		}
		i = end
	}
}

// span writes a hunk's range: its first line (1-based; 0 when empty) and length.
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// edit is one line of a diff: ' ' kept, '-' only in a, '+' only in b, with its index in a and b
// (the index where it would be, for a line the other side lacks).
type edit struct {
	op   byte
	a, b int
}

// maxEdits bounds the work of lineEdits: beyond it, the files are said to differ.
const maxEdits = 5000

// lineEdits returns the shortest edit script from a to b (Myers' algorithm), or nil when it
// takes more than maxEdits insertions and deletions.
func lineEdits(a, b []string) []edit {
	n, m := len(a), len(b)
	// Common prefix and suffix first: generated files usually change in a few places.
	pre := 0
	for pre < n && pre < m && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && a[n-1-suf] == b[m-1-suf] {
		suf++
	}
	aa, bb := a[pre:n-suf], b[pre:m-suf]
	mid := myers(aa, bb)
	if mid == nil && (len(aa) > 0 || len(bb) > 0) {
		return nil
	}
	out := make([]edit, 0, pre+len(mid)+suf)
	for i := 0; i < pre; i++ {
		out = append(out, edit{' ', i, i})
	}
	for _, e := range mid {
		out = append(out, edit{e.op, e.a + pre, e.b + pre})
	}
	for i := 0; i < suf; i++ {
		out = append(out, edit{' ', n - suf + i, m - suf + i})
	}
	return out
}

// myers is the core of lineEdits, on what lies between the common prefix and suffix.
func myers(a, b []string) []edit {
	n, m := len(a), len(b)
	maxD := min(n+m, maxEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, off, d)
			}
		}
	}
	return nil
}

// backtrack walks the trace of myers back from (len(a), len(b)) and returns the script.
func backtrack(trace [][]int, a, b []string, off, d int) []edit {
	x, y := len(a), len(b)
	var rev []edit
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, edit{' ', x, y})
		}
		if x == prevX {
			y--
			rev = append(rev, edit{'+', x, y})
		} else {
			x--
			rev = append(rev, edit{'-', x, y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, edit{' ', x, y})
	}
	out := make([]edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}
