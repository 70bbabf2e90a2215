package store_test

import (
	"errors"
	"testing"

	"shop/store"
)

// staff is who refunds in these tests.
var refunder = store.Customer{ID: "staff-1", Name: "Sam Staff", Role: store.RoleStaff}

// orderWithGiftCard places an order of 3 × p at €10.00 (and 1 × q), paid
// €5.00 by gift card GIFT-R and the rest by card.
func orderWithGiftCard(t *testing.T, f shopFixture) store.OrderDetails {
	t.Helper()
	ctx := ctxT(t)
	if _, err := f.env.Store.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-R", Balance: eur(500)}); err != nil {
		t.Fatal(err)
	}
	req := request("place-1", "cust-1", store.CheckoutLine{ProductID: "p", Quantity: 3}, store.CheckoutLine{ProductID: "q", Quantity: 1})
	req.Buyer = store.Buyer{Name: "Ada", Email: "ada@example.com"}
	req.GiftCardCode, req.Card = "GIFT-R", f.card
	return f.checkoutInOneTransaction(t, req)
}

// A refund by lines and one by amount: gift card first, then card; the
// invoice shows each as negative payments; the same key refunds once.
func TestRefundOrderByLineAndAmount(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {10, 0}, "q": {10, 0}}, 1000)
	ctx := ctxT(t)
	d := orderWithGiftCard(t, f)
	o := d.Order

	// Two units of p back into w2: €20.00, €5.00 to the gift card, €15.00 to the card.
	req := store.OrderRefundRequest{OrderID: o.ID, Key: "rf-1", Reason: "Arrived broken", RestockWarehouse: "w2", By: refunder,
		Lines: []store.RefundLine{{ProductID: "p", Quantity: 2}}}
	rf, err := f.env.Store.RefundOrder(ctx, req, f.gateway)
	if err != nil {
		t.Fatal(err)
	}
	if rf.Amount != eur(2000) || rf.GiftCard != eur(500) || rf.Card != eur(1500) || rf.Status != store.RefundDone || rf.GatewayRefundID == "" {
		t.Fatalf("refund %+v", rf)
	}
	again, err := f.env.Store.RefundOrder(ctx, req, f.gateway)
	if err != nil || again.GatewayRefundID != rf.GatewayRefundID {
		t.Fatalf("the same key again: %+v, %v", again, err)
	}
	gc, err := f.env.Store.GiftCard(ctx, "GIFT-R")
	if err != nil || gc.Balance != eur(500) {
		t.Fatalf("gift card after refund: %+v, %v", gc, err)
	}
	levels, err := f.env.Store.ProductStock(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range levels {
		if l.WarehouseID == "w2" && l.Quantity != 2 {
			t.Fatalf("w2 holds %d of p after the refund", l.Quantity)
		}
	}

	// By amount: €3.00, all to the card now.
	rf2, err := f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-2", Reason: "Late", By: refunder, Amount: eur(300)}, f.gateway)
	if err != nil || rf2.Card != eur(300) || rf2.GiftCard.Amount != 0 {
		t.Fatalf("refund by amount: %+v, %v", rf2, err)
	}
	// More than is left (€40.00 − €23.00 = €17.00): refused, nothing written.
	_, err = f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-3", Reason: "x", By: refunder, Amount: eur(1701)}, f.gateway)
	if !errors.Is(err, store.ErrRefundExceedsCharge) {
		t.Fatalf("refund over what is left: %v", err)
	}
	// Two more of p than are left to refund.
	_, err = f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-4", Reason: "x", By: refunder,
		Lines: []store.RefundLine{{ProductID: "p", Quantity: 2}}}, f.gateway)
	if !errors.Is(err, store.ErrRefundLines) {
		t.Fatalf("refund of units not left: %v", err)
	}
	for _, bad := range []store.OrderRefundRequest{
		{OrderID: o.ID, Key: "rf-5", By: refunder, Amount: eur(100)},
		{OrderID: o.ID, Key: "rf-6", Reason: "x", By: refunder},
		{OrderID: o.ID, Key: "", Reason: "x", By: refunder, Amount: eur(100)},
	} {
		if _, err := f.env.Store.RefundOrder(ctx, bad, f.gateway); err == nil {
			t.Errorf("refund %+v made", bad)
		}
	}

	d, err = f.env.Store.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := d.Invoice()
	if inv.Paid() != eur(4000-2300) || len(d.Refunds) != 2 || d.Order.Refunded != eur(2300) || d.Order.Refundable() != eur(1700) {
		t.Fatalf("after refunds: paid %v, refunds %d, order refunded %v", inv.Paid(), len(d.Refunds), d.Order.Refunded)
	}
	var negatives int
	for _, p := range inv.Payments {
		if p.IsRefund() {
			negatives++
		}
	}
	if negatives != 3 {
		t.Fatalf("invoice payments %+v", inv.Payments)
	}
	if d.Items[0].Refunded+d.Items[1].Refunded != 2 {
		t.Fatalf("items refunded %+v", d.Items)
	}
}
