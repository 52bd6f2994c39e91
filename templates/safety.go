package templates

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/writegen/writegen/spec"
)

//go:embed safety.md.tmpl
var safetyText string

// safetyTemplate renders WRITE_SAFETY.md. Every value it prints is already Markdown, made safe
// by cell and code.
var safetyTemplate = template.Must(template.New(SafetyReport).Parse(safetyText))

// report is what safetyTemplate reads.
type report struct {
	Package  string
	Source   string
	Scope    string
	Writes   []reportWrite
	Excluded []reportExcluded
}

type reportWrite struct {
	Title  string // "createThread: POST /threads"
	Method string
	Scope  string // the key scope, as inline code; "" for a write without key
	Pos    string
	Rows   []reportRow
}

type reportRow struct {
	N        int
	Question string
	Answer   string
}

type reportExcluded struct{ ID, Reason string }

// questions are the nine questions, each with the annotation keys that answer it.
var questions = []struct {
	text string
	keys []string
}{
	{"Read-only, idempotent, compensatable or ambiguous?", []string{"effect", "compensate", "destructive"}},
	{"Does the provider honour an idempotency key: where, how long, how long may it be?", []string{"idempotency"}},
	{"Is a 2xx a receipt (a durable id) or only an acknowledgement?", []string{"response"}},
	{"Can we ask the provider what committed, and how consistent is the answer?", []string{"lookup", "reference"}},
	{"Which failures are retried (fixed at compile time)?", []string{"retry"}},
	{"What is the business key, and does our own database enforce it?", []string{"key", "dedupe"}},
	{"How do duplicate and out-of-order events behave?", []string{"inbox"}},
	{"Can a concurrent token refresh invalidate the request?", []string{"credentials"}},
	{"When does it stop being an engineering problem, and who is told?", []string{"uncertain", "owner"}},
}

// safetyReport renders WRITE_SAFETY.md for api.
func safetyReport(api *spec.API) ([]byte, error) {
	r := report{
		Package: api.Package,
		Source:  "Generated from " + code(api.SpecFile) + " and " + code(api.AnnotFile) + ".",
		Scope:   code(api.Scope),
	}
	if api.Title != "" {
		r.Source = "API: " + cell(strings.TrimSpace(api.Title+" "+api.Version)) + ". " + r.Source
	}
	for _, op := range api.Operations {
		s := op.Safety
		if s == nil {
			continue
		}
		answers := []string{
			effectAnswer(s), idempotencyAnswer(s.Idempotency), responseAnswer(s), lookupAnswer(s),
			retryAnswer(s), keyAnswer(s), inboxAnswer(s.Inbox), credentialsAnswer(s.Credentials),
			uncertainAnswer(s),
		}
		w := reportWrite{
			Title:  cell(op.ID) + ": " + cell(op.Method+" "+op.Path),
			Method: op.GoName,
			Pos:    cell(spec.Pos{File: api.AnnotFile, Line: s.Pos.Line, Col: s.Pos.Col}.String()), // never the path as given
		}
		if s.Key != nil {
			w.Scope = code(s.Key.Scope)
		}
		for i, q := range questions {
			a := answers[i]
			if slices.ContainsFunc(q.keys, func(k string) bool { return slices.Contains(s.Inherited, k) }) {
				a += " *(default)*"
			}
			w.Rows = append(w.Rows, reportRow{N: i + 1, Question: q.text, Answer: a})
		}
		r.Writes = append(r.Writes, w)
	}
	for _, e := range api.Excluded {
		r.Excluded = append(r.Excluded, reportExcluded{ID: cell(e.ID), Reason: cell(e.Reason)})
	}
	var b bytes.Buffer
	if err := safetyTemplate.Execute(&b, r); err != nil {
		return nil, fmt.Errorf("templates: render %s: %w", SafetyReport, err)
	}
	return b.Bytes(), nil
}

func effectAnswer(s *spec.Safety) string {
	a := map[spec.Effect]string{
		spec.EffectReadOnly:      "read-only: it changes nothing, and is called like a read",
		spec.EffectIdempotent:    "idempotent: repeating it is harmless",
		spec.EffectCompensatable: "compensatable: a duplicate is a second effect, which the compensation undoes",
		spec.EffectAmbiguous:     "ambiguous: a duplicate is a second effect",
	}[s.Effect]
	if c := s.Compensate; c != nil {
		a += "; a duplicate the lookup finds beyond the first is undone with " + code(c.Operation.ID)
		if t := templateText(c.Params); t != "" {
			a += " (" + t + ", {id} the duplicate's id)"
		}
		a += " and recorded compensated"
	}
	if s.Effect != spec.EffectReadOnly {
		if s.Destructive {
			a += "; destructive: it overwrites or deletes"
		} else {
			a += "; not destructive: it neither overwrites nor deletes"
		}
	}
	return a
}

func templateText(ts []*spec.Template) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = code(t.Param.Name + "=" + t.Text)
	}
	return strings.Join(out, ", ")
}

func idempotencyAnswer(i *spec.Idempotency) string {
	if i == nil {
		return "no: the provider honours no idempotency key"
	}
	where := ""
	switch {
	case i.Header != "":
		where = "header " + code(i.Header)
	case i.Query != "":
		where = "query parameter " + code(i.Query)
	case i.Body != nil:
		where = "body " + code(i.Body.Pointer)
	}
	a := "yes, in " + where
	if i.MaxLength > 0 {
		a += ", at most " + strconv.Itoa(i.MaxLength) + " characters (longer keys are hashed)"
	}
	if i.Window > 0 {
		a += ", remembered for " + span(i.Window)
	} else {
		a += ", remembered forever"
	}
	return a
}

func responseAnswer(s *spec.Safety) string {
	switch {
	case s.Effect == spec.EffectReadOnly:
		return "its body, as a read's"
	case s.Receipt:
		return "receipt: the durable id is at " + code(s.ID.Pointer)
	}
	return "acknowledgement: a 2xx only says the provider accepted the write"
}

func lookupAnswer(s *spec.Safety) string {
	l := s.Lookup
	a := "no lookup"
	switch {
	case l == nil:
	case l.Func != "":
		a = code(l.Func) + ", written by hand (its signature is checked at compile time), " + string(l.Consistency)
	default:
		a = "generated from " + code(l.Operation.ID)
		if t := templateText(l.Params); t != "" {
			a += " with " + t
		}
		if l.Body != nil {
			a += " with the body " + code(l.Body.JSON)
		}
		found := "the whole response (404: not found)"
		if l.Found != nil {
			found = code(l.Found.Pointer)
			if slices.ContainsFunc(l.Found.Steps, func(st spec.Step) bool { return st.Kind == spec.StepEach }) {
				found += " (every element is a found effect)"
			}
		}
		a += ", found at " + found + ", " + string(l.Consistency)
	}
	if r := s.Reference; r != nil {
		what := "the provider key"
		if r.Value != nil {
			what = "the reference " + code(r.ValueFormat) + " (from the key)"
		}
		if r.Body != nil {
			a += "; " + what + " is stored at body " + code(r.Body.Pointer)
		}
		if r.Query != "" {
			a += "; " + what + " is sent as query parameter " + code(r.Query)
		}
	}
	return a
}

func retryAnswer(s *spec.Safety) string {
	if s.Retry == 0 {
		return "none: never retried"
	}
	return cell(strings.ReplaceAll(s.Retry.String(), "|", ", ")) + "; at most " + strconv.Itoa(s.Attempts) + " attempts"
}

func keyAnswer(s *spec.Safety) string {
	k := s.Key
	if k == nil {
		return "no business key (idempotent by declaration); not deduplicated on our side"
	}
	fields := make([]string, len(k.Fields))
	for i, f := range k.Fields {
		fields[i] = cell(f.Name + " " + f.Type)
	}
	a := code(k.Format) + " from " + strings.Join(fields, ", ") + " (type " + code(k.TypeName) + "), key scope " + code(k.Scope)
	if s.Dedupe {
		return a + "; claimed in the ledger before the call: calls with equal keys are one write"
	}
	if s.Idempotency != nil {
		return a + "; not claimed in the ledger: calls with equal keys are one write only while the provider remembers the key, and concurrent calls are all sent"
	}
	return a + "; not claimed in the ledger and no idempotency key: calls with equal keys are separate writes"
}

func inboxAnswer(i *spec.Inbox) string {
	if i == nil {
		return "not declared: no webhook inbox"
	}
	return "webhook inbox from " + code(i.Source) + " (built by " + code(i.GoName) + "), event ids kept " + span(i.Retention) + ", order " + cell(string(i.Order))
}

func credentialsAnswer(c *spec.Credentials) string {
	switch {
	case c == nil:
		return "not declared"
	case c.RotationInvalidates:
		return "yes: an auth failure while the token rotates is ambiguous, not a rejection"
	}
	return "no: an auth failure is a rejection, even while the token rotates"
}

func uncertainAnswer(s *spec.Safety) string {
	a := "reconcile: an uncertain outcome is returned as runtime.ErrUncertain and recorded for a person to reconcile"
	if s.Owner != "" {
		return a + "; owner " + code(s.Owner)
	}
	return a + "; no owner named"
}

// span formats a duration in the largest whole unit: 24h, 90m, 45s.
func span(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}

// cell makes text safe in a Markdown table cell: one line, with pipes, backslashes, backticks,
// asterisks and HTML escaped.
func cell(text string) string { return cellEscapes.Replace(oneLine(text)) }

var cellEscapes = strings.NewReplacer(`\`, `\\`, "|", `\|`, "`", "\\`", "<", "&lt;", ">", "&gt;", "*", `\*`)

// code renders text as inline code in a table cell; text holding a backtick is rendered as
// escaped text instead.
func code(text string) string {
	t := oneLine(text)
	if strings.ContainsAny(t, "`|") || t == "" {
		return cell(t)
	}
	return "`" + t + "`"
}
