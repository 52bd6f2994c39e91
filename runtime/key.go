package runtime

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash"
	"strings"
)

// Key is implemented by the generated per-operation key types.
type Key interface {
	// BusinessKey formats the key ("escalation:42"); it fails with an
	// *EmptyKeyError when a field is empty or zero.
	BusinessKey() (string, error)
}

// ErrEmptyKey is matched by every *EmptyKeyError.
var ErrEmptyKey = errors.New("writegen: empty business key")

// EmptyKeyError reports a business key with an empty or zero field. It is
// returned before anything is sent.
type EmptyKeyError struct {
	Operation string // operationId
	Field     string // the empty field, "" when the whole key is empty
}

func (e *EmptyKeyError) Error() string {
	if e.Field == "" {
		return "writegen: operation " + quote(e.Operation) + ": empty business key"
	}
	return "writegen: operation " + quote(e.Operation) + ": business key field " + quote(e.Field) + " is empty"
}

// Is reports whether target is ErrEmptyKey.
func (e *EmptyKeyError) Is(target error) bool { return target == ErrEmptyKey }

// Identity names one logical write. It is the identity of a ledger row and
// what the provider key is derived from. Scope and Operation come from the
// annotation file and stay the same across operationId renames and spec
// versions; Tenant comes from WithTenant.
type Identity struct {
	Scope       string // the provider scope (the annotation file's "scope"), e.g. "support-desk"
	Tenant      string // the tenant or account of the provider, "" for a client that serves one
	Operation   string // the operation's key scope (key.scope; by default derived from the operationId)
	BusinessKey string // the formatted business key, "escalation:42"
}

// minHashLength is the shortest a hashed provider key is ever cut to: 22
// base64url characters carry 132 bits of the hash.
const minHashLength = 22

// ProviderKey derives the provider's idempotency key of one logical write
// from its identity. It depends on id, maxLength and secret only, so the
// same write gets the same key after a retry, a restart or on another
// machine, and writes of other scopes, tenants or operations never share
// one.
//
// With a secret the key is an HMAC-SHA256, keyed with secret, of the four
// parts of id, each preceded by its length as a uvarint, in base64url: no
// business data reaches the provider. Without one it is
// "Scope/Operation:BusinessKey", or "Scope/Tenant/Operation:BusinessKey"
// when Tenant is set, as long as that holds only printable ASCII (no space,
// quote or backslash), Tenant holds no '/', and it fits maxLength (0 means
// no limit); otherwise it is the SHA-256 of the same length-prefixed parts,
// in base64url. A hash longer than maxLength is cut to it, never below 22
// characters; a readable key is never cut.
//
// The same value is the reference a write stores at the provider, unless
// the operation declares its own, so that a lookup can find what a write
// created.
func ProviderKey(id Identity, maxLength int, secret []byte) string {
	var h hash.Hash
	if secret != nil {
		h = hmac.New(sha256.New, secret)
	} else {
		var k string
		if id.Tenant == "" {
			k = id.Scope + "/" + id.Operation + ":" + id.BusinessKey
		} else {
			k = id.Scope + "/" + id.Tenant + "/" + id.Operation + ":" + id.BusinessKey
		}
		if (maxLength <= 0 || len(k) <= maxLength) && printable(k) && !strings.Contains(id.Tenant, "/") {
			return k
		}
		h = sha256.New()
	}
	var n [binary.MaxVarintLen64]byte
	for _, s := range [...]string{id.Scope, id.Tenant, id.Operation, id.BusinessKey} {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	k := base64.RawURLEncoding.EncodeToString(h.Sum(nil))
	if maxLength > 0 && len(k) > maxLength {
		k = k[:max(maxLength, minHashLength)]
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
