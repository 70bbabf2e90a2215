package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"shop/store"
)

// render renders one component alone, as templ's docs test components,
// and parses what it wrote. Table rows are parsed inside a table, where
// the page puts them (the HTML parser drops them anywhere else).
func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatalf("render: %v", err)
	}
	html := buf.String()
	if strings.HasPrefix(strings.TrimSpace(html), "<tr") {
		html = "<table>" + html + "</table>"
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc
}

func testid(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

// A field with an error marks its input invalid and points it at the
// message, which replaces the hint.
func TestFieldShowsItsErrorBesideTheInput(t *testing.T) {
	doc := render(t, Field(FieldSpec{Name: "email", Label: "Email", Type: "email", Value: `ada@"example`,
		Error: "Enter an email address like name@example.com", Hint: "We never share it", Required: true}))
	input := testid(doc, "field-email")
	if input.Length() != 1 {
		t.Fatalf("%d inputs", input.Length())
	}
	for attr, want := range map[string]string{"name": "email", "type": "email", "id": "f-email", "value": `ada@"example`,
		"aria-invalid": "true", "aria-describedby": "e-email"} {
		if got, _ := input.Attr(attr); got != want {
			t.Errorf("input %s=%q, want %q", attr, got, want)
		}
	}
	if _, ok := input.Attr("required"); !ok {
		t.Error("a required field's input is not required")
	}
	msg := testid(doc, "error-email")
	if id, _ := msg.Attr("id"); msg.Length() != 1 || id != "e-email" || msg.Text() != "Enter an email address like name@example.com" {
		t.Fatalf("error %q (id %q, %d found)", msg.Text(), id, msg.Length())
	}
	if strings.Contains(doc.Text(), "We never share it") {
		t.Error("the hint shows beside the error")
	}
	if label, _ := doc.Find("label").Attr("for"); label != "f-email" {
		t.Errorf("label for %q", label)
	}
}

func TestFieldWithoutErrorShowsItsHint(t *testing.T) {
	doc := render(t, Field(FieldSpec{Name: "password", Label: "Password", Type: "password", Hint: "At least 12 characters"}))
	input := testid(doc, "field-password")
	for _, attr := range []string{"aria-invalid", "aria-describedby", "required", "autocomplete"} {
		if _, ok := input.Attr(attr); ok {
			t.Errorf("a valid, optional field's input has %s", attr)
		}
	}
	if testid(doc, "error-password").Length() != 0 {
		t.Error("an error without one")
	}
	if got := doc.Find("small").Text(); got != "At least 12 characters" {
		t.Errorf("hint %q", got)
	}
}

func TestMoneyShowsTheAmountAsACustomerReadsIt(t *testing.T) {
	for _, tc := range []struct {
		m    store.Money
		want string
	}{
		{store.Money{Amount: 1250, Currency: "EUR"}, "€12.50"},
		{store.Money{Amount: 5, Currency: "EUR"}, "€0.05"},
		{store.Money{Amount: 100000, Currency: "GBP"}, "£1,000.00"}, // thousands grouped, as people write them
		{store.Money{Amount: 9900, Currency: "SEK"}, "99.00\u00a0kr"},
		{store.Money{Amount: 700, Currency: "NOK"}, "7.00 NOK"},
	} {
		doc := render(t, Money(tc.m))
		if got := testid(doc, "money").Text(); got != tc.want {
			t.Errorf("Money(%d %s) shows %q, want %q", tc.m.Amount, tc.m.Currency, got, tc.want)
		}
	}
}

// The "show more" link is a plain link to the next page, which htmx loads
// in its place; without a next page there is no link.
func TestMoreLinkLoadsTheNextPageInPlace(t *testing.T) {
	next := "/products?category=kitchen&after=eyJQSyI6InAjMSJ9"
	doc := render(t, MoreLink(next, "Show more products", "catalogue-more"))
	a := testid(doc, "catalogue-more")
	if a.Length() != 1 || a.Text() != "Show more products" {
		t.Fatalf("link %q (%d found)", a.Text(), a.Length())
	}
	for attr, want := range map[string]string{"href": next, "hx-get": next, "hx-target": "this", "hx-swap": "outerHTML"} {
		if got, _ := a.Attr(attr); got != want {
			t.Errorf("link %s=%q, want %q", attr, got, want)
		}
	}
	if doc := render(t, MoreLink("", "Show more products", "catalogue-more")); doc.Find("a").Length() != 0 {
		t.Error("a link to no next page")
	}
}

// A page of table rows ends with the row that loads the next page: htmx
// swaps that row for the rows it gets.
func TestOrderRowsEndWithTheRowLoadingOlderOrders(t *testing.T) {
	placed := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	orders := []store.Order{
		{ID: "o2", PlacedAt: placed, Status: store.OrderPlaced, Lines: 2, Total: store.Money{Amount: 3480, Currency: "EUR"}},
		{ID: "o1", PlacedAt: placed.AddDate(0, 0, -3), Status: store.OrderDelivered, Lines: 1, Total: store.Money{Amount: 990, Currency: "EUR"}},
	}
	doc := render(t, OrderRows(OrdersPage{Orders: orders, NextURL: "/orders?after=bzE"}))
	rows := testid(doc, "order-row")
	if rows.Length() != 2 {
		t.Fatalf("%d order rows, want 2", rows.Length())
	}
	if got := rows.First().Find(`[data-testid="money"]`).Text(); got != "€34.80" {
		t.Errorf("first row's total %q", got)
	}
	more := testid(doc, "orders-more")
	if more.Length() != 1 || !more.Closest("tr").Is("tr:last-child") {
		t.Fatalf("the link to older orders is not in the last row (%d found)", more.Length())
	}
	for attr, want := range map[string]string{"href": "/orders?after=bzE", "hx-get": "/orders?after=bzE", "hx-target": "closest tr", "hx-swap": "outerHTML"} {
		if got, _ := more.Attr(attr); got != want {
			t.Errorf("link %s=%q, want %q", attr, got, want)
		}
	}
	last := render(t, OrderRows(OrdersPage{Orders: orders[1:]}))
	if testid(last, "order-row").Length() != 1 || testid(last, "orders-more").Length() != 0 {
		t.Error("the last page links to more")
	}
}

// Times are shown in the shop's zone, with the zone named, summer or not.
func TestTimeLabelIsInTheShopsZone(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at   time.Time
		loc  *time.Location
		want string
	}{
		{time.Date(2026, 11, 22, 1, 31, 0, 0, time.UTC), stockholm, "22 Nov 2026, 02:31 CET"},
		{time.Date(2026, 7, 1, 22, 5, 0, 0, time.UTC), stockholm, "2 Jul 2026, 00:05 CEST"},
		{time.Date(2026, 11, 22, 1, 31, 0, 0, time.UTC), time.UTC, "22 Nov 2026, 01:31 UTC"},
		{time.Date(2026, 11, 22, 1, 31, 0, 0, stockholm), nil, "22 Nov 2026, 01:31 CET"}, // no zone given: as it is
	} {
		if got := timeLabel(tc.at, tc.loc); got != tc.want {
			t.Errorf("timeLabel(%s, %v) = %q, want %q", tc.at, tc.loc, got, tc.want)
		}
	}
}

// A failed form's summary leads with the form's message and links to each
// field in error in the form's order; it is announced and can take focus.
// No errors, no summary.
func TestErrorSummaryLinksToEachFieldInOrder(t *testing.T) {
	fields := []string{"name", "street", "card_number", "cvc"}
	if doc := render(t, ErrorSummary(FieldErrors{}, fields)); testid(doc, "error-summary").Length() != 0 {
		t.Fatal("a summary without errors")
	}
	doc := render(t, ErrorSummary(FieldErrors{"cvc": "Enter the security code.", "card_number": "Your bank declined the card.", "": "Nothing was charged."}, fields))
	sum := testid(doc, "error-summary")
	if role, _ := sum.Attr("role"); role != "alert" {
		t.Errorf("summary role %q, want alert", role)
	}
	if tab, _ := sum.Attr("tabindex"); tab != "-1" {
		t.Errorf("summary tabindex %q, want -1 (focus from the script)", tab)
	}
	if got := testid(doc, "form-error").Text(); got != "Nothing was charged." {
		t.Errorf("form message %q", got)
	}
	var links []string
	sum.Find("a").Each(func(_ int, a *goquery.Selection) {
		href, _ := a.Attr("href")
		links = append(links, href+" "+a.Text())
	})
	want := []string{"#f-card_number Your bank declined the card.", "#f-cvc Enter the security code."}
	if strings.Join(links, "|") != strings.Join(want, "|") {
		t.Errorf("links %q, want %q", links, want)
	}
	doc = render(t, ErrorSummary(FieldErrors{"street": "Enter the street."}, fields))
	if got := testid(doc, "error-summary").Find("p").Text(); got != "Please check one field:" {
		t.Errorf("lead without a form message: %q", got)
	}
}

// The money component shows a discount as one negative amount.
func TestMoneyShowsATakenOffAmount(t *testing.T) {
	doc := render(t, Money(store.Money{Amount: 1176, Currency: "EUR"}.Negated()))
	if got := testid(doc, "money").Text(); got != "−€11.76" {
		t.Errorf("taken off: %q, want −€11.76", got)
	}
}
