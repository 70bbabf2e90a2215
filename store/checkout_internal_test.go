package store

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"shop/store/rules"
)

// spreadLines are MaxCartLines lines of qty each, every product held by n
// warehouses with per units each.
func spreadLines(qty, n, per int) []allocationLine {
	var lines []allocationLine
	for i := range MaxCartLines {
		l := allocationLine{ProductID: fmt.Sprintf("p%02d", i), ProductName: fmt.Sprintf("Product %d", i), Quantity: qty}
		for w := range n {
			l.Stock = append(l.Stock, StockLevel{ProductID: l.ProductID, WarehouseID: fmt.Sprintf("w%d", w+1), Quantity: per})
		}
		lines = append(lines, l)
	}
	return lines
}

// The largest checkout there can be: 15 lines of 99, each split across as
// many warehouses as a line may leave from, a discount code, a gift card
// and a card, emptying the cart. Its transaction must leave room for what
// later work adds to it (a payment intent, an order number, daily totals, a
// ticket's redemption): at least 10 of DynamoDB's 100 items.
func TestLargestCheckoutLeavesRoomInTheTransaction(t *testing.T) {
	// Eight warehouses of 25 each: no one holds a line, four do.
	allocations, err := allocateOrder(spreadLines(MaxLineQty, 8, 25))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	q := Quote{
		Discount: &DiscountCode{Code: "TEN", Kind: DiscountPercent, Percent: 10},
		GiftCard: &GiftCard{Code: "GIFT-0001"},
		Tender:   rules.Tender{GiftCard: Money{Amount: 500, Currency: "EUR"}, Card: Money{Amount: 100000, Currency: "EUR"}},
	}
	for i, a := range allocations {
		if len(a) != MaxLineWarehouses {
			t.Fatalf("line %d leaves from %d warehouses, want %d", i, len(a), MaxLineWarehouses)
		}
		q.Items = append(q.Items, OrderItem{ProductID: fmt.Sprintf("p%02d", i), ProductName: "P", Price: Money{Amount: 1000, Currency: "EUR"}, Quantity: MaxLineQty, Allocations: a})
	}
	req := CheckoutRequest{Key: "largest", CustomerID: "c1", CartOwner: CustomerOwner("c1"),
		Confirmation: func(o Order, _ []OrderItem, _ Invoice) Mail {
			return Mail{ID: "order-" + o.ID, CreatedAt: now, Status: MailPending}
		}}
	order := Order{ID: "o1", CustomerID: "c1", PlacedAt: now}
	inv := Invoice{ID: "i1", OrderID: "o1", CustomerID: "c1", Date: now}
	s := &Store{table: "shop", loc: time.UTC}
	tx, roles, err := s.checkoutItems(req, q, order, inv, bookNumber{kind: bookInvoices, year: 2026, seq: 1, count: 1}, now, DefaultListShards)
	if err != nil {
		t.Fatal(err)
	}
	if len(tx) != len(roles) || len(tx) != s.checkoutWrites(req, q) {
		t.Fatalf("built %d items (%d roles), checkoutWrites counts %d", len(tx), len(roles), s.checkoutWrites(req, q))
	}
	carts := 0
	for _, r := range roles {
		if r.kind == "cart" {
			carts++
		}
	}
	if carts != 1 {
		t.Fatalf("%d cart writes, want one", carts)
	}
	// Before the cart was one item: 3 + 2 + 15 × (1 + 1 + 4) = 95.
	if margin := maxTransactItems - len(tx); margin < 10 {
		t.Fatalf("the largest checkout writes %d items, a margin of %d under %d; want at least 10", len(tx), margin, maxTransactItems)
	}
	t.Logf("largest checkout: %d items of %d", len(tx), maxTransactItems)

	// A ticket line (one of the cart's lines) adds its redemption: 14
	// lines of four warehouses and the ticket's line stay under the above.
	q.Items = q.Items[:MaxCartLines-1]
	q.Items = append(q.Items, OrderItem{ProductID: "p00", ProductName: "P", Price: Money{Amount: 500, Currency: "EUR"}, Quantity: 1, DropID: "d1", redeemWithin: time.Hour,
		Allocations: []Allocation{{WarehouseID: "w1", Quantity: 1}}})
	tx, roles, err = s.checkoutItems(req, q, order, inv, bookNumber{kind: bookInvoices, year: 2026, seq: 1, count: 1}, now, DefaultListShards)
	if err != nil {
		t.Fatal(err)
	}
	tickets := 0
	for _, r := range roles {
		if r.kind == "ticket" {
			tickets++
		}
	}
	if tickets != 1 || len(tx) != s.checkoutWrites(req, q) || maxTransactItems-len(tx) < 10 {
		t.Fatalf("with a ticket line: %d items (%d tickets), checkoutWrites counts %d", len(tx), tickets, s.checkoutWrites(req, q))
	}

	// A staff endpoint wanting order.placed adds the event, one item, its
	// body the whole order with every line: still well under both limits.
	s.shopHooks = &shopHooksBox{}
	s.AnnounceShopEvents(ShopHooks{Subscribed: func(owner, typ string) []string {
		if owner == StaffWebhooks && typ == EventOrderPlaced {
			return []string{"hook1"}
		}
		return nil
	}})
	with, _, err := s.checkoutItems(req, q, order, inv, bookNumber{kind: bookInvoices, year: 2026, seq: 1, count: 1}, now, DefaultListShards)
	if err != nil {
		t.Fatal(err)
	}
	if len(with) != len(tx)+1 || len(with) != s.checkoutWrites(req, q) || maxTransactItems-len(with) < 10 {
		t.Fatalf("with order.placed: %d items (%d without), checkoutWrites counts %d", len(with), len(tx), s.checkoutWrites(req, q))
	}
	var body int
	for _, it := range with {
		if it.Put != nil && it.Put.Item["EntityType"].(*types.AttributeValueMemberS).Value == entityWebhookEvent {
			body = len(it.Put.Item["Body"].(*types.AttributeValueMemberS).Value)
		}
	}
	if body == 0 || body > 16<<10 {
		t.Fatalf("the event's body of %d lines is %d bytes", len(q.Items), body)
	}
	t.Logf("order.placed of %d lines: %d bytes", len(q.Items), body)
}

// The card checkout paid on a hosted page writes in two transactions: the
// hold takes what the checkout's own transaction takes, the payment places
// the order with only what completion needs, and a release gives back what
// the hold took. For the largest order, each of the three (a release with
// a mismatched payment's refund and mail the largest of its kind) leaves
// at least 10 of DynamoDB's 100 items.
func TestLargestHoldPlaceAndReleaseLeaveRoomInTheirTransactions(t *testing.T) {
	allocations, err := allocateOrder(spreadLines(MaxLineQty, 8, 25))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	full := Quote{
		Discount: &DiscountCode{Code: "TEN", Kind: DiscountPercent, Percent: 10},
		GiftCard: &GiftCard{Code: "GIFT-0001"},
		Tender:   rules.Tender{Subtotal: Money{Amount: 148500, Currency: "EUR"}, Total: Money{Amount: 100500, Currency: "EUR"}, GiftCard: Money{Amount: 500, Currency: "EUR"}, Card: Money{Amount: 100000, Currency: "EUR"}},
	}
	for i, a := range allocations {
		full.Items = append(full.Items, OrderItem{ProductID: fmt.Sprintf("p%02d", i), ProductName: "P", Price: Money{Amount: 1000, Currency: "EUR"}, Quantity: MaxLineQty, Allocations: a})
	}
	// A ticket line in place of one: its redemption on the hold, the
	// ticket given back on the release.
	ticket := full
	ticket.Items = append(slices.Clone(full.Items[:MaxCartLines-1]), OrderItem{ProductID: "p00", ProductName: "P", Price: Money{Amount: 500, Currency: "EUR"}, Quantity: 1,
		DropID: "d1", redeemWithin: time.Hour, Allocations: []Allocation{{WarehouseID: "w1", Quantity: 1}}})
	mail := func(o Order, _ []OrderItem, _ Invoice) Mail {
		return Mail{ID: "order-" + o.ID, CreatedAt: now, Status: MailPending}
	}
	req := CheckoutRequest{Key: "largest", CustomerID: "c1", CartOwner: CustomerOwner("c1"), HoldFor: 30 * time.Minute}
	s := &Store{table: "shop", loc: time.UTC, now: func() time.Time { return now }}
	res := PaymentResult{Provider: "stripe", EventID: "evt_1", PaymentRef: "pi_1", Brand: "Visa", Last4: "4242", Amount: full.Tender.Card, Confirmation: mail}

	for name, q := range map[string]Quote{"15 lines of 4 warehouses": full, "14 lines and a ticket": ticket} {
		order, _ := newOrder(req, q, "o1", "", "FF-AAAAAA", now)
		order.Status = OrderAwaitingPayment
		order.Hold = &PaymentHold{Until: now.Add(req.HoldFor), Card: q.Tender.Card, CheckoutKey: req.Key, giftCard: q.Tender.GiftCard,
			giftCardCode: q.GiftCard.Code, discountCode: q.Discount.Code, cartOwner: req.CartOwner}
		hold, roles, err := s.holdItems(req, q, order, now, DefaultListShards)
		if err != nil {
			t.Fatal(err)
		}
		if len(hold) != len(roles) || len(hold) != holdWrites(req, q) {
			t.Fatalf("%s: the hold built %d items (%d roles), holdWrites counts %d", name, len(hold), len(roles), holdWrites(req, q))
		}
		inv := newInvoice(order, q.Items, order.heldTender(), "TEN", "GIFT-0001", "2026-000001", now)
		place, _, err := s.placeItems(order, q.Items, inv, bookNumber{kind: bookInvoices, year: 2026, seq: 1, count: 1}, res, now, DefaultListShards)
		if err != nil {
			t.Fatal(err)
		}
		if len(place) != s.placeWrites(res, len(q.Items)) {
			t.Fatalf("%s: the payment built %d items, placeWrites counts %d", name, len(place), s.placeWrites(res, len(q.Items)))
		}
		b := &txItems{s: s}
		cart := s.newCart(req.CartOwner)
		d := OrderDetails{Order: order, Items: q.Items}
		if _, err := s.releaseItems(b, d, ReleaseMismatch, &cart, true, now); err != nil {
			t.Fatal(err)
		}
		if err := s.eventItem(b, res.Provider, res.EventID, order.ID, eventReleased, now); err != nil {
			t.Fatal(err)
		}
		if len(b.tx) != releaseWrites(order, q.Items, res.EventID) {
			t.Fatalf("%s: the release built %d items, releaseWrites counts %d", name, len(b.tx), releaseWrites(order, q.Items, res.EventID))
		}
		released := len(b.tx) + 2 // a mismatched payment's refund and its mail
		for _, tc := range []struct {
			what string
			n    int
		}{{"hold", len(hold)}, {"place", len(place)}, {"release with a refund", released}} {
			if margin := maxTransactItems - tc.n; margin < 10 {
				t.Errorf("%s: the largest %s writes %d items, a margin of %d under %d; want at least 10", name, tc.what, tc.n, margin, maxTransactItems)
			}
			t.Logf("%s: %s, %d items of %d", name, tc.what, tc.n, maxTransactItems)
		}
	}
}

// What the checkout refuses while placing says itself as the form says
// it: a ticket no longer usable inside "nothing was charged", a conflict
// as one to check and place again; other refusals and other errors pass
// as they are. errors.Is and the words stay those of the cause.
func TestPlacingRefusal(t *testing.T) {
	ticket := fmt.Errorf("your ticket for “Jazz night” expired: %w", ErrTicketNotRedeemable)
	conflict := fmt.Errorf("checkout cancelled: [None]: %w", ErrConflict)
	for _, tc := range []struct {
		err     error
		message string
		args    []any
	}{
		{ticket, "checkout.ticket_refused", []any{"Why", ErrTicketNotRedeemable}},
		{conflict, "checkout.conflict", nil},
	} {
		got := placingRefusal(tc.err)
		r, ok := RefusalOf(got)
		if !ok || r.Kind != Conflict || r.Message != tc.message || !slices.Equal(r.Args, tc.args) || r.Field != "" {
			t.Errorf("%v: %+v, %v", tc.err, r, ok)
		}
		if !errors.Is(got, tc.err) || got.Error() != tc.err.Error() {
			t.Errorf("%v: errors.Is %v, words %q", tc.err, errors.Is(got, tc.err), got.Error())
		}
	}
	short := &StockShortError{ProductName: "Tea", Wanted: 2}
	code := &CodeError{Field: "giftcard", Err: ErrGiftCardChanged}
	other := errors.New("disk on fire")
	for _, err := range []error{short, code, ErrTotalChanged, ErrCartChanged, ErrBadCheckoutKey, other, nil} {
		if got := placingRefusal(err); got != err {
			t.Errorf("%v became %v", err, got)
		}
	}
	zone := Quote{Zones: []ShippingZone{{Name: "Nordics"}}}.checkShipping(CheckoutRequest{ShipTo: Address{Country: "XX"}})
	if r, ok := RefusalOf(zone); !ok || r.Field != "country" || r.Message != "checkout.shipping.choose" ||
		!errors.Is(zone, ErrNoShippingZone) || zone.Error() != `"XX": we do not deliver to that country` {
		t.Errorf("no zone for XX: %v, %+v", zone, r)
	}
}
