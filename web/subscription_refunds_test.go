package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store"
	"shop/store/rules"
)

// receiptOf is a customer's newest receipt.
func (s *shop) receiptOf(t *testing.T, customerID string) store.Receipt {
	t.Helper()
	p, err := s.env.Store.RecentReceipts(context.Background(), customerID, 10, "")
	if err != nil || len(p.Items) == 0 {
		t.Fatalf("receipts of %s: %v %v", customerID, p.Items, err)
	}
	return p.Items[0]
}

// mailsOf lists the outbox's mails of a kind.
func (s *shop) mailsOf(t *testing.T, kind store.MailKind) []store.Mail {
	t.Helper()
	p, err := s.env.Store.Outbox(context.Background(), 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Mail
	for _, m := range p.Items {
		if m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}

// Staff refund part of a receipt from its page: bad input comes back at its
// field with nothing written; the refund happens once per receipt; the
// customer's receipt and list, and staff's customer page, show it; the
// customer is mailed.
func TestStaffRefundASubscriptionReceipt(t *testing.T) {
	t.Parallel()
	s, b, ada, _ := subscribedShop(t, "") // on today's day: a whole period, €12.50
	rec := s.receiptOf(t, ada)
	staff := s.staff(t)
	path := "/admin/customers/" + ada + "/receipts/" + rec.Number

	customer := staff.get("/admin/customers/" + ada)
	wantStatus(t, "staff's customer page", customer, http.StatusOK)
	if href, _ := customer.testid("customer-receipt-number").Attr("href"); href != path {
		t.Fatalf("the customer page links the receipt to %q, want %q", href, path)
	}
	page := staff.get(path)
	wantStatus(t, "staff's receipt", page, http.StatusOK)
	key, _ := page.doc.Find(`[data-testid="refund-form"] input[name="key"]`).Attr("value")
	if key == "" {
		t.Fatal("no refund form with a key")
	}
	form := func(amount, reason, key string) url.Values {
		return url.Values{"amount": {amount}, "reason": {reason}, "key": {key}}
	}
	for _, bad := range []struct{ amount, reason, field, msg string }{
		{"", "late", "amount", "Enter the amount"},
		{"5,00", "late", "amount", "two decimals"},
		{"0", "late", "amount", "more than 0.00"},
		{"12.51", "late", "amount", "at most the €12.50 paid"},
		{"5.00", " ", "reason", "Say why"},
		{"5.00", strings.Repeat("x", 501), "reason", "500 characters"},
	} {
		p := staff.post(path+"/refund", form(bad.amount, bad.reason, key))
		wantStatus(t, "refund "+bad.amount+"/"+bad.field, p, http.StatusUnprocessableEntity)
		wantText(t, "refund "+bad.amount, p.testid("error-"+bad.field), bad.msg)
	}
	wantStatus(t, "a form without its key", staff.post(path+"/refund", form("5.00", "late", "")), http.StatusBadRequest)
	if r := s.receiptOf(t, ada); r.Refund != nil {
		t.Fatalf("bad input wrote a refund: %+v", r.Refund)
	}

	// Asked from the page, the refund is shown to confirm; nothing moves.
	ask := staff.post(path+"/refund", form("5.00", "The beans came late", key))
	wantStatus(t, "the refund form", ask, http.StatusOK)
	wantText(t, "confirmation", ask.testid("refund-confirm-title"), "Refund €5.00 of receipt "+rec.NumberInBooks()+"?")
	wantText(t, "to the card", ask.testid("refund-confirm-to"), "Back to Visa")
	wantText(t, "of what was paid", ask.testid("refund-confirm-to"), "of €12.50 paid")
	if r := s.receiptOf(t, ada); r.Refund != nil {
		t.Fatalf("asking to confirm wrote a refund: %+v", r.Refund)
	}
	confirmed := hiddenFields(ask, "refund-confirm-form")
	edit := cloneValues(confirmed)
	edit.Set("edit", "1")
	if v, _ := staff.post(path+"/refund", edit).testid("field-amount").Attr("value"); v != "5.00" {
		t.Errorf("'Change it' brought the amount back as %q", v)
	}
	confirmed.Set("confirm", "yes")
	p := staff.post(path+"/refund", confirmed)
	wantStatus(t, "refund", p, http.StatusSeeOther)
	page = staff.get(path)
	wantText(t, "the flash", page.testid("flash"), "Refunded €5.00")
	wantText(t, "the refund", page.testid("receipt-refund"), "The beans came late")
	if page.testid("refund-form").Length() != 0 {
		t.Error("a refunded receipt still offers the refund form")
	}
	// The same form again (a double submit) refunds nothing more; another
	// refund of the receipt is refused.
	wantStatus(t, "the same form again", staff.post(path+"/refund", confirmed), http.StatusSeeOther)
	again := staff.post(path+"/refund", form("2.00", "more", store.NewID()))
	wantStatus(t, "a second refund", again, http.StatusConflict)
	wantText(t, "a second refund", again.testid("form-error"), "refunded once")
	if r := s.receiptOf(t, ada); r.Refunded() != centsEUR(500) {
		t.Fatalf("refunded %v, want €5.00", r.Refunded())
	}
	refunded := s.receiptOf(t, ada).Refund
	if g, err := s.env.Store.TestPayRefund(context.Background(), refunded.GatewayID); err != nil || g.Amount != centsEUR(500) || g.PaymentRef != rec.ChargeID {
		t.Fatalf("the test provider's refund %q: %+v %v", refunded.GatewayID, g, err)
	}

	mine := b.get("/receipts/" + rec.Number)
	wantStatus(t, "the customer's receipt", mine, http.StatusOK)
	wantText(t, "the customer's receipt", mine.testid("receipt-refund"), "−€5.00")
	wantText(t, "the customer's receipt", mine.testid("receipt-refund"), "The beans came late")
	wantText(t, "the customer's receipt: what it came to", mine.testid("receipt-net"), "€7.50")
	// The statement's row says what the receipt came to, and the refund
	// as such, as an order's row does.
	list := b.get("/receipts")
	wantText(t, "the customer's receipts: the net", list.testid("receipt-row-amount"), "€7.50")
	wantText(t, "the customer's receipts: the refund", list.testid("receipt-row-refund"), "less a refund of €5.00 (was €12.50)")
	wantText(t, "the customer's receipt: its credit note", mine.testid("receipt-credit-note-pdf"), "Credit note CN")
	wantText(t, "staff's receipt: what it came to", page.testid("receipt-net"), "€7.50")
	wantText(t, "staff's receipt: its credit note", page.testid("receipt-credit-note-pdf"), "Credit note CN")
	wantText(t, "staff's customer page", staff.get("/admin/customers/"+ada).testid("customer-receipt-refund"), "refunded €5.00")
	if m := s.mailsOf(t, store.MailReceiptRefund); len(m) != 1 || !strings.Contains(m[0].Text, "The beans came late") || !strings.Contains(m[0].Text, "/receipts/"+rec.Number) {
		t.Errorf("refund mails %+v", m)
	}
	wantStatus(t, "an unknown receipt", staff.get("/admin/customers/"+ada+"/receipts/R0000000000AA"), http.StatusNotFound)
	wantStatus(t, "a customer at staff's page", b.get(path), http.StatusForbidden)
}

// Staff allow refunds on cancelling now; a customer who cancels now gets
// the unused days of the paid period back, pro rata.
func TestCancelNowRefundsTheUnusedDaysWhenStaffAllowIt(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "10")
	staff := s.staff(t)
	settings := staff.get("/admin/subscriptions/settings")
	wantStatus(t, "settings", settings, http.StatusOK)
	if _, on := settings.testid("refund-unused-no").Attr("checked"); !on {
		t.Fatal("refunds on cancelling are on by default")
	}
	wantStatus(t, "a broken form", staff.post("/admin/subscriptions/settings", url.Values{"version": {"0"}, "refund_unused": {"maybe"}}), http.StatusBadRequest)
	wantStatus(t, "save", staff.post("/admin/subscriptions/settings", url.Values{"version": {"0"}, "refund_unused": {"yes"}}), http.StatusSeeOther)
	stale := staff.post("/admin/subscriptions/settings", url.Values{"version": {"0"}, "refund_unused": {"no"}})
	wantStatus(t, "save over a newer version", stale, http.StatusConflict)
	if _, on := stale.testid("refund-unused-yes").Attr("checked"); !on {
		t.Fatal("the settings after a conflict do not show what is saved")
	}

	rec := s.receiptOf(t, ada)
	want, unused, _ := rules.UnusedShare(rec.Amount, rec.PeriodStart, rec.PeriodEnd, s.env.Store.Today())
	p := s.act(t, b, sub, "cancel", url.Values{"when": {"now"}})
	wantStatus(t, "cancel now", p, http.StatusSeeOther)
	list := b.get("/subscriptions")
	wantText(t, "the flash", list.testid("flash"), "We refunded "+want.String()+" for the "+itoa(unused)+" unused days")
	r := s.receiptOf(t, ada)
	if r.Refunded() != want || r.Refund.By != "cancellation" || want.Amount <= 0 {
		t.Fatalf("the receipt's refund %+v, want %v", r.Refund, want)
	}
	if got := s.current(t, ada, sub.ID); got.Status != store.SubscriptionCancelled {
		t.Fatalf("status %s", got.Status)
	}
	again := s.act(t, b, s.current(t, ada, sub.ID), "cancel", url.Values{"when": {"now"}}, "HX-Request", "true")
	wantStatus(t, "cancel twice", again, http.StatusUnprocessableEntity)
	if m := s.mailsOf(t, store.MailReceiptRefund); len(m) != 1 {
		t.Errorf("%d refund mails", len(m))
	}
}

// Staff schedule a new monthly price at least 30 days ahead; a new
// subscriber is told it applies to them on its day.
func TestStaffSchedulePriceChange(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	staff := s.staff(t)
	prices := staff.get("/admin/subscriptions/prices")
	wantStatus(t, "price changes", prices, http.StatusOK)
	if prices.doc.Find(`[data-testid="price-change-row"][data-product="cf-gbg-dark"]`).Length() != 1 {
		t.Fatal("the demo's scheduled price change is not listed")
	}
	soon := store.FormatDate(s.env.Store.Today().AddDate(0, 0, 29))
	day := store.FormatDate(s.env.Store.Today().AddDate(0, 0, 40))
	for _, bad := range []struct{ product, price, date, field, msg string }{
		{"no-such-thing", "13.50", day, "product", "no product"},
		{"one-off-mug", "13.50", day, "product", "subscribed to"},
		{boxID, "abc", day, "price", "monthly price"},
		{boxID, "12.50", day, "price", "differs from the current"},
		{boxID, "13.50", "2027-02-30", "date", "YYYY-MM-DD"},
		{boxID, "13.50", soon, "date", "at least 30 days"},
	} {
		p := staff.post("/admin/subscriptions/prices", url.Values{"product": {bad.product}, "price": {bad.price}, "date": {bad.date}})
		wantStatus(t, "schedule "+bad.field+" "+bad.msg, p, http.StatusUnprocessableEntity)
		wantText(t, "schedule "+bad.msg, p.testid("error-"+bad.field), bad.msg)
	}
	if _, err := s.env.Store.ProductPriceChange(context.Background(), boxID); err == nil {
		t.Fatal("bad input scheduled a change")
	}
	wantStatus(t, "schedule", staff.post("/admin/subscriptions/prices", url.Values{"product": {boxID}, "price": {"13.50"}, "date": {day}}), http.StatusSeeOther)
	prices = staff.get("/admin/subscriptions/prices")
	wantText(t, "the flash", prices.testid("flash"), "€13.50 a month from "+day)
	wantText(t, "the change", prices.doc.Find(`[data-testid="price-change-row"][data-product="`+boxID+`"]`), "subscribers are mailed on")

	b, _ := s.newCustomer(t, "Bea Test")
	list := b.subscribe(boxID, "10", "1")
	wantText(t, "the flash", list.testid("flash"), "The monthly price becomes €13.50")
	wantText(t, "the card", list.testid("sub-new-price"), "€13.50 from the first payment on or after")
}
