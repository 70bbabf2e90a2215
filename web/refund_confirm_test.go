package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest/paytest"
	"shop/web/paths"
)

// A refund from the order's page asks first: its confirmation says what
// goes back, how much to the gift card and how much to the card (gift
// card first, as the store gives back), where units go, and nothing moves
// until staff confirm. "Change it" brings the form back as typed, and the
// confirmed form refunds once, the amounts the page showed. In Korean the
// page speaks Korean.
func TestAdminRefundIsConfirmedBeforeMoneyMoves(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	ctx := context.Background()
	st := s.env.Store
	eur := func(cents int64) store.Money { return store.Money{Amount: cents, Currency: store.DefaultCurrency} }
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "REFUND-GIFT-2000", Balance: eur(2000)}); err != nil {
		t.Fatal(err)
	}
	ada := s.customerID(t, demo.CustomerEmail)
	o, err := paytest.New(t, st).Checkout(ctx, store.CheckoutRequest{
		Key: "refund-confirm", CustomerID: ada, Lines: []store.CheckoutLine{line("kt-mug", 3)}, GiftCardCode: "REFUND-GIFT-2000",
		Buyer:  store.Buyer{Name: "Ada Lindqvist", Email: demo.CustomerEmail},
		ShipTo: store.Address{Name: "Ada Lindqvist", Street: "Storgatan", Number: "1", ZipCode: "50330", City: "Borås", Country: "Sweden"},
	}) // €56.70: €20.00 by gift card, €36.70 by card
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateShipments(ctx, o.ID, "Standard"); err != nil {
		t.Fatal(err)
	}
	b := s.staff(t)
	refunds := paths.AdminOrderRefunds(o.ID)
	form := refundForm(t, b.get(paths.AdminOrder(o.ID)), "amount", "25", "reason", "Arrived late")
	form.Del("confirm") // as the order's page sends it

	ask := b.post(refunds, form)
	wantStatus(t, "the refund form", ask, http.StatusOK)
	wantText(t, "confirmation's title", ask.testid("refund-confirm-title"), "Refund €25.00 on order "+o.Label()+"?")
	wantText(t, "what it takes", ask.testid("refund-confirm-what"), "an amount")
	wantText(t, "stock", ask.testid("refund-confirm-stock"), "No units: an amount only")
	wantText(t, "reason", ask.testid("refund-confirm-reason"), "Arrived late")
	to := ask.testid("refund-confirm-to")
	if to.Length() != 2 {
		t.Fatalf("the confirmation names %d tenders, want the gift card and the card", to.Length())
	}
	wantText(t, "gift card first", to.First(), "Gift card")
	wantText(t, "its part", to.First(), "€20.00")
	wantText(t, "then the card", to.Last(), "Visa ending in 4242")
	wantText(t, "its part", to.Last(), "€5.00")
	if ask.testid("refund-confirm-card-note").Length() != 1 {
		t.Error("a card part without the note that banks take days")
	}
	d, err := st.OrderDetails(ctx, o.ID)
	if err != nil || len(d.Refunds) != 0 || d.Order.Refunded.Amount != 0 {
		t.Fatalf("asking to confirm wrote a refund: %+v, %v", d.Refunds, err)
	}
	if g, err := st.GiftCard(ctx, "REFUND-GIFT-2000"); err != nil || g.Balance.Amount != 0 {
		t.Fatalf("asking to confirm gave the gift card %v back (%v)", g.Balance, err)
	}

	// "Change it": the order's page with the form as typed, nothing written.
	confirmed := hiddenFields(ask, "refund-confirm-form")
	edit := cloneValues(confirmed)
	edit.Set("edit", "1")
	back := b.post(refunds, edit)
	wantStatus(t, "change it", back, http.StatusOK)
	if v, _ := back.testid("refund-form").Find(`input[name="amount"]`).Attr("value"); v != "25" {
		t.Errorf("the amount came back as %q, want 25", v)
	}
	if v, _ := back.testid("refund-form").Find(`input[name="reason"]`).Attr("value"); v != "Arrived late" {
		t.Errorf("the reason came back as %q", v)
	}

	// Confirmed, twice (a double click): one refund, as shown.
	confirmed.Set("confirm", "yes")
	for range 2 {
		wantStatus(t, "confirm", b.post(refunds, confirmed), http.StatusSeeOther)
	}
	d, err = st.OrderDetails(ctx, o.ID)
	if err != nil || len(d.Refunds) != 1 {
		t.Fatalf("%d refunds after one confirmed twice (%v)", len(d.Refunds), err)
	}
	if r := d.Refunds[0]; r.GiftCard.Amount != 2000 || r.Card.Amount != 500 {
		t.Fatalf("refunded %v to the gift card and %v to the card, the page said €20.00 and €5.00", r.GiftCard, r.Card)
	}

	// Units, in Korean: where they go back is said in Korean.
	p := b.get(paths.AdminOrder(o.ID) + "?lang=ko")
	units := refundForm(t, p, "units-kt-mug", "1", "restock", "gbg", "reason", "파손")
	units.Del("confirm")
	ko := b.post(refunds, units)
	wantStatus(t, "units in Korean", ko, http.StatusOK)
	wantText(t, "Korean title", ko.testid("refund-confirm-title"), "환불할까요?")
	wantText(t, "Korean stock", ko.testid("refund-confirm-stock"), "재고로 돌아갑니다")
	if what := trim(ko.testid("refund-confirm-what").Text()); !strings.Contains(what, "1 × ") {
		t.Errorf("the units to take back read %q", what)
	}
	wantText(t, "all to the card now", ko.testid("refund-confirm-to"), "€18.90")
}
