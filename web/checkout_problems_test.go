package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"shop/store"
	"shop/store/demo"
)

// One submit of the checkout says every problem at once, each beside its
// field (the codes' too, not only in the summary), in the reader's
// language, and keeps what was typed; the order's summary says what the
// refused codes mean for the total rather than repeating why.
func TestCheckoutSaysEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.get("/cart?lang=id")
	b.addToCart("cf-grinder", "1")
	form := b.freshCheckoutForm()
	form.Set("zip", "")
	form.Set("discount", "NOSUCHCODE")
	form.Set("giftcard", demo.GiftCardSpent)
	p := b.post("/checkout", form)
	wantStatus(t, "three mistakes", p, http.StatusUnprocessableEntity)
	for field, want := range map[string]string{
		"zip": "Masukkan kode pos.", "discount": "Tidak ada kode diskon dengan kode itu.", "giftcard": "Kartu hadiah ini tidak punya saldo lagi.",
	} {
		if got := text(p.testid("error-" + field)); got != want {
			t.Errorf("beside %s: %q, want %q; the form's: %q", field, got, want, p.testid("form-error").Text())
		}
		if got := text(p.testid("summary-link-" + field)); got != want {
			t.Errorf("the error summary's link to %s says %q, want %q", field, got, want)
		}
		if attr(p.testid("field-"+field), "aria-invalid") != "true" || attr(p.testid("field-"+field), "aria-describedby") != "e-"+field {
			t.Errorf("%s is not marked invalid and described by its message", field)
		}
	}
	if got := text(p.testid("error-summary").Find("p").First()); got != "Periksa 3 kolom berikut:" {
		t.Errorf("the error summary is headed %q", got)
	}
	for field, want := range map[string]string{"discount": "NOSUCHCODE", "giftcard": demo.GiftCardSpent, "city": "Göteborg", "street": "Storgatan", "zip": ""} {
		if got := attr(p.testid("field-"+field), "value"); got != want {
			t.Errorf("%s comes back as %q, want %q", field, got, want)
		}
	}
	if got := attr(p.testid("field-country").Find("option[selected]"), "value"); got != "SE" {
		t.Errorf("the country comes back as %q, want SE", got)
	}
	for field, want := range map[string]string{"discount": "Kode diskon tidak diterapkan.", "giftcard": "Kartu hadiah tidak dipakai."} {
		note := p.testid("summary-error-" + field)
		if got := text(note); got != want || attr(note.Find("a"), "href") != "#f-"+field {
			t.Errorf("the order summary says of the %s %q (link %q), want %q leading to its field", field, got, attr(note.Find("a"), "href"), want)
		}
	}
	if s.madeHere(t, "order") != 0 {
		t.Fatal("a form with mistakes placed an order")
	}
}

// With JavaScript a code field's change re-prices the summary (htmx), and
// the field says its own problem beside it, out of band, announced, in the
// reader's language; a code put right gets its hint back.
func TestCheckoutCodeFieldsSayTheirOwnErrorsWithHtmx(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.get("/cart?lang=ko")
	b.addToCart("cf-grinder", "1")
	b.checkoutPage()
	codes := url.Values{"discount": {"NOSUCHCODE"}, "giftcard": {demo.GiftCardSpent}, "country": {"SE"}}
	p := b.post("/checkout/summary", codes, "HX-Request", "true")
	wantStatus(t, "the summary with two bad codes", p, http.StatusOK)
	if p.testid("summary").Length() != 1 || strings.Contains(p.body, "<html") {
		t.Fatalf("not the summary alone:\n%s", trim(p.body))
	}
	for field, want := range map[string]string{"discount": "해당 할인 코드가 없습니다.", "giftcard": "이 기프트 카드에는 남은 잔액이 없습니다."} {
		note := p.testid("error-" + field)
		if got := text(note); got != want {
			t.Errorf("beside %s: %q, want %q", field, got, want)
		}
		if attr(note, "id") != "e-"+field || attr(note, "hx-swap-oob") != "true" || attr(note, "role") != "alert" {
			t.Errorf("the %s's message is not swapped beside it and announced: %s", field, outer(note))
		}
	}
	wantText(t, "the summary says the code is out", p.testid("summary-error-discount"), "할인 코드가 적용되지 않았습니다.")

	p = b.post("/checkout/summary", url.Values{"discount": {""}, "giftcard": {""}, "country": {"SE"}}, "HX-Request", "true")
	wantStatus(t, "the summary with the codes taken out", p, http.StatusOK)
	for field, want := range map[string]string{"discount": "선택 사항입니다.", "giftcard": "선택 사항입니다. 잔액이 먼저 결제됩니다."} {
		hint := p.testid("hint-" + field)
		if got := text(hint); got != want || attr(hint, "id") != "e-"+field || attr(hint, "hx-swap-oob") != "true" {
			t.Errorf("the %s's hint is not back beside it: %q", field, outer(hint))
		}
	}
	if n := p.doc.Find(`[data-testid^="error-"], [data-testid^="summary-error-"]`).Length(); n != 0 {
		t.Errorf("%d errors left with no code typed", n)
	}
}

// Without JavaScript, "Apply" prices the codes before the order is placed:
// the form comes back with the code's total (and an unknown code at its
// field, nothing said of an address not typed yet), and "Place order" then
// goes to the payment page at that total instead of bouncing to say the
// total changed.
func TestCheckoutApplyPricesTheCodesWithoutJavaScript(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	if _, err := s.env.Store.CreateDiscountCode(context.Background(), store.DiscountCode{Code: "APPLY10", Kind: store.DiscountPercent, Percent: 10,
		UsageLimit: 5, ExpiresAt: time.Now().Add(24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.addToCart("cf-grinder", "1") // €54.90
	key, total := b.checkoutPage()
	if b.get("/checkout").testid("apply-codes").Length() != 1 {
		t.Fatal("no Apply button beside the codes")
	}

	unknown := url.Values{"key": {key}, "total": {total}, "discount": {"NOSUCHCODE"}, "apply": {"1"}}
	p := b.post("/checkout", unknown)
	wantStatus(t, "apply an unknown code", p, http.StatusUnprocessableEntity)
	if p.testid("error-discount").Text() == "" || p.testid("error-street").Length() != 0 {
		t.Fatalf("discount %q, street %q: the code's problem alone", p.testid("error-discount").Text(), p.testid("error-street").Text())
	}

	form := checkoutForm(key, total)
	form.Set("discount", "APPLY10")
	form.Set("apply", "1")
	p = b.post("/checkout", form)
	wantStatus(t, "apply", p, http.StatusOK)
	wantText(t, "the summary's discount", p.testid("summary"), "APPLY10")
	priced := attr(p.testid("expected-total"), "value")
	if priced != "4941" {
		t.Fatalf("the form's total after Apply is %q, want 4941 (€54.90 less 10%%)", priced)
	}
	if s.madeHere(t, "order") != 0 {
		t.Fatal("Apply placed an order")
	}
	form.Del("apply")
	form.Set("total", priced)
	p = b.post("/checkout", form)
	if s.paymentPage(p) == "" {
		t.Fatalf("place order after Apply: %d %q, form error %q", p.status, p.header.Get("Location"), p.testid("form-error").Text())
	}
}

// outer is the selection's HTML, to show in a failure.
func outer(sel *goquerySelection) string {
	h, err := goquery.OuterHtml(sel)
	if err != nil {
		return err.Error()
	}
	return h
}
