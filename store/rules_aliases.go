package store

import (
	"time"

	"shop/store/rules"
)

// The rules (package rules) that many packages name through the store: an
// alias or a one-line forwarder each, so that moving them out of the store
// did not rename them in every handler, view and job. Newer code may use
// package rules directly.

// Money is an amount in minor units of a currency (rules.Money).
type Money = rules.Money

// VATLine is what a document's lines at one rate come to (rules.VATLine).
type VATLine = rules.VATLine

// DefaultCurrency prices the demo catalogue (rules.DefaultCurrency).
const DefaultCurrency = rules.DefaultCurrency

// FormatDate writes a billing date as YYYY-MM-DD (rules.FormatDate).
func FormatDate(d time.Time) string { return rules.FormatDate(d) }

// NewID is rules.NewID, for the many packages that make ids.
func NewID() string { return rules.NewID() }

// ValidID is rules.ValidID, for the many packages that check them.
func ValidID(s string) bool { return rules.ValidID(s) }

// MailID is rules.MailID, for the many packages that name mails.
func MailID(parts ...string) string { return rules.MailID(parts...) }
