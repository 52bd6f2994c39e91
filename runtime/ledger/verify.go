package ledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrSignature is matched by the error of a delivery whose signature does
// not verify; the inbox answers it with 401.
var ErrSignature = errors.New("ledger: webhook signature does not verify")

// Verifier authenticates a webhook delivery and names the event it
// carries. A Verifier that accepts a delivery signed some time away from
// now says how long with a method
//
//	Tolerance() time.Duration
//
// and Ledger.Inbox refuses a retention shorter than twice that.
type Verifier interface {
	// Verify checks the delivery's signature at time now and returns the
	// provider's id of the event. Errors match ErrSignature.
	Verify(header http.Header, body []byte, now time.Time) (eventID string, err error)
}

// tolerant is a Verifier with a signature tolerance.
type tolerant interface {
	Tolerance() time.Duration
}

// StandardWebhooks verifies deliveries signed as the Standard Webhooks
// specification says: headers webhook-id, webhook-timestamp (Unix seconds)
// and webhook-signature ("v1,<base64>", several separated by spaces), the
// signature an HMAC-SHA256 over "id.timestamp.body".
type StandardWebhooks struct {
	key       []byte
	tolerance time.Duration
}

var (
	_ Verifier = (*StandardWebhooks)(nil)
	_ tolerant = (*StandardWebhooks)(nil)
)

// NewStandardWebhooks returns a verifier for secret ("whsec_<base64>", the
// prefix optional) that refuses timestamps further than tolerance from now
// (5 minutes when tolerance is 0).
func NewStandardWebhooks(secret string, tolerance time.Duration) (*StandardWebhooks, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return nil, errors.New("ledger: webhook secret is not whsec_ followed by base64")
	}
	if tolerance <= 0 {
		tolerance = 5 * time.Minute
	}
	return &StandardWebhooks{key: key, tolerance: tolerance}, nil
}

// Tolerance returns how far from now a delivery's timestamp may be.
func (s *StandardWebhooks) Tolerance() time.Duration { return s.tolerance }

// Verify implements Verifier.
func (s *StandardWebhooks) Verify(h http.Header, body []byte, now time.Time) (string, error) {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return "", fmt.Errorf("%w: webhook-id, webhook-timestamp and webhook-signature are required", ErrSignature)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return "", fmt.Errorf("%w: webhook-timestamp %q is not Unix seconds", ErrSignature, ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > s.tolerance || d < -s.tolerance {
		return "", fmt.Errorf("%w: webhook-timestamp is %s away from now", ErrSignature, d.Round(time.Second))
	}
	want := s.mac(id, ts, body)
	for sig := range strings.FieldsSeq(sigs) {
		version, b64, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: no v1 signature matches", ErrSignature)
}

// Sign returns the webhook-signature value for a delivery, as a provider
// would send it.
func (s *StandardWebhooks) Sign(id string, at time.Time, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(s.mac(id, strconv.FormatInt(at.Unix(), 10), body))
}

func (s *StandardWebhooks) mac(id, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	return m.Sum(nil)
}
