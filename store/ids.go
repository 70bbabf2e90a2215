package store

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"
)

// Ids and the addresses keys are made of: what may go into a key.

// NormalizeEmail is the form an address is stored and compared in:
// lower case and NFC, so that "José" typed with a combining accent (NFD, as
// some keyboards send it) is the same account as with the precomposed é.
func NormalizeEmail(email string) string {
	return norm.NFC.String(strings.ToLower(strings.TrimSpace(email)))
}

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewID returns a 20-character id: 48 bits of milliseconds, so ids sort by
// creation time, then 48 random bits. Safe in URLs and keys.
func NewID() string {
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("store: crypto/rand failed: " + err.Error())
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
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
