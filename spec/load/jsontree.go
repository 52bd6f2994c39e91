package load

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// ParseJSON reads a JSON document into the yaml.Node tree kin-openapi decodes from, with the line
// and byte column of every node. It does in one linear pass what the YAML parser does for JSON
// input several times slower, and it keeps the tree for positions. As with encoding/json, a key
// repeated in one object keeps its last value.
func ParseJSON(data []byte) (*yaml.Node, error) {
	p := &jsonParser{data: data, line: 1, keys: make(map[string]string)}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.off < len(p.data) {
		return nil, p.unexpected("after top-level value")
	}
	doc := p.node()
	doc.Kind, doc.Line, doc.Column, doc.Content = yaml.DocumentNode, 1, 1, []*yaml.Node{v}
	return doc, nil
}

// JSONSyntaxError is a JSON defect at a line and byte column.
type JSONSyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *JSONSyntaxError) Error() string { return e.Msg }

// MaxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const MaxJSONDepth = 10000

type jsonParser struct {
	data      []byte
	off       int
	line      int
	lineStart int               // offset of the first byte of the current line
	slab      []yaml.Node       // nodes are carved from slabs: one allocation per many nodes
	keys      map[string]string // interned object keys: specs repeat a few hundred names
}

func (p *jsonParser) node() *yaml.Node {
	if len(p.slab) == 0 {
		p.slab = make([]yaml.Node, 1024)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	return n
}

// unexpected reports the character at the offset, or the end of the input, in context.
func (p *jsonParser) unexpected(context string) error {
	if p.off >= len(p.data) {
		return p.errorf("unexpected end of JSON input %s", context)
	}
	return p.errorf("invalid character %s %s", p.char(), context)
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return &JSONSyntaxError{Line: p.line, Col: p.off - p.lineStart + 1, Msg: fmt.Sprintf(format, args...)}
}

// char quotes the character at the offset for an error message.
func (p *jsonParser) char() string {
	r, _ := utf8.DecodeRune(p.data[p.off:])
	return strconv.QuoteRune(r)
}

func (p *jsonParser) skipSpace() {
	for p.off < len(p.data) {
		switch p.data[p.off] {
		case '\n':
			p.line++
			p.lineStart = p.off + 1
		case ' ', '\t', '\r':
		default:
			return
		}
		p.off++
	}
}

func (p *jsonParser) value(depth int) (*yaml.Node, error) {
	if depth > MaxJSONDepth {
		return nil, p.errorf("nesting deeper than %d levels", MaxJSONDepth)
	}
	if p.off >= len(p.data) {
		return nil, p.unexpected("looking for beginning of value")
	}
	n := p.node()
	n.Line, n.Column = p.line, p.off-p.lineStart+1
	switch c := p.data[p.off]; {
	case c == '{':
		n.Kind, n.Tag, n.Style = yaml.MappingNode, "!!map", yaml.FlowStyle
		return n, p.object(n, depth)
	case c == '[':
		n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", yaml.FlowStyle
		return n, p.array(n, depth)
	case c == '"':
		s, err := p.str()
		n.Kind, n.Tag, n.Style, n.Value = yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle, s
		return n, err
	case c == '-' || c >= '0' && c <= '9':
		n.Kind = yaml.ScalarNode
		return n, p.number(n)
	}
	for _, lit := range [...]struct{ text, tag string }{{"true", "!!bool"}, {"false", "!!bool"}, {"null", "!!null"}} {
		if len(p.data)-p.off >= len(lit.text) && string(p.data[p.off:p.off+len(lit.text)]) == lit.text {
			p.off += len(lit.text)
			n.Kind, n.Tag, n.Value = yaml.ScalarNode, lit.tag, lit.text
			return n, nil
		}
	}
	return nil, p.unexpected("looking for beginning of value")
}

func (p *jsonParser) object(n *yaml.Node, depth int) error {
	p.off++ // {
	p.skipSpace()
	if p.off < len(p.data) && p.data[p.off] == '}' {
		p.off++
		return nil
	}
	var seen map[string]int // key -> index in Content, built once an object is large
	for {
		if p.off >= len(p.data) || p.data[p.off] != '"' {
			return p.unexpected("looking for beginning of object key string")
		}
		k := p.node()
		k.Kind, k.Tag, k.Style, k.Line, k.Column = yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle, p.line, p.off-p.lineStart+1
		s, err := p.str()
		if err != nil {
			return err
		}
		if in, ok := p.keys[s]; ok {
			s = in
		} else if len(p.keys) < 1<<16 {
			p.keys[s] = s
		}
		k.Value = s
		p.skipSpace()
		if p.off >= len(p.data) || p.data[p.off] != ':' {
			return p.unexpected("after object key")
		}
		p.off++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		if i := p.keyIndex(n, &seen, s); i >= 0 {
			n.Content[i+1] = v
		} else {
			n.Content = append(n.Content, k, v)
		}
		p.skipSpace()
		if p.off < len(p.data) && p.data[p.off] == ',' {
			p.off++
			p.skipSpace()
			continue
		}
		if p.off < len(p.data) && p.data[p.off] == '}' {
			p.off++
			return nil
		}
		return p.unexpected("after object key:value pair")
	}
}

// keyIndex returns the index in n.Content of key when n already has it, else -1 (and records it).
func (p *jsonParser) keyIndex(n *yaml.Node, seen *map[string]int, key string) int {
	const small = 16
	if *seen == nil {
		for i := 0; i < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return i
			}
		}
		if len(n.Content) < 2*small {
			return -1
		}
		*seen = make(map[string]int, len(n.Content))
		for i := 0; i < len(n.Content); i += 2 {
			(*seen)[n.Content[i].Value] = i
		}
	}
	if i, ok := (*seen)[key]; ok {
		return i
	}
	(*seen)[key] = len(n.Content)
	return -1
}

func (p *jsonParser) array(n *yaml.Node, depth int) error {
	p.off++ // [
	p.skipSpace()
	if p.off < len(p.data) && p.data[p.off] == ']' {
		p.off++
		return nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		n.Content = append(n.Content, v)
		p.skipSpace()
		if p.off < len(p.data) && p.data[p.off] == ',' {
			p.off++
			p.skipSpace()
			continue
		}
		if p.off < len(p.data) && p.data[p.off] == ']' {
			p.off++
			return nil
		}
		return p.unexpected("after array element")
	}
}

// str reads a string at the offset (on its opening quote) and returns its value.
func (p *jsonParser) str() (string, error) {
	p.off++ // "
	start := p.off
	for p.off < len(p.data) {
		switch c := p.data[p.off]; {
		case c == '"':
			s := string(p.data[start:p.off])
			p.off++
			return s, nil
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", p.errorf("invalid character %s in string literal", p.char())
		}
		p.off++
	}
	return "", p.errorf("unexpected end of JSON input in string literal")
}

// escaped finishes a string that holds escapes; the bytes from start to the offset are plain.
func (p *jsonParser) escaped(start int) (string, error) {
	buf := append([]byte(nil), p.data[start:p.off]...)
	for p.off < len(p.data) {
		c := p.data[p.off]
		switch {
		case c == '"':
			p.off++
			return string(buf), nil
		case c < 0x20:
			return "", p.errorf("invalid character %s in string literal", p.char())
		case c != '\\':
			buf = append(buf, c)
			p.off++
			continue
		}
		if p.off+1 >= len(p.data) {
			break
		}
		p.off++
		switch e := p.data[p.off]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4(p.off + 1)
			if !ok {
				return "", p.errorf("invalid \\u escape in string literal")
			}
			p.off += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if p.off+2 < len(p.data) && p.data[p.off+1] == '\\' && p.data[p.off+2] == 'u' {
					r2, ok = p.hex4(p.off + 3)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					p.off += 6
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.errorf("invalid escape %s in string literal", p.char())
		}
		p.off++
	}
	return "", p.errorf("unexpected end of JSON input in string literal")
}

func (p *jsonParser) hex4(at int) (rune, bool) {
	if at+4 > len(p.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.data[at:at+4]), 16, 32)
	return rune(v), err == nil
}

// number reads a JSON number into n, tagged !!int or !!float as a YAML parser would resolve it.
func (p *jsonParser) number(n *yaml.Node) error {
	start := p.off
	digits := func() int {
		s := p.off
		for p.off < len(p.data) && p.data[p.off] >= '0' && p.data[p.off] <= '9' {
			p.off++
		}
		return p.off - s
	}
	if p.data[p.off] == '-' {
		p.off++
	}
	lead := p.off
	if digits() == 0 || p.data[lead] == '0' && p.off-lead > 1 {
		p.off = lead
		return p.errorf("invalid number literal")
	}
	integer := true
	if p.off < len(p.data) && p.data[p.off] == '.' {
		p.off++
		integer = false
		if digits() == 0 {
			return p.errorf("invalid number literal")
		}
	}
	if p.off < len(p.data) && (p.data[p.off] == 'e' || p.data[p.off] == 'E') {
		p.off++
		integer = false
		if p.off < len(p.data) && (p.data[p.off] == '+' || p.data[p.off] == '-') {
			p.off++
		}
		if digits() == 0 {
			return p.errorf("invalid number literal")
		}
	}
	n.Value = string(p.data[start:p.off])
	n.Tag = "!!float"
	if integer {
		if _, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
			n.Tag = "!!int"
		}
	}
	return nil
}
