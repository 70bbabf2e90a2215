package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store/payment"
)

// The test provider's page in Chromium, without a line of script of its
// own: on a phone it fits, the card that asks brings the bank's question,
// approving it goes on to the shop; wide, it reads the same.
func TestBrowserTestPaymentPage(t *testing.T) {
	t.Parallel()
	s := newTestPayShop(t)
	_, path := s.session(t, payment.CheckoutRequest{Amount: eur(4590), Description: "Order 1042: Archipelago Light Roast ×2, Cinnamon Days",
		SuccessURL: s.base + "/?paid={CHECKOUT_SESSION_ID}"})
	j := newJourney(t, s.base)
	j.phone()
	j.noSidewaysScroll(path)
	j.shot("test-payment-360")
	j.do("pay with the card that asks",
		chromedp.SendKeys(sel("field-card_number"), "4000 0027 6000 3184"),
		chromedp.SendKeys(sel("field-expiry"), "12/40"),
		chromedp.SendKeys(sel("field-cvc"), "123"),
		chromedp.SendKeys(sel("field-name"), "Ada Lovelace"),
		chromedp.Click(sel("test-payment-submit")),
		chromedp.WaitVisible(sel("test-payment-challenge")),
	)
	j.noSidewaysScroll(path)
	j.shot("test-payment-challenge-360")
	if got := j.text(sel("test-payment-challenge")); !strings.Contains(got, "Visa •••• 3184") || !strings.Contains(got, "€45.90") {
		t.Fatalf("the question says %q", got)
	}
	j.do("approve", chromedp.Click(sel("challenge-approve")), chromedp.WaitVisible(sel("nav-cart")))
	at, err := chromedp.Run(j.ctx, chromedp.Location())
	if err != nil || !strings.Contains(at, "?paid=cs_test_") {
		t.Fatalf("went on to %s (%v)", at, err)
	}
	j.do("1280 px wide", chromedp.EmulateViewport(1280, 900))
	_, wide := s.session(t, payment.CheckoutRequest{Amount: eur(1990), Description: "Order 1043: Trail Mug"})
	j.noSidewaysScroll(wide)
	j.do("a declined card", chromedp.SendKeys(sel("field-card_number"), payment.CardDeclined),
		chromedp.SendKeys(sel("field-expiry"), "12/40"), chromedp.SendKeys(sel("field-cvc"), "123"),
		chromedp.SendKeys(sel("field-name"), "Ada Lovelace"), chromedp.Click(sel("test-payment-submit")),
		chromedp.WaitVisible(sel("error-card_number")))
	j.shot("test-payment-1280")
}
