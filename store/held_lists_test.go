package store_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/store/storetest/paytest"
)

// heldListsFixture is a shop (tea, w1 10) with three orders of ada: one
// paid at checkout (1 tea), one held for its card payment (her drop
// ticket and 2 teas, with the gift card and the code), and one held then
// released (3 teas).
type heldListsFixture struct {
	holdFixture
	placed, held, gone store.Order
	start              time.Time
}

func newHeldListsFixture(t *testing.T) heldListsFixture {
	t.Helper()
	f := heldListsFixture{holdFixture: newHoldFixture(t, 10, 0)}
	ctx, st := ctxT(t), f.env.Store
	f.start = f.clock.Now()
	paid := request("paid-1", "ada", store.CheckoutLine{ProductID: "tea", Quantity: 1})
	f.placed = must(paytest.New(t, st).Checkout(ctx, paid))
	f.held = must(st.HoldCheckout(ctx, f.adaCart(t, "held-1")))
	if err := st.AttachPaymentSession(ctx, f.held, payment.ProviderTest, "cs_held"); err != nil {
		t.Fatal(err)
	}
	gone := request("gone-1", "ada", store.CheckoutLine{ProductID: "tea", Quantity: 3})
	gone.HoldFor = holdFor
	f.gone = must(st.HoldCheckout(ctx, gone))
	if _, err := st.ReleaseHeldOrder(ctx, f.gone.ID, store.ReleaseDeadline, "", ""); err != nil {
		t.Fatal(err)
	}
	return f
}

func orderIDs(orders []store.Order) []string {
	var ids []string
	for _, o := range orders {
		ids = append(ids, o.ID)
	}
	slices.Sort(ids)
	return ids
}

func lineOrders(items []store.OrderItem) []string {
	var ids []string
	for _, it := range items {
		ids = append(ids, it.OrderID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func sorted(ids ...string) []string { slices.Sort(ids); return ids }

// Every list, access pattern and figure: an expired order is in none of
// them, and an order awaiting payment is not sold (not in the product's or
// the customer's order lines, the month's orders, the day's totals, the
// books, the to-ship list or shipments) but is its customer's (awaiting
// payment) and on the awaiting-payment list, with its stock, code, gift
// card and ticket taken. Once paid, its lines are sold as of its payment.
func TestHeldAndExpiredOrdersInEveryList(t *testing.T) {
	t.Parallel()
	f := newHeldListsFixture(t)
	ctx, st := ctxT(t), f.env.Store
	from, to := f.start.Add(-time.Hour), f.start.Add(time.Hour)
	month := store.MonthOf(f.start, st.Location())
	only := func(what string, got []string, want ...string) {
		t.Helper()
		if want := sorted(want...); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q (paid %s, held %s, expired %s)", what, got, want, f.placed.ID, f.held.ID, f.gone.ID)
		}
	}

	// 4, 14: stock: the drop's two set aside, the paid order's unit and
	// the held order's two taken, the expired order's three back.
	if got := f.stock(t); got["w1"] != 10-2-1-2 {
		t.Errorf("tea in w1: %d, want 5", got["w1"])
	}
	if p := must(st.WarehouseStock(ctx, "w1", 20, "")); len(p.Items) != 1 || p.Items[0].Quantity != 5 {
		t.Errorf("w1's inventory %+v", p.Items)
	}
	// 5-8: each order's collection says what it is; neither has an
	// invoice or shipments.
	for _, c := range []struct {
		o       store.Order
		status  store.OrderStatus
		expired bool
	}{{f.held, store.OrderAwaitingPayment, false}, {f.gone, store.OrderExpired, true}} {
		d := must(st.OrderDetails(ctx, c.o.ID))
		if d.Order.Status != c.status || d.Order.Hold == nil || len(d.Invoices) != 0 || len(d.Shipments) != 0 {
			t.Errorf("order %s: %+v", c.o.ID, d)
		}
		for _, it := range must(st.OrderItems(ctx, c.o.ID)) {
			if it.Expired != c.expired {
				t.Errorf("order %s's line %+v", c.o.ID, it)
			}
		}
		if inv := must(st.OrderInvoices(ctx, c.o.ID)); len(inv) != 0 {
			t.Errorf("order %s has invoices %+v", c.o.ID, inv)
		}
		if sh := must(st.OrderShipments(ctx, c.o.ID)); len(sh) != 0 {
			t.Errorf("order %s has shipments %+v", c.o.ID, sh)
		}
	}
	// 9, 16: the product's and the customer's order lines are sales.
	only("tea's order lines", lineOrders(must(st.ProductOrders(ctx, "tea", from, to, 20, "")).Items), f.placed.ID)
	only("ada's order lines", lineOrders(must(st.CustomerProducts(ctx, "ada", from, to, 20, "")).Items), f.placed.ID)
	// 10-11, 15: invoices.
	invoices := must(st.CustomerInvoices(ctx, "ada", from, to, 20, ""))
	if len(invoices.Items) != 1 || invoices.Items[0].OrderID != f.placed.ID {
		t.Errorf("ada's invoices %+v", invoices.Items)
	}
	// 12, 13: shipments: none until staff make them, and the held order
	// cannot have them.
	for _, o := range []store.Order{f.held, f.gone} {
		if _, err := st.CreateShipments(ctx, o.ID, "Standard"); !errors.Is(err, store.ErrNotPaid) {
			t.Errorf("shipments of order %s (%s): %v", o.ID, o.Status, err)
		}
	}
	if p := must(st.WarehouseShipments(ctx, "w1", 20, "")); len(p.Items) != 0 {
		t.Errorf("w1's shipments %+v", p.Items)
	}
	if p := must(st.ShipmentsByStatus(ctx, store.ShipmentPending, 20, "")); len(p.Items) != 0 {
		t.Errorf("shipments to pack %+v", p.Items)
	}
	// The customer's orders: the held one as such, not the expired one.
	only("ada's orders", orderIDs(must(st.CustomerOrders(ctx, "ada", 20, "")).Items), f.placed.ID, f.held.ID)
	// Staff lists, the export and the books.
	only("the month's orders", orderIDs(must(st.OrdersBetween(ctx, from, to, 20, "")).Items), f.placed.ID)
	only("to ship", orderIDs(must(st.OrdersToShip(ctx, 20, "")).Items), f.placed.ID)
	only("awaiting payment", orderIDs(must(st.HeldOrders(ctx, 20, "")).Items), f.held.ID)
	var err error
	f.env.Costs(t, "orders awaiting payment", store.DefaultListShards, func() { _, err = st.HeldOrders(ctx, 20, "") })
	if err != nil {
		t.Fatal(err)
	}
	if p := must(st.HeldOrders(ctx, 20, "")); p.Items[0].Hold == nil || p.Items[0].Hold.SessionID != "cs_held" || p.Items[0].Hold.Card != f.held.Hold.Card {
		t.Errorf("the awaiting-payment list's hold %+v", p.Items[0].Hold)
	}
	if inv := must(st.InvoicesOfMonth(ctx, month)); len(inv) != 1 || inv[0].OrderID != f.placed.ID {
		t.Errorf("the month's invoices %+v", inv)
	}
	if days := must(st.DayTotals(ctx, f.start, f.start)); days[0].Orders != 1 || days[0].Revenue != f.placed.Total {
		t.Errorf("the day's totals %+v, want the paid order's %s", days[0], f.placed.Total)
	}
	// The drop: ada's ticket is the held order's until it is paid or released.
	if tk := must(st.Ticket(ctx, f.drop.ID, "ada")); tk.Status != store.TicketRedeemed || tk.OrderID != f.held.ID {
		t.Errorf("ada's ticket %+v", tk)
	}

	// Paid: sold as of its payment; a payment of the expired order is
	// refunded and in no figure.
	f.clock.Set(f.start.Add(10 * time.Minute))
	if _, err := st.PlaceHeldOrder(ctx, f.held.ID, paymentOf(f.held, "evt_paid")); err != nil {
		t.Fatal(err)
	}
	paidDetails := must(st.OrderDetails(ctx, f.held.ID))
	paidAt := paidDetails.Order.PlacedAt
	// 10-11: its invoice, by its number, with the card's payment at its provider.
	if inv, ok := paidDetails.Invoice(); !ok {
		t.Error("the paid order has no invoice")
	} else if byID := must(st.Invoice(ctx, inv.ID)); byID.OrderID != f.held.ID || !slices.ContainsFunc(byID.Payments, func(p store.Payment) bool {
		return p.Provider == payment.ProviderTest && p.Amount == f.held.Hold.Card
	}) {
		t.Errorf("the paid order's invoice %+v", byID)
	}
	if _, err := st.PlaceHeldOrder(ctx, f.gone.ID, paymentOf(f.gone, "evt_late")); !errors.Is(err, store.ErrHoldReleased) {
		t.Fatalf("a late payment: %v", err)
	}
	lines := must(st.ProductOrders(ctx, "tea", from, to, 20, "")).Items
	only("tea's order lines once paid", lineOrders(lines), f.placed.ID, f.held.ID)
	for _, it := range lines {
		if it.OrderID == f.held.ID && !it.PlacedAt.Equal(paidAt) {
			t.Errorf("a paid line dated %v, its order %v", it.PlacedAt, paidAt)
		}
	}
	only("ada's order lines once paid", lineOrders(must(st.CustomerProducts(ctx, "ada", from, to, 20, "")).Items), f.placed.ID, f.held.ID)
	only("the month's orders once paid", orderIDs(must(st.OrdersBetween(ctx, from, to, 20, "")).Items), f.placed.ID, f.held.ID)
	only("awaiting payment once paid", orderIDs(must(st.HeldOrders(ctx, 20, "")).Items))
	if days := must(st.DayTotals(ctx, f.start, f.start)); days[0].Orders != 2 || days[0].Revenue != f.placed.Total.Add(f.held.Total) || days[0].Refunded.Amount != 0 {
		t.Errorf("the day's totals once paid %+v", days[0])
	}
	if rf := must(st.RefundsOfMonth(ctx, month)); len(rf) != 0 {
		t.Errorf("the books' refunds hold a late payment's %+v", rf)
	}

	// The awaiting-payment list pages by deadline across its shards.
	var later []string
	for i, d := range []time.Duration{2 * time.Hour, time.Hour, 3 * time.Hour} {
		req := request(fmt.Sprintf("later-%d", i), "ada", store.CheckoutLine{ProductID: "tea", Quantity: 1})
		req.HoldFor = d
		later = append(later, must(st.HoldCheckout(ctx, req)).ID)
	}
	var paged []string
	for cursor, pages := "", 0; ; pages++ {
		p := must(st.HeldOrders(ctx, 2, cursor))
		for _, o := range p.Items {
			paged = append(paged, o.ID)
		}
		if cursor = p.Next; cursor == "" || pages > 3 {
			break
		}
	}
	if want := []string{later[1], later[0], later[2]}; !slices.Equal(paged, want) {
		t.Errorf("awaiting payment by pages of 2: %q, want %q", paged, want)
	}
}

// The customer's data export holds every order, the held and the expired
// ones with their holds.
func TestCustomerDataHasHeldAndExpiredOrders(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	cy := must(st.CreateCustomer(ctx, store.NewCustomer{Email: "cy@example.com", Name: "Cy", PasswordHash: "x"}))
	hold := func(key string) store.Order {
		req := request(key, cy.ID, store.CheckoutLine{ProductID: "tea", Quantity: 1})
		req.HoldFor = holdFor
		return must(st.HoldCheckout(ctx, req))
	}
	held, gone := hold("cy-held"), hold("cy-gone")
	if _, err := st.ReleaseHeldOrder(ctx, gone.ID, store.ReleaseCancelled, "", ""); err != nil {
		t.Fatal(err)
	}
	data := must(st.CustomerData(ctx, cy.ID))
	got := map[string]store.OrderStatus{}
	for _, d := range data.Orders {
		if d.Order.Hold == nil || len(d.Items) != 1 {
			t.Errorf("exported order %+v", d)
		}
		got[d.Order.ID] = d.Order.Status
	}
	if len(got) != 2 || got[held.ID] != store.OrderAwaitingPayment || got[gone.ID] != store.OrderExpired {
		t.Fatalf("exported orders %v", got)
	}
	var deleteErr *store.OrderToShipError
	if err := st.DeleteCustomer(ctx, cy.ID); !errors.As(err, &deleteErr) {
		t.Fatalf("deleting an account with an order awaiting payment: %v", err)
	}
}
