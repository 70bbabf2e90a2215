package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"shop/store"
	"shop/store/demo"
)

// The checkout with JavaScript off: a code and a gift card typed into the
// form are priced by "Apply" (the summary cannot refresh by itself), and
// the order is placed at that total without a bounce; the rest is paid on
// the test payment page;
// back on the order, a link reloads it until the provider's event has
// placed it.
func TestBrowserCheckoutWithoutJavaScript(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	if _, err := s.env.Store.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-NO-SCRIPT", Balance: store.Money{Amount: 1000, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CreateDiscountCode(ctx, store.DiscountCode{Code: "NOSCRIPT10", Kind: store.DiscountPercent, Percent: 10, UsageLimit: 5, ExpiresAt: time.Now().Add(24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	j := newJourney(t, s.base)
	j.do("no JavaScript", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	j.signIn(demo.CustomerEmail, demo.CustomerPassword)
	for _, product := range []string{"cf-grinder", "bk-fjord"} {
		j.do("add "+product,
			chromedp.Navigate(s.base+"/products/"+product),
			chromedp.WaitVisible(sel("add-submit")),
			chromedp.Click(sel("add-submit")),
			chromedp.WaitVisible(sel("flash")), // the page loaded again, saying so
		)
	}
	j.do("to the checkout",
		chromedp.Navigate(s.base+"/cart"),
		chromedp.WaitVisible(sel("to-checkout")),
		chromedp.Click(sel("to-checkout")),
		chromedp.WaitVisible(sel("checkout-form")),
	)
	j.do("address and codes", storgatanAddress()...)
	j.do("apply the codes",
		chromedp.SendKeys(sel("field-discount"), "noscript10"),
		chromedp.SendKeys(sel("field-giftcard"), "gift-no-script"),
		chromedp.Click(sel("apply-codes")),
		chromedp.WaitVisible(sel("summary-giftcard")),
	)
	// €74.80 less 10 % is €67.32, the gift card pays €10.00: Apply brought
	// the form back priced, with nothing to correct.
	j.shot("nojs-1-checkout-codes-applied")
	if got := j.rawText(sel("summary-card")); !strings.Contains(got, "€57.32") {
		t.Fatalf("to pay by card %q, want €57.32", got)
	}
	if n := j.count(sel("form-error")); n != 0 {
		t.Fatalf("Apply came back with an error: %q", j.text(sel("form-error")))
	}
	j.do("place the order at that total", chromedp.Click(sel("place-order")), chromedp.WaitVisible(sel("test-payment-form")))
	if got := j.rawText(sel("test-payment-amount")); !strings.Contains(got, "€57.32") {
		t.Fatalf("the payment page asks %q, want €57.32", got)
	}
	j.payOnTestPage("Ada Lindqvist", "payment-refresh")
	j.shot("nojs-2-order-confirming")
	s.deliverEvents(t, nil)
	j.do("reload by the link", chromedp.Click(sel("payment-refresh")), chromedp.WaitVisible(sel("invoice")))
	if got := j.rawText(sel("order-status")); got != "Placed, to be packed" {
		t.Fatalf("order status %q after its payment", got)
	}
	if n := j.count(sel("payment-confirming")); n != 0 {
		t.Fatalf("the placed order still says it is confirming the payment (%d)", n)
	}
	j.shot("nojs-3-order-placed")
}

// payOnTestPage types a card that pays on the test provider's page, in
// holder's name, sends it and waits for the page it leads to to show
// landed.
func (j journey) payOnTestPage(holder, landed string) {
	j.t.Helper()
	j.do("pay on the test payment page",
		chromedp.SendKeys(sel("field-card_number"), "4242 4242 4242 4242"),
		chromedp.SendKeys(sel("field-expiry"), "12/30"),
		chromedp.SendKeys(sel("field-cvc"), "123"),
		chromedp.SendKeys(sel("field-name"), holder),
		chromedp.Click(sel("test-payment-submit")),
		chromedp.WaitVisible(sel(landed)),
	)
}

// storgatanAddress types the journeys' shipping address into the checkout.
func storgatanAddress() []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.SendKeys(sel("field-street"), "Storgatan"),
		chromedp.SendKeys(sel("field-number"), "12"),
		chromedp.SendKeys(sel("field-zip"), "41101"),
		chromedp.SendKeys(sel("field-city"), "Göteborg"),
		chromedp.SetValue(sel("field-country"), "SE"),
	}
}
