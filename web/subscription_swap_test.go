package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"shop/store"
	"shop/web/paths"
)

// A customer changes the product and the quantity from the next payment:
// each bad input is refused at its field (htmx and the plain form), with
// nothing written; "Preview" (plain) and the htmx preview say what the next
// payment becomes and write nothing; "Confirm" swaps the product (the item
// moves to its new key, one subscription still) and a stale tab gets 409
// with the card as it is now; staff see the quantity and the product.
func TestSwapProductOrQuantityFromTheNextPayment(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "")
	ctx := context.Background()
	for _, p := range []store.Product{
		{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.", Category: "coffee", Price: store.Money{Amount: 990, Currency: "EUR"},
			Subscribable: true, MonthlyPrice: store.Money{Amount: 1450, Currency: "EUR"}},
		{ID: "sub-dollar-tea", Name: "Dollar Tea", Description: "Priced in dollars.", Category: "coffee", Price: store.Money{Amount: 990, Currency: "USD"},
			Subscribable: true, MonthlyPrice: store.Money{Amount: 1450, Currency: "USD"}},
	} {
		if _, err := s.env.Store.CreateProduct(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	htmx := []string{"HX-Request", "true"}
	swap := func(product, qty, when string) url.Values {
		return url.Values{"product": {product}, "quantity": {qty}, "when": {when}}
	}

	list := b.get(paths.Subscriptions)
	if subCard(list, sub.ID).Find(sel("sub-swap-form")).Length() != 1 {
		t.Fatal("the card has no swap form")
	}
	for _, bad := range []struct {
		name, product, qty, when, field, want string
	}{
		{"quantity 0", boxID, "0", "next", "quantity", "from 1 to 10"},
		{"quantity 11", boxID, "11", "next", "quantity", "from 1 to 10"},
		{"quantity x", boxID, "x", "next", "quantity", "from 1 to 10"},
		{"not subscribable", "one-off-mug", "1", "next", "product", "cannot be subscribed to"},
		{"no such product", "no-such-product", "1", "next", "product", "cannot be subscribed to"},
		{"another currency", "sub-dollar-tea", "1", "next", "product", "another currency"},
		{"no product", "", "1", "next", "product", "Choose a product"},
		{"when unknown", "sub-green-tea", "2", "tomorrow", "when", "Choose when"},
	} {
		for _, headers := range [][]string{htmx, nil} {
			p := s.act(t, b, sub, "swap", swap(bad.product, bad.qty, bad.when), headers...)
			wantStatus(t, bad.name, p, http.StatusUnprocessableEntity)
			card := subCard(p, sub.ID)
			wantText(t, bad.name, card.Find(sel("sub-error-"+bad.field)), bad.want)
			if _, open := card.Find(sel("sub-change-swap")).Attr("open"); !open {
				t.Fatalf("%s: the swap form with the error is not open", bad.name)
			}
			if v, _ := card.Find(sel("sub-swap-quantity")).Attr("value"); v != bad.qty {
				t.Fatalf("%s: the quantity comes back as %q", bad.name, v)
			}
		}
	}
	if now := s.current(t, ada, sub.ID); now.Version != sub.Version || now.ProductID != boxID || now.Units() != 1 {
		t.Fatalf("refused swaps wrote: version %d, %s × %d", now.Version, now.ProductID, now.Units())
	}

	// The preview, without JavaScript and with htmx: nothing now, then the
	// new amount on the next payment day; nothing written.
	p := s.act(t, b, sub, "swap", url.Values{"product": {"sub-green-tea"}, "quantity": {"2"}, "when": {"next"}, "preview": {"1"}})
	wantStatus(t, "preview", p, http.StatusOK)
	card := subCard(p, sub.ID)
	wantText(t, "preview now", card.Find(sel("sub-swap-now")), "Nothing is charged now")
	wantText(t, "preview then", card.Find(sel("sub-swap-then")), "2 × Green Tea Tin, €29.00 every month")
	wantText(t, "preview date", card.Find(sel("sub-swap-then")), day(sub.NextPaymentDate))
	p = b.get(paths.SubscriptionSwap(sub.ID)+"?product=sub-green-tea&quantity=3&when=next", htmx...)
	wantStatus(t, "htmx preview", p, http.StatusOK)
	wantText(t, "htmx preview", p.testid("sub-swap-then"), "3 × Green Tea Tin, €43.50 every month")
	if now := s.current(t, ada, sub.ID); now.Version != sub.Version {
		t.Fatalf("a preview wrote: version %d", now.Version)
	}

	// Confirmed with htmx: the card shows the new product and amount.
	p = s.act(t, b, sub, "swap", swap("sub-green-tea", "2", "next"), htmx...)
	wantStatus(t, "swap", p, http.StatusOK)
	card = subCard(p, sub.ID)
	wantText(t, "product", card.Find(sel("sub-product")), "2 × Green Tea Tin")
	wantText(t, "amount", card.Find(sel("sub-amount")), "€29.00")
	wantText(t, "notice", card.Find(sel("sub-notice")), "From the next payment, on "+day(sub.NextPaymentDate)+", you get 2 × Green Tea Tin for €29.00")
	subs := s.subscriptionsOf(t, ada)
	if len(subs) != 1 || subs[0].ProductID != "sub-green-tea" || subs[0].Quantity != 2 || subs[0].Version != sub.Version+1 ||
		!subs[0].NextPaymentDate.Equal(sub.NextPaymentDate) || subs[0].Amount().Amount != 2900 {
		t.Fatalf("after the swap: %+v", subs)
	}

	// A tab that showed the old version: 409, the card as it is now.
	p = s.act(t, b, sub, "swap", swap(boxID, "1", "next"), htmx...)
	wantStatus(t, "stale swap", p, http.StatusConflict)
	wantText(t, "stale swap", subCard(p, sub.ID).Find(sel("sub-error")), "changed in another tab")
	wantText(t, "stale swap", subCard(p, sub.ID).Find(sel("sub-product")), "2 × Green Tea Tin")

	// The plain form: more of the same product.
	sub = s.current(t, ada, sub.ID)
	wantStatus(t, "plain swap", s.act(t, b, sub, "swap", swap("sub-green-tea", "3", "next")), http.StatusSeeOther)
	list = b.get(paths.Subscriptions)
	wantText(t, "after the plain swap", subCard(list, sub.ID).Find(sel("sub-product")), "3 × Green Tea Tin")
	wantText(t, "after the plain swap", subCard(list, sub.ID).Find(sel("sub-amount")), "€43.50")
	if now := s.current(t, ada, sub.ID); now.Units() != 3 || now.Version != sub.Version+1 {
		t.Fatalf("after the plain swap: %d units, version %d", now.Units(), now.Version)
	}

	// Staff see the quantity and the product.
	staff := s.staff(t).get(paths.AdminCustomer(ada))
	wantStatus(t, "staff's customer page", staff, http.StatusOK)
	wantText(t, "staff's customer page", staff.testid("subscription-product"), "3 × Green Tea Tin")
}

// A swap to a product whose monthly price is scheduled to change shows
// the new price before it is confirmed (the preview of either choice) and
// takes it on, from its day, as a new subscriber would; the card says so,
// and the announcement's job does not mail it again (jobs'
// TestPriceAnnouncementTellsOnlyWhoWillPayIt).
func TestSwapToAProductWhosePriceChangesShowsItsNewPrice(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "")
	ctx := context.Background()
	tea := store.Product{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.", Category: "coffee", Price: eur(990), Subscribable: true, MonthlyPrice: eur(1450)}
	if _, err := s.env.Store.CreateProduct(ctx, tea); err != nil {
		t.Fatal(err)
	}
	from := s.env.Store.Today().AddDate(0, 0, store.PriceNoticeDays+10)
	if _, err := s.env.Store.SchedulePriceChange(ctx, tea, eur(1590), from, "staff@example.com"); err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"next", "now"} {
		p := s.act(t, b, sub, "swap", url.Values{"product": {tea.ID}, "quantity": {"2"}, "when": {when}, "preview": {"1"}})
		wantStatus(t, "preview "+when, p, http.StatusOK)
		wantText(t, "the new price, "+when, subCard(p, sub.ID).Find(sel("sub-swap-new-price")), "€31.80")
	}
	wantStatus(t, "swap", s.act(t, b, sub, "swap", url.Values{"product": {tea.ID}, "quantity": {"2"}, "when": {"next"}}), http.StatusSeeOther)
	got := s.current(t, ada, sub.ID)
	if got.ProductID != tea.ID || got.NewPrice != eur(1590) || !got.NewPriceFrom.Equal(from) {
		t.Fatalf("after the swap: %s, new price %v from %s; want €15.90 a month from %s", got.ProductID, got.NewPrice, store.FormatDate(got.NewPriceFrom), store.FormatDate(from))
	}
	wantText(t, "the card", subCard(b.get(paths.Subscriptions), sub.ID).Find(sel("sub-new-price")), "€31.80 from the first payment on or after")
}
