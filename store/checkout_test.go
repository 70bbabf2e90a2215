package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

type shopFixture struct {
	env     storetest.Env
	gateway *payment.TestGateway
	card    *store.Card
	// pay holds orders and pays them at the test provider, as the shop does.
	pay *paytest.Payer
}

func eur(c int64) store.Money { return store.Money{Amount: c, Currency: "EUR"} }

// newFixture makes warehouses w1, w2 and the given products with their stock
// per warehouse.
func newFixture(t *testing.T, stock map[string][2]int, price int64, opts ...store.Option) shopFixture {
	t.Helper()
	env := storetest.New(t, opts...)
	ctx := ctxT(t)
	for _, w := range []string{"w1", "w2"} {
		if err := env.Store.PutWarehouse(ctx, store.Warehouse{ID: w, Name: "Warehouse " + w, Address: store.Address{City: w}}); err != nil {
			t.Fatal(err)
		}
	}
	for id, qs := range stock {
		if err := env.Store.PutProduct(ctx, store.Product{ID: id, Name: "Product " + id, Category: "c", Price: eur(price)}); err != nil {
			t.Fatal(err)
		}
		for i, q := range qs {
			if q < 0 {
				continue
			}
			w := fmt.Sprintf("w%d", i+1)
			if err := env.Store.PutStockLevel(ctx, store.StockLevel{ProductID: id, ProductName: "Product " + id, WarehouseID: w, WarehouseName: "Warehouse " + w, Quantity: q}); err != nil {
				t.Fatal(err)
			}
		}
	}
	g := payment.NewTestGateway(env.Store)
	card := paytest.LegacyCard(t, env.Store, payment.CardSucceeds, "12/99") // a card an older version kept
	return shopFixture{env: env, gateway: g, card: &card, pay: paytest.New(t, env.Store)}
}

// checkoutInOneTransaction holds req, asserting that the hold wrote with
// one transaction, pays it at the test provider (placing it) and reads
// the order back.
func (f shopFixture) checkoutInOneTransaction(t *testing.T, req store.CheckoutRequest) store.OrderDetails {
	t.Helper()
	ctx := ctxT(t)
	req.HoldFor = 30 * time.Minute
	f.env.Counter.Reset()
	o, err := f.env.Store.HoldCheckout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if ops := f.env.Counter.Ops(); ops["TransactWriteItems"] != 1 {
		t.Fatalf("the hold made %v", ops)
	}
	if o.Status == store.OrderAwaitingPayment {
		if o, err = f.pay.Pay(ctx, o, req.Confirmation); err != nil {
			t.Fatal(err)
		}
	}
	d, err := f.env.Store.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f shopFixture) stockOf(t *testing.T, product string) int {
	t.Helper()
	levels, err := f.env.Store.ProductStock(context.Background(), product)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range levels {
		if l.Quantity < 0 {
			t.Fatalf("stock of %s in %s is %d", product, l.WarehouseID, l.Quantity)
		}
		n += l.Quantity
	}
	return n
}

func request(key, customer string, lines ...store.CheckoutLine) store.CheckoutRequest {
	return store.CheckoutRequest{Key: key, CustomerID: customer, Lines: lines,
		ShipTo: store.Address{Street: "Main", Number: "1", ZipCode: "11111", City: "Boras", Country: "Sweden"}}
}

// Fifty customers race for the last ten units: exactly ten are sold, stock
// ends at zero, and the forty others are told and not charged. -short races
// twenty.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestCheckoutLastTenUnitsRace(t *testing.T) {
	f := newFixture(t, map[string][2]int{"last": {6, 4}}, 1500)
	ctx := ctxT(t)
	buyers := 50
	if testing.Short() {
		buyers = 20
	}
	var wg sync.WaitGroup
	errs := make([]error, buyers)
	start := make(chan struct{})
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req := request(fmt.Sprintf("key-%02d", i), fmt.Sprintf("cust-%02d", i), store.CheckoutLine{ProductID: "last", Quantity: 1})
			_, errs[i] = f.pay.Checkout(ctx, req)
		}()
	}
	close(start)
	wg.Wait()
	sold, short := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			sold++
		case errors.Is(err, store.ErrInsufficientStock):
			short++
		default:
			t.Errorf("buyer %d: %v", i, err)
		}
	}
	if sold != 10 || short != buyers-10 {
		t.Fatalf("sold %d, told sold out %d; want 10 and %d", sold, short, buyers-10)
	}
	if left := f.stockOf(t, "last"); left != 0 {
		t.Fatalf("stock left %d, want 0", left)
	}
	if n, total := paytest.Payments(t, f.env); n != 10 || total != 10*1500 {
		t.Fatalf("the provider holds %d payments of %d cents; want 10 of %d", n, total, 10*1500)
	}
	if got := f.env.CountEntities(t, "order"); got != 10 {
		t.Fatalf("%d orders written", got)
	}
}

// Twenty checkouts spend one gift card at once: it never goes below zero and
// every cent taken is on an invoice.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestGiftCardConcurrentSpends(t *testing.T) {
	f := newFixture(t, map[string][2]int{"p": {100, 0}}, 1000)
	ctx := ctxT(t)
	if _, err := f.env.Store.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-0001", Balance: eur(5500)}); err != nil {
		t.Fatal(err)
	}
	const spenders = 20
	var wg sync.WaitGroup
	orders := make([]store.Order, spenders)
	errs := make([]error, spenders)
	for i := range spenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := request(fmt.Sprintf("gift-%02d", i), fmt.Sprintf("c%d", i), store.CheckoutLine{ProductID: "p", Quantity: 1})
			req.GiftCardCode = "GIFT-0001"
			orders[i], errs[i] = f.pay.Checkout(ctx, req)
		}()
	}
	wg.Wait()
	var fromGift, fromCard int64
	for i, err := range errs {
		var ce *store.CodeError
		if err != nil && !(errors.As(err, &ce) && ce.Field == "giftcard") {
			t.Errorf("spender %d: %v", i, err)
			continue
		}
		if err != nil {
			continue
		}
		inv, err := f.env.Store.OrderInvoices(ctx, orders[i].ID)
		if err != nil || len(inv) != 1 {
			t.Fatalf("invoice of %s: %v", orders[i].ID, err)
		}
		for _, p := range inv[0].Payments {
			if p.Type == "GiftCard" {
				fromGift += p.Amount.Amount
			} else {
				fromCard += p.Amount.Amount
			}
		}
	}
	gc, err := f.env.Store.GiftCard(ctx, "GIFT-0001")
	if err != nil {
		t.Fatal(err)
	}
	if gc.Balance.Amount < 0 {
		t.Fatalf("gift card balance %d", gc.Balance.Amount)
	}
	if fromGift != 5500-gc.Balance.Amount {
		t.Fatalf("invoices took %d from the gift card, its balance fell by %d", fromGift, 5500-gc.Balance.Amount)
	}
	if _, total := paytest.Payments(t, f.env); total != fromCard {
		t.Fatalf("the provider holds %d, invoices say cards paid %d", total, fromCard)
	}
}

// The same checkout submitted five times at once makes one order and one
// charge.
func TestCheckoutSubmittedFiveTimes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {10, 0}}, 2000)
	ctx := ctxT(t)
	var wg sync.WaitGroup
	ids := make([]string, 5)
	errs := make([]error, 5)
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := request("same-key", "c1", store.CheckoutLine{ProductID: "p", Quantity: 2})
			o, err := f.pay.Checkout(ctx, req)
			ids[i], errs[i] = o.ID, err
		}()
	}
	wg.Wait()
	for i := range 5 {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("submission %d: order %q, %v (first %q)", i, ids[i], errs[i], ids[0])
		}
	}
	if got := f.env.CountEntities(t, "order"); got != 1 {
		t.Fatalf("%d orders", got)
	}
	// One payment at the provider: the five paid one page.
	if n, total := paytest.Payments(t, f.env); n != 1 || total != 4000 || f.env.CountEntities(t, "testPayIntent") != 1 {
		t.Fatalf("the provider: %d payments, %d cents, %d made", n, total, f.env.CountEntities(t, "testPayIntent"))
	}
	if left := f.stockOf(t, "p"); left != 8 {
		t.Fatalf("stock %d, want 8", left)
	}
}

// A discount code with a limit of 3 is used 3 times, however many race.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestDiscountCodeLimitRace(t *testing.T) {
	f := newFixture(t, map[string][2]int{"p": {100, 0}}, 1000)
	ctx := ctxT(t)
	if _, err := f.env.Store.CreateDiscountCode(ctx, store.DiscountCode{Code: "TEN", Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: time.Now().Add(time.Hour), UsageLimit: 3}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	used := 0
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := request(fmt.Sprintf("d-%d", i), "c", store.CheckoutLine{ProductID: "p", Quantity: 1})
			req.DiscountCode = "TEN"
			_, err := f.pay.Checkout(ctx, req)
			var ce *store.CodeError
			switch {
			case err == nil:
				mu.Lock()
				used++
				mu.Unlock()
			case errors.As(err, &ce) && ce.Field == "discount":
			default:
				t.Errorf("checkout %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	d, err := f.env.Store.DiscountCode(ctx, "TEN")
	if err != nil {
		t.Fatal(err)
	}
	if used != 3 || d.Used != 3 {
		t.Fatalf("%d orders used the code, it counts %d uses; want 3", used, d.Used)
	}
	if n, total := paytest.Payments(t, f.env); n != 3 || total != 3*900 {
		t.Fatalf("the provider: %d payments of %d", n, total)
	}
}

func TestCheckoutSplitTenderAndWhatItWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {5, 0}, "b": {0, 5}}, 1000)
	ctx := ctxT(t)
	st := f.env.Store
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-AAAA", Balance: eur(500)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateDiscountCode(ctx, store.DiscountCode{Code: "FIVER", Kind: store.DiscountFixed, Amount: eur(500),
		ExpiresAt: time.Now().Add(time.Hour), UsageLimit: 10}); err != nil {
		t.Fatal(err)
	}
	owner := store.CustomerOwner("c1")
	for _, id := range []string{"a", "b"} {
		p, _ := st.Product(ctx, id)
		if err := st.AddToCart(ctx, owner, p, 2); err != nil {
			t.Fatal(err)
		}
	}
	req := request("k1", "c1", store.CheckoutLine{ProductID: "a", Quantity: 2}, store.CheckoutLine{ProductID: "b", Quantity: 2})
	req.CartOwner, req.DiscountCode, req.GiftCardCode = owner, "FIVER", "GIFT-AAAA"
	d := f.checkoutInOneTransaction(t, req)
	o := d.Order
	inv, _ := d.Invoice()
	if d.Order.Subtotal.Amount != 4000 || d.Order.Discount.Amount != 500 || d.Order.Total.Amount != 3500 || inv.Amount.Amount != 3500 {
		t.Fatalf("order %+v invoice %+v", d.Order, inv)
	}
	if len(inv.Payments) != 2 || inv.Payments[0].Type != "GiftCard" || inv.Payments[0].Amount.Amount != 500 ||
		inv.Payments[1].Type != "Visa" || inv.Payments[1].Amount.Amount != 3000 {
		t.Fatalf("payments %+v", inv.Payments)
	}
	// Split across the two warehouses: a from w1, b from w2.
	for _, it := range d.Items {
		if len(it.Allocations) != 1 || it.Allocations[0].Quantity != 2 {
			t.Fatalf("allocations of %s: %+v", it.ProductID, it.Allocations)
		}
	}
	if cart, _ := st.Cart(ctx, owner); len(cart.Lines) != 0 {
		t.Fatalf("cart not emptied: %+v", cart)
	}
	gc, _ := st.GiftCard(ctx, "GIFT-AAAA")
	dc, _ := st.DiscountCode(ctx, "FIVER")
	if gc.Balance.Amount != 0 || dc.Used != 1 {
		t.Fatalf("gift card balance %d, discount used %d", gc.Balance.Amount, dc.Used)
	}
	if f.stockOf(t, "a") != 3 || f.stockOf(t, "b") != 3 {
		t.Fatal("stock not taken")
	}

	// Shipments from the warehouses it was allocated to.
	shs, err := st.CreateShipments(ctx, o.ID, "Standard")
	if err != nil || len(shs) != 2 {
		t.Fatalf("shipments %+v, %v", shs, err)
	}
	if _, err := st.CreateShipments(ctx, o.ID, "Standard"); !errors.Is(err, store.ErrShipmentsExist) {
		t.Fatalf("second create: %v", err)
	}
	staff := store.Customer{ID: "staff-1", Name: "Sam Staff"}
	if _, err := st.ChangeShipment(ctx, o.ID, shs[0].ID, store.ShipmentStep{To: store.ShipmentDelivered, Version: shs[0].Version}, staff); !errors.Is(err, store.ErrBadTransition) {
		t.Fatalf("skipping shipped: %v", err)
	}
	for _, sh := range shs {
		if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "ups", Tracking: "1Z999AA10123456784", Version: sh.Version}, staff); err != nil {
			t.Fatal(err)
		}
	}
	d, _ = st.OrderDetails(ctx, o.ID)
	if d.Order.Status != store.OrderShipped {
		t.Fatalf("order status %s after every shipment left", d.Order.Status)
	}
	sh, err := st.Shipment(ctx, shs[0].ID)
	if err != nil || sh.Status != store.ShipmentShipped || len(sh.Items) != 1 || sh.ShippedAt.IsZero() {
		t.Fatalf("shipment %+v, %v", sh, err)
	}
}

func TestCheckoutFailuresWriteAndChargeNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {3, -1}}, 1000)
	ctx := ctxT(t)
	st := f.env.Store
	if _, err := st.CreateDiscountCode(ctx, store.DiscountCode{Code: "OLD1", Kind: store.DiscountPercent, Percent: 5,
		ExpiresAt: time.Now().Add(-time.Hour), UsageLimit: 9}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "EMPTY", Balance: eur(0)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*store.CheckoutRequest)
		want error
	}{
		{"more than in stock", func(r *store.CheckoutRequest) { r.Lines[0].Quantity = 4 }, store.ErrInsufficientStock},
		{"unknown discount", func(r *store.CheckoutRequest) { r.DiscountCode = "NOPE" }, store.ErrNotFound},
		{"expired discount", func(r *store.CheckoutRequest) { r.DiscountCode = "OLD1" }, store.ErrCodeExpired},
		{"unknown gift card", func(r *store.CheckoutRequest) { r.GiftCardCode = "NOPE" }, store.ErrNotFound},
		{"empty gift card", func(r *store.CheckoutRequest) { r.GiftCardCode = "EMPTY" }, store.ErrGiftCardUsed},
		{"unknown product", func(r *store.CheckoutRequest) { r.Lines[0].ProductID = "ghost" }, store.ErrInsufficientStock},
		{"bad key", func(r *store.CheckoutRequest) { r.Key = "has space" }, store.ErrBadCheckoutKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := request("k-"+strings.ReplaceAll(tc.name, " ", "-"), "c", store.CheckoutLine{ProductID: "p", Quantity: 1})
			tc.mod(&req)
			if _, err := f.pay.Checkout(ctx, req); !errors.Is(err, tc.want) {
				t.Fatalf("Checkout: %v, want %v", err, tc.want)
			}
		})
	}
	if f.stockOf(t, "p") != 3 || f.env.CountEntities(t, "order") != 0 || f.env.CountEntities(t, "invoice") != 0 {
		t.Fatal("a failed checkout wrote something")
	}
	// A declined card on the provider's page takes nothing and places
	// nothing: the order stays held for another card.
	declined := *f.pay
	declined.Card = payment.CardForm{Number: payment.CardDeclined, Expiry: "12/99", CVC: "123"}
	if _, err := declined.Checkout(ctx, request("k-declined", "c", store.CheckoutLine{ProductID: "p", Quantity: 1})); !errors.Is(err, payment.ErrDeclined) {
		t.Fatalf("declined card: %v", err)
	}
	if p := must(st.CustomerOrders(ctx, "c", 10, "")); len(p.Items) != 1 || p.Items[0].Status != store.OrderAwaitingPayment ||
		f.env.CountEntities(t, "invoice") != 0 {
		t.Fatalf("after a decline: %+v", p.Items)
	}
	if n, _ := paytest.Payments(t, f.env); n != 0 {
		t.Fatalf("%d payments kept after failed checkouts", n)
	}
}

// Twenty staff take one unit each from a warehouse holding ten.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestStockAdjustmentRace(t *testing.T) {
	f := newFixture(t, map[string][2]int{"p": {10, -1}}, 1000)
	ctx := ctxT(t)
	p, _ := f.env.Store.Product(ctx, "p")
	w, _ := f.env.Store.Warehouse(ctx, "w1")
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.env.Store.AdjustStock(ctx, p, w, -1, "damaged", stocktaker)
			switch {
			case err == nil:
				mu.Lock()
				ok++
				mu.Unlock()
			case !errors.Is(err, store.ErrInsufficientStock):
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok != 10 || f.stockOf(t, "p") != 0 {
		t.Fatalf("%d adjustments went through, stock %d", ok, f.stockOf(t, "p"))
	}
	adjs, err := f.env.Store.StockAdjustments(ctx, "w1", 50, "")
	if err != nil || len(adjs.Items) != 10 || adjs.Items[0].Reason != "damaged" {
		t.Fatalf("adjustments logged: %d, %v", len(adjs.Items), err)
	}
	// An increase creates the stock level where there was none.
	w2, _ := f.env.Store.Warehouse(ctx, "w2")
	if _, err := f.env.Store.AdjustStock(ctx, p, w2, 7, "delivery", stocktaker); err != nil || f.stockOf(t, "p") != 7 {
		t.Fatalf("restock: %v, stock %d", err, f.stockOf(t, "p"))
	}
}

// Two staff advance two shipments of one order at once: the order still
// ends shipped (one of them is told to retry, as a person would).
func TestAdvanceSiblingShipmentsAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"a": {1, 0}, "b": {0, 1}}, 1000)
	ctx := ctxT(t)
	req := request("two-parcels", "c", store.CheckoutLine{ProductID: "a", Quantity: 1}, store.CheckoutLine{ProductID: "b", Quantity: 1})
	o, err := f.pay.Checkout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	shs, err := f.env.Store.CreateShipments(ctx, o.ID, "Standard")
	if err != nil || len(shs) != 2 {
		t.Fatalf("shipments %v, %v", shs, err)
	}
	for round := 0; round < 20; round++ {
		var wg sync.WaitGroup
		for _, sh := range shs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := f.env.Store.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "dhl", Tracking: "1234567890", Version: sh.Version}, store.Customer{ID: "s", Name: "Sam"})
				if err != nil && !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrBadTransition) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		d, err := f.env.Store.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		shipped := 0
		for _, sh := range d.Shipments {
			if sh.Status == store.ShipmentShipped {
				shipped++
			}
		}
		if shipped == 2 {
			if d.Order.Status != store.OrderShipped {
				t.Fatalf("both shipments shipped, order %s", d.Order.Status)
			}
			return
		}
	}
	t.Fatal("the shipments never both shipped")
}

// The largest order there can be, held and placed for real: fifteen lines
// of 99, each from four warehouses, a discount code, a gift card and a
// card, and the cart emptied: the hold in one transaction, its payment's
// placing in another, both within DynamoDB's 100 items.
func TestLargestCheckoutIsPlaced(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, 0)
	ctx, st := ctxT(t), f.env.Store
	var ws []string
	for i := 3; i <= 8; i++ { // w1 and w2 come with the fixture
		w := fmt.Sprintf("w%d", i)
		if err := st.PutWarehouse(ctx, store.Warehouse{ID: w, Name: "Warehouse " + w, Address: store.Address{City: w}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 8; i++ {
		ws = append(ws, fmt.Sprintf("w%d", i))
	}
	owner := store.CustomerOwner("big")
	req := request("largest", "big")
	for i := range store.MaxCartLines {
		p := store.Product{ID: fmt.Sprintf("p%02d", i), Name: fmt.Sprintf("Product %02d", i), Category: "c", Price: eur(100)}
		if err := st.PutProduct(ctx, p); err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if err := st.PutStockLevel(ctx, store.StockLevel{ProductID: p.ID, ProductName: p.Name, WarehouseID: w, WarehouseName: w, Quantity: 25}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.AddToCart(ctx, owner, p, store.MaxLineQty); err != nil {
			t.Fatal(err)
		}
		req.Lines = append(req.Lines, store.CheckoutLine{ProductID: p.ID, Quantity: store.MaxLineQty})
	}
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-BIG1", Balance: eur(1000)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateDiscountCode(ctx, store.DiscountCode{Code: "BIG", Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: time.Now().Add(time.Hour), UsageLimit: 1}); err != nil {
		t.Fatal(err)
	}
	req.CartOwner, req.DiscountCode, req.GiftCardCode, req.HoldFor = owner, "BIG", "GIFT-BIG1", 30*time.Minute
	f.env.Counter.Reset()
	held, err := st.HoldCheckout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if ops := f.env.Counter.Ops(); ops["TransactWriteItems"] != 1 {
		t.Fatalf("the hold made %v", ops)
	}
	placed, err := f.pay.Pay(ctx, held, nil)
	if err != nil || placed.Status != store.OrderPlaced {
		t.Fatalf("placed %+v, %v", placed, err)
	}
	d := must(st.OrderDetails(ctx, held.ID))
	if len(d.Items) != store.MaxCartLines {
		t.Fatalf("order details %+v", d)
	}
	for _, it := range d.Items {
		if len(it.Allocations) != store.MaxLineWarehouses {
			t.Fatalf("%s leaves from %d warehouses", it.ProductID, len(it.Allocations))
		}
	}
	if c := must(st.Cart(ctx, owner)); len(c.Lines) != 0 {
		t.Fatalf("cart not emptied: %d lines", len(c.Lines))
	}
	if n, total := paytest.Payments(t, f.env); n != 1 || total != 15*99*100*9/10-1000 {
		t.Fatalf("the provider: %d payments of %d", n, total)
	}
}
