package store_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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
	req.GiftCardCode = "GIFT-R"
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

	// Two units of p: €20.00, €5.00 to the gift card, €15.00 to the card.
	// The order is not shipping yet, so they go back into w1, where they
	// were allocated, whatever the request's warehouse says.
	req := store.OrderRefundRequest{OrderID: o.ID, Key: "rf-1", Reason: "Arrived broken", RestockWarehouse: "w2", By: refunder,
		Lines: []store.RefundLine{{ProductID: "p", Quantity: 2}}}
	rf, err := f.env.Store.RefundOrder(ctx, req, f.pay.Refunds())
	if err != nil {
		t.Fatal(err)
	}
	if rf.Amount != eur(2000) || rf.GiftCard != eur(500) || rf.Card != eur(1500) || rf.Status != store.RefundDone || rf.GatewayRefundID == "" {
		t.Fatalf("refund %+v", rf)
	}
	again, err := f.env.Store.RefundOrder(ctx, req, f.pay.Refunds())
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
		if want := map[string]int{"w1": 10 - 3 + 2, "w2": 0}[l.WarehouseID]; l.Quantity != want {
			t.Fatalf("%s holds %d of p after the refund, want %d", l.WarehouseID, l.Quantity, want)
		}
	}

	// By amount: €3.00, all to the card now. What docs/access-patterns.md
	// says it costs: the order's collection, one transaction, the test
	// provider's refund (a GetItem, a transaction), the refund marked done
	// and its credit note numbered.
	f.env.Counter.Reset()
	rf2, err := f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-2", Reason: "Late", By: refunder, Amount: eur(300)}, f.pay.Refunds())
	if err != nil || rf2.Card != eur(300) || rf2.GiftCard.Amount != 0 {
		t.Fatalf("refund by amount: %+v, %v", rf2, err)
	}
	// Then its credit note: one transaction of the series' counter (known
	// since rf-1's) and the refund.
	if ops := f.env.Counter.Ops(); ops["Query"] != 1 || ops["GetItem"] != 1 || ops["TransactWriteItems"] != 3 || ops["UpdateItem"] != 1 || f.env.Counter.Total() != 6 {
		t.Fatalf("a card refund by amount made %v", ops)
	}
	// More than is left (€40.00 − €23.00 = €17.00): refused, nothing written.
	_, err = f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-3", Reason: "x", By: refunder, Amount: eur(1701)}, f.pay.Refunds())
	if !errors.Is(err, store.ErrRefundExceedsCharge) {
		t.Fatalf("refund over what is left: %v", err)
	}
	// Two more of p than are left to refund.
	_, err = f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-4", Reason: "x", By: refunder,
		Lines: []store.RefundLine{{ProductID: "p", Quantity: 2}}}, f.pay.Refunds())
	if !errors.Is(err, store.ErrRefundLines) {
		t.Fatalf("refund of units not left: %v", err)
	}
	for _, bad := range []store.OrderRefundRequest{
		{OrderID: o.ID, Key: "rf-5", By: refunder, Amount: eur(100)},
		{OrderID: o.ID, Key: "rf-6", Reason: "x", By: refunder},
		{OrderID: o.ID, Key: "", Reason: "x", By: refunder, Amount: eur(100)},
	} {
		if _, err := f.env.Store.RefundOrder(ctx, bad, f.pay.Refunds()); err == nil {
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

	// The last units give what is left (not their price: €3.00 went by
	// amount), and an order with nothing left to ship is cancelled.
	last, err := f.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-7", Reason: "Returned", By: refunder,
		Lines: []store.RefundLine{{ProductID: "p", Quantity: 1}, {ProductID: "q", Quantity: 1}}}, f.pay.Refunds())
	if err != nil || last.Amount != eur(1700) {
		t.Fatalf("refund of the last units: %+v, %v", last, err)
	}
	d, err = f.env.Store.OrderDetails(ctx, o.ID)
	if err != nil || d.Order.Status != store.OrderCancelled || d.Order.Refundable().Amount != 0 {
		t.Fatalf("order with every unit refunded: %+v, %v", d.Order, err)
	}
	toShip, err := f.env.Store.OrdersToShip(ctx, 50, "")
	if err != nil || len(toShip.Items) != 0 {
		t.Fatalf("to ship after refunding everything: %v, %v", toShip.Items, err)
	}
}

// Refunds race on one order: ten twins of one key refund once; twenty
// refunds of €3.00 with their own keys (€60.00 against the €35.00 left)
// give back no more than was paid. The provider's ledger, the gift card, the
// invoice and the order's sums agree to the cent.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestRefundOrderRace(t *testing.T) {
	f := newFixture(t, map[string][2]int{"p": {10, 0}, "q": {10, 0}}, 1000)
	ctx := ctxT(t)
	d := orderWithGiftCard(t, f)
	o := d.Order
	run := func(n int, req func(i int) store.OrderRefundRequest) []error {
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = f.env.Store.RefundOrder(ctx, req(i), f.pay.Refunds())
			}()
		}
		close(start)
		wg.Wait()
		return errs
	}
	began := time.Now()
	twins := run(10, func(int) store.OrderRefundRequest {
		return store.OrderRefundRequest{OrderID: o.ID, Key: "twin", Reason: "Twice pressed", By: refunder, Amount: eur(500)}
	})
	for _, err := range twins {
		if err != nil {
			t.Fatalf("twin: %v", err)
		}
	}
	t.Logf("twins took %v", time.Since(began))
	began = time.Now()
	var made, refused int
	for _, err := range run(20, func(i int) store.OrderRefundRequest {
		return store.OrderRefundRequest{OrderID: o.ID, Key: fmt.Sprintf("own-%02d", i), Reason: "Goodwill", By: refunder, Amount: eur(300)}
	}) {
		switch {
		case err == nil:
			made++
		case errors.Is(err, store.ErrRefundExceedsCharge), errors.Is(err, store.ErrConflict):
			refused++
		default:
			t.Errorf("refund: %v", err)
		}
	}
	t.Logf("own keys took %v", time.Since(began))
	if made > 11 || made == 0 {
		t.Fatalf("%d refunds of €3.00 made against €35.00 left", made)
	}
	want := int64(500 + 300*made)
	d, err := f.env.Store.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Refunds) != 1+made || d.Order.Refunded.Amount != want {
		t.Fatalf("%d refunds on the order, refunded %v; want %d and %d", len(d.Refunds), d.Order.Refunded, 1+made, want)
	}
	inv, _ := d.Invoice()
	if inv.Paid().Amount != 4000-want {
		t.Fatalf("invoice paid %v, want %d", inv.Paid(), 4000-want)
	}
	gc, err := f.env.Store.GiftCard(ctx, "GIFT-R")
	if err != nil {
		t.Fatal(err)
	}
	var card int64
	chargeID := ""
	for _, r := range d.Refunds {
		card += r.Card.Amount
		if r.Status != store.RefundDone {
			t.Errorf("refund %s is %s", r.ID, r.Status)
		}
	}
	for _, p := range inv.Payments {
		if !p.IsRefund() && p.Type != "GiftCard" {
			chargeID, _, _ = strings.Cut(p.Reference, " · ")
		}
	}
	charge, err := f.env.Store.TestPayIntent(ctx, chargeID) // the card's payment at the test provider
	if err != nil {
		t.Fatal(err)
	}
	if gc.Balance.Amount+charge.Refunded.Amount != want || charge.Refunded.Amount != card || d.Order.RefundedCard.Amount != card {
		t.Fatalf("gift card back %v, ledger refunded %v, refunds' card parts %d, order's %v; want %d in all",
			gc.Balance, charge.Refunded, card, d.Order.RefundedCard, want)
	}
	t.Logf("%d refunds made, %d refused", made, refused)
}

// A customer cancels an unshipped order: all back to gift card and card,
// stock back where it came from, the discount's use back, off the to-ship
// list, and the mail in the outbox. A second cancel, or a cancel by
// someone else, changes nothing.
func TestCancelOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {2, 5}, "q": {10, 0}}, 1000)
	ctx := ctxT(t)
	if _, err := f.env.Store.CreateDiscountCode(ctx, store.DiscountCode{Code: "TEN", Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: time.Now().Add(time.Hour), UsageLimit: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.env.Store.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-C", Balance: eur(500)}); err != nil {
		t.Fatal(err)
	}
	req := request("place-c", "cust-1", store.CheckoutLine{ProductID: "p", Quantity: 3}, store.CheckoutLine{ProductID: "q", Quantity: 1})
	req.Buyer = store.Buyer{Name: "Ada", Email: "ada@example.com"}
	req.GiftCardCode, req.DiscountCode = "GIFT-C", "TEN"
	d := f.checkoutInOneTransaction(t, req)
	o := d.Order
	if o.Total != eur(3600) {
		t.Fatalf("total %v", o.Total)
	}
	mail := func(r store.Refund, o store.Order) *store.Mail {
		return &store.Mail{ID: "refund-" + o.ID + "-" + r.ID, To: o.Buyer.Email, Kind: store.MailRefund, Subject: "Cancelled",
			Text: "money back " + r.Amount.String(), CustomerID: o.CustomerID, CreatedAt: time.Now(), Status: store.MailPending}
	}
	if _, err := f.env.Store.CancelOrder(ctx, o.ID, "someone-else", "cancel-x", mail, f.pay.Refunds()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("cancel by another customer: %v", err)
	}
	f.env.Counter.Reset()
	rf, err := f.env.Store.CancelOrder(ctx, o.ID, "cust-1", "cancel-1", mail, f.pay.Refunds())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a cancel costs %v", f.env.Counter.Ops())
	if rf.Amount != eur(3600) || rf.GiftCard != eur(500) || rf.Card != eur(3100) || !rf.Cancel || rf.Status != store.RefundDone {
		t.Fatalf("cancel refund %+v", rf)
	}
	if _, err := f.env.Store.CancelOrder(ctx, o.ID, "cust-1", "cancel-2", mail, f.pay.Refunds()); !errors.Is(err, store.ErrNotCancelable) {
		t.Fatalf("second cancel: %v", err)
	}
	if f.stockOf(t, "p") != 7 || f.stockOf(t, "q") != 10 {
		t.Fatalf("stock after cancel: p %d, q %d", f.stockOf(t, "p"), f.stockOf(t, "q"))
	}
	dc, err := f.env.Store.DiscountCode(ctx, "TEN")
	if err != nil || dc.Used != 0 {
		t.Fatalf("discount after cancel: %+v, %v", dc, err)
	}
	gc, err := f.env.Store.GiftCard(ctx, "GIFT-C")
	if err != nil || gc.Balance != eur(500) {
		t.Fatalf("gift card after cancel: %+v, %v", gc, err)
	}
	d, err = f.env.Store.OrderDetails(ctx, o.ID)
	if err != nil || d.Order.Status != store.OrderCancelled {
		t.Fatalf("order after cancel: %+v, %v", d.Order, err)
	}
	if inv, _ := d.Invoice(); inv.Paid().Amount != 0 {
		t.Fatalf("invoice paid %v after cancel", inv.Paid())
	}
	toShip, err := f.env.Store.OrdersToShip(ctx, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range toShip.Items {
		if s.ID == o.ID {
			t.Fatal("a cancelled order is still to ship")
		}
	}
	box, err := f.env.Store.Outbox(ctx, 10, "")
	if err != nil || len(box.Items) != 1 || box.Items[0].Kind != store.MailRefund || box.Items[0].To != "ada@example.com" {
		t.Fatalf("outbox %+v, %v", box.Items, err)
	}
	if _, err := f.env.Store.CreateShipments(ctx, o.ID, "standard"); !errors.Is(err, store.ErrShipmentsExist) {
		t.Fatalf("shipping a cancelled order: %v", err)
	}
}

// A customer cancels while staff create the order's shipments: exactly one
// of them wins, and the order is either cancelled with its stock back or
// shipping with nothing refunded.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestCancelRacesShipping(t *testing.T) {
	f := newFixture(t, map[string][2]int{"p": {20, 0}}, 1000)
	ctx := ctxT(t)
	for round := range 4 {
		req := request(fmt.Sprintf("place-%d", round), "cust-1", store.CheckoutLine{ProductID: "p", Quantity: 2})
		o, err := f.pay.Checkout(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var cancelErr, shipErr error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			_, cancelErr = f.env.Store.CancelOrder(ctx, o.ID, "cust-1", fmt.Sprintf("cancel-%d", round), nil, f.pay.Refunds())
		}()
		go func() {
			defer wg.Done()
			<-start
			_, shipErr = f.env.Store.CreateShipments(ctx, o.ID, "standard")
		}()
		close(start)
		wg.Wait()
		if (cancelErr == nil) == (shipErr == nil) {
			t.Fatalf("round %d: cancel %v, ship %v: exactly one must win", round, cancelErr, shipErr)
		}
		if cancelErr != nil && !errors.Is(cancelErr, store.ErrNotCancelable) {
			t.Fatalf("round %d: cancel lost with %v", round, cancelErr)
		}
		if shipErr != nil && !errors.Is(shipErr, store.ErrShipmentsExist) {
			t.Fatalf("round %d: shipping lost with %v", round, shipErr)
		}
		d, err := f.env.Store.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case cancelErr == nil && (d.Order.Status != store.OrderCancelled || len(d.Shipments) != 0 || d.Order.Refunded != o.Total):
			t.Fatalf("round %d: cancel won, order %+v with %d shipments", round, d.Order, len(d.Shipments))
		case shipErr == nil && (d.Order.Status != store.OrderShipping || len(d.Refunds) != 0):
			t.Fatalf("round %d: shipping won, order %+v with %d refunds", round, d.Order, len(d.Refunds))
		}
	}
}
