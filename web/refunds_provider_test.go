package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/web"
	"shop/web/paths"

	"shop/store/storetest"
)

// Staff's refund form of an order paid on the test provider's page gives
// the card's part back at the test provider, where the payment is: the
// app's card refunds (web.Config.Refunds, by default the test provider in
// test mode and the legacy gateway for its charges) route by the payment's
// provider. The provider's ledger then holds the refund.
func TestStaffRefundOfATestProviderPaymentGoesToTheTestProvider(t *testing.T) {
	t.Parallel()
	var tp *payment.TestProvider
	s := newShopWithoutHistory(t, func(env storetest.Env, cfg *web.Config) {
		p, err := payment.NewTestProvider(context.Background(), cfg.Store, "")
		if err != nil {
			t.Fatal(err)
		}
		tp, cfg.TestPayments, cfg.PaymentEvents = p, p, &recordedEvents{}
	})
	b := s.staff(t)
	ctx, st := context.Background(), s.env.Store
	ada := s.customerID(t, demo.CustomerEmail)
	o, err := st.HoldCheckout(ctx, store.CheckoutRequest{Key: "held-1", CustomerID: ada, Buyer: store.Buyer{Name: "Ada", Email: demo.CustomerEmail},
		Lines: []store.CheckoutLine{line("kt-mug", 2)}, HoldFor: 30 * time.Minute,
		ShipTo: store.Address{Name: "Ada Lindqvist", Street: "Storgatan", Number: "1", ZipCode: "50330", City: "Borås", Country: "Sweden"}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := tp.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: o.Hold.Card, SuccessURL: s.base + "/ok", ExpiresAt: o.Hold.Until, Key: o.ID})
	if err != nil {
		t.Fatal(err)
	}
	paid, err := tp.PayCheckout(ctx, cs.ID, payment.CardForm{Number: payment.CardSucceeds, Expiry: "12/40", CVC: "123"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PlaceHeldOrder(ctx, o.ID, store.PaymentResult{Provider: payment.ProviderTest, EventID: "evt_paid", PaymentRef: paid.PaymentRef,
		Brand: "Visa", Last4: "4242", Amount: o.Hold.Card}); err != nil {
		t.Fatal(err)
	}

	p := b.get(paths.AdminOrder(o.ID))
	wantStatus(t, "order page", p, http.StatusOK)
	done := b.post(paths.AdminOrderRefunds(o.ID), refundForm(t, p, "amount", "5.00", "reason", "Arrived chipped"))
	wantStatus(t, "refund", done, http.StatusSeeOther)
	d, err := st.OrderDetails(ctx, o.ID)
	if err != nil || len(d.Refunds) != 1 || d.Refunds[0].Status != store.RefundDone || d.Refunds[0].Provider != payment.ProviderTest {
		t.Fatalf("refunds %+v, %v", d.Refunds, err)
	}
	if pay, err := st.TestPayIntent(ctx, paid.PaymentRef); err != nil || pay.Refunded != eur(500) {
		t.Fatalf("the test provider's payment: %+v, %v", pay, err)
	}
}
