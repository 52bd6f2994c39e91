package drive

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// An ArgSet is one way of filling a tool's arguments from its input schema: the required
// properties only, or every property, each union taking its Branch-th member.
type ArgSet struct {
	Full   bool
	Branch int
}

func (a ArgSet) String() string {
	if a.Full {
		return fmt.Sprintf("full/branch %d", a.Branch)
	}
	return fmt.Sprintf("required/branch %d", a.Branch)
}

// ArgSets are the ways of filling the arguments of a tool whose input schema is root: the
// required properties only, then every property once per member of its widest union (at
// least once).
func ArgSets(root *jsonschema.Schema) []ArgSet {
	n := max(widestUnion(root, root, map[*jsonschema.Schema]bool{}), 1)
	sets := []ArgSet{{Full: false}}
	for b := range n {
		sets = append(sets, ArgSet{Full: true, Branch: b})
	}
	return sets
}

// widestUnion is the most members of an anyOf or oneOf reachable from s.
func widestUnion(root, s *jsonschema.Schema, seen map[*jsonschema.Schema]bool) int {
	s = deref(root, s)
	if s == nil || seen[s] {
		return 0
	}
	seen[s] = true
	n := max(len(s.AnyOf), len(s.OneOf))
	for _, sub := range slices.Concat(s.AnyOf, s.OneOf, s.AllOf, []*jsonschema.Schema{s.Items, s.AdditionalProperties}) {
		n = max(n, widestUnion(root, sub, seen))
	}
	for _, p := range s.Properties {
		n = max(n, widestUnion(root, p, seen))
	}
	return n
}

// deref follows $ref into root's $defs.
func deref(root, s *jsonschema.Schema) *jsonschema.Schema {
	for depth := 0; s != nil && s.Ref != "" && depth < 32; depth++ {
		name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
		if !ok {
			return nil
		}
		s = root.Defs[name]
	}
	return s
}

// filler makes argument values that satisfy a tool's input schema.
type filler struct {
	root *jsonschema.Schema
	set  ArgSet
	rnd  *rand.Rand
	// filling are the schemas being filled, outermost first: a union takes a member that is
	// not among them where it can, and an optional property that leads back to one is left
	// out, so that a schema reached from itself ends.
	filling []*jsonschema.Schema
	// maxRep is the most repetitions a * or + of a pattern makes, from the string's lengths.
	maxRep int
}

// recursive reports whether s leads back to a schema being filled: it is one, or an array of
// one.
func (f *filler) recursive(s *jsonschema.Schema) bool {
	for depth := 0; s != nil && depth < 4; depth++ {
		s = deref(f.root, s)
		if s == nil {
			return false
		}
		if slices.Contains(f.filling, s) {
			return true
		}
		s = s.Items
	}
	return false
}

// maxDepth is how deep optional properties are filled; below it only required ones are.
const maxDepth = 4

// Fill returns arguments for the tool whose input schema is root, filled as set says, with
// values drawn from seed.
func Fill(root *jsonschema.Schema, set ArgSet, seed uint64) map[string]any {
	f := &filler{root: root, set: set, rnd: rand.New(rand.NewPCG(seed, 0x5eed))}
	v, _ := f.value(root, 0).(map[string]any)
	if v == nil {
		v = map[string]any{}
	}
	return v
}

// filledByTool marks the properties a tool fills in itself (its input schema says so).
const filledByTool = "Filled in by the tool"

func (f *filler) value(s *jsonschema.Schema, depth int) any {
	s = deref(f.root, s)
	if s == nil {
		return "x"
	}
	if s.Const != nil {
		return *s.Const
	}
	if len(s.Enum) > 0 {
		var vs []any
		for _, v := range s.Enum {
			if v != nil {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			return vs[f.rnd.IntN(len(vs))]
		}
	}
	if us := slices.Concat(s.OneOf, s.AnyOf); len(us) > 0 && len(s.Properties) > 0 {
		// An object whose members only say which of its properties are required: the chosen
		// member's are given, those only the others require are left out.
		chosen := deref(f.root, us[f.set.Branch%len(us)])
		var skip []string
		for _, m := range us {
			if m = deref(f.root, m); m != nil && m != chosen {
				skip = append(skip, m.Required...)
			}
		}
		var force []string
		if chosen != nil {
			force = chosen.Required
			skip = slices.DeleteFunc(skip, func(n string) bool { return slices.Contains(force, n) })
		}
		return f.object(s, depth, force, skip)
	}
	if us := slices.Concat(s.OneOf, s.AnyOf); len(us) > 0 {
		var members []*jsonschema.Schema
		for _, m := range us {
			if d := deref(f.root, m); d != nil && !onlyNull(d) {
				members = append(members, m)
			}
		}
		if len(members) > 0 {
			i := f.set.Branch % len(members)
			if f.recursive(members[i]) || depth >= maxDepth {
				// Deep down, or where the member chosen leads back: one that does not.
				for j := range members {
					if k := (i + j) % len(members); !f.recursive(members[k]) {
						i = k
						break
					}
				}
			}
			return f.value(members[i], depth+1)
		}
	}
	if len(s.AllOf) > 0 {
		// The members merged: an object takes every member's properties.
		merged := &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{}}
		for _, m := range append([]*jsonschema.Schema{s}, s.AllOf...) {
			m = deref(f.root, m)
			if m == nil {
				continue
			}
			for k, p := range m.Properties {
				merged.Properties[k] = p
			}
			merged.Required = append(merged.Required, m.Required...)
			if t := typeOf(m); t != "" && merged.Type == "" {
				merged.Type = t
			}
		}
		if merged.Type == "" || merged.Type == "object" {
			merged.Type = "object"
			return f.object(merged, depth, nil, nil)
		}
	}
	switch typeOf(s) {
	case "object":
		return f.object(s, depth, nil, nil)
	case "array":
		n := 1
		if s.MinItems != nil {
			n = max(n, *s.MinItems)
		}
		if s.MaxItems != nil {
			n = min(n, *s.MaxItems)
		}
		out := make([]any, 0, n)
		for range n {
			out = append(out, f.value(s.Items, depth+1))
		}
		return out
	case "integer":
		return f.number(s, true)
	case "number":
		return f.number(s, false)
	case "boolean":
		return f.rnd.IntN(2) == 1
	case "null":
		return nil
	case "string":
		return f.text(s)
	}
	if len(s.Properties) > 0 {
		return f.object(s, depth, nil, nil)
	}
	return "any"
}

func onlyNull(s *jsonschema.Schema) bool {
	return s.Type == "null" || len(s.Types) == 1 && s.Types[0] == "null"
}

// typeOf is the one type s has, null aside, or "".
func typeOf(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

// object fills an object's properties: the required ones and those in force, and in a full
// set the others, but never those in skip.
func (f *filler) object(s *jsonschema.Schema, depth int, force, skip []string) map[string]any {
	f.filling = append(f.filling, s)
	defer func() { f.filling = f.filling[:len(f.filling)-1] }()
	out := map[string]any{}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := s.Properties[name]
		required := slices.Contains(s.Required, name) || slices.Contains(force, name)
		if strings.HasPrefix(p.Description, filledByTool) || p.ReadOnly && !required || slices.Contains(skip, name) {
			continue
		}
		if !required && (!f.set.Full || depth >= 2*maxDepth || f.recursive(p)) {
			continue
		}
		if depth > 3*maxDepth {
			continue // a required property of a schema reached from itself: give up here
		}
		out[name] = f.value(p, depth+1)
	}
	return out
}

func (f *filler) number(s *jsonschema.Schema, integer bool) any {
	lo, hi := 1.0, 100.0
	if s.Minimum != nil {
		lo = *s.Minimum
		hi = max(hi, lo+100)
	}
	if s.ExclusiveMinimum != nil {
		lo = *s.ExclusiveMinimum + 1
		hi = max(hi, lo+100)
	}
	if s.Maximum != nil {
		hi = *s.Maximum
		lo = min(lo, hi)
	}
	if s.ExclusiveMaximum != nil {
		hi = *s.ExclusiveMaximum - 1
		lo = min(lo, hi)
	}
	v := lo + f.rnd.Float64()*(hi-lo)
	if m := s.MultipleOf; m != nil && *m > 0 {
		v = math.Ceil(v / *m) * *m
		if v > hi {
			v = math.Floor(hi / *m) * *m
		}
	}
	if integer {
		v = math.Round(v)
		if v > hi {
			v = math.Floor(hi)
		}
		if v < lo {
			v = math.Ceil(lo)
		}
		return int64(v)
	}
	return math.Round(v*100) / 100
}

// formats are values of the string formats specs use.
var formats = map[string]func(r *rand.Rand) string{
	"date":      func(r *rand.Rand) string { return fmt.Sprintf("2024-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28)) },
	"date-time": func(r *rand.Rand) string { return fmt.Sprintf("2024-%02d-%02dT10:20:30Z", 1+r.IntN(12), 1+r.IntN(28)) },
	"time":      func(r *rand.Rand) string { return fmt.Sprintf("%02d:20:30Z", r.IntN(24)) },
	"email":     func(r *rand.Rand) string { return fmt.Sprintf("user%d@example.com", r.IntN(1e6)) },
	"uri":       func(r *rand.Rand) string { return fmt.Sprintf("https://example.com/p/%d", r.IntN(1e6)) },
	"url":       func(r *rand.Rand) string { return fmt.Sprintf("https://example.com/p/%d", r.IntN(1e6)) },
	"uuid": func(r *rand.Rand) string {
		return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
	},
	"ipv4":     func(r *rand.Rand) string { return fmt.Sprintf("10.0.%d.%d", r.IntN(256), r.IntN(256)) },
	"hostname": func(r *rand.Rand) string { return fmt.Sprintf("host%d.example.com", r.IntN(1000)) },
}

func (f *filler) text(s *jsonschema.Schema) string {
	lo, hi := 0, -1
	if s.MinLength != nil {
		lo = *s.MinLength
	}
	if s.MaxLength != nil {
		hi = *s.MaxLength
	}
	fits := func(v string) bool {
		n := utf8.RuneCountInString(v)
		return n >= lo && (hi < 0 || n <= hi)
	}
	if s.ContentEncoding == "base64" {
		return base64.StdEncoding.EncodeToString([]byte(f.word(8)))
	}
	re, _ := regexp.Compile(s.Pattern) // nil without a pattern Go reads
	if gen, ok := formats[s.Format]; ok {
		if v := gen(f.rnd); fits(v) && (re == nil || re.MatchString(v)) {
			return v
		}
	}
	if re != nil && s.Pattern != "" {
		f.maxRep = max(3, lo)
		if hi >= 0 {
			f.maxRep = min(f.maxRep, max(hi, 1))
		}
		if tree, err := syntax.Parse(s.Pattern, syntax.Perl); err == nil {
			for range 100 {
				var b strings.Builder
				f.pattern(&b, tree.Simplify())
				if v := b.String(); re.MatchString(v) && fits(v) && formatOK(s.Format, v) {
					return v
				}
			}
		}
	}
	v := "wg" + f.word(10)
	for utf8.RuneCountInString(v) < lo {
		v += f.word(8)
	}
	if hi >= 0 && len(v) > hi {
		v = v[:hi]
	}
	return v
}

// word is n random lower-case letters and digits.
func (f *filler) word(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[f.rnd.IntN(len(alphabet))]
	}
	return string(b)
}

// pattern writes a string the regular expression re matches.
func (f *filler) pattern(b *strings.Builder, re *syntax.Regexp) {
	repeat := func(lo, hi int) {
		if hi < 0 {
			hi = lo + f.maxRep
		}
		n := lo
		if hi > lo {
			n += f.rnd.IntN(hi - lo + 1)
		}
		for range n {
			f.pattern(b, re.Sub[0])
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) >= 2 {
			var printable []int // the ranges with a character above the space
			for i := 0; i < len(re.Rune); i += 2 {
				if re.Rune[i+1] > ' ' {
					printable = append(printable, i)
				}
			}
			i := 2 * f.rnd.IntN(len(re.Rune)/2)
			if len(printable) > 0 {
				i = printable[f.rnd.IntN(len(printable))]
			}
			lo, hi := max(re.Rune[i], '!'), re.Rune[i+1]
			if hi < lo {
				lo = re.Rune[i]
			}
			if hi > lo+95 {
				hi = lo + 95
			}
			b.WriteRune(lo + rune(f.rnd.IntN(int(hi-lo+1))))
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		f.pattern(b, re.Sub[0])
	case syntax.OpStar:
		repeat(0, f.maxRep)
	case syntax.OpPlus:
		repeat(1, max(1, f.maxRep))
	case syntax.OpQuest:
		repeat(0, 1)
	case syntax.OpRepeat:
		repeat(re.Min, re.Max)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			f.pattern(b, sub)
		}
	case syntax.OpAlternate:
		f.pattern(b, re.Sub[f.rnd.IntN(len(re.Sub))])
	}
}

// formatOK reports whether v is of format, for the formats the tools check.
func formatOK(format, v string) bool {
	switch format {
	case "uri", "url":
		u, err := url.Parse(v)
		return err == nil && u.IsAbs() && uriChars.MatchString(v)
	case "email":
		return emailChars.MatchString(v)
	case "date":
		_, err := time.Parse(time.DateOnly, v)
		return err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, v)
		return err == nil
	}
	return true
}

// uriChars are the characters RFC 3986 lets a URI have; emailChars an address as plain as
// validators of format email take.
var (
	uriChars   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$`)
	emailChars = regexp.MustCompile(`^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$`)
)
