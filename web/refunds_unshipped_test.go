package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/web/paths"
)

// Staff refund units of an order not shipped yet: the form offers no
// warehouse but says where they go (a warehouse sent anyway is not taken),
// the units go back where they were allocated, the order page ships from
// what is left and the shipments and packing slip carry only that. A form
// made while placed and sent once the order ships is a 409 that says so.
func TestAdminRefundsUnshippedUnits(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("kt-mug", 3), line("cf-grinder", 1))
	ctx := context.Background()
	d, err := s.env.Store.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	var mugs store.OrderItem
	for _, it := range d.Items {
		if it.ProductID == "kt-mug" {
			mugs = it
		}
	}
	from := mugs.Allocations[len(mugs.Allocations)-1].WarehouseID
	other := "gbg"
	if from == other {
		other = "sto"
	}
	before, otherBefore := stockIn(t, s, "kt-mug", from), stockIn(t, s, "kt-mug", other)
	orderPage := paths.AdminOrder(o.ID)

	p := b.get(orderPage)
	wantStatus(t, "order page", p, http.StatusOK)
	if p.testid("field-restock").Length() != 0 || p.testid("restock-unshipped").Length() != 1 {
		t.Fatal("a placed order's refund form offers a warehouse, or does not say where units go")
	}
	wantText(t, "where units go", p.testid("restock-unshipped"), "allocated from")
	stale := refundForm(t, b.get(orderPage), "units-cf-grinder", "1", "reason", "Late", "placed", "1")

	form := refundForm(t, p, "units-kt-mug", "1", "restock", other, "reason", "Changed her mind")
	form.Set("placed", "1")
	wantStatus(t, "refund of an unshipped mug", b.post(paths.AdminOrderRefunds(o.ID), form), http.StatusSeeOther)
	if got, was := stockIn(t, s, "kt-mug", from), before; got != was+1 {
		t.Fatalf("%s holds %d mugs after the refund, had %d", from, got, was)
	}
	if got := stockIn(t, s, "kt-mug", other); got != otherBefore {
		t.Fatalf("the warehouse sent in the form got the mug: %d, had %d", got, otherBefore)
	}
	p = b.get(orderPage)
	wantText(t, "the refund says where", p.testid("order-refund-row"), "back in stock where it was allocated")
	left := 0
	p.testid("order-item-row").Each(func(_ int, row *goquerySelection) {
		if row.Find("a").First().Text() == mugs.ProductName {
			row.Find(`[data-testid="allocations"] a`).Each(func(_ int, a *goquerySelection) {
				left += leadingNumber(a.Text())
			})
		}
	})
	if left != 2 {
		t.Fatalf("the order page ships %d mugs after refunding 1 of 3", left)
	}

	// Shipped: the mugs' shipments carry 2, the packing slip says so.
	made := b.post(paths.AdminOrderShipments(o.ID), url.Values{"type": {"Standard"}})
	wantStatus(t, "create shipments", made, http.StatusSeeOther)
	d, err = s.env.Store.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	mugsShipped := 0
	for _, sh := range d.Shipments {
		slip := b.get(paths.AdminPackingSlip(o.ID, sh.ID))
		wantStatus(t, "packing slip", slip, http.StatusOK)
		slip.testid("slip-item").Each(func(_ int, row *goquerySelection) {
			if row.Find("td").Eq(1).Text() == mugs.ProductName {
				mugsShipped += leadingNumber(row.Find("td").First().Text())
			}
		})
	}
	if mugsShipped != 2 {
		t.Fatalf("the packing slips carry %d mugs, want 2", mugsShipped)
	}

	// The form made while placed, sent now it ships: refused, nothing written.
	late := b.post(paths.AdminOrderRefunds(o.ID), stale)
	wantStatus(t, "a placed order's form sent while shipping", late, http.StatusConflict)
	wantText(t, "why", late.testid("form-error"), "started shipping")
	if d, err := s.env.Store.OrderDetails(ctx, o.ID); err != nil || len(d.Refunds) != 1 {
		t.Fatalf("refunds after the late form: %+v, %v", d.Refunds, err)
	}
}

// leadingNumber is the whole number a text starts with ("2 from Göteborg").
func leadingNumber(s string) int {
	n := 0
	for _, c := range strings.TrimSpace(s) {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
