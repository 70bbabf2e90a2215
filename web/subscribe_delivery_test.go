package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"shop/store"
	"shop/web/paths"
)

// Subscribing to a product that ships, in a shop with zones: the form's
// preview prices delivery to where the customer's orders go. Without an
// address, or to a country no zone holds, it says so and subscribing is
// refused (422, nothing written); to Sweden it shows delivery per period
// (in Korean and Indonesian too), today's charge carries it, the card
// pays price + delivery, and the receipt and the subscription show it.
func TestSubscribeShowsAndChargesDelivery(t *testing.T) {
	t.Parallel()
	s := shippingShop(t)
	ctx, st := context.Background(), s.env.Store
	box := s.coffeeBox(t) // €12.50 a month
	if err := st.PutStockLevel(ctx, store.StockLevel{ProductID: box.ID, ProductName: box.Name, WarehouseID: "gbg", WarehouseName: "Göteborg", Quantity: 5}); err != nil {
		t.Fatal(err)
	}
	payday := itoa(st.Today().Day()) // a whole period today: it ships
	b, ada := s.newCustomer(t, "Ada Test")
	refused := func(what, want string) {
		t.Helper()
		p := b.get(previewPath(payday, "1"), "HX-Request", "true")
		wantText(t, what+": preview", p.testid("preview-delivery-problem"), want)
		if p.testid("preview-today").Length() != 0 {
			t.Errorf("%s: the preview still quotes a charge", what)
		}
		p = b.post("/subscriptions", b.subscribeForm(boxID, payday, "1"))
		wantStatus(t, what+": subscribe", p, http.StatusUnprocessableEntity)
		wantText(t, what+": refused", p.testid("form-error"), want)
		if subs := s.subscriptionsOf(t, ada); len(subs) != 0 {
			t.Fatalf("%s: %d subscriptions written", what, len(subs))
		}
		if n, _ := s.cardPayments(t); n != 0 {
			t.Fatalf("%s: %d card payments", what, n)
		}
	}
	p := b.get("/products/" + boxID)
	wantText(t, "no address on the page", p.testid("preview-delivery-problem"), "This product is delivered: add your address to your account to subscribe.")
	if href, _ := p.testid("preview-delivery-addresses").Attr("href"); href != paths.Account+"#addresses-heading" {
		t.Errorf("the addresses link goes to %q", href)
	}
	refused("no address", "add your address to your account")

	oslo := store.Address{Name: "Ada Test", Street: "Karl Johans gate", Number: "1", ZipCode: "0154", City: "Oslo", Country: "NO"}
	if _, err := st.AddAddress(ctx, ada, oslo, true); err != nil {
		t.Fatal(err)
	}
	refused("Norway", "We do not deliver to Norway. We deliver to: Indonesia, Rest of the EU, South Korea, Sweden. Subscriptions ship to your default address.")

	boras := store.Address{Name: "Ada Test", Street: "Storgatan", Number: "1", ZipCode: "50330", City: "Borås", Country: "SE"}
	if _, err := st.AddAddress(ctx, ada, boras, true); err != nil {
		t.Fatal(err)
	}
	p = b.get(previewPath(payday, "1"), "HX-Request", "true")
	wantText(t, "today with delivery", p.testid("preview-today"), "€17.40")
	wantText(t, "delivery", p.testid("preview-delivery"), "Delivery to Sweden: €4.90 with each payment that sends a parcel, included above. It arrives in 1–3 days.")
	wantText(t, "then with delivery", p.testid("preview-then"), "€17.40")
	for _, tc := range []struct{ lang, want string }{{"ko", "스웨덴 배송비: 소포를 보내는 결제마다 €4.90"}, {"id", "Ongkos kirim ke Swedia: €4,90"}, {"en", "Delivery to Sweden"}} {
		wantText(t, "delivery in "+tc.lang, b.get(previewPath(payday, "1")+"&lang="+tc.lang, "HX-Request", "true").testid("preview-delivery"), tc.want)
	}

	p = b.subscribe(boxID, payday, "1")
	wantStatus(t, "subscribed", p, http.StatusOK)
	wantText(t, "the card's delivery", p.testid("sub-delivery"), "+ delivery to Sweden: €4.90")
	if _, paid := s.cardPayments(t); paid != 1740 {
		t.Fatalf("the card paid %d, want €12.50 + €4.90", paid)
	}
	subs := s.subscriptionsOf(t, ada)
	if len(subs) != 1 || subs[0].Shipping.Amount != 490 || subs[0].ShipTo != "SE" || subs[0].AmountFor(subs[0].NextPaymentDate).Amount != 1740 {
		t.Fatalf("subscription %+v", subs)
	}
	recs, err := st.RecentReceipts(ctx, ada, 5, "")
	if err != nil || len(recs.Items) != 1 {
		t.Fatalf("receipts %+v (%v)", recs.Items, err)
	}
	rp := b.get(paths.Receipt(recs.Items[0].Number))
	wantText(t, "receipt's delivery", rp.testid("receipt-shipping"), "€4.90")
	wantText(t, "receipt's amount", rp.testid("receipt-amount"), "€17.40")
	if d := s.order(t, subs[0].Orders[0].OrderID); d.Order.Shipping.Amount != 490 || d.Order.ShipTo.City != "Borås" {
		t.Fatalf("the period's order: delivery %v to %+v", d.Order.Shipping, d.Order.ShipTo)
	}
	mails := outboxOfKind(t, st, store.MailReceipt)
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "Delivery included: €4.90.") {
		t.Fatalf("the receipt's mail: %+v", mails)
	}
}
