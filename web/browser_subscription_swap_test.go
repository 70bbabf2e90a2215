package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store"
	"shop/store/demo"
	"shop/store/rules"
	"shop/views/lang"
)

// Ada subscribes to the coffee box in the browser with a payment day ten
// days ahead and a code: the form says what today's share costs and what
// the code takes off, and her receipt covers only the days to the payment
// day, the code on it. Then she swaps the box for two tins of green tea
// from the next payment: the preview follows her choice (htmx) before she
// confirms, and the card says what the next payment is; then for three
// tins now, charged at once to her kept card; on a phone the form fits.
func TestBrowserSwapTheProduct(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	box := s.coffeeBox(t)
	if _, err := s.env.Store.CreateProduct(ctx, store.Product{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.", Category: "coffee",
		Price: store.Money{Amount: 990, Currency: "EUR"}, Subscribable: true, MonthlyPrice: store.Money{Amount: 1450, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	s.discountCode(t, store.DiscountCode{Code: "BOX10", Payments: 2}) // 10 %
	ada := s.customerID(t, demo.CustomerEmail)
	today := s.env.Store.Today()
	ahead := today.AddDate(0, 0, 10)
	share := rules.FirstPeriod(today, ahead.Day(), 1, store.Money{Amount: boxPerMon, Currency: "EUR"})
	off := store.Money{Amount: share.Charge.Amount / 10, Currency: "EUR"}

	j := newJourney(t, s.base)
	j.signIn(demo.CustomerEmail, demo.CustomerPassword)
	j.do("the box's page", chromedp.Navigate(s.base+"/products/"+box.ID), chromedp.WaitVisible(sel("subscribe-form")))
	j.do("a payment day ten days ahead, and a code",
		chromedp.SetValue(sel("field-day"), ""), chromedp.SendKeys(sel("field-day"), itoa(ahead.Day())),
		chromedp.SendKeys(sel("field-code"), "BOX10"),
	)
	j.waitText("the code's part of today's share", sel("preview-code-today"), "Code BOX10 takes "+lang.MoneyIn(lang.English, off)+" off today.")
	j.waitText("the first days' share", sel("preview-today"), "10 of the period's "+itoa(share.Of)+" days")
	j.shot("s0-subscribe-with-code")
	j.do("subscribe with a new card", chromedp.Click(sel("new-card")), chromedp.Click(sel("subscribe-submit")), chromedp.WaitVisible(sel("test-payment-form")))
	j.payOnTestPage("Ada Lindqvist", "flash")
	s.deliverEvents(t, nil)
	j.do("receipts", chromedp.Navigate(s.base+"/receipts"), chromedp.WaitVisible(sel("receipt-link")))
	j.do("the new receipt", chromedp.Click(sel("receipt-link")), chromedp.WaitVisible(sel("receipt-period")))
	j.waitText("it covers the days to the payment day", sel("receipt-period"), lang.DateRangeIn(lang.English, today, ahead.AddDate(0, 0, -1)))
	j.waitText("it names the code", sel("receipt-discount"), "BOX10")
	j.waitText("it charged the share less the code", sel("receipt-amount"), lang.MoneyIn(lang.English, store.Money{Amount: share.Charge.Amount - off.Amount, Currency: "EUR"}))
	j.shot("s0-prorated-receipt")

	var sub store.Subscription
	for _, x := range s.subscriptionsOf(t, ada) {
		if x.ProductID == box.ID && x.Status == store.SubscriptionActive {
			sub = x
		}
	}
	card := `[data-id="` + sub.ID + `"] `
	j.do("subscriptions", chromedp.Navigate(s.base+"/subscriptions"), chromedp.WaitVisible(card+sel("sub-product")))
	j.do("open the swap form", chromedp.Click(card+sel("sub-change-swap")+" summary"), chromedp.WaitVisible(card+sel("sub-swap-product")))
	j.do("choose two tins of green tea",
		chromedp.SetValue(card+sel("sub-swap-product"), "sub-green-tea"),
		chromedp.SetValue(card+sel("sub-swap-quantity"), "2"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('`+card+sel("sub-swap-quantity")+`').dispatchEvent(new Event('change', {bubbles: true}))`),
	)
	j.waitText("the preview follows the choice", card+sel("sub-swap-then"), "2 × Green Tea Tin, €26.10 with code BOX10 for its last payment, then €29.00 every month")
	j.shot("s1-swap-preview")
	j.do("confirm", chromedp.Click(card+sel("sub-swap-submit")))
	j.waitText("the card says what comes next", card+sel("sub-notice"), "you get 2 × Green Tea Tin for €26.10")
	j.waitText("the card shows the new line", card+sel("sub-product"), "2 × Green Tea Tin")
	j.shot("s2-swapped")
	j.do("choose three tins now",
		chromedp.Click(card+sel("sub-change-swap")+" summary"), chromedp.WaitVisible(card+sel("sub-swap-quantity")),
		chromedp.SetValue(card+sel("sub-swap-quantity"), "3"),
		chromedp.Click(card+sel("sub-swap-when-now")),
	)
	j.waitText("the preview says what is charged now", card+sel("sub-swap-now"), "Charged now to your card")
	j.do("confirm now", chromedp.Click(card+sel("sub-swap-submit")))
	j.waitText("the card says what was charged", card+sel("sub-notice"), "Changed to 3 × Green Tea Tin")
	j.waitText("the card shows the new line now", card+sel("sub-product"), "3 × Green Tea Tin")

	j.phone()
	j.noSidewaysScroll("/subscriptions")
	j.do("open the swap form on a phone", chromedp.Click(card+sel("sub-change-swap")+" summary"), chromedp.WaitVisible(card+sel("sub-swap-product")))
	j.shot("s3-swap-phone")
}
