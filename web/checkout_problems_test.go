package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
)

// One submit of the checkout says every problem at once, each beside its
// field (the codes' too, not only in the summary), and keeps what was
// typed.
func TestCheckoutSaysEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.addToCart("cf-grinder", "1")
	form := b.freshCheckoutForm()
	form.Del("street")
	form.Set("discount", "NOSUCHCODE")
	form.Set("giftcard", demo.GiftCardSpent)
	p := b.post("/checkout", form)
	wantStatus(t, "three mistakes", p, http.StatusUnprocessableEntity)
	for _, field := range []string{"street", "discount", "giftcard"} {
		if p.testid("error-"+field).Text() == "" {
			t.Errorf("no message beside %s; the form's: %q", field, p.testid("form-error").Text())
		}
	}
	for field, want := range map[string]string{"discount": "NOSUCHCODE", "giftcard": demo.GiftCardSpent, "city": "Göteborg", "zip": "41101"} {
		if got := attr(p.testid("field-"+field), "value"); got != want {
			t.Errorf("%s comes back as %q, want %q", field, got, want)
		}
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
