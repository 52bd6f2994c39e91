package templates

import (
	"strings"
	"unicode/utf8"

	"github.com/writegen/writegen/spec/ir"
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
	for _, para := range ir.Paragraphs(text) {
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

// docComment is the doc comment of name: "name: text", or "name fallback" when text is empty,
// so that it starts with the name it documents, as Go doc comments do.
func docComment(name, text, fallback string) string {
	if len(ir.Paragraphs(text)) == 0 {
		return comment(name + " " + fallback)
	}
	return comment(name + ": " + text)
}
