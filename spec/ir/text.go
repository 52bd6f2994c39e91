package ir

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// lineBreaks turns every kind of line break into "\n", and a paragraph separator into "\n\n".
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n\n")

// Paragraphs splits text into paragraphs of words, dropping what a comment must not hold.
func Paragraphs(text string) [][]string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	text = lineBreaks.Replace(text)
	var paras [][]string
	for _, p := range strings.Split(text, "\n\n") {
		words := strings.FieldsFunc(p, func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsControl(r)
		})
		kept := words[:0]
		for _, w := range words {
			w = strings.Map(func(r rune) rune {
				if unicode.Is(unicode.Cf, r) || unicode.IsControl(r) {
					return -1
				}
				return r
			}, w)
			if w != "" {
				kept = append(kept, w)
			}
		}
		if len(kept) > 0 {
			paras = append(paras, kept)
		}
	}
	return paras
}

// OneLine returns text on one line, with what comment drops dropped, for Markdown cells and
// comment fragments.
func OneLine(text string) string {
	var words []string
	for _, p := range Paragraphs(text) {
		words = append(words, p...)
	}
	return strings.Join(words, " ")
}

// DurationText writes d as the annotation file would: whole hours as "24h", whole minutes as
// "90m", else as Go writes it ("45s", "1.5s").
func DurationText(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}
