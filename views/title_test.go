package views

import (
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
		strings.Repeat("&", 80): strings.Repeat("&", 10) + "… · Fika & Field",
		"":                      " · Fika & Field",
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
