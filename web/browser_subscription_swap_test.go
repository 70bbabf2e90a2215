package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store"
	"shop/store/demo"
)

// Ada swaps her coffee box for two tins of green tea from the next payment:
// the preview follows her choice (htmx) before she confirms, and the card
// says what the next payment is; then for three tins now, charged at once
// to her kept card; on a phone the form fits.
func TestBrowserSwapTheProduct(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	box := s.coffeeBox(t)
	if _, err := s.env.Store.CreateProduct(ctx, store.Product{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.", Category: "coffee",
		Price: store.Money{Amount: 990, Currency: "EUR"}, Subscribable: true, MonthlyPrice: store.Money{Amount: 1450, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	ada := s.customerID(t, demo.CustomerEmail)
	// Subscribed over HTTP, paying a whole period on the provider's page:
	// a receipt covering today and a kept card, for the swap now.
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.subscribe(box.ID, itoa(s.env.Store.Today().Day()), "1")
	var sub store.Subscription
	for _, x := range s.subscriptionsOf(t, ada) {
		if x.ProductID == box.ID && x.Status == store.SubscriptionActive {
			sub = x
		}
	}
	card := `[data-id="` + sub.ID + `"] `

	j := newJourney(t, s.base)
	j.signInAt("/subscriptions", demo.CustomerEmail, demo.CustomerPassword, "subscription")
	j.do("open the swap form", chromedp.Click(card+sel("sub-change-swap")+" summary"), chromedp.WaitVisible(card+sel("sub-swap-product")))
	j.do("choose two tins of green tea",
		chromedp.SetValue(card+sel("sub-swap-product"), "sub-green-tea"),
		chromedp.SetValue(card+sel("sub-swap-quantity"), "2"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('`+card+sel("sub-swap-quantity")+`').dispatchEvent(new Event('change', {bubbles: true}))`),
	)
	j.waitText("the preview follows the choice", card+sel("sub-swap-then"), "2 × Green Tea Tin, €29.00 every month")
	j.shot("s1-swap-preview")
	j.do("confirm", chromedp.Click(card+sel("sub-swap-submit")))
	j.waitText("the card says what comes next", card+sel("sub-notice"), "you get 2 × Green Tea Tin for €29.00")
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
