// Package views holds the templ layouts, shared components, pages and the
// partials htmx swaps, with the typed data each one takes.
package views

import (
	"context"
	"encoding/json"
	"html"
	"strings"
	"unicode/utf8"

	"shop/store"
)

// ShopName is the storefront's name.
const ShopName = "Fika & Field"

// Viewer is who is looking: the zero Viewer is a visitor.
type Viewer struct {
	ID    string
	Name  string
	Staff bool
	// Owner is staff who manage the staff (roles, deactivation).
	Owner bool
}

// SignedIn reports whether the viewer has an account session.
func (v Viewer) SignedIn() bool { return v.ID != "" }

// FlashKind styles a flash message.
type FlashKind string

const (
	FlashSuccess FlashKind = "success"
	FlashInfo    FlashKind = "info"
	FlashError   FlashKind = "error"
)

// Flash is a one-time message shown at the top of the next page.
type Flash struct {
	Kind    FlashKind
	Message string
}

// Layout is what every page's frame shows.
type Layout struct {
	Title string
	// Description is the page's summary for search engines and link
	// previews; "" gives one made from the title.
	Description string
	Viewer      Viewer
	CSRF        string
	Path        string
	RequestID   string
	Flash       Flash
	// CartUnits is the number of items in the cart, as the visit keeps it
	// (no read of the cart).
	CartUnits int
	// Search is the search this page shows (the search page); nil on
	// others, whose header box shows its results under it as you type.
	Search *SearchPage
	// Zone names the shop's time zone on the staff console's pages.
	Zone string
}

// MetaDescription is the page's description, or one made from its title
// (every page has one: search engines show it under the link).
func (l Layout) MetaDescription(ctx context.Context) string {
	if l.Description != "" {
		return l.Description
	}
	return t(ctx, "layout.description", "Title", l.Title, "Shop", ShopName)
}

// titleMax is the most characters a page's <title> holds as written in
// the HTML, the shop's name included (html-validate's long-title: search
// results and tabs cut longer ones).
const titleMax = 70

// titleSuffixWritten is how many characters the title's " · " + ShopName
// is as written in the HTML (its & escaped).
var titleSuffixWritten = utf8.RuneCountInString(html.EscapeString(" · " + ShopName))

// DocumentTitle is the page's <title>: its title, cut short with "…" when
// it would not fit (a mail's subject in the outbox, a long product name),
// then the shop's name.
func (l Layout) DocumentTitle() string {
	const suffix = " · " + ShopName
	if len(l.Title)+titleSuffixWritten <= titleMax && !strings.ContainsAny(l.Title, `<>&'"`) && utf8.ValidString(l.Title) {
		return l.Title + suffix // fits as it is: none of it escaped, no more characters than bytes
	}
	title := []rune(l.Title)
	for cut := false; ; cut = true {
		t := string(title)
		if cut {
			t = strings.TrimSpace(t) + "…"
		}
		if len(title) == 0 || utf8.RuneCountInString(html.EscapeString(t+suffix)) <= titleMax {
			return t + suffix
		}
		title = title[:len(title)-1]
	}
}

// csrfHeaders is the hx-headers value that sends the CSRF token with every
// htmx request of the page.
func csrfHeaders(token string) string {
	if token == "" {
		return ""
	}
	if plainToken(token) {
		// What json.Marshal writes, without its map and reflection (every page asks).
		return `{"X-CSRF-Token":"` + token + `"}`
	}
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}

// plainToken reports whether a token is letters, digits, '-' and '_' alone
// (base64url, as the shop's tokens are), which JSON writes as they are.
func plainToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// FieldErrors maps a form field's name to its message; the key "" holds a
// message about the whole form.
type FieldErrors map[string]string

// Any reports whether there is an error.
func (e FieldErrors) Any() bool { return len(e) > 0 }

// Has reports whether field has an error.
func (e FieldErrors) Has(field string) bool { _, ok := e[field]; return ok }

// Total is the stock across warehouses.
func (s StockPanel) Total() int { return store.TotalStock(s.Levels) }

// ErrorPage explains a failed request.
type ErrorPage struct {
	Status    int
	Message   string
	RequestID string
	// Console: the error of a staff console page, shown in the console's
	// layout and leading back to it.
	Console bool
}
