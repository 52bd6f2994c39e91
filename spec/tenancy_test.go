package spec

import (
	"strings"
	"testing"
)

// TestPromise39_TenancyAnswer: tenancy: per_account marks the API multi-account, single (or no
// answer) does not, and any other value is refused at its position with what to write.
func TestPromise39_TenancyAnswer(t *testing.T) {
	const oas = `openapi: 3.0.3
info: {title: T, version: "1"}
paths: {}
`
	for _, c := range []struct {
		line string
		want bool
		err  string
	}{
		{"tenancy: per_account\n", true, ""},
		{"tenancy: single\n", false, ""},
		{"", false, ""},
		{"tenancy: per-account\n", false, `ws.yaml:4:10: tenancy "per-account" (did you mean "per_account"?): want single (one account per client) or per_account`},
	} {
		api, err := LoadBytes("t.yaml", []byte(oas), "ws.yaml", []byte("version: 1\npackage: t\nscope: t\n"+c.line), Options{})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want %s", c.line, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.line, err)
		}
		if api.PerAccount != c.want {
			t.Errorf("%q: PerAccount %v, want %v", c.line, api.PerAccount, c.want)
		}
	}
}
