package payment

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// SignatureTolerance is how far a webhook's signed time may be from now:
// an older request (a replay) is refused.
const SignatureTolerance = 5 * time.Minute

// SignWebhook signs a webhook's body as Stripe does: "t=<unix>,v1=<hex
// HMAC-SHA256(secret, "<unix>.<body>")>", so a receiver checks the body
// and its time together.
func SignWebhook(secret string, body []byte, at time.Time) string {
	t := strconv.FormatInt(at.Unix(), 10)
	return "t=" + t + ",v1=" + hex.EncodeToString(webhookMAC(secret, t, body))
}

func webhookMAC(secret, t string, body []byte) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return mac.Sum(nil)
}

// VerifyWebhook checks a signature header (SignWebhook's form; any of
// several v1 values may match, as when a secret is being rolled) over body,
// and that its time is within tolerance of now. Anything else is
// ErrBadSignature.
func VerifyWebhook(secret string, body []byte, header string, now time.Time, tolerance time.Duration) error {
	var t string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			if t != "" {
				return ErrBadSignature // two times: which one was signed?
			}
			t = v
		case "v1":
			if sig, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, sig)
			}
		}
	}
	unix, err := strconv.ParseInt(t, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return ErrBadSignature
	}
	want := webhookMAC(secret, t, body)
	for _, sig := range sigs {
		if hmac.Equal(sig, want) {
			return nil
		}
	}
	return ErrBadSignature
}
