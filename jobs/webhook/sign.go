// Package webhook sends the shop's events to the endpoints integrations
// register: signed as Stripe signs (Sign), over an HTTP client that dials
// only public addresses (NewClient), by a deliverer that retries with
// backoff for three days under a lease (Deliverer).
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a delivery's signature.
const SignatureHeader = "Shop-Signature"

// Sign is the Shop-Signature of body sent at t: "t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<body>" keyed by the endpoint's secret>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Errors of Verify.
var (
	ErrBadSignature = errors.New("the signature does not match")
	ErrTooOld       = errors.New("the signature's time is outside the tolerance")
)

// Verify checks a Shop-Signature header against body as a receiver does:
// a v1 that matches (compared in constant time) and a t within tolerance
// of now. It is what docs/api.md (Webhooks) shows integrators.
func Verify(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrTooOld
	}
	want := mac(secret, ts, body)
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return ErrBadSignature
}
