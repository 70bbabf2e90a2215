package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// A visitor checks out as a guest with JavaScript off, on a phone's width:
// the email and the address are a plain form, a mistake comes back at its
// field, and the order is paid and shown to the guest without an account.
// With SHOP_SCREENSHOTS set, the checkout is kept at 360 and 1280 px.
func TestBrowserGuestCheckoutWithoutJavaScript(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	j := newJourney(t, s.base)
	j.do("no JavaScript, a phone's width", chromedp.EmulateViewport(360, 780), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	j.do("add to the cart",
		chromedp.Navigate(s.base+"/products/cf-grinder"),
		chromedp.WaitVisible(sel("add-submit")),
		chromedp.Click(sel("add-submit")),
		chromedp.WaitVisible(sel("flash")),
	)
	j.do("to the checkout",
		chromedp.Navigate(s.base+"/checkout"),
		chromedp.WaitVisible(sel("guest-checkout")),
		chromedp.WaitVisible(sel("checkout-sign-in-link")),
	)
	j.shot("guest-1-checkout-360")
	j.do("a bad email", chromedp.SendKeys(sel("field-email"), "grace"), chromedp.SendKeys(sel("field-name"), "Grace Guest"))
	j.do("the address", storgatanAddress()...)
	j.do("place the order", chromedp.Click(sel("place-order")), chromedp.WaitVisible(sel("error-email")))
	j.shot("guest-2-bad-email-360")
	// What was typed is kept: the rest of the address is typed after it.
	j.do("the email put right",
		chromedp.SendKeys(sel("field-email"), kb.End+"@example.com"),
		chromedp.EmulateViewport(1280, 900),
	)
	j.shot("guest-3-checkout-1280")
	j.do("place the order", chromedp.Click(sel("place-order")), chromedp.WaitVisible(sel("test-payment-form")))
	j.payOnTestPage("Grace Guest", "payment-refresh")
	s.deliverEvents(t, nil)
	j.do("reload by the link", chromedp.Click(sel("payment-refresh")), chromedp.WaitVisible(sel("invoice")))
	j.shot("guest-4-order-1280")
	if got := j.text(sel("order-status")); got != "Placed, to be packed" {
		t.Fatalf("the guest's order is %q after its payment", got)
	}
}
