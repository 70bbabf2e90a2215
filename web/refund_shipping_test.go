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

// dayRefunded is what today's totals gave back.
func (s *shop) dayRefunded(t *testing.T) int64 {
	t.Helper()
	st := s.env.Store
	days, err := st.DayTotals(context.Background(), st.Today(), st.Today())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, d := range days {
		n += d.Refunded.Amount
	}
	return n
}

// Staff give delivery back with a partial refund from the order's page:
// "Refund delivery too" with its price while delivery is paid and not
// refunded; the refund's money, its row, the invoice, the customer's page,
// the mail and the day's totals carry it; a form shown before it went
// back cannot give it back again (409, nothing written), and the choice
// is gone from the page.
func TestStaffRefundsDeliveryWithPartOfAnOrder(t *testing.T) {
	t.Parallel()
	s := shippingShop(t)
	st := s.env.Store
	m := newOrderMaker(t, st)
	o := m.place(st, s.customerID(t, demo.CustomerEmail), line("kt-mug", 2)) // €37.80 + €4.90 to Sweden
	if _, err := st.CreateShipments(context.Background(), o.ID, "Standard"); err != nil {
		t.Fatal(err)
	}
	if o.Shipping.Amount != 490 {
		t.Fatalf("the order paid %v for delivery, want €4.90", o.Shipping)
	}
	b := s.staff(t)
	p := b.get(paths.AdminOrder(o.ID))
	wantStatus(t, "order page", p, http.StatusOK)
	wantText(t, "the choice", p.testid("refund-shipping"), "Refund delivery too: €4.90")
	for _, tc := range []struct{ lang, want string }{{"ko", "배송비도 환불: €4.90"}, {"id", "Kembalikan juga ongkos kirim: €4,90"}, {"en", "Refund delivery too"}} {
		wantText(t, "the choice in "+tc.lang, b.get(paths.AdminOrder(o.ID)+"?lang="+tc.lang).testid("refund-shipping"), tc.want)
	}
	stale := refundForm(t, b.get(paths.AdminOrder(o.ID)), "shipping", "1", "reason", "Late parcel")
	before := s.dayRefunded(t)

	form := refundForm(t, p, "units-kt-mug", "1", "shipping", "1", "reason", "Late parcel")
	wantStatus(t, "refund a mug and delivery", b.post(paths.AdminOrderRefunds(o.ID), form), http.StatusSeeOther)
	d := s.order(t, o.ID)
	inv, _ := d.Invoice()
	if len(d.Refunds) != 1 || d.Refunds[0].Amount.Amount != 1890+490 || d.Refunds[0].Shipping.Amount != 490 ||
		d.Order.Refunded.Amount != 2380 || inv.Paid().Amount != 4270-2380 {
		t.Fatalf("refunds %+v, order refunded %v, invoice paid %v; want €23.80 with delivery", d.Refunds, d.Order.Refunded, inv.Paid())
	}
	if got := s.dayRefunded(t) - before; got != 2380 {
		t.Fatalf("the day's totals gave back %d, want 2380", got)
	}
	p = b.get(paths.AdminOrder(o.ID))
	wantText(t, "the refund's row", p.testid("order-refund-what"), "1 × Stoneware Mug, delivery €4.90")
	if p.testid("refund-shipping").Length() != 0 {
		t.Fatal("the form still offers delivery once it went back")
	}
	mails := outboxOfKind(t, st, store.MailRefund)
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "- Delivery €4.90") {
		t.Fatalf("the refund's mail does not name delivery: %+v", mails)
	}
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	wantText(t, "customer's refund", ada.get("/orders/"+o.ID).testid("refund-delivery"), "Delivery €4.90")
	wantText(t, "customer's refund in Korean", ada.get("/orders/"+o.ID+"?lang=ko").testid("refund-delivery"), "배송비 €4.90")

	// A page read before delivery went back asks for it again.
	p = b.post(paths.AdminOrderRefunds(o.ID), stale)
	wantStatus(t, "delivery again", p, http.StatusConflict)
	wantText(t, "why", p.testid("form-error"), "Delivery was refunded meanwhile")
	if d := s.order(t, o.ID); len(d.Refunds) != 1 || d.Order.Refunded.Amount != 2380 {
		t.Fatalf("a second delivery refund wrote: %d refunds, %v", len(d.Refunds), d.Order.Refunded)
	}
}

// A return of every unit gives delivery back only when staff tick it when
// refunding the return; the return's page says what went back.
func TestReturnRefundsDeliveryWhenStaffChoose(t *testing.T) {
	t.Parallel()
	s := shippingShop(t)
	st := s.env.Store
	m := newOrderMaker(t, st)
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b := s.staff(t)
	returned := func(tick bool) (store.OrderDetails, page) {
		t.Helper()
		o := m.place(st, s.customerID(t, demo.CustomerEmail), line("kt-mug", 1)) // €18.90 + €4.90
		deliver(t, s, o)
		path := "/orders/" + o.ID
		wantStatus(t, "ask", ada.post(path+"/returns", returnForm(ada.get(path), "Changed my mind", map[string]string{"kt-mug": "1"})), http.StatusSeeOther)
		href, _ := b.get(paths.AdminOrder(o.ID)).testid("order-return-link").Attr("href")
		wantStatus(t, "receive", b.post(href+"/receive", url.Values{"version": {returnVersion(t, b.get(href), "receive-form")}}), http.StatusSeeOther)
		wantStatus(t, "inspect", b.post(href+"/inspect", url.Values{"version": {returnVersion(t, b.get(href), "inspect-form")}, "verdict-0": {"accepted"}}), http.StatusSeeOther)
		rp := b.get(href)
		wantText(t, "the choice", rp.testid("refund-shipping"), "Refund delivery too: €4.90")
		form := url.Values{"version": {returnVersion(t, rp, "refund-form")}, "warehouse": {"sto"}, "confirm": {"yes"}}
		if tick {
			form.Set("shipping", "1")
		}
		wantStatus(t, "refund", b.post(href+"/refund", form), http.StatusSeeOther)
		return s.order(t, o.ID), b.get(href)
	}
	d, rp := returned(false)
	if d.Order.Refunded.Amount != 1890 || d.Order.Refundable().Amount != 490 || d.Refunds[0].Shipping.Amount != 0 {
		t.Fatalf("every unit returned, delivery not ticked: refunded %v, left %v", d.Order.Refunded, d.Order.Refundable())
	}
	if rp.testid("return-refunded-delivery").Length() != 0 {
		t.Fatal("the return says delivery went back")
	}
	// Delivery can still go back from the order's page.
	wantText(t, "delivery left", b.get(paths.AdminOrder(d.Order.ID)).testid("refund-shipping"), "€4.90")

	d, rp = returned(true)
	if d.Order.Refunded.Amount != 2380 || d.Order.Refundable().Amount != 0 || d.Refunds[0].Shipping.Amount != 490 {
		t.Fatalf("delivery ticked: refunded %v, left %v", d.Order.Refunded, d.Order.Refundable())
	}
	wantText(t, "the return's refund", rp.testid("return-refunded-delivery"), "including delivery €4.90")
}
