package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/writegen/writegen/bench/conformance/drive"
)

// KnownFile is the reviewed list of failures that are not writegen's, beside this file.
const KnownFile = "known.tsv"

// A Known failure is one line of known.tsv: the spec, Prism's mode (or *), the tool (or *), the
// class of the failure, a text its detail contains (or *), and why it is not writegen's.
type Known struct {
	Spec, Mode, Tool, Class, Contains, Reason string
	Line                                      int
}

// matches reports whether k explains the failure r.
func (k Known) matches(r drive.Record) bool {
	return k.Spec == r.Spec && (k.Mode == "*" || k.Mode == r.Mode) && (k.Tool == "*" || k.Tool == r.Tool) &&
		k.Class == r.Class && (k.Contains == "*" || strings.Contains(r.Detail, k.Contains))
}

// ReadKnown reads known.tsv: tab-separated lines of six fields; # starts a comment line.
func ReadKnown(path string) ([]Known, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Known
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		line := lines.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, "\t")
		if len(fs) != 6 || fs[5] == "" {
			return nil, fmt.Errorf("%s:%d: want six tab-separated fields (spec, mode, tool, class, contains, reason), the reason not empty", path, n)
		}
		out = append(out, Known{Spec: fs[0], Mode: fs[1], Tool: fs[2], Class: fs[3], Contains: fs[4], Reason: fs[5], Line: n})
	}
	return out, lines.Err()
}

// Report is the records of a run and the known failures they are judged against.
type Report struct {
	Records []drive.Record
	Known   []Known
}

// Calls is how many calls were made.
func (r *Report) Calls() int { return len(r.Records) }

// known returns the known failure that explains rec, or nil.
func (r *Report) known(rec drive.Record) *Known {
	for i := range r.Known {
		if r.Known[i].matches(rec) {
			return &r.Known[i]
		}
	}
	return nil
}

// Unlisted are the failures known.tsv does not explain: writegen's own.
func (r *Report) Unlisted() []drive.Record {
	var out []drive.Record
	for _, rec := range r.Records {
		if rec.Class != drive.ClassOK && r.known(rec) == nil {
			out = append(out, rec)
		}
	}
	return out
}

// classes are the failure classes, in the table's order.
var classes = []string{drive.ClassViolation, drive.ClassDecode, drive.ClassRefused, drive.ClassAnswer, drive.ClassRejected, drive.ClassUncertain, drive.ClassFailed}

// row is one line of the table.
type row struct {
	spec, mode     string
	tools, calls   int
	ok, known      int
	failed         map[string]int // writegen's own, by class
	toolsWithFault map[string]bool
}

// Rows are the table's lines: one per spec and mode, in the order run.
func (r *Report) rows() []*row {
	var rows []*row
	idx := map[[2]string]*row{}
	tools := map[[3]string]bool{}
	for _, rec := range r.Records {
		k := [2]string{rec.Spec, rec.Mode}
		w := idx[k]
		if w == nil {
			w = &row{spec: rec.Spec, mode: rec.Mode, failed: map[string]int{}, toolsWithFault: map[string]bool{}}
			idx[k] = w
			rows = append(rows, w)
		}
		if t := [3]string{rec.Spec, rec.Mode, rec.Tool}; !tools[t] {
			tools[t] = true
			w.tools++
		}
		w.calls++
		switch {
		case rec.Class == drive.ClassOK:
			w.ok++
		case r.known(rec) != nil:
			w.known++
		default:
			w.failed[rec.Class]++
			w.toolsWithFault[rec.Tool] = true
		}
	}
	return rows
}

// Print writes the per-spec table, and with verbose every failure of writegen's own (the first
// of each tool and class otherwise).
func (r *Report) Print(w io.Writer, verbose bool) {
	fmt.Fprintln(w, "| spec | mode | tools | calls | ok | known (not writegen's) | violations | decode failures | refused arguments | mock's answer invalid | rejected | uncertain | failed | tools with an unlisted failure |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, row := range r.rows() {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d |", row.spec, row.mode, row.tools, row.calls, row.ok, row.known)
		for _, c := range classes {
			fmt.Fprintf(w, " %d |", row.failed[c])
		}
		fmt.Fprintf(w, " %d |\n", len(row.toolsWithFault))
	}
	un := r.Unlisted()
	if len(un) == 0 {
		return
	}
	fmt.Fprintln(w)
	seen := map[string]bool{}
	for _, rec := range un {
		k := rec.Spec + "\t" + rec.Mode + "\t" + rec.Tool + "\t" + rec.Class
		if seen[k] && !verbose {
			continue
		}
		seen[k] = true
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\tstatus %d\t%s\n", rec.Spec, rec.Mode, rec.Tool, rec.Class, rec.Set, rec.Status, rec.Detail)
	}
}
