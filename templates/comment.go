package templates

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// commentWidth is the widest a comment's text runs, not counting the "// " before it.
const commentWidth = 96

// comment renders text as // comment lines wrapped at commentWidth, with paragraphs kept apart
// by an empty // line. The text may come from the spec: it is made valid UTF-8, control and
// format characters (bidirectional overrides, byte order marks, zero-width marks) are dropped,
// runs of white space become one space, and every line starts with "// " so that no spec text
// can become a directive or end the comment. It returns "" when nothing is left.
func comment(text string) string {
	var b strings.Builder
	for _, para := range paragraphs(text) {
		if b.Len() > 0 {
			b.WriteString("\n//\n")
		}
		line := 0
		for _, word := range para {
			n := utf8.RuneCountInString(word)
			switch {
			case line == 0:
				b.WriteString("// ")
			case line+1+n > commentWidth:
				b.WriteString("\n// ")
				line = 0
			default:
				b.WriteByte(' ')
				line++
			}
			b.WriteString(word)
			line += n
		}
	}
	return b.String()
}

// lineBreaks turns every kind of line break into "\n", and a paragraph separator into "\n\n".
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n\n")

// paragraphs splits text into paragraphs of words, dropping what a comment must not hold.
func paragraphs(text string) [][]string {
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

// docComment is the doc comment of name: "name: text", or "name fallback" when text is empty,
// so that it starts with the name it documents, as Go doc comments do.
func docComment(name, text, fallback string) string {
	if len(paragraphs(text)) == 0 {
		return comment(name + " " + fallback)
	}
	return comment(name + ": " + text)
}

// oneLine returns text on one line, with what comment drops dropped, for Markdown cells and
// comment fragments.
func oneLine(text string) string {
	var words []string
	for _, p := range paragraphs(text) {
		words = append(words, p...)
	}
	return strings.Join(words, " ")
}
