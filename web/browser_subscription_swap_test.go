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
// says what the next payment is; on a phone the form fits.
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
	today := s.env.Store.Today()
	sub := store.Subscription{ID: store.NewID(), AccountID: ada, ProductID: box.ID, ProductName: box.Name, Email: demo.CustomerEmail,
		MonthlyPrice: box.MonthlyPrice, PeriodMonths: 1, PaymentDay: today.Day(), Status: store.SubscriptionActive,
		Card: store.Card{Token: "pm_test", Brand: "Visa", Last4: "4242"}, NextPaymentDate: store.NextBillingDate(today, 1, today.Day()),
		LastPaymentDate: today, CreatedAt: s.env.Store.Now(), Version: 1}
	if err := s.env.Store.CreateSubscription(ctx, sub); err != nil {
		t.Fatal(err)
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

	j.phone()
	j.noSidewaysScroll("/subscriptions")
	j.do("open the swap form on a phone", chromedp.Click(card+sel("sub-change-swap")+" summary"), chromedp.WaitVisible(card+sel("sub-swap-product")))
	j.shot("s3-swap-phone")
}
