package views

import (
	"encoding/json"
	"html"
	"strings"
	"testing"
	"unicode/utf8"
)

// A page's <title> fits html-validate's 70 characters as written (the
// shop's name and its &amp; included): a long title, a mail's subject
// say, is cut short with "…"; a short one is kept whole.
func TestDocumentTitleFits(t *testing.T) {
	for title, want := range map[string]string{
		"Outbox": "Outbox · Fika & Field",
		"Your payment for Archipelago Light Roast 500 g on 28 November 2026": "Your payment for Archipelago Light Roast 500 g on… · Fika & Field",
		strings.Repeat("&", 80):              strings.Repeat("&", 10) + "… · Fika & Field",
		"":                                   " · Fika & Field",
		strings.Repeat("a", 51):              strings.Repeat("a", 51) + " · Fika & Field", // 70 written
		strings.Repeat("a", 52):              strings.Repeat("a", 50) + "… · Fika & Field",
		"Ünïcödé " + strings.Repeat("a", 43): "Ünïcödé " + strings.Repeat("a", 43) + " · Fika & Field",
		"Ünïcödé " + strings.Repeat("a", 44): "Ünïcödé " + strings.Repeat("a", 42) + "… · Fika & Field",
	} {
		got := Layout{Title: title}.DocumentTitle()
		if got != want {
			t.Errorf("title %q: %q, want %q", title, got, want)
		}
		if n := utf8.RuneCountInString(html.EscapeString(got)); n > titleMax {
			t.Errorf("title %q: %d characters written", title, n)
		}
	}
}

// The hx-headers value is the JSON json.Marshal writes, whatever the token.
func TestCSRFHeadersAreJSON(t *testing.T) {
	for _, token := range []string{"abcXYZ019-_", `odd"<&>\token`, "ünï"} {
		b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
		if got := csrfHeaders(token); got != string(b) {
			t.Errorf("token %q: %s, want %s", token, got, b)
		}
		// The kept frame writes them escaped without making them.
		var buf strings.Builder
		if err := writeHxHeaders(&buf, token); err != nil || buf.String() != html.EscapeString(string(b)) {
			t.Errorf("token %q written %s, want %s (%v)", token, buf.String(), html.EscapeString(string(b)), err)
		}
	}
	if csrfHeaders("") != "" {
		t.Error("no token: want no headers")
	}
}
