package rules

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"
	"time"
)

// Ids: how they are made and what may go into a key.

// IDAlphabet is the ids' base32: no i, l, o or u.
const IDAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

var idEncoding = base32.NewEncoding(IDAlphabet).WithPadding(base32.NoPadding)

// NewID returns a 20-character id: 48 bits of milliseconds, so ids sort by
// creation time, then 48 random bits. Safe in URLs and keys.
func NewID() string {
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("rules: crypto/rand failed: " + err.Error())
	}
	return idEncoding.EncodeToString(b[:])
}

// ValidID reports whether s can be an id in a URL: 1 to 64 characters of
// letters, digits, '-' and '_'. Keys never come from user input unchecked.
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !idByte(s[i]) {
			return false
		}
	}
	return true
}

// idByte reports whether c may be in an id.
func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// MailID is the outbox id of a mail: its reason's parts joined by '-'
// (MailID("receipt", subscriptionID, number)), the same for the same reason
// so that a rerun cannot mail twice. It is always a ValidID, since staff
// open every mail at /admin/outbox/<id>: parts should be ids, dates and
// digits, and should one hold a byte ValidID refuses (a timestamp's '.') or
// make the id too long, that byte becomes '-' and the id is cut to 50 bytes
// and ends in a hash of the whole, so that two reasons still differ.
func MailID(parts ...string) string {
	id := strings.Join(parts, "-")
	if ValidID(id) {
		return id
	}
	clean := []byte(id)
	for i, c := range clean {
		if !idByte(c) {
			clean[i] = '-'
		}
	}
	sum := sha256.Sum256([]byte(id))
	return string(clean[:min(len(clean), 50)]) + "-" + idEncoding.EncodeToString(sum[:8])
}
