package store_test

import (
	"strings"
	"testing"

	"shop/store"
)

// Every mail's id can be opened at /admin/outbox/<id>: MailID keeps an id
// made of ids, dates and digits as it was (a rerun finds the mail it wrote
// before), and turns anything else into an id ValidID takes, different for
// different reasons. The outbox accepts the dotted ids account mails had,
// in their exact shape only.
func TestOutboxMailIDs(t *testing.T) {
	for _, tc := range []struct {
		parts []string
		want  string
	}{
		{[]string{"order", "06h202fx3v0yf8hz0sr0"}, "order-06h202fx3v0yf8hz0sr0"},
		{[]string{"payfail", "06h202fx3v0yf8hz0sr0", "2026-11-28", "a2"}, "payfail-06h202fx3v0yf8hz0sr0-2026-11-28-a2"},
		{[]string{"verify", "06h202fx3v0yf8hz0sr0", "20261128T011055808"}, "verify-06h202fx3v0yf8hz0sr0-20261128T011055808"},
	} {
		if got := store.MailID(tc.parts...); got != tc.want {
			t.Errorf("MailID(%q) = %q, want %q", tc.parts, got, tc.want)
		}
	}
	long := strings.Repeat("p", 64)
	odd := [][]string{
		{"verify", "06h202fx3v0yf8hz0sr0", "20261128T011055.808"},
		{"verify", "06h202fx3v0yf8hz0sr0", "20261128T011055-808"},
		{"price", long, "2026-12-28", "06h202fx3v0yf8hz0sr0"},
		{"price", long, "2026-12-28", "06h202fx3v0yf8hz0sr1"},
		{"dropcancel", "d1", "partner:client.7"},
		{"x", "Göteborg"},
	}
	seen := map[string]bool{}
	for _, parts := range odd {
		id := store.MailID(parts...)
		if !store.ValidID(id) || seen[id] || id != store.MailID(parts...) {
			t.Errorf("MailID(%q) = %q: not an id, not its own, or not the same twice", parts, id)
		}
		seen[id] = true
	}

	for id, want := range map[string]bool{
		"order-06h202fx3v0yf8hz0sr0":                        true,
		"verify-06h202fx3v0yf8hz0sr0-20261128T011055.808":   true,
		"reset-06h202fx3v0yf8hz0sr0-20261128T011055.808":    true,
		"verify-06h202fx3v0yf8hz0sr0-20261128T011055.80":    false,
		"verify-06h202fx3v0yf8hz0sr0-20261128T011055..808":  false,
		"order-06h202fx3v0yf8hz0sr0-20261128T011055.808":    false,
		"verify-06h202f.3v0yf8hz0sr0-20261128T011055.808":   false,
		"verify-06h202fx3v0yf8hz0sr0-20261128T011055.808/x": false,
		"verify--20261128T011055.808":                       false,
		"../verify-x-20261128T011055.808":                   false,
		"a.b":                                               false,
		"":                                                  false,
	} {
		if got := store.OutboxID(id); got != want {
			t.Errorf("OutboxID(%q) = %v, want %v", id, got, want)
		}
	}
}
