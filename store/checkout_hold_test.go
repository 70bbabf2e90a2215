package store_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
)

// holdFixture is a shop on a clock (newProductDropFixture: tea at €20,
// stock in w1 and w2), with a gift card, a discount code and a drop whose
// ticket ada holds.
type holdFixture struct {
	productDropFixture
	drop store.Drop
	tea  store.Product
}

const holdFor = 30 * time.Minute

func newHoldFixture(t *testing.T, w1, w2 int) holdFixture {
	t.Helper()
	f := holdFixture{productDropFixture: newProductDropFixture(t, w1, w2)}
	ctx, st := ctxT(t), f.env.Store
	now := f.clock.Now()
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-HOLD", Balance: eur(1000), Initial: eur(1000), CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateDiscountCode(ctx, store.DiscountCode{Code: "HOLD10", Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: now.Add(30 * 24 * time.Hour), UsageLimit: 100, CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	var err error
	if f.tea, err = st.Product(ctx, "tea"); err != nil {
		t.Fatal(err)
	}
	return f
}

// adaCart fills ada's cart with her drop ticket and two teas at their
// price, and is the checkout of it with the gift card and the code.
func (f *holdFixture) adaCart(t *testing.T, key string) store.CheckoutRequest {
	t.Helper()
	ctx, st := ctxT(t), f.env.Store
	f.drop = f.adaHoldsATicket(t)
	owner := store.CustomerOwner("ada")
	if err := st.AddTicketToCart(ctx, owner, f.drop, f.tea); err != nil {
		t.Fatal(err)
	}
	if err := st.AddToCart(ctx, owner, f.tea, 2); err != nil {
		t.Fatal(err)
	}
	req := request(key, "ada", store.CheckoutLine{ProductID: "tea", Quantity: 2}, store.CheckoutLine{ProductID: "tea", Quantity: 1, DropID: f.drop.ID})
	req.CartOwner, req.GiftCardCode, req.DiscountCode, req.HoldFor = owner, "GIFT-HOLD", "HOLD10", holdFor
	return req
}

// held is what a shop holds: stock, the gift card's balance, the code's
// uses, ada's ticket and the lines of her cart.
type held struct {
	stock    map[string]int
	balance  int64
	uses     int
	ticket   store.TicketStatus
	cartKeys []string
}

func (f holdFixture) held(t *testing.T) held {
	t.Helper()
	ctx, st := ctxT(t), f.env.Store
	gc := must(st.GiftCard(ctx, "GIFT-HOLD"))
	dc := must(st.DiscountCode(ctx, "HOLD10"))
	h := held{stock: f.stock(t), balance: gc.Balance.Amount, uses: dc.Used}
	if f.drop.ID != "" {
		h.ticket = must(st.Ticket(ctx, f.drop.ID, "ada")).Status
	}
	for _, l := range must(st.Cart(ctx, store.CustomerOwner("ada"))).Lines {
		h.cartKeys = append(h.cartKeys, fmt.Sprintf("%s×%d", l.Key(), l.Quantity))
	}
	slices.Sort(h.cartKeys)
	return h
}

func paymentOf(o store.Order, event string) store.PaymentResult {
	return store.PaymentResult{Provider: payment.ProviderTest, EventID: event, PaymentRef: "pi_" + o.ID, Brand: "Visa", Last4: "4242", Amount: o.Hold.Card}
}

// A hold takes for real everything the checkout takes and writes the order
// awaiting payment, in no list of sold orders; its release gives all of it
// back, the lines to the cart, and takes the order out of every list. A
// payment after that is refunded, once however often it is reported.
func TestHoldTakesEverythingAndReleaseGivesItBack(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	req := f.adaCart(t, "hold-1")
	before := f.held(t)
	start := f.clock.Now()

	var o store.Order
	var err error
	f.env.Counter.Reset()
	if o, err = st.HoldCheckout(ctx, req); err != nil {
		t.Fatal(err)
	}
	if ops := f.env.Counter.Ops(); ops["TransactWriteItems"] != 1 {
		t.Fatalf("the hold made %v", ops)
	}
	// 2 × €20 + €15 = €55, less 10% = €49.50, of which the gift card €10.
	if o.Status != store.OrderAwaitingPayment || o.Total != eur(4950) || o.Hold == nil || o.Hold.Card != eur(3950) ||
		o.Hold.Until.Sub(start) < holdFor || o.Hold.Until.Sub(start) > holdFor+time.Second {
		t.Fatalf("held order %+v, hold %+v", o, o.Hold)
	}
	after := f.held(t)
	if after.stock["w1"] != before.stock["w1"]-2 || after.balance != 0 || after.uses != 1 || after.ticket != store.TicketRedeemed || len(after.cartKeys) != 0 {
		t.Fatalf("before the hold %+v, after %+v", before, after)
	}
	d := must(st.OrderDetails(ctx, o.ID))
	if d.Order.Status != store.OrderAwaitingPayment || len(d.Items) != 2 || len(d.Invoices) != 0 || d.Order.Hold.Card != eur(3950) {
		t.Fatalf("held order's details %+v", d)
	}
	// Not sold: no day's totals, not to ship, not in the month's orders;
	// the customer sees it (awaiting payment), and the reconcile step once
	// its deadline passed.
	if days := must(st.DayTotals(ctx, start, start)); days[0].Orders != 0 {
		t.Fatalf("day totals count a held order: %+v", days[0])
	}
	if p := must(st.OrdersToShip(ctx, 20, "")); len(p.Items) != 0 {
		t.Fatalf("to ship: %+v", p.Items)
	}
	if p := must(st.OrdersBetween(ctx, start.Add(-time.Hour), start.Add(time.Hour), 20, "")); len(p.Items) != 0 {
		t.Fatalf("month's orders: %+v", p.Items)
	}
	if p := must(st.CustomerOrders(ctx, "ada", 20, "")); len(p.Items) != 1 || p.Items[0].Status != store.OrderAwaitingPayment {
		t.Fatalf("ada's orders: %+v", p.Items)
	}
	if due := must(st.HeldOrdersDue(ctx, o.Hold.Until, time.Minute, 20)); len(due) != 0 {
		t.Fatalf("due before its deadline and grace: %+v", due)
	}
	due := must(st.HeldOrdersDue(ctx, o.Hold.Until.Add(2*time.Minute), time.Minute, 20))
	if len(due) != 1 || due[0].ID != o.ID || due[0].Hold == nil {
		t.Fatalf("due after its deadline: %+v", due)
	}
	// The same form again: the one order.
	if again := must(st.HoldCheckout(ctx, req)); again.ID != o.ID {
		t.Fatalf("a double submit held %s beside %s", again.ID, o.ID)
	}
	if err := st.AttachPaymentSession(ctx, o, payment.ProviderTest, "cs_1"); err != nil {
		t.Fatal(err)
	}
	if err := st.AttachPaymentSession(ctx, o, payment.ProviderTest, "cs_1"); err != nil {
		t.Fatalf("the same page again: %v", err)
	}
	if err := st.AttachPaymentSession(ctx, o, payment.ProviderTest, "cs_2"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("another page: %v", err)
	}

	// The page expires: everything back.
	released, err := st.ReleaseHeldOrder(ctx, o.ID, store.ReleaseExpired, payment.ProviderTest, "evt_expired")
	if err != nil || released.Status != store.OrderExpired {
		t.Fatalf("release: %+v, %v", released, err)
	}
	if back := f.held(t); back.stock["w1"] != before.stock["w1"] || back.balance != before.balance || back.uses != before.uses ||
		back.ticket != store.TicketValid || !slices.Equal(back.cartKeys, before.cartKeys) {
		t.Fatalf("before the hold %+v, after its release %+v", before, back)
	}
	d = must(st.OrderDetails(ctx, o.ID))
	if d.Order.Status != store.OrderExpired || d.Order.Hold.Reason != store.ReleaseExpired || d.Order.Hold.SessionID != "cs_1" {
		t.Fatalf("released order %+v, hold %+v", d.Order, d.Order.Hold)
	}
	for _, it := range d.Items {
		if !it.Expired {
			t.Fatalf("item %+v not expired", it)
		}
	}
	if p := must(st.CustomerOrders(ctx, "ada", 20, "")); len(p.Items) != 0 {
		t.Fatalf("ada's orders list an expired one: %+v", p.Items)
	}
	if p := must(st.ProductOrders(ctx, "tea", start.Add(-time.Hour), start.Add(time.Hour), 20, "")); len(p.Items) != 0 {
		t.Fatalf("tea's orders list expired lines: %+v", p.Items)
	}
	if p := must(st.CustomerProducts(ctx, "ada", start.Add(-time.Hour), start.Add(time.Hour), 20, "")); len(p.Items) != 0 {
		t.Fatalf("ada's products list expired lines: %+v", p.Items)
	}
	if due := must(st.HeldOrdersDue(ctx, o.Hold.Until.Add(time.Hour), time.Minute, 20)); len(due) != 0 {
		t.Fatalf("still due once released: %+v", due)
	}
	// Expired again (the event twice, or the reconcile step): the same.
	if again, err := st.ReleaseHeldOrder(ctx, o.ID, store.ReleaseDeadline, "", ""); err != nil || again.Status != store.OrderExpired {
		t.Fatalf("released twice: %+v, %v", again, err)
	}
	if back := f.held(t); back.stock["w1"] != before.stock["w1"] || back.balance != before.balance || back.uses != before.uses {
		t.Fatalf("a second release gave back again: %+v", back)
	}
	if err := st.AttachPaymentSession(ctx, o, payment.ProviderTest, "cs_1"); !errors.Is(err, store.ErrHoldReleased) {
		t.Fatalf("attach to a released order: %v", err)
	}

	// A payment after the release is refunded, never kept, and told once.
	res := paymentOf(o, "evt_paid_late")
	told := 0
	res.Refunded = func(o store.Order, rf store.Refund) *store.Mail {
		told++
		return &store.Mail{ID: "late-" + o.ID, To: "ada@example.com", Kind: store.MailRefund, Subject: "s", Text: "t", CustomerID: o.CustomerID,
			CreatedAt: f.clock.Now(), Status: store.MailPending}
	}
	applied, err := st.PlaceHeldOrder(ctx, o.ID, res)
	if !errors.Is(err, store.ErrHoldReleased) || applied.Refund == nil || applied.Refund.Card != o.Hold.Card ||
		applied.Refund.Status != store.RefundCardPending || applied.Refund.Provider != payment.ProviderTest {
		t.Fatalf("a late payment: %+v, %v", applied, err)
	}
	for _, r := range []store.PaymentResult{res, paymentOf(o, "evt_other"), paymentOf(o, "")} {
		again, err := st.PlaceHeldOrder(ctx, o.ID, r)
		if !errors.Is(err, store.ErrHoldReleased) || !again.Duplicate || again.Refund == nil || again.Refund.ID != applied.Refund.ID {
			t.Fatalf("the late payment again (%q): %+v, %v", r.EventID, again, err)
		}
	}
	pending := must(st.PendingCardRefunds(ctx))
	if len(pending) != 1 || pending[0].OrderID != o.ID || pending[0].RefundID != applied.Refund.ID || pending[0].Amount != o.Hold.Card {
		t.Fatalf("pending card refunds %+v", pending)
	}
	if told != 1 || f.env.CountEntities(t, "mail") != 1 {
		t.Fatalf("told %d times, %d mails", told, f.env.CountEntities(t, "mail"))
	}
	if d := must(st.OrderDetails(ctx, o.ID)); d.Order.Status != store.OrderExpired || d.Order.Refunded.Amount != 0 || len(d.Invoices) != 0 {
		t.Fatalf("the order after a late payment %+v", d.Order)
	}
	if days := must(st.DayTotals(ctx, start, start)); days[0].Orders != 0 || days[0].Revenue.Amount != 0 || days[0].Refunded.Amount != 0 {
		t.Fatalf("day totals after a late payment: %+v", days[0])
	}
}

// A payment places the held order: its invoice numbered in the books with
// the gift card's and the card's payments, the day's totals, the month's
// orders, the to-ship list and its mail; an event twice, the reconcile step
// beside it, or a release after it change nothing. Another payment of the
// placed order is refunded.
func TestPaymentPlacesTheHeldOrderOnce(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	req := f.adaCart(t, "hold-2")
	o := must(st.HoldCheckout(ctx, req))
	if err := st.AttachPaymentSession(ctx, o, payment.ProviderStripe, "cs_test_1"); err != nil {
		t.Fatal(err)
	}
	res := paymentOf(o, "evt_1")
	res.Provider = payment.ProviderStripe
	mailed := 0
	res.Confirmation = func(o store.Order, items []store.OrderItem, _ store.Invoice) store.Mail {
		mailed++
		return store.Mail{ID: "order-" + o.ID, To: "ada@example.com", Kind: store.MailOrderPlaced, Subject: "s", Text: "t", CustomerID: o.CustomerID,
			CreatedAt: o.PlacedAt, Status: store.MailPending}
	}
	f.env.Counter.Reset()
	applied, err := st.PlaceHeldOrder(ctx, o.ID, res)
	if err != nil || applied.Duplicate || applied.Order.Status != store.OrderPlaced {
		t.Fatalf("place: %+v, %v", applied, err)
	}
	if ops := f.env.Counter.Ops(); ops["TransactWriteItems"] != 1 {
		t.Fatalf("placing made %v", ops)
	}
	d := must(st.OrderDetails(ctx, o.ID))
	inv, ok := d.Invoice()
	if !ok || d.Order.Status != store.OrderPlaced || d.Order.Hold.PaymentRef != res.PaymentRef || inv.Amount != eur(4950) || inv.DiscountCode != "HOLD10" {
		t.Fatalf("placed order %+v, invoice %+v", d.Order, inv)
	}
	if len(inv.Payments) != 2 || inv.Payments[0].Type != "GiftCard" || inv.Payments[0].Amount != eur(1000) ||
		inv.Payments[1].Type != "Visa" || inv.Payments[1].Amount != eur(3950) || inv.Payments[1].Provider != payment.ProviderStripe ||
		inv.Payments[1].Label() != "Visa ending in 4242" || len(inv.VAT) == 0 || !d.Order.PlacedAt.Equal(inv.Date) {
		t.Fatalf("invoice %+v", inv)
	}
	day := d.Order.PlacedAt
	if days := must(st.DayTotals(ctx, day, day)); days[0].Orders != 1 || days[0].Revenue != eur(4950) {
		t.Fatalf("day totals %+v", days[0])
	}
	if p := must(st.OrdersToShip(ctx, 20, "")); len(p.Items) != 1 || p.Items[0].ID != o.ID {
		t.Fatalf("to ship: %+v", p.Items)
	}
	if p := must(st.OrdersBetween(ctx, day.Add(-time.Hour), day.Add(time.Hour), 20, "")); len(p.Items) != 1 {
		t.Fatalf("month's orders: %+v", p.Items)
	}
	if due := must(st.HeldOrdersDue(ctx, o.Hold.Until.Add(time.Hour), 0, 20)); len(due) != 0 {
		t.Fatalf("due once placed: %+v", due)
	}
	// Twice, from the reconcile step, and released after: nothing more.
	for _, r := range []store.PaymentResult{res, {Provider: res.Provider, PaymentRef: res.PaymentRef, Amount: res.Amount}} {
		again, err := st.PlaceHeldOrder(ctx, o.ID, r)
		if err != nil || !again.Duplicate || again.Order.Status != store.OrderPlaced {
			t.Fatalf("applied again: %+v, %v", again, err)
		}
	}
	if _, err := st.ReleaseHeldOrder(ctx, o.ID, store.ReleaseExpired, payment.ProviderStripe, "evt_2"); !errors.Is(err, store.ErrOrderPaid) {
		t.Fatalf("release after the payment: %v", err)
	}
	if mailed != 1 || f.env.CountEntities(t, "invoice") != 1 || must(st.DayTotals(ctx, day, day))[0].Orders != 1 {
		t.Fatalf("mailed %d, %d invoices", mailed, f.env.CountEntities(t, "invoice"))
	}
	// A second payment of the placed order goes back.
	second := res
	second.EventID, second.PaymentRef = "evt_3", "pi_second"
	applied, err = st.PlaceHeldOrder(ctx, o.ID, second)
	if !errors.Is(err, store.ErrOrderPaid) || applied.Refund == nil || applied.Refund.Provider != payment.ProviderStripe {
		t.Fatalf("a second payment: %+v, %v", applied, err)
	}
	// A refund of the placed order goes back through the provider that
	// took the card's payment.
	rf, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-1", Amount: eur(4950), Reason: "test", By: store.Customer{ID: "staff"}}, payment.CardRefunds{}) // Stripe is not configured here: its refund waits
	if !errors.Is(err, store.ErrRefundCard) || rf.Provider != payment.ProviderStripe || rf.Card != eur(3950) {
		t.Fatalf("refund: %+v, %v", rf, err)
	}
}

// A gift card and code that cover the total place the order at once, as
// a checkout does.
func TestHoldPlacesAtOnceWhenNothingIsLeftForTheCard(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	req := request("hold-3", "bo", store.CheckoutLine{ProductID: "tea", Quantity: 1})
	req.GiftCardCode, req.HoldFor = "GIFT-HOLD", holdFor
	f.tea.Price = eur(900)
	if err := st.PutProduct(ctx, f.tea); err != nil {
		t.Fatal(err)
	}
	o, err := st.HoldCheckout(ctx, req)
	if err != nil || o.Status != store.OrderPlaced || o.Hold != nil {
		t.Fatalf("held %+v, %v", o, err)
	}
	if inv, ok := must(st.OrderDetails(ctx, o.ID)).Invoice(); !ok || inv.Paid() != eur(900) {
		t.Fatalf("invoice %+v", inv)
	}
	if _, err := st.HoldCheckout(ctx, store.CheckoutRequest{Key: "hold-4", CustomerID: "bo", HoldFor: 25 * time.Hour}); !errors.Is(err, store.ErrBadHold) {
		t.Fatalf("a hold of 25 hours: %v", err)
	}
}

// A payment that is not what the hold waits for does not place the order:
// it is refunded and the hold released, in one transaction.
func TestMismatchedPaymentIsRefundedAndTheHoldReleased(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	req := f.adaCart(t, "hold-5")
	before := f.held(t)
	o := must(st.HoldCheckout(ctx, req))
	res := paymentOf(o, "evt_short")
	res.Amount = eur(100)
	applied, err := st.PlaceHeldOrder(ctx, o.ID, res)
	if !errors.Is(err, store.ErrPaymentMismatch) || applied.Refund == nil || applied.Refund.Card != eur(100) || applied.Order.Status != store.OrderExpired {
		t.Fatalf("a short payment: %+v, %v", applied, err)
	}
	if back := f.held(t); back.stock["w1"] != before.stock["w1"] || back.balance != before.balance || back.uses != before.uses || back.ticket != store.TicketValid {
		t.Fatalf("before %+v, after the mismatch %+v", before, back)
	}
	if again, err := st.PlaceHeldOrder(ctx, o.ID, res); !errors.Is(err, store.ErrHoldReleased) || !again.Duplicate {
		t.Fatalf("the short payment again: %+v, %v", again, err)
	}
	if n := len(must(st.PendingCardRefunds(ctx))); n != 1 {
		t.Fatalf("%d pending card refunds", n)
	}
}

// Five submissions of one form at once hold one order.
func TestHoldSubmittedFiveTimesAtOnce(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	req := request("hold-6", "cy", store.CheckoutLine{ProductID: "tea", Quantity: 2})
	req.HoldFor = holdFor
	ids := make([]string, 5)
	errs := make([]error, 5)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			o, err := st.HoldCheckout(ctx, req)
			ids[i], errs[i] = o.ID, err
		})
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("submission %d: %s, %v (first %s)", i, ids[i], errs[i], ids[0])
		}
	}
	if n := f.env.CountEntities(t, "order"); n != 1 {
		t.Fatalf("%d orders", n)
	}
	if got := f.stock(t); got["w1"] != 3 {
		t.Fatalf("stock %v, want 3", got)
	}
}

// teaStock is the tea in every warehouse, none below zero.
func (f holdFixture) teaStock(t *testing.T) int {
	t.Helper()
	n := 0
	for w, q := range f.stock(t) {
		if q < 0 {
			t.Fatalf("stock of tea in %s is %d", w, q)
		}
		n += q
	}
	return n
}

// An account is not deleted while one of its orders awaits payment (a
// payment would make it one to ship); an expired order, out of the
// customer's list, is in their data and loses their name and address with
// the rest.
func TestDeletionWaitsForAHeldOrderAndErasesAnExpiredOne(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	c := must(st.CreateCustomer(ctx, store.NewCustomer{Email: "fay@example.com", Name: "Fay Held", PasswordHash: "x"}))
	req := request("hold-del", c.ID, store.CheckoutLine{ProductID: "tea", Quantity: 1})
	req.HoldFor, req.Buyer = holdFor, store.Buyer{Name: "Fay Held", Email: "fay@example.com"}
	o := must(st.HoldCheckout(ctx, req))
	if err := st.DeleteCustomer(ctx, c.ID); !errors.Is(err, store.ErrOrderToShip) {
		t.Fatalf("deleting while an order awaits payment: %v", err)
	}
	if _, err := st.ReleaseHeldOrder(ctx, o.ID, store.ReleaseCancelled, "", ""); err != nil {
		t.Fatal(err)
	}
	data := must(st.CustomerData(ctx, c.ID))
	if len(data.Orders) != 1 || data.Orders[0].Order.Status != store.OrderExpired {
		t.Fatalf("her data's orders: %+v", data.Orders)
	}
	if err := st.DeleteCustomer(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	d := must(st.OrderDetails(ctx, o.ID))
	if d.Order.Buyer.Email != "" || d.Order.Buyer.Name != store.DeletedCustomerName || d.Order.ShipTo.Street != "" {
		t.Fatalf("the expired order after the deletion: %+v", d.Order)
	}
}
