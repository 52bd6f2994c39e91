package writegenimpl

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query-language escaping of a lookup's substitutions.
//
// A lookup that searches with a provider's query language (lookup.escape in
// the annotations) passes each value it substitutes into its template, the
// reference and the write's values, through one of these functions before
// the parameter is URL-encoded: the value then reaches the provider as one
// literal of its language, whatever it holds. A value the language cannot
// hold as a literal is an error, never a guess: the lookup fails and the
// call ends uncertain, where a mangled query could answer "not found" for a
// write that committed. Each function returns the whole literal, with its
// quotes: the template writes the placeholder bare (external_id:{ref}).

// StripeSearchString returns v as a string literal of Stripe's search query
// language: in single quotes, with each ' and \ preceded by a backslash.
//
// Stripe, "Search query language" (docs.stripe.com/search): a clause is a
// field, an operator and a value; string values are quoted ("email:'amy@
// rocketrides.io'", "metadata['key']:'value'"), and a quote inside a quoted
// value is escaped with a backslash. The language documents no escape for
// control characters: a value holding one is refused.
func StripeSearchString(v string) (string, error) {
	if err := printable("stripe_search", v); err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(len(v) + 2)
	b.WriteByte('\'')
	for _, r := range v {
		if r == '\'' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String(), nil
}

// ZendeskSearchValue returns v as a value of Zendesk's search query syntax:
// as it is when it is a plain word, else as a phrase in double quotes.
//
// Zendesk, "Searching with the Zendesk API" (developer.zendesk.com, Basic
// query syntax) and the Zendesk Support search reference: ":" is the
// equality operator, "-" negates, "*" is a wildcard, "<" and ">" compare,
// a space separates terms, and double quotes enclose a phrase, which matches
// exactly. The syntax has no escape character: a value holding a double
// quote, a wildcard or a control character cannot be written as a literal
// and is refused.
func ZendeskSearchValue(v string) (string, error) {
	if err := printable("zendesk_search", v); err != nil {
		return "", err
	}
	if i := strings.IndexAny(v, "\"*"); i >= 0 {
		return "", &EscapeError{Language: "zendesk_search", Value: v, Why: fmt.Sprintf("%q has no escape in a Zendesk search value", v[i])}
	}
	plain := v != ""
	for i, r := range v {
		if !(r < unicode.MaxASCII && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '@' || i > 0 && r == '-')) {
			plain = false
			break
		}
	}
	// A word the query syntax reads as a keyword is quoted too.
	switch strings.ToLower(v) {
	case "or", "and", "not", "type":
		plain = false
	}
	if plain {
		return v, nil
	}
	return `"` + v + `"`, nil
}

// GitHubSearchValue returns v as a term of GitHub's search syntax for
// issues, pull requests and the other searches that are not code search:
// as it is when it is a plain word, else in double quotes.
//
// GitHub, "Understanding the search syntax" (docs.github.com): a query is
// terms and qualifiers (repo:owner/name, in:body, is:issue) separated by
// spaces, "-" before a term or qualifier excludes it, AND, OR and NOT
// combine terms, and a term holding a space is written in quotation marks.
// The syntax has no escape character, and the search drops punctuation
// (it matches words: the query for wiki:a/b also finds wiki:a/b/c, which
// is why the client compares what it finds). A value holding a double
// quote or a control character cannot be written as a term and is refused.
func GitHubSearchValue(v string) (string, error) {
	if err := printable("github_search", v); err != nil {
		return "", err
	}
	if strings.Contains(v, `"`) {
		return "", &EscapeError{Language: "github_search", Value: v, Why: `'"' has no escape in a GitHub search term`}
	}
	plain := v != ""
	for i, r := range v {
		if !(r < unicode.MaxASCII && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || i > 0 && r == '-')) {
			plain = false
			break
		}
	}
	// A word the syntax reads as an operator is quoted too.
	switch v {
	case "AND", "OR", "NOT":
		plain = false
	}
	if plain {
		return v, nil
	}
	return `"` + v + `"`, nil
}

// JQLString returns v as a JQL string literal: in double quotes, with ",
// ' and \ preceded by a backslash and line breaks and other control
// characters written as \n, \r, \t or \uXXXX.
//
// Atlassian, JQL (Jira Query Language) reference, "Restricted words and
// characters": a value holding a space, a reserved character (such as
// + . , ; ? | * / % ^ $ # @ [ ]) or a reserved word (AND, OR, NOT, EMPTY,
// NULL, ORDER, BY, ...) must be quoted, and a quote inside quotes is
// escaped with a backslash; JqlStringSupportImpl.encodeAsQuotedString
// (docs.atlassian.com) escapes \ and the quotes and encodes line breaks
// and control characters. A quoted value is never a reserved word.
func JQLString(v string) (string, error) {
	if !utf8.ValidString(v) {
		return "", &EscapeError{Language: "jql", Value: v, Why: "it is not valid UTF-8"}
	}
	var b strings.Builder
	b.Grow(len(v) + 2)
	b.WriteByte('"')
	for _, r := range v {
		switch {
		case r == '"' || r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			if r > 0xffff {
				return "", &EscapeError{Language: "jql", Value: v, Why: fmt.Sprintf("%U cannot be written as \\uXXXX", r)}
			}
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// luceneSpecial are the characters of the Lucene classic query parser's
// syntax, and whitespace, which separates terms.
const luceneSpecial = `+-&|!(){}[]^"~*?:\/`

// LuceneTerm returns v as one term of the Lucene query syntax (Elasticsearch
// query_string, Solr, Algolia-style filters built on it): every character of
// the syntax and every space is preceded by a backslash.
//
// Apache Lucene, classic QueryParser syntax, "Escaping Special Characters":
// the special characters are + - && || ! ( ) { } [ ] ^ " ~ * ? : \ /, and
// a backslash before a character makes it that character (so "\ " keeps a
// space inside the term, as Solr's ClientUtils.escapeQueryChars does).
// The term is also valid inside a phrase ("..."), where an escaped
// character stands for itself.
func LuceneTerm(v string) (string, error) {
	if v == "" {
		return "", &EscapeError{Language: "lucene", Value: v, Why: "an empty term matches nothing that the reference names"}
	}
	if !utf8.ValidString(v) {
		return "", &EscapeError{Language: "lucene", Value: v, Why: "it is not valid UTF-8"}
	}
	var b strings.Builder
	b.Grow(len(v) * 2)
	for _, r := range v {
		if strings.ContainsRune(luceneSpecial, r) || unicode.IsSpace(r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String(), nil
}

// EscapeError is a value a lookup's query language cannot hold as a
// literal: the lookup cannot ask for it, and the call ends uncertain.
type EscapeError struct {
	Language string // the lookup's escape: stripe_search, zendesk_search, github_search, jql, lucene
	Value    string
	Why      string
}

func (e *EscapeError) Error() string {
	return "writegen: the lookup cannot search for " + strconv.Quote(e.Value) + " in " + e.Language + ": " + e.Why
}

// printable refuses a value holding a control or format character (a line
// break, a NUL, a bidi override) or invalid UTF-8, which a language without
// escapes for them cannot hold.
func printable(lang, v string) error {
	if !utf8.ValidString(v) {
		return &EscapeError{Language: lang, Value: v, Why: "it is not valid UTF-8"}
	}
	for _, r := range v {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return &EscapeError{Language: lang, Value: v, Why: fmt.Sprintf("it holds %U, which the language cannot escape", r)}
		}
	}
	return nil
}
