package runtime

import (
	"strings"
	"testing"
)

var (
	createThread = Identity{Scope: "support-desk", Operation: "create-thread", BusinessKey: "escalation:42"}
	closeThread  = Identity{Scope: "support-desk", Operation: "close-thread", BusinessKey: "escalation:42"}
	acmeThread   = Identity{Scope: "support-desk", Tenant: "acme", Operation: "create-thread", BusinessKey: "escalation:42"}
	otherDesk    = Identity{Scope: "other-desk", Operation: "create-thread", BusinessKey: "escalation:42"}
)

// TestPromise01_SameBusinessKeySameProviderKey: the provider key depends on
// the identity, the maximum length and the secret only; different
// operations, scopes and tenants give different keys for one business key.
// (TestPromise01_SameKeyAcrossClients shows it across clients.)
func TestPromise01_SameBusinessKeySameProviderKey(t *testing.T) {
	// Pinned values, the hashed ones computed with another implementation
	// (Python's hmac and hashlib over the same length-prefixed parts): a
	// change here would re-send old writes under new keys.
	for _, tc := range []struct {
		id     Identity
		max    int
		secret []byte
		want   string
	}{
		{createThread, 0, nil, "support-desk/create-thread:escalation:42"},
		{closeThread, 0, nil, "support-desk/close-thread:escalation:42"},
		{acmeThread, 0, nil, "support-desk/acme/create-thread:escalation:42"},
		{createThread, 0, []byte("s3cret"), "nm8Ag7SAdjOsPUcamzC0sunZp90GdncMwe0_fBMdPrE"},
		{closeThread, 0, []byte("s3cret"), "jUruIezdJOOYw8MnLmC_w6E-aFA7-KfHJDPTUCBTI8k"},
		{acmeThread, 0, []byte("s3cret"), "MpXJJ9pp4cVL27uZqF51KNaHIeM7ztQYO20w7iHSS_A"},
		{createThread, 30, nil, "k6Mo0t8PBjwd5adwHJ_qiXYf5nKFbh"},
		{acmeThread, 40, nil, "52asDBuYBDOuymYAPDXUY0WqpuOULXbbw8cjXwSn"},
	} {
		if got := ProviderKey(tc.id, tc.max, tc.secret); got != tc.want {
			t.Errorf("ProviderKey(%+v, %d, %q) = %q, want %q", tc.id, tc.max, tc.secret, got, tc.want)
		}
	}
	if k := ProviderKey(createThread, 0, []byte("s3cret")); strings.Contains(k, "42") || strings.Contains(k, "escalation") {
		t.Errorf("keyed provider key %q carries business data", k)
	}
	seen := map[string]Identity{}
	for _, id := range []Identity{createThread, closeThread, acmeThread, otherDesk} {
		for _, secret := range [][]byte{nil, []byte("s3cret")} {
			k := ProviderKey(id, 0, secret)
			if o, dup := seen[k]; dup {
				t.Errorf("%+v and %+v share the provider key %q", id, o, k)
			}
			seen[k] = id
		}
	}
	// The length prefixes keep the parts apart: moving a character from
	// one part to the next changes the key.
	a := Identity{Scope: "s", Tenant: "t/x", Operation: "o", BusinessKey: "k"}
	b := Identity{Scope: "s", Tenant: "t", Operation: "x/o", BusinessKey: "k"}
	if ProviderKey(a, 0, nil) == ProviderKey(b, 0, nil) || ProviderKey(a, 0, []byte("s")) == ProviderKey(b, 0, []byte("s")) {
		t.Errorf("identities %+v and %+v share a provider key", a, b)
	}
}

// TestPromise02_LongKeyHashedNotCut: a key over the provider's maximum is
// replaced by a hash, so keys that share a long prefix stay distinct.
func TestPromise02_LongKeyHashedNotCut(t *testing.T) {
	const maxLen = 40
	prefix := strings.Repeat("escalation-", 10)
	id := func(bk string) Identity { return Identity{Scope: "desk", Operation: "create", BusinessKey: bk} }
	a, b := ProviderKey(id(prefix+"a"), maxLen, nil), ProviderKey(id(prefix+"b"), maxLen, nil)
	if a == b {
		t.Fatalf("keys differing after the maximum length collide: %q", a)
	}
	for _, k := range []string{a, b} {
		if len(k) > maxLen || !printable(k) {
			t.Errorf("key %q: length %d over %d or not printable", k, len(k), maxLen)
		}
	}
	if again := ProviderKey(id(prefix+"a"), maxLen, nil); again != a {
		t.Errorf("hashed key not deterministic: %q then %q", a, again)
	}
	if short := ProviderKey(id("x"), maxLen, nil); short != "desk/create:x" {
		t.Errorf("short key = %q, want it unchanged", short)
	}
	for _, bk := range []string{"naïve", "a b", "line\nbreak", "o'brien"} {
		if k := ProviderKey(id(bk), maxLen, nil); !printable(k) || k == ProviderKey(id("naive"), maxLen, nil) {
			t.Errorf("ProviderKey(%q) = %q: want a printable hash", bk, k)
		}
	}
	if k := ProviderKey(id(prefix+"a"), 0, nil); k != "desk/create:"+prefix+"a" {
		t.Errorf("without a maximum the key is %q", k)
	}
	if k := ProviderKey(id(prefix+"a"), 10, nil); len(k) != minHashLength {
		t.Errorf("a hash cut for a maximum of 10 has %d characters, want %d", len(k), minHashLength)
	}
	slash := Identity{Scope: "desk", Tenant: "a/b", Operation: "create", BusinessKey: "x"}
	if k := ProviderKey(slash, 0, nil); strings.Contains(k, "a/b") {
		t.Errorf("a tenant with a slash is readable in %q", k)
	}
}
