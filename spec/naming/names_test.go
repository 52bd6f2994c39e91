package naming

import (
	"testing"
)

func TestGoName(t *testing.T) {
	cases := map[string]string{
		"createThread":       "CreateThread",
		"get_user_by_id":     "GetUserByID",
		"HTTPServer":         "HTTPServer",
		"userIds":            "UserIDs",
		"api-url":            "APIURL",
		"type":               "Type",
		"func":               "Func",
		"名前":                 "X名前",
		"café au lait":       "CaféAuLait",
		"1st":                "X1st",
		"":                   "X",
		"*/":                 "X",
		"post /threads/{id}": "PostThreadsID",
		"x-request-id":       "XRequestID",
		"v2Beta":             "V2Beta",
	}
	for in, want := range cases {
		if got := GoName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLiteral(t *testing.T) {
	cases := map[string]string{
		"JOYING_BOX":   "JOYING_BOX",
		"issuing.card": "IssuingDotCard",
		"DateCreated<": "DateCreatedLt",
		"Etc/GMT+1":    "EtcSlashGMTPlus1",
		"-1":           "Minus1",
		"a--b":         "A_B",
		"\x00":         "U0000",
	}
	for in, want := range cases {
		if got := Literal(in); got != want {
			t.Errorf("literal(%q) = %q, want %q", in, got, want)
		}
	}
}
