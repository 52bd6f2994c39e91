package safety

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/writegen/writegen/spec/build"
	"github.com/writegen/writegen/spec/ir"
)

// idempotency resolves the provider's idempotency key and holds it to its bounds (boundKey).
func (w *writeCheck) idempotency() bool {
	src := w.from("idempotency")
	if src == nil || src.Idempotency == nil {
		return true
	}
	w.refused["idempotency"] = w.bad(src, "idempotency")
	idem := *src.Idempotency
	w.s.Idempotency = &idem
	w.needKey(src.Set["idempotency"], "idempotency needs a business key: the provider key is derived from it (add key: {fields: ..., format: ...})")
	if src.IdemBody != "" {
		if idem.Body = w.r.bodyPath(w.so, src.IdemBodyNode, "idempotency body", src.IdemBody); idem.Body == nil {
			w.refused["idempotency"] = true
		}
	}
	if !w.refused["idempotency"] {
		w.r.boundKey(w.so, &idem)
	}
	return true
}

// keyBound is the maxLength the spec declares for the value the idempotency key travels in,
// with the position of what declares it; max 0 when it declares none.
type keyBound struct {
	max int
	pos ir.Pos
	in  string // "header Idempotency-Key", for messages
}

// specKeyBound reads the spec's bound of the key of idem: the maxLength of the schema of its
// header or query parameter (the operation's own parameters before its path item's), or of the
// body field its pointer ends at (following properties, and allOf members, through references).
func specKeyBound(so *build.Op, idem *ir.Idempotency) keyBound {
	switch {
	case idem.Header != "" || idem.Query != "":
		for _, p := range so.Op.Params {
			if idem.Header != "" && p.In == ir.InHeader && strings.EqualFold(p.Name, idem.Header) ||
				idem.Query != "" && p.In == ir.InQuery && p.Name == idem.Query {
				return keyBound{max: so.MaxLength(p), pos: p.Pos, in: string(p.In) + " " + p.Name}
			}
		}
	case idem.Body != nil:
		b := keyBound{pos: so.Op.Pos, in: "body field " + idem.Body.Pointer}
		if n := len(idem.Body.Steps); n > 0 && idem.Body.Steps[n-1].Field != nil && idem.Body.Steps[n-1].Field.Pos.Line > 0 {
			b.pos = idem.Body.Steps[n-1].Field.Pos
		}
		b.max = schemaMaxLength(so.BodySchema, ir.SplitPointer(idem.Body.Pointer), 0)
		return b
	}
	return keyBound{}
}

// schemaMaxLength is the maxLength of the string at the path segs below sr, 0 when none is
// declared or the path cannot be followed.
func schemaMaxLength(sr *openapi3.SchemaRef, segs []string, depth int) int {
	if sr == nil || sr.Value == nil || depth > 32 {
		return 0
	}
	s := sr.Value
	if len(segs) == 0 {
		if s.MaxLength != nil {
			return int(*s.MaxLength)
		}
		for _, m := range s.AllOf {
			if n := schemaMaxLength(m, nil, depth+1); n > 0 {
				return n
			}
		}
		return 0
	}
	if p := s.Properties[segs[0]]; p != nil {
		return schemaMaxLength(p, segs[1:], depth+1)
	}
	for _, m := range s.AllOf {
		if n := schemaMaxLength(m, segs, depth+1); n > 0 {
			return n
		}
	}
	return 0
}

// boundKey holds the key's max_length to the spec's bound: an annotation may give a shorter
// one (the provider's documentation knows better), never a longer one, which the provider
// would refuse; without one the spec's bound is used, so that longer keys are hashed to fit.
// A max_length, written or the spec's, shorter than writegen's hashed keys is refused: they
// could never fit. Every refusal of max_length is made here.
func (r *Resolver) boundKey(so *build.Op, idem *ir.Idempotency) {
	if idem.MaxLengthPos.Line > 0 && idem.MaxLength < minKeyLength {
		r.errorAt(idem.MaxLengthPos, so.Op.ID, "max_length %d is too short: writegen's provider keys need at least %d characters (a shortened key is a hash of 128 bits)", idem.MaxLength, minKeyLength)
		return
	}
	b := specKeyBound(so, idem)
	switch {
	case b.max <= 0:
	case b.max < minKeyLength && (idem.MaxLength == 0 || idem.MaxLength > b.max):
		r.errorAt(idem.Pos, so.Op.ID, "the spec bounds the idempotency key (%s) to %d characters at %s: writegen's provider keys need at least %d (a shortened key is a hash of 128 bits); exclude the write, or leave the key out (idempotency: none)",
			b.in, b.max, b.pos, minKeyLength)
	case idem.MaxLength > b.max:
		r.errorAt(idem.MaxLengthPos, so.Op.ID, "max_length %d is longer than the spec allows for the idempotency key (%s: maxLength %d at %s): the provider would refuse longer keys; write max_length: %d, or leave it out to use the spec's",
			idem.MaxLength, b.in, b.max, b.pos, b.max)
	case idem.MaxLength == 0:
		idem.MaxLength, idem.MaxLengthPos, idem.MaxLengthSpec = b.max, b.pos, true
	}
}

// minKeyLength is the shortest max_length writegen can derive keys for: a hashed key is never
// cut below 22 characters (128 bits of a SHA-256 in base64url).
const minKeyLength = 22
