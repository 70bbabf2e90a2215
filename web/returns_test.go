package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"shop/store"
	"shop/store/demo"
)

var staffSam = store.Customer{ID: "staff-sam", Name: "Sam Staff"}

// deliveredOrder is an order of Ada's (a grinder and two cinnamon buns),
// shipped and delivered now.
func deliveredOrder(t *testing.T, s *shop, m *orderMaker) store.Order {
	t.Helper()
	o := m.place(s.env.Store, s.customerID(t, demo.CustomerEmail), line("cf-grinder", 1), line("bk-cinnamon", 2))
	deliver(t, s, o)
	return o
}

// deliver ships the order and marks its parcels delivered now.
func deliver(t *testing.T, s *shop, o store.Order) {
	t.Helper()
	ctx, st := context.Background(), s.env.Store
	shs, err := st.CreateShipments(ctx, o.ID, "Standard")
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shs {
		if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "ups", Tracking: "1Z999AA10123456784", Version: 1}, staffSam); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, store.ShipmentStep{To: store.ShipmentDelivered, Version: 2}, staffSam); err != nil {
			t.Fatal(err)
		}
	}
}

// returnForm is the order page's return form as a person fills it: qty
// by product id (the others 0), and the reason.
func returnForm(p page, reason string, qty map[string]string) url.Values {
	form := url.Values{"reason": {reason}}
	p.testid("return-form").Find(`input[type="hidden"][name^="line-"]`).Each(func(i int, in *goquerySelection) {
		line, _ := in.Attr("value")
		form.Set("line-"+itoa(i), line)
		form.Set("qty-"+itoa(i), qty[line])
	})
	return form
}

func returnVersion(t *testing.T, p page, form string) string {
	t.Helper()
	v, ok := p.testid(form).Find(`input[name="version"]`).Attr("value")
	if !ok {
		t.Fatalf("no %s with a version (status %d)", form, p.status)
	}
	return v
}

// The return flow over HTTP: Ada asks (bad asks refused, nothing
// written), staff receive it (the customer mailed), inspect each line and
// refund the accepted ones into a warehouse they choose; each step shows on
// both sides, and a stale or repeated step is a 409.
func TestReturnFlow(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx, st := context.Background(), s.env.Store

	// Not shipped yet: the order page says when returns become possible.
	m := newOrderMaker(t, st)
	placed := m.place(st, s.customerID(t, demo.CustomerEmail), line("cf-grinder", 1))
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p := ada.get("/orders/" + placed.ID)
	wantStatus(t, "placed order", p, http.StatusOK)
	if p.testid("return-not-yet").Length() != 1 || p.testid("return-form").Length() != 0 {
		t.Fatal("a placed order offers a return")
	}

	o := deliveredOrder(t, s, m)
	path := "/orders/" + o.ID
	p = ada.get(path)
	if n := p.testid("return-qty").Length(); n != 2 {
		t.Fatalf("%d lines on the return form", n)
	}

	// Refused asks: each says why, and nothing is written.
	for _, c := range []struct {
		what   string
		form   url.Values
		status int
		testid string
	}{
		{"nothing chosen", returnForm(p, "Changed my mind", nil), http.StatusUnprocessableEntity, "form-error"},
		{"no reason", returnForm(p, "", map[string]string{"bk-cinnamon": "1"}), http.StatusUnprocessableEntity, "error-reason"},
		{"a reason not offered", returnForm(p, "Because", map[string]string{"bk-cinnamon": "1"}), http.StatusUnprocessableEntity, "form-error"},
		{"more than bought", returnForm(p, "Other", map[string]string{"cf-grinder": "2"}), http.StatusConflict, "form-error"},
		{"not a number", returnForm(p, "Other", map[string]string{"cf-grinder": "one"}), http.StatusBadRequest, ""},
		{"negative", returnForm(p, "Other", map[string]string{"cf-grinder": "-1"}), http.StatusBadRequest, ""},
		{"bad line", url.Values{"reason": {"Other"}, "line-0": {"../x"}, "qty-0": {"1"}}, http.StatusBadRequest, ""},
		{"a line twice", url.Values{"reason": {"Other"}, "line-0": {"cf-grinder"}, "qty-0": {"1"}, "line-1": {"cf-grinder"}, "qty-1": {"1"}}, http.StatusUnprocessableEntity, "form-error"},
	} {
		got := ada.post(path+"/returns", c.form)
		wantStatus(t, c.what, got, c.status)
		if c.testid != "" && got.testid(c.testid).Length() != 1 {
			t.Fatalf("%s: no %s on the page", c.what, c.testid)
		}
	}
	// Someone else's order is no order at all.
	other := s.browser(t)
	other.signIn(demo.StaffEmail, demo.StaffPassword)
	other.get("/orders")
	wantStatus(t, "another's order", other.post(path+"/returns", returnForm(p, "Other", map[string]string{"cf-grinder": "1"})), http.StatusNotFound)
	if n := s.env.CountEntities(t, "return"); n != 0 {
		t.Fatalf("refused asks wrote %d returns", n)
	}

	p = ada.get(path)
	wantStatus(t, "ask", ada.post(path+"/returns", returnForm(p, "Arrived damaged", map[string]string{"bk-cinnamon": "2"})), http.StatusSeeOther)
	p = ada.get(path)
	wantText(t, "customer's return", p.testid("return-status"), "Return requested")
	wantText(t, "customer's return steps", p.testid("return-step-requested"), "Return requested")
	if n := p.testid("return-qty").Length(); n != 1 {
		t.Fatalf("%d lines left to return, want the grinder alone", n)
	}

	// Staff: the list, the order's link, the return's page.
	b := s.staff(t)
	list := b.get("/admin/returns")
	wantStatus(t, "returns list", list, http.StatusOK)
	if list.testid("return-row").Length() != 1 || list.testid("nav-returns").Length() != 1 {
		t.Fatalf("returns list: %d rows", list.testid("return-row").Length())
	}
	wantStatus(t, "unknown status", b.get("/admin/returns?status=lost"), http.StatusBadRequest)
	href, _ := b.get("/admin/orders/" + o.ID).testid("order-return-link").Attr("href")
	rp := b.get(href)
	wantStatus(t, "return page", rp, http.StatusOK)
	wantText(t, "return reason", rp.testid("return-reason"), "Arrived damaged")

	// Received, once; the customer is mailed.
	wantStatus(t, "stale version", b.post(href+"/receive", url.Values{"version": {"7"}}), http.StatusConflict)
	wantStatus(t, "no version", b.post(href+"/receive", url.Values{}), http.StatusBadRequest)
	v := returnVersion(t, rp, "receive-form")
	wantStatus(t, "receive", b.post(href+"/receive", url.Values{"version": {v}}), http.StatusSeeOther)
	wantStatus(t, "receive again", b.post(href+"/receive", url.Values{"version": {v}}), http.StatusConflict)
	d, err := st.OrderDetails(ctx, o.ID)
	if err != nil || len(d.Returns) != 1 {
		t.Fatalf("returns %+v %v", d.Returns, err)
	}
	r := d.Returns[0]
	mail, err := st.Mail(ctx, store.ReturnReceivedMailID(r.ID))
	if err != nil || mail.To != demo.CustomerEmail || mail.Kind != store.MailReturnReceived {
		t.Fatalf("received mail %+v %v", mail, err)
	}
	wantText(t, "customer sees received", ada.get(path).testid("return-step-received"), "Received")

	// Inspected: a verdict on each line or a 422.
	rp = b.get(href)
	v = returnVersion(t, rp, "inspect-form")
	wantStatus(t, "no verdict", b.post(href+"/inspect", url.Values{"version": {v}}), http.StatusUnprocessableEntity)
	wantStatus(t, "odd verdict", b.post(href+"/inspect", url.Values{"version": {v}, "verdict-0": {"maybe"}}), http.StatusUnprocessableEntity)
	wantStatus(t, "inspect", b.post(href+"/inspect", url.Values{"version": {v}, "verdict-0": {"accepted"}, "note-0": {"squashed"}}), http.StatusSeeOther)

	// Refunded into the warehouse chosen.
	rp = b.get(href)
	v = returnVersion(t, rp, "refund-form")
	before := stockIn(t, s, "bk-cinnamon", "sto")
	wantStatus(t, "unknown warehouse", b.post(href+"/refund", url.Values{"version": {v}, "warehouse": {"nowhere"}}), http.StatusUnprocessableEntity)
	wantStatus(t, "no warehouse", b.post(href+"/refund", url.Values{"version": {v}}), http.StatusUnprocessableEntity)
	// Asked, it is shown to confirm: what goes back to which tender and
	// where the units go; nothing moves until staff confirm.
	ask := b.post(href+"/refund", url.Values{"version": {v}, "warehouse": {"sto"}})
	wantStatus(t, "ask to refund", ask, http.StatusOK)
	wantText(t, "where it goes", ask.testid("refund-confirm-to"), "Back to Visa ending in 4242")
	wantText(t, "where the units go", ask.testid("refund-confirm-stock"), "Stockholm")
	if got := stockIn(t, s, "bk-cinnamon", "sto"); got != before {
		t.Fatalf("asking to confirm restocked: %d cinnamon in sto, was %d", got, before)
	}
	confirmed := hiddenFields(ask, "refund-confirm-form")
	confirmed.Set("confirm", "yes")
	wantStatus(t, "refund", b.post(href+"/refund", confirmed), http.StatusSeeOther)
	wantStatus(t, "refund again", b.post(href+"/refund", confirmed), http.StatusConflict)
	if got := stockIn(t, s, "bk-cinnamon", "sto"); got != max(before, 0)+2 {
		t.Fatalf("cinnamon in sto %d, was %d", got, before)
	}
	r, err = st.OrderReturn(ctx, o.ID, r.ID)
	if err != nil || r.Status != store.ReturnRefunded || r.Refunded.Amount <= 0 {
		t.Fatalf("after refund %+v %v", r, err)
	}
	rp = b.get(href)
	wantText(t, "staff sees the refund", rp.testid("return-refunded"), r.Refunded.String())
	wantText(t, "customer sees the refund", ada.get(path).testid("return-step-refunded"), "Refunded "+r.Refunded.String())
	if l := b.get("/admin/returns?status=refunded"); l.testid("return-row").Length() != 1 {
		t.Fatal("the refunded list lacks the return")
	}
}
