package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/web/paths"
)

// refundForm is the order page's refund form as rendered, with fields
// set, confirmed as its confirmation page sends it
// (TestAdminRefundIsConfirmedBeforeMoneyMoves goes through that page).
func refundForm(t *testing.T, p page, fields ...string) url.Values {
	t.Helper()
	key, ok := p.testid("refund-form").Find(`input[name="key"]`).Attr("value")
	if !ok || key == "" {
		t.Fatal("the refund form has no key")
	}
	v := url.Values{"key": {key}, "confirm": {"yes"}}
	for i := 0; i+1 < len(fields); i += 2 {
		v.Set(fields[i], fields[i+1])
	}
	return v
}

func outboxOfKind(t *testing.T, st *store.Store, kind store.MailKind) []store.Mail {
	t.Helper()
	box, err := st.Outbox(context.Background(), 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Mail
	for _, m := range box.Items {
		if m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}

// Staff refund an order being shipped from its page: bad input is a 422
// naming each field, with nothing written; then by line (back into a
// warehouse), by
// amount, and the rest in full; the same form sent twice refunds once;
// the invoice and the customer's order page show each refund as a
// negative payment, and each refund's mail is in the outbox.
func TestAdminRefundsAnOrder(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("kt-mug", 2), line("cf-grinder", 1)) // €37.80 + €54.90
	// Shipping: a placed order's units go back where allocated instead
	// (TestAdminRefundsUnshippedUnits).
	if _, err := s.env.Store.CreateShipments(context.Background(), o.ID, "Standard"); err != nil {
		t.Fatal(err)
	}
	orderPage := paths.AdminOrder(o.ID)
	refunds := paths.AdminOrderRefunds(o.ID)

	p := b.get(orderPage)
	wantStatus(t, "order page", p, http.StatusOK)
	wantText(t, "left to refund", p.testid("refundable"), "€92.70")
	for _, tc := range []struct {
		what   string
		fields []string
		field  string
	}{
		{"no reason", []string{"amount", "5"}, "error-reason"},
		{"zero", []string{"amount", "0", "reason", "x"}, "error-amount"},
		{"not an amount", []string{"amount", "5,0,0", "reason", "x"}, "error-amount"},
		{"over the total", []string{"amount", "92.71", "reason", "x"}, "error-amount"},
		{"nothing chosen", []string{"reason", "x"}, "error-amount"},
		{"both", []string{"units-kt-mug", "1", "amount", "2", "reason", "x"}, "error-amount"},
		{"too many units", []string{"units-kt-mug", "3", "reason", "x"}, "error-units-kt-mug"},
		{"unknown warehouse", []string{"units-kt-mug", "1", "restock", "nowhere", "reason", "x"}, "error-restock"},
	} {
		bad := b.post(refunds, refundForm(t, p, tc.fields...))
		wantStatus(t, tc.what, bad, http.StatusUnprocessableEntity)
		if bad.testid(tc.field).Length() != 1 {
			t.Fatalf("%s: no %s on the page", tc.what, tc.field)
		}
	}
	if d, err := s.env.Store.OrderDetails(context.Background(), o.ID); err != nil || len(d.Refunds) != 0 || d.Order.Refunded.Amount != 0 {
		t.Fatalf("bad input wrote a refund: %+v, %v", d.Refunds, err)
	}

	// By line: one mug back into Göteborg.
	before := stockIn(t, s, "kt-mug", "gbg")
	form := refundForm(t, b.get(orderPage), "units-kt-mug", "1", "restock", "gbg", "reason", "Arrived chipped")
	done := b.post(refunds, form)
	wantStatus(t, "refund by line", done, http.StatusSeeOther)
	wantStatus(t, "the same form again", b.post(refunds, form), http.StatusSeeOther)
	if got := stockIn(t, s, "kt-mug", "gbg"); got != before+1 {
		t.Fatalf("Göteborg holds %d mugs after the refund, had %d", got, before)
	}
	p = b.get(orderPage)
	if n := p.testid("order-refund-row").Length(); n != 1 {
		t.Fatalf("%d refunds listed after one refund sent twice", n)
	}
	wantText(t, "refund amount", p.testid("order-refund-amount"), "€18.90")
	wantText(t, "refund status", p.testid("order-refund-status"), "Refunded")
	wantText(t, "order refunded", p.testid("order-refunded"), "Partly refunded")

	// By amount, then the rest in full.
	wantStatus(t, "refund by amount", b.post(refunds, refundForm(t, p, "amount", "3.80", "reason", "Late delivery")), http.StatusSeeOther)
	p = b.get(orderPage)
	wantText(t, "left after two refunds", p.testid("refundable"), "€70.00")
	wantStatus(t, "refund in full", b.post(refunds, refundForm(t, p, "amount", "70", "reason", "Returned")), http.StatusSeeOther)
	p = b.get(orderPage)
	if p.testid("refund-form").Length() != 0 || p.testid("refunded-all").Length() != 1 {
		t.Fatal("a refunded order still offers to refund")
	}
	wantText(t, "order refunded", p.testid("order-refunded"), "Refunded in full")

	inv := b.get(paths.AdminInvoice(p.testid("order-invoice").Find("a").First().Text()))
	wantStatus(t, "invoice", inv, http.StatusOK)
	if n := inv.testid("payment-row").Length(); n != 4 {
		t.Fatalf("invoice lists %d payments, want the card and three refunds", n)
	}
	wantText(t, "a refund on the invoice", inv.testid("payment-type").Last(), "Refund to Visa ending in 4242")
	wantText(t, "a refund's amount", inv.testid("payment-amount").Last(), "−€70.00")

	mails := outboxOfKind(t, s.env.Store, store.MailRefund)
	if len(mails) != 3 || mails[0].To != demo.CustomerEmail {
		t.Fatalf("%d refund mails in the outbox: %+v", len(mails), mails)
	}

	c := s.browser(t)
	c.signIn(demo.CustomerEmail, demo.CustomerPassword)
	mine := c.get(paths.Order(o.ID))
	wantStatus(t, "customer's order", mine, http.StatusOK)
	if n := mine.testid("refund").Length(); n != 3 {
		t.Fatalf("the customer sees %d refunds", n)
	}
	wantText(t, "paid less refunds", mine.testid("invoice-paid"), "€0.00")
	wantText(t, "a refund's reason", mine.testid("refund").First(), "Arrived chipped")

	// A customer cannot refund.
	c.get(paths.Order(o.ID))
	if p := c.post(refunds, url.Values{"key": {"k1"}, "amount": {"1"}, "reason": {"x"}}); p.status != http.StatusForbidden && p.status != http.StatusNotFound && p.status != http.StatusSeeOther {
		t.Fatalf("a customer's refund: %d", p.status)
	}
}

// A customer cancels an unshipped order from their order page through a
// confirm page: it is cancelled and refunded at once, its stock back, off
// the to-ship list, the mail in the outbox. Another customer gets a 404;
// an order being shipped is a 409.
func TestCustomerCancelsAnOrder(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("kt-mug", 2))
	d, err := s.env.Store.OrderDetails(context.Background(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	from := d.Items[0].Allocations[0].WarehouseID
	before := stockIn(t, s, "kt-mug", from)

	other := s.browser(t)
	other.signIn("henrik@fikafield.example", demo.CustomerPassword)
	wantStatus(t, "someone else's cancel page", other.get(paths.OrderCancel(o.ID)), http.StatusNotFound)

	c := s.browser(t)
	c.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p := c.get(paths.Order(o.ID))
	wantStatus(t, "order", p, http.StatusOK)
	if href, _ := p.testid("cancel-order").Attr("href"); href != paths.OrderCancel(o.ID) {
		t.Fatalf("cancel link %q", href)
	}
	confirm := c.get(paths.OrderCancel(o.ID))
	wantStatus(t, "confirm", confirm, http.StatusOK)
	wantText(t, "what comes back", confirm.testid("cancel-amount"), "€37.80")
	key, _ := confirm.testid("cancel-form").Find(`input[name="key"]`).Attr("value")
	wantStatus(t, "someone else's cancel", other.post(paths.OrderCancel(o.ID), url.Values{"key": {key}}), http.StatusNotFound)
	done := c.post(paths.OrderCancel(o.ID), url.Values{"key": {key}})
	wantStatus(t, "cancel", done, http.StatusSeeOther)
	wantStatus(t, "cancel sent again", c.post(paths.OrderCancel(o.ID), url.Values{"key": {key}}), http.StatusSeeOther)
	p = c.get(paths.Order(o.ID))
	wantText(t, "status", p.testid("order-status"), "Cancelled")
	if p.testid("cancel-order").Length() != 0 || p.testid("refund").Length() != 1 {
		t.Fatal("a cancelled order offers to cancel, or does not show its refund")
	}
	if got := stockIn(t, s, "kt-mug", from); got != before+2 {
		t.Fatalf("stock %d after the cancel, had %d", got, before)
	}
	if mails := outboxOfKind(t, s.env.Store, store.MailRefund); len(mails) != 1 {
		t.Fatalf("%d cancel mails in the outbox", len(mails))
	}
	staff := s.staff(t)
	sp := staff.get(paths.AdminOrder(o.ID))
	wantText(t, "staff see it cancelled", sp.testid("order-status"), "Cancelled")
	toShip, err := s.env.Store.OrdersToShip(context.Background(), 100, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range toShip.Items {
		if x.ID == o.ID {
			t.Fatal("a cancelled order is still to ship")
		}
	}

	// An order being shipped cannot be cancelled.
	shipping := m.place(s.env.Store, ada, line("kt-mug", 1))
	confirm = c.get(paths.OrderCancel(shipping.ID))
	key, _ = confirm.testid("cancel-form").Find(`input[name="key"]`).Attr("value")
	if _, err := s.env.Store.CreateShipments(context.Background(), shipping.ID, "Standard"); err != nil {
		t.Fatal(err)
	}
	late := c.post(paths.OrderCancel(shipping.ID), url.Values{"key": {key}})
	wantStatus(t, "cancel of an order being shipped", late, http.StatusConflict)
	if late.testid("form-error").Length() != 1 {
		t.Fatal("no reason given for the refused cancel")
	}
}
