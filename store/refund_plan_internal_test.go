package store

import (
	"errors"
	"testing"
	"time"
)

// planRefund is what staff confirm and what the transaction writes: each
// case is an order (3 mugs at €18.90 and a kettle at €40.00, €4.90
// delivery, paid €20 by gift card and the rest by card) and a request.
func TestPlanRefund(t *testing.T) {
	eur := func(c int64) Money { return Money{Amount: c, Currency: "EUR"} }
	order := func(change func(*OrderDetails)) OrderDetails {
		d := OrderDetails{
			Order: Order{ID: "o1", Status: OrderShipped, Subtotal: eur(9670), Shipping: eur(490), Total: eur(10160)},
			Items: []OrderItem{
				{ProductID: "kt-mug", ProductName: "Mug", Quantity: 3, Price: eur(1890)},
				{ProductID: "kt-kettle", ProductName: "Kettle", Quantity: 1, Price: eur(4000)},
			},
			Invoices: []Invoice{{ID: "2026-000001", giftCardCode: "GIFT-1", Payments: []Payment{
				{Type: "GiftCard", Amount: eur(2000), Reference: "•••• FT20"},
				{Type: "Visa", Amount: eur(8160), Reference: "ch_1 · •••• 4242", Provider: "test"},
			}}},
		}
		if change != nil {
			change(&d)
		}
		return d
	}
	mugs := func(n int) []RefundLine { return []RefundLine{{ProductID: "kt-mug", Quantity: n}} }
	for _, tc := range []struct {
		name                string
		d                   OrderDetails
		req                 OrderRefundRequest
		cancel              bool
		amount, gift, card  int64
		ship                int64
		unshipped, backHome bool
		lines               int  // lines the refund takes units of
		ends                bool // nothing of the order left to ship
		err                 error
	}{
		{name: "an amount goes to the gift card first", d: order(nil), req: OrderRefundRequest{Amount: eur(1500)}, amount: 1500, gift: 1500},
		{name: "then to the card", d: order(nil), req: OrderRefundRequest{Amount: eur(2500)}, amount: 2500, gift: 2000, card: 500},
		{name: "the gift card spent back already", d: order(func(d *OrderDetails) { d.Order.Refunded, d.Order.RefundedGiftCard = eur(2000), eur(2000) }),
			req: OrderRefundRequest{Amount: eur(1000)}, amount: 1000, card: 1000},
		{name: "units at their price", d: order(nil), req: OrderRefundRequest{Lines: mugs(2)}, amount: 3780, gift: 2000, card: 1780, lines: 1},
		{name: "units after the discount", d: order(func(d *OrderDetails) {
			d.Order.Discount, d.Order.Total = eur(967), eur(10160-967) // 10 % off the goods
		}), req: OrderRefundRequest{Lines: mugs(1)}, amount: 1701, gift: 1701, lines: 1},
		{name: "units with delivery", d: order(nil), req: OrderRefundRequest{Lines: mugs(1), Shipping: true}, amount: 1890 + 490, gift: 2000, card: 380, ship: 490, lines: 1},
		{name: "every unit left gives delivery back", d: order(nil), req: OrderRefundRequest{Lines: []RefundLine{{ProductID: "kt-mug", Quantity: 3}, {ProductID: "kt-kettle", Quantity: 1}}},
			amount: 10160, gift: 2000, card: 8160, ship: 490, lines: 2},
		{name: "units of an order not shipping yet go back where allocated", d: order(func(d *OrderDetails) { d.Order.Status = OrderPlaced }),
			req: OrderRefundRequest{Lines: mugs(1), RestockWarehouse: "gbg"}, amount: 1890, gift: 1890, unshipped: true, backHome: true, lines: 1},
		{name: "a cancellation takes it all", d: order(func(d *OrderDetails) { d.Order.Status = OrderPlaced }), cancel: true,
			amount: 10160, gift: 2000, card: 8160, ship: 490, unshipped: true, backHome: true, lines: 2, ends: true},
		{name: "every unit of an order not shipping yet ends it", d: order(func(d *OrderDetails) { d.Order.Status = OrderPlaced }),
			req:    OrderRefundRequest{Lines: []RefundLine{{ProductID: "kt-mug", Quantity: 3}, {ProductID: "kt-kettle", Quantity: 1}}},
			amount: 10160, gift: 2000, card: 8160, ship: 490, unshipped: true, backHome: true, lines: 2, ends: true},
		{name: "the units left of a line refunded in part", d: order(func(d *OrderDetails) { d.Items[0].Refunded = 1 }), req: OrderRefundRequest{Lines: mugs(2)},
			amount: 3780, gift: 2000, card: 1780, lines: 1},
		{name: "more than is left", d: order(nil), req: OrderRefundRequest{Amount: eur(10161)}, err: ErrRefundExceedsCharge},
		{name: "more units than bought", d: order(nil), req: OrderRefundRequest{Lines: mugs(4)}, err: ErrRefundLines},
		{name: "units refunded before", d: order(func(d *OrderDetails) { d.Items[0].Refunded = 3 }), req: OrderRefundRequest{Lines: mugs(1)}, err: ErrRefundLines},
		{name: "a line twice", d: order(nil), req: OrderRefundRequest{Lines: append(mugs(1), mugs(1)...)}, err: ErrBadRefund},
		{name: "a line not on the order", d: order(nil), req: OrderRefundRequest{Lines: []RefundLine{{ProductID: "cf-grinder", Quantity: 1}}}, err: ErrRefundLines},
		{name: "lines and an amount", d: order(nil), req: OrderRefundRequest{Lines: mugs(1), Amount: eur(100)}, err: ErrBadRefund},
		{name: "delivery twice", d: order(func(d *OrderDetails) { d.Order.RefundedShipping = eur(490) }), req: OrderRefundRequest{Shipping: true}, err: ErrShippingRefunded},
		{name: "no invoice", d: order(func(d *OrderDetails) { d.Invoices = nil }), req: OrderRefundRequest{Amount: eur(100)}, err: ErrBadRefund},
		{name: "a cancellation once shipping", d: order(nil), cancel: true, err: ErrNotCancelable},
		{name: "a cancellation once cancelled", d: order(func(d *OrderDetails) { d.Order.Status = OrderCancelled }), cancel: true, err: ErrNotCancelable},
		{name: "a gift card not on the invoice", d: order(func(d *OrderDetails) { d.Invoices[0].giftCardCode = "" }), req: OrderRefundRequest{Amount: eur(100)}, err: ErrBadRefund},
		{name: "a card charge not on the invoice", d: order(func(d *OrderDetails) { d.Invoices[0].Payments[1].Reference = "" }), req: OrderRefundRequest{Amount: eur(2500)}, err: ErrBadRefund},
		{name: "an amount in another currency", d: order(nil), req: OrderRefundRequest{Amount: Money{Amount: 100, Currency: "SEK"}}, err: ErrBadRefund},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Key, tc.req.OrderID = "k1", "o1"
			p, err := planRefund(tc.d, tc.req, tc.cancel, time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC))
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Amount.Amount != tc.amount || p.GiftCard.Amount != tc.gift || p.Card.Amount != tc.card || p.Shipping.Amount != tc.ship {
				t.Errorf("amount %d = gift card %d + card %d (delivery %d), want %d = %d + %d (%d)",
					p.Amount.Amount, p.GiftCard.Amount, p.Card.Amount, p.Shipping.Amount, tc.amount, tc.gift, tc.card, tc.ship)
			}
			if p.unshipped != tc.unshipped || p.BackWhereAllocated != tc.backHome {
				t.Errorf("unshipped %v, back where allocated %v; want %v, %v", p.unshipped, p.BackWhereAllocated, tc.unshipped, tc.backHome)
			}
			if len(p.Lines) != tc.lines || len(p.takes) != tc.lines || p.endsOrder() != tc.ends {
				t.Errorf("%d lines (%d taken), ends the order %v; want %d, %v", len(p.Lines), len(p.takes), p.endsOrder(), tc.lines, tc.ends)
			}
			if tc.backHome && p.RestockWarehouse != "" {
				t.Errorf("units going back where allocated name warehouse %q", p.RestockWarehouse)
			}
			if wantPending := tc.card > 0; (p.Status == RefundCardPending) != wantPending {
				t.Errorf("status %s with a card part of %d", p.Status, tc.card)
			}
		})
	}
}
