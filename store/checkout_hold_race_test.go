package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
)

// Races of held card checkouts; each checks the totals. Not parallel:
// beside other tests' writes, DynamoDB Local times out the lock waits of
// races like these (TestCheckoutLastTenUnitsRace).

// soldOut says a checkout was refused for want of stock (or stock that
// kept moving under it): an answer, not a failure.
func soldOut(err error) bool {
	return errors.Is(err, store.ErrInsufficientStock) || errors.Is(err, store.ErrConflict)
}

// Fifty buyers hold the last ten units while the holds of others are paid
// or expire: never a unit oversold, and stock + held + sold is ten.
func TestHoldRaceFiftyBuyersForTenUnits(t *testing.T) {
	f := newHoldFixture(t, 6, 4)
	ctx, st := ctxT(t), f.env.Store
	buyers := 50
	if testing.Short() {
		buyers = 20
	}
	type outcome struct {
		order store.Order
		err   error
		then  error // the payment's or the release's
	}
	out := make([]outcome, buyers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range buyers {
		wg.Go(func() {
			<-start
			req := request(fmt.Sprintf("race-%02d", i), fmt.Sprintf("buyer-%02d", i), store.CheckoutLine{ProductID: "tea", Quantity: 1})
			req.HoldFor = holdFor
			o, err := st.HoldCheckout(ctx, req)
			out[i] = outcome{order: o, err: err}
			if err != nil {
				return
			}
			switch i % 3 {
			case 0: // paid
				_, out[i].then = st.PlaceHeldOrder(ctx, o.ID, paymentOf(o, "evt_"+o.ID))
			case 1: // the page expired: its unit goes back for the others
				_, out[i].then = st.ReleaseHeldOrder(ctx, o.ID, store.ReleaseExpired, payment.ProviderTest, "evt_x_"+o.ID)
			}
		})
	}
	close(start)
	wg.Wait()
	held, sold, released, refused := 0, 0, 0, 0
	for i, r := range out {
		switch {
		case r.err != nil && soldOut(r.err):
			refused++
		case r.err != nil:
			t.Errorf("buyer %d: %v", i, r.err)
		case r.then != nil:
			t.Errorf("buyer %d after the hold: %v", i, r.then)
		case i%3 == 0:
			sold++
		case i%3 == 1:
			released++
		default:
			held++
		}
	}
	stock := f.teaStock(t)
	if stock+held+sold != 10 {
		t.Fatalf("stock %d + held %d + sold %d != 10 (released %d, refused %d)", stock, held, sold, released, refused)
	}
	// The table agrees with what the buyers were told.
	counted := map[store.OrderStatus]int{}
	for _, r := range out {
		if r.err == nil {
			counted[must(st.OrderDetails(ctx, r.order.ID)).Order.Status]++
		}
	}
	if counted[store.OrderPlaced] != sold || counted[store.OrderAwaitingPayment] != held || counted[store.OrderExpired] != released {
		t.Fatalf("orders by status %v; told sold %d, held %d, released %d", counted, sold, held, released)
	}
	if n := f.env.CountEntities(t, "invoice"); n != sold {
		t.Fatalf("%d invoices for %d sold", n, sold)
	}
	t.Logf("%d buyers: %d sold, %d held, %d released, %d refused; stock %d", buyers, sold, held, released, refused, stock)
}

// A gift card that pays part of several checkouts at once, some placed at
// once, some held and some of those released meanwhile (their part back
// for the next): its balance never goes below zero, and it is what the
// orders still holding it did not take.
func TestGiftCardHeldByPendingCheckoutsNeverBelowZero(t *testing.T) {
	f := newHoldFixture(t, 20, 0)
	ctx, st := ctxT(t), f.env.Store
	const initial = 5000 // €50: two teas at €20 in full, then €10 of a third
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-RACE", Balance: eur(initial), Initial: eur(initial), CreatedAt: f.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	buyers := 16
	orders := make([]store.Order, buyers)
	errs := make([]error, buyers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range buyers {
		wg.Go(func() {
			<-start
			req := request(fmt.Sprintf("gift-%02d", i), fmt.Sprintf("giver-%02d", i), store.CheckoutLine{ProductID: "tea", Quantity: 1})
			req.GiftCardCode, req.HoldFor = "GIFT-RACE", holdFor
			orders[i], errs[i] = st.HoldCheckout(ctx, req)
			if errs[i] == nil && orders[i].Status == store.OrderAwaitingPayment && i%2 == 0 {
				_, errs[i] = st.ReleaseHeldOrder(ctx, orders[i].ID, store.ReleaseCancelled, "", "")
			}
		})
	}
	close(start)
	wg.Wait()
	var taken int64
	for i, o := range orders {
		var code *store.CodeError
		switch {
		case errs[i] != nil && (errors.As(errs[i], &code) || errors.Is(errs[i], store.ErrConflict)):
			continue // the balance it read was taken meanwhile
		case errs[i] != nil:
			t.Fatalf("buyer %d: %v", i, errs[i])
		}
		d := must(st.OrderDetails(ctx, o.ID))
		switch d.Order.Status {
		case store.OrderAwaitingPayment:
			taken += d.Order.Total.Amount - d.Order.Hold.Card.Amount
		case store.OrderPlaced:
			inv, _ := d.Invoice()
			for _, p := range inv.Payments {
				if p.Type == "GiftCard" {
					taken += p.Amount.Amount
				}
			}
		}
	}
	balance := must(st.GiftCard(ctx, "GIFT-RACE")).Balance.Amount
	if balance < 0 || balance+taken != initial {
		t.Fatalf("balance %d + taken by the orders %d != %d", balance, taken, initial)
	}
	t.Logf("balance %d, taken %d", balance, taken)
}

// One event delivered ten times at once, and the reconcile step beside
// it, place the order once: one invoice, one number, one order in the
// day's totals, one mail.
func TestPaymentEventDeliveredTenTimesAtOncePlacesOnce(t *testing.T) {
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	req := request("event-1", "dee", store.CheckoutLine{ProductID: "tea", Quantity: 1})
	req.HoldFor = holdFor
	o := must(st.HoldCheckout(ctx, req))
	res := paymentOf(o, "evt_once")
	res.Confirmation = func(o store.Order, _ []store.OrderItem, _ store.Invoice) store.Mail {
		return store.Mail{ID: "order-" + o.ID, To: "dee@example.com", Kind: store.MailOrderPlaced, Subject: "s", Text: "t",
			CustomerID: o.CustomerID, CreatedAt: o.PlacedAt, Status: store.MailPending}
	}
	applied := make([]store.PaymentApplied, 11)
	errs := make([]error, 11)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range applied {
		wg.Go(func() {
			<-start
			r := res
			if i == 10 {
				r.EventID = "" // the reconcile step
			}
			applied[i], errs[i] = st.PlaceHeldOrder(ctx, o.ID, r)
		})
	}
	close(start)
	wg.Wait()
	placed := 0
	for i := range applied {
		if errs[i] != nil {
			t.Fatalf("delivery %d: %v", i, errs[i])
		}
		if !applied[i].Duplicate {
			placed++
		}
	}
	d := must(st.OrderDetails(ctx, o.ID))
	inv, _ := d.Invoice()
	day := d.Order.PlacedAt
	if placed != 1 || d.Order.Status != store.OrderPlaced || f.env.CountEntities(t, "invoice") != 1 ||
		f.env.CountEntities(t, "mail") != 1 || must(st.DayTotals(ctx, day, day))[0].Orders != 1 || inv.ID != fmt.Sprintf("%d-000001", day.Year()) {
		t.Fatalf("placed %d times; order %s, invoice %q, %d invoices, %d mails", placed, d.Order.Status, inv.ID,
			f.env.CountEntities(t, "invoice"), f.env.CountEntities(t, "mail"))
	}
}

// The payment of each of ten holds races their release: one of the two
// wins each, the other is told (a payment too late is refunded), and the
// books balance: an invoice and a day's order per sale, the stock of the
// others back, a pending refund per payment that lost.
func TestPaymentRacesTheRelease(t *testing.T) {
	f := newHoldFixture(t, 10, 0)
	ctx, st := ctxT(t), f.env.Store
	const n = 10
	orders := make([]store.Order, n)
	for i := range orders {
		req := request(fmt.Sprintf("duel-%02d", i), fmt.Sprintf("duel-%02d", i), store.CheckoutLine{ProductID: "tea", Quantity: 1})
		req.HoldFor = holdFor
		orders[i] = must(st.HoldCheckout(ctx, req))
	}
	paid := make([]error, n)
	released := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	// Each event lands on a replica of its own, as webhooks do: the
	// payments take their invoice numbers against each other on the
	// series' counter, not in one process's turns (books.go). The release
	// of every other duel starts later (two seconds: DynamoDB Local on a
	// busy machine takes a second a request), so that both sides win some.
	for i, o := range orders {
		replica := store.New(f.env.Client, f.env.Table, store.WithClock(f.clock.Now))
		wg.Go(func() {
			<-start
			_, paid[i] = replica.PlaceHeldOrder(ctx, o.ID, paymentOf(o, "evt_paid_"+o.ID))
		})
		wg.Go(func() {
			<-start
			if i%2 == 1 {
				time.Sleep(2*time.Second + time.Duration(i)*50*time.Millisecond)
			}
			_, released[i] = st.ReleaseHeldOrder(ctx, o.ID, store.ReleaseDeadline, "", "")
		})
	}
	close(start)
	wg.Wait()
	sold, late := 0, 0
	for i := range orders {
		switch {
		case paid[i] == nil && errors.Is(released[i], store.ErrOrderPaid):
			sold++
		case errors.Is(paid[i], store.ErrHoldReleased) && released[i] == nil:
			late++
		default:
			t.Fatalf("order %d: paid %v, released %v", i, paid[i], released[i])
		}
	}
	now := f.clock.Now()
	days := must(st.DayTotals(ctx, now.Add(-time.Hour), now))
	orderCount := 0
	for _, d := range days {
		orderCount += d.Orders
	}
	if f.env.CountEntities(t, "invoice") != sold || orderCount != sold || f.teaStock(t) != 10-sold || len(must(st.PendingCardRefunds(ctx))) != late {
		t.Fatalf("sold %d, late %d: %d invoices, %d orders in the day's totals, stock %d, %d pending refunds", sold, late,
			f.env.CountEntities(t, "invoice"), orderCount, f.teaStock(t), len(must(st.PendingCardRefunds(ctx))))
	}
	if due := must(st.HeldOrdersDue(ctx, now.Add(2*time.Hour), 0, 100)); len(due) != 0 {
		t.Fatalf("%d still awaiting payment", len(due))
	}
	t.Logf("%d paid first, %d released first", sold, late)
}

// What a hold, its page, its payment and a release cost in DynamoDB
// requests, as the rows of docs/access-patterns.md say.
func TestHeldCheckoutRequestCounts(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 20, 0)
	ctx, st, env := ctxT(t), f.env.Store, f.env
	req := func(key string) store.CheckoutRequest {
		r := request(key, "eve", store.CheckoutLine{ProductID: "tea", Quantity: 1})
		r.GiftCardCode, r.DiscountCode, r.CartOwner, r.HoldFor = "GIFT-HOLD", "HOLD10", store.CustomerOwner("eve"), holdFor
		if err := st.AddToCart(ctx, r.CartOwner, f.tea, 1); err != nil {
			t.Fatal(err)
		}
		return r
	}
	var o store.Order
	var err error
	first := req("count-1")
	// The key, the product with its stock, the gift card and the code,
	// the shipping zones, the transaction, the stock level's low-stock
	// check.
	env.Costs(t, "hold a checkout", 7, func() { o, err = st.HoldCheckout(ctx, first) })
	if err != nil {
		t.Fatal(err)
	}
	env.Costs(t, "attach its page", 1, func() { err = st.AttachPaymentSession(ctx, o, payment.ProviderTest, "cs_count") })
	if err != nil {
		t.Fatal(err)
	}
	// The order's collection, the invoices' counter (read once per
	// process), the transaction.
	env.Costs(t, "place it by its payment", 3, func() { _, err = st.PlaceHeldOrder(ctx, o.ID, paymentOf(o, "evt_count")) })
	if err != nil {
		t.Fatal(err)
	}
	env.Costs(t, "the same event again", 1, func() { _, err = st.PlaceHeldOrder(ctx, o.ID, paymentOf(o, "evt_count")) })
	if err != nil {
		t.Fatal(err)
	}
	// A quote made for the summary comes along: the key, the transaction
	// and the low-stock check.
	second := req("count-2")
	second.GiftCardCode = ""
	q := must(st.QuoteCheckout(ctx, second))
	second.Quote = &q
	env.Costs(t, "hold a checkout already quoted", 3, func() { o, err = st.HoldCheckout(ctx, second) })
	if err != nil {
		t.Fatal(err)
	}
	// The order's collection, the cart, the transaction, the stock
	// level's low-stock check.
	env.Costs(t, "release it", 4, func() { _, err = st.ReleaseHeldOrder(ctx, o.ID, store.ReleaseCancelled, "", "") })
	if err != nil {
		t.Fatal(err)
	}
	env.Costs(t, "held orders due", store.DefaultListShards, func() { _, err = st.HeldOrdersDue(ctx, f.clock.Now(), 0, 20) })
	if err != nil {
		t.Fatal(err)
	}
}
