package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"shop/store/demo"
	"shop/web/paths"
)

// Staff keep the seller's details on their settings page (bad input at
// its field with a 422, a stale form a 409), and the invoice on the
// customer's order page and staff's invoice page print them, the
// customer's billing address (the order's) and each line's VAT.
func TestSellerDetailsOnInvoices(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	p := b.get(paths.AdminSeller)
	wantStatus(t, "seller page", p, http.StatusOK)
	if v, _ := p.doc.Find(`input[name="vat"]`).Attr("value"); v != demo.DemoSeller.VATNumber {
		t.Fatalf("the demo's VAT number is %q on the form", v)
	}
	version, _ := p.doc.Find(`input[name="version"]`).Attr("value")
	form := url.Values{"version": {version}, "name": {"Fika & Field Handel AB"}, "address": {"Hamngatan 12\n411 11 Göteborg\nSweden"}, "vat": {"se 5566 7788 9901"}}

	bad := url.Values{"version": {version}, "name": {""}, "address": {"x"}, "vat": {"556677"}}
	r := b.post(paths.AdminSeller, bad)
	wantStatus(t, "bad seller", r, http.StatusUnprocessableEntity)
	wantText(t, "name error", r.doc.Find("form"), "Give the legal name")
	wantText(t, "VAT error", r.doc.Find("form"), "two letters of its country")

	wantStatus(t, "save seller", b.post(paths.AdminSeller, form), http.StatusSeeOther)
	wantStatus(t, "the same version again", b.post(paths.AdminSeller, form), http.StatusConflict)
	p = b.get(paths.AdminSeller)
	if v, _ := p.doc.Find(`input[name="vat"]`).Attr("value"); v != "SE556677889901" {
		t.Fatalf("saved VAT number %q, want it without spaces", v)
	}

	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("kt-mug", 2))
	c := s.browser(t)
	c.signIn(demo.CustomerEmail, demo.CustomerPassword)
	mine := c.get(paths.Order(o.ID))
	wantStatus(t, "customer's order", mine, http.StatusOK)
	wantText(t, "seller", mine.testid("seller-name"), "Fika & Field Handel AB")
	wantText(t, "seller VAT", mine.testid("seller-vat"), "SE556677889901")
	wantText(t, "billed to", mine.testid("billed-to"), "Storgatan 1")
	wantText(t, "line VAT", mine.testid("line-vat"), "25 %")

	d, err := s.env.Store.OrderDetails(context.Background(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := d.Invoice()
	staff := b.get(paths.AdminInvoice(inv.ID))
	wantStatus(t, "staff invoice", staff, http.StatusOK)
	wantText(t, "staff invoice seller", staff.testid("seller-vat"), "SE556677889901")
	wantText(t, "staff invoice line rate", staff.testid("line-rate"), "25 %")
	wantText(t, "staff invoice billed to", staff.testid("billed-to"), "Borås")
}
