package runtime

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
)

// Key is implemented by the generated per-operation key types.
type Key interface {
	// BusinessKey formats the key ("escalation:42"); it fails with an
	// *EmptyKeyError when a field is empty or zero.
	BusinessKey() (string, error)
}

// ErrEmptyKey is matched by every *EmptyKeyError.
var ErrEmptyKey = errors.New("runtime: empty business key")

// EmptyKeyError reports a business key with an empty or zero field. It is
// returned before anything is sent.
type EmptyKeyError struct {
	Operation string // operationId
	Field     string // the empty field, "" when the whole key is empty
}

func (e *EmptyKeyError) Error() string {
	if e.Field == "" {
		return "runtime: operation " + quote(e.Operation) + ": empty business key"
	}
	return "runtime: operation " + quote(e.Operation) + ": business key field " + quote(e.Field) + " is empty"
}

// Is reports whether target is ErrEmptyKey.
func (e *EmptyKeyError) Is(target error) bool { return target == ErrEmptyKey }

// ProviderKey derives the provider's idempotency key for one logical write.
//
// The key is scoped to the operation and depends on nothing else, so the
// same business key gives the same provider key across attempts, restarts
// and machines. With a secret it is an HMAC-SHA256 of the operation and the
// business key, so no business data reaches the provider. Without one it is
// "operation:businessKey", replaced by a SHA-256 hash when that is longer
// than op.KeyMaxLength or holds bytes that are not printable ASCII; a key is
// never cut, only its hash (to at most op.KeyMaxLength characters).
//
// The same value is the reference stored in the request body, so a lookup
// can find what a write created.
func ProviderKey(op *Operation, businessKey string, secret []byte) string {
	var sum []byte
	if secret != nil {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(op.Name))
		m.Write([]byte{0})
		m.Write([]byte(businessKey))
		sum = m.Sum(nil)
	} else {
		k := op.Name + ":" + businessKey
		if (op.KeyMaxLength <= 0 || len(k) <= op.KeyMaxLength) && printable(k) {
			return k
		}
		s := sha256.Sum256([]byte(k))
		sum = s[:]
	}
	k := base64.RawURLEncoding.EncodeToString(sum)
	if op.KeyMaxLength > 0 && len(k) > op.KeyMaxLength {
		k = k[:op.KeyMaxLength]
	}
	return k
}

// printable reports whether s holds only printable ASCII without spaces or
// quotes, so that it can travel unchanged in a header, a query, a JSON string
// or a quoted search term (such as Stripe's metadata['ref']:'value').
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '\\' {
			return false
		}
	}
	return true
}
