package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
)

// shippingShop is newShop with the demo's shipping zones.
func shippingShop(t *testing.T) *shop {
	t.Helper()
	s := newShop(t)
	if err := demo.LoadShipping(context.Background(), s.env.Store); err != nil {
		t.Fatal(err)
	}
	return s
}

// Checkout shows delivery for the address's country: none chosen yet,
// every zone's rate listed (without JavaScript too); the country changed
// with htmx re-prices it and its estimate; a country no zone holds is
// said; free from the zone's threshold.
func TestCheckoutShowsShipping(t *testing.T) {
	t.Parallel()
	s := shippingShop(t)
	b, _ := s.newCustomer(t, "Ada Lindqvist")
	b.addToCart("bk-fjord", "1") // €19.90

	p := b.get("/checkout")
	wantStatus(t, "checkout", p, http.StatusOK)
	if p.testid("summary-shipping-choose").Length() != 1 {
		t.Fatalf("no country yet, and the summary does not ask for one: %s", trim(p.testid("summary").Text()))
	}
	if n := p.testid("shipping-rate").Length(); n != 4 {
		t.Fatalf("%d rates listed, want the demo's 4 zones", n)
	}
	wantText(t, "rates", p.testid("shipping-rates"), "Sweden: €4.90 · Free delivery from €50.00 · 1–3 days")
	if v, _ := p.testid("expected-total").Attr("value"); v != "1990" {
		t.Fatalf("the form expects %q, want the goods' 1990", v)
	}
	if hx, _ := p.testid("country-prices-delivery").Attr("hx-post"); hx != "/checkout/summary" {
		t.Fatalf("the country does not re-price the summary: %q", hx)
	}

	summary := func(country string, headers ...string) page {
		t.Helper()
		p := b.post("/checkout/summary", url.Values{"country": {country}}, append([]string{"HX-Request", "true"}, headers...)...)
		wantStatus(t, "summary for "+country, p, http.StatusOK)
		if strings.Contains(p.body, "<html") {
			t.Fatalf("htmx got a whole page")
		}
		return p
	}
	p = summary("SE")
	wantText(t, "shipping to Sweden", p.testid("summary-shipping"), "€4.90")
	wantText(t, "estimate", p.testid("summary-shipping-estimate"), "Arrives in 1–3 days")
	wantText(t, "total", p.testid("summary-total"), "€24.80")
	wantText(t, "card", p.testid("summary-card"), "€24.80")
	if v, _ := p.testid("expected-total").Attr("value"); v != "2480" {
		t.Fatalf("the out-of-band total is %q, want 2480 (delivery included)", v)
	}
	p = summary("KR")
	wantText(t, "shipping to Korea", p.testid("summary-shipping"), "€24.90")
	wantText(t, "estimate", p.testid("summary-shipping-estimate"), "7–12 days")
	p = summary("NO")
	wantText(t, "Norway", p.testid("summary-shipping-problem"), "We do not deliver to Norway. We deliver to: Indonesia, Rest of the EU, South Korea, Sweden.")
	wantText(t, "Norway's total", p.testid("summary-total"), "€19.90")
	p = summary("KR", "Accept-Language", "ko")
	if got := p.testid("summary-shipping-estimate").Text(); !strings.Contains(got, "7–12일 이내 도착") {
		t.Errorf("the Korean estimate reads %q", got)
	}

	// Without JavaScript, "Apply" prices delivery for the country chosen.
	key, total := b.checkoutPage()
	f := checkoutForm(key, total)
	f.Set("apply", "1")
	p = b.post("/checkout", f)
	wantStatus(t, "apply", p, http.StatusOK)
	wantText(t, "no-JS shipping", p.testid("summary-shipping"), "€4.90")
	if v, _ := p.testid("expected-total").Attr("value"); v != "2480" {
		t.Fatalf("after Apply the form expects %q, want 2480", v)
	}

	// Free from the threshold: €54.90 more makes €74.80 of goods.
	b.addToCart("cf-grinder", "1")
	wantText(t, "free", summary("SE").testid("summary-shipping"), "Free")
	wantText(t, "free total", summary("SE").testid("summary-total"), "€74.80")
	wantText(t, "not free in the EU", summary("FI").testid("summary-shipping"), "€9.90")
}

// An order to a country no zone holds is refused at the country, in a
// 422 that writes nothing; one to Sweden charges goods and delivery on
// the card, shows delivery on the invoice with its VAT, counts in the
// day's totals, and a cancellation gives all of it back.
func TestCheckoutChargesAndRefundsShipping(t *testing.T) {
	t.Parallel()
	s := shippingShop(t)
	b, id := s.newCustomer(t, "Ada Lindqvist")
	b.addToCart("bk-fjord", "1") // €19.90, books: 6 %

	key, total := b.checkoutPage()
	f := checkoutForm(key, total)
	f.Set("country", "NO")
	p := b.post("/checkout", f)
	wantStatus(t, "order to Norway", p, http.StatusUnprocessableEntity)
	wantText(t, "at the country", p.testid("error-country"), "We do not deliver to Norway")
	if v, _ := p.doc.Find(`[data-testid="field-country"] option[selected]`).Attr("value"); v != "NO" {
		t.Errorf("the country came back as %q", v)
	}
	if orders, err := s.env.Store.CustomerOrders(context.Background(), id, 5, ""); err != nil || len(orders.Items) != 0 {
		t.Fatalf("a refused order wrote %d orders (%v)", len(orders.Items), err)
	}

	// The page had no country: without JavaScript the customer has not
	// seen delivery's €4.90, so the first "Place order" shows the new
	// total and charges nothing; the second places it.
	before := s.dayRevenue(t)
	key, total = b.checkoutPage()
	f = checkoutForm(key, total)
	p = b.post("/checkout", f)
	wantStatus(t, "order to Sweden, delivery not seen", p, http.StatusUnprocessableEntity)
	wantText(t, "the new total", p.testid("summary-total"), "€24.80")
	if !strings.Contains(p.body, "Delivery costs €4.90, so the total is now €24.80.") {
		t.Errorf("the form does not say delivery made the new total:\n%s", trim(p.doc.Find("form").Text()))
	}
	if n, _ := s.cardPayments(t); n != 0 {
		t.Fatalf("%d card payments before the customer saw delivery", n)
	}
	total, _ = p.testid("expected-total").Attr("value")
	f.Set("total", total)
	p = s.placeOrder(t, b, f)
	wantStatus(t, "order to Sweden", p, http.StatusSeeOther)
	_, orderID, _ := strings.Cut(p.header.Get("Location"), "/orders/")
	d := s.order(t, orderID)
	if d.Order.Shipping.Amount != 490 || d.Order.Total.Amount != 2480 {
		t.Fatalf("the order's shipping %v total %v, want 4.90 and 24.80", d.Order.Shipping, d.Order.Total)
	}
	if _, paid := s.cardPayments(t); paid != 2480 {
		t.Fatalf("the card paid %d, want goods and delivery 2480", paid)
	}
	if got := s.dayRevenue(t) - before; got != 2480 {
		t.Fatalf("the day's totals grew by %d, want 2480", got)
	}
	var confirmation *store.Mail
	for _, m := range outboxOfKind(t, s.env.Store, store.MailOrderPlaced) {
		if strings.Contains(m.Subject, d.Order.Label()) {
			confirmation = &m
		}
	}
	if confirmation == nil || !strings.Contains(confirmation.Text, "Delivery  €4.90") || !strings.Contains(confirmation.Text, "It arrives in 1–3 days once it ships.") ||
		!strings.Contains(confirmation.HTML, "It arrives in 1–3 days once it ships.") {
		t.Fatalf("the confirmation does not show delivery and its estimate: %+v", confirmation)
	}
	op := b.get("/orders/" + orderID)
	wantText(t, "invoice line", op.testid("invoice-shipping"), "€4.90")
	wantText(t, "invoice total", op.testid("invoice-total"), "€24.80")
	inv, _ := d.Invoice()
	if len(inv.VAT) != 1 || inv.VAT[0].Rate != 600 || inv.VAT[0].Gross.Amount != 2480 {
		t.Fatalf("invoice VAT %+v, want delivery at the books' 6 %%", inv.VAT)
	}

	confirm := b.get("/orders/" + orderID + "/cancel")
	cancelKey, _ := confirm.testid("cancel-form").Find(`input[name="key"]`).Attr("value")
	wantStatus(t, "cancel", b.post("/orders/"+orderID+"/cancel", url.Values{"key": {cancelKey}}), http.StatusSeeOther)
	if d := s.order(t, orderID); d.Order.Refunded.Amount != 2480 || d.Order.Status != store.OrderCancelled {
		t.Fatalf("cancelled: %s, refunded %v, want all 24.80", d.Order.Status, d.Order.Refunded)
	}
}

// dayRevenue is today's revenue in the day's totals.
func (s *shop) dayRevenue(t *testing.T) int64 {
	t.Helper()
	st := s.env.Store
	days, err := st.DayTotals(context.Background(), st.Today(), st.Today())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, d := range days {
		n += d.Revenue.Amount
	}
	return n
}
