package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

var giftCode = regexp.MustCompile(`^GIFT-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$`)

func TestAdminGiftCardsAndDiscountCodes(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)

	g := b.get("/admin/giftcards")
	wantStatus(t, "gift cards", g, http.StatusOK)
	demoCards := g.testid("giftcard-row").Length() // the README's gift cards to try
	if demoCards != 2 || g.testid("giftcards-empty").Length() != 0 {
		t.Fatalf("the demo lists %d gift cards", demoCards)
	}
	p := b.post("/admin/giftcards", url.Values{"code": {""}, "amount": {"50"}})
	wantStatus(t, "issue with a new code", p, http.StatusSeeOther)
	g = b.get("/admin/giftcards")
	wantText(t, "flash", g.testid("flash"), "Issued gift card GIFT-")
	if code := g.testid("giftcard-code").First().Text(); !giftCode.MatchString(code) {
		t.Fatalf("generated code %q", code)
	}
	wantText(t, "balance", g.testid("giftcard-balance").First(), "€50.00")

	wantStatus(t, "issue a typed code", b.post("/admin/giftcards", url.Values{"code": {"fika 2025"}, "amount": {"25.50"}}), http.StatusSeeOther)
	card, err := s.env.Store.GiftCard(context.Background(), "FIKA2025")
	if err != nil || card.Balance.Amount != 2550 {
		t.Fatalf("stored %+v, %v", card, err)
	}
	p = b.post("/admin/giftcards", url.Values{"code": {"FIKA2025"}, "amount": {"10"}})
	wantStatus(t, "duplicate gift card", p, http.StatusUnprocessableEntity)
	wantText(t, "duplicate gift card", p.testid("error-code"), "exists")
	p = b.post("/admin/giftcards", url.Values{"code": {"fika2025"}, "amount": {"10"}}, "HX-Request", "true")
	wantStatus(t, "duplicate gift card with htmx", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "<html") || p.testid("giftcard-form").Length() != 1 || p.testid("error-code").Length() != 1 {
		t.Fatalf("htmx duplicate answered %s", trim(p.body))
	}
	for _, bad := range []url.Values{
		{"amount": {"ten"}}, {"amount": {"0"}}, {"amount": {"-5"}}, {"amount": {"1.234"}}, {"amount": {""}}, {"amount": {"20000"}},
		{"amount": {"10"}, "code": {"no"}}, {"amount": {"10"}, "code": {"bad*code"}},
	} {
		p := b.post("/admin/giftcards", bad)
		wantStatus(t, "bad gift card "+bad.Encode(), p, http.StatusUnprocessableEntity)
		if p.doc.Find(`[data-testid="error-amount"], [data-testid="error-code"]`).Text() == "" {
			t.Fatalf("%s: no message at the field", bad.Encode())
		}
	}
	if n := b.get("/admin/giftcards").testid("giftcard-row").Length() - demoCards; n != 2 {
		t.Fatalf("%d gift cards after bad input, want 2", n)
	}

	d := b.get("/admin/discounts")
	wantStatus(t, "discounts", d, http.StatusOK)
	demoCodes := d.testid("discount-row").Length() // the README's codes to try
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	p = b.post("/admin/discounts", url.Values{"code": {"summer-25"}, "kind": {"percent"}, "value": {"25"}, "expires": {tomorrow}, "limit": {"100"}})
	wantStatus(t, "percent code", p, http.StatusSeeOther)
	p = b.post("/admin/discounts", url.Values{"code": {"FIVEOFF"}, "kind": {"fixed"}, "value": {"5"}, "expires": {tomorrow}, "limit": {"1"}})
	wantStatus(t, "fixed code", p, http.StatusSeeOther)
	d = b.get("/admin/discounts")
	if d.testid("discount-row").Length()-demoCodes != 2 {
		t.Fatalf("%d codes listed after the demo's %d", d.testid("discount-row").Length(), demoCodes)
	}
	row := d.doc.Find(`[data-testid="discount-row"][data-code="SUMMER-25"]`)
	wantText(t, "percent", row.Find(`[data-testid="discount-value"]`), "25 %")
	wantText(t, "uses", row.Find(`[data-testid="discount-uses"]`), "0 / 100")
	wantText(t, "state", row.Find(`[data-testid="discount-state"]`), "Active")
	wantText(t, "fixed", d.doc.Find(`[data-testid="discount-row"][data-code="FIVEOFF"] [data-testid="discount-value"]`), "€5.00")
	code, err := s.env.Store.DiscountCode(context.Background(), "SUMMER-25")
	if err != nil || code.Percent != 25 || code.UsageLimit != 100 || !code.ExpiresAt.Equal(time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)) {
		t.Fatalf("stored %+v, %v", code, err)
	}

	p = b.post("/admin/discounts", url.Values{"code": {"Summer-25"}, "kind": {"fixed"}, "value": {"3"}, "expires": {tomorrow}, "limit": {"5"}})
	wantStatus(t, "duplicate code", p, http.StatusUnprocessableEntity)
	wantText(t, "duplicate code", p.testid("error-code"), "exists")
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
	for _, bad := range []struct {
		field string
		form  url.Values
	}{
		{"value", url.Values{"code": {"PCT0"}, "kind": {"percent"}, "value": {"0"}, "expires": {tomorrow}, "limit": {"1"}}},
		{"value", url.Values{"code": {"PCT101"}, "kind": {"percent"}, "value": {"101"}, "expires": {tomorrow}, "limit": {"1"}}},
		{"value", url.Values{"code": {"FIXBAD"}, "kind": {"fixed"}, "value": {"five"}, "expires": {tomorrow}, "limit": {"1"}}},
		{"value", url.Values{"code": {"NOVALUE"}, "kind": {"fixed"}, "value": {""}, "expires": {tomorrow}, "limit": {"1"}}},
		{"kind", url.Values{"code": {"KINDX"}, "kind": {"bogus"}, "value": {"5"}, "expires": {tomorrow}, "limit": {"1"}}},
		{"expires", url.Values{"code": {"OLDONE"}, "kind": {"percent"}, "value": {"5"}, "expires": {yesterday}, "limit": {"1"}}},
		{"expires", url.Values{"code": {"BADDAY"}, "kind": {"percent"}, "value": {"5"}, "expires": {"2025-02-30"}, "limit": {"1"}}},
		{"limit", url.Values{"code": {"NOLIMIT"}, "kind": {"percent"}, "value": {"5"}, "expires": {tomorrow}, "limit": {"0"}}},
		{"code", url.Values{"code": {"x"}, "kind": {"percent"}, "value": {"5"}, "expires": {tomorrow}, "limit": {"1"}}},
	} {
		p := b.post("/admin/discounts", bad.form, "HX-Request", "true")
		wantStatus(t, "bad discount "+bad.form.Encode(), p, http.StatusUnprocessableEntity)
		if p.testid("error-"+bad.field).Text() == "" {
			t.Fatalf("%s: no message at %s: %s", bad.form.Encode(), bad.field, trim(p.body))
		}
	}
	if n := b.get("/admin/discounts").testid("discount-row").Length() - demoCodes; n != 2 {
		t.Fatalf("%d codes after bad input, want 2", n)
	}
}
