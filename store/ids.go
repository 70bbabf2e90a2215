package store

import (
	"encoding/base32"
	"strings"

	"golang.org/x/text/unicode/norm"

	"shop/store/rules"
)

// The addresses keys are made of; ids are made in package rules.

// NormalizeEmail is the form an address is stored and compared in:
// lower case and NFC, so that "José" typed with a combining accent (NFD, as
// some keyboards send it) is the same account as with the precomposed é.
func NormalizeEmail(email string) string {
	return norm.NFC.String(strings.ToLower(strings.TrimSpace(email)))
}

// idEncoding is the ids' base32 (rules.IDAlphabet), for the numbers and
// keys the store makes of bytes.
var idEncoding = base32.NewEncoding(rules.IDAlphabet).WithPadding(base32.NoPadding)
