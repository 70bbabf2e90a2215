package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/web/paths"
)

// discountCode makes a discount code in the shop's store.
func (s *shop) discountCode(t *testing.T, d store.DiscountCode) {
	t.Helper()
	if d.Kind == "" {
		d.Kind, d.Percent = store.DiscountPercent, 10
	}
	if d.ExpiresAt.IsZero() {
		d.ExpiresAt = s.env.Store.Now().AddDate(1, 0, 0)
	}
	if d.UsageLimit == 0 {
		d.UsageLimit = 5
	}
	if _, err := s.env.Store.CreateDiscountCode(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

func (s *shop) codeUsed(t *testing.T, code string) int {
	t.Helper()
	d, err := s.env.Store.DiscountCode(context.Background(), code)
	if err != nil {
		t.Fatal(err)
	}
	return d.Used
}

// A code typed on the subscribe form: the preview shows what it takes off
// today and the payments it covers after; the first payment is charged
// less; the subscription's card, the customer's receipt and staff's say so.
func TestSubscribeWithACodeShowsItFromQuoteToReceipt(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	s.discountCode(t, store.DiscountCode{Code: "BOX10", Payments: 2})
	b, ada := s.newCustomer(t, "Ada Test")
	payday := itoa(s.env.Store.Today().Day()) // a whole period today: €12.50

	preview := b.get(paths.SubscribePreviewOf(boxID)+"&day="+payday+"&period=1&code=box10", "HX-Request", "true")
	wantStatus(t, "preview with a code", preview, http.StatusOK)
	wantText(t, "preview today", preview.testid("preview-today"), "€11.25")
	wantText(t, "preview code", preview.testid("preview-code-today"), "Code BOX10 takes €1.25 off today.")
	wantText(t, "preview coupon", preview.testid("preview-coupon"), "Code BOX10: 10 % off, 1 more payment")
	wantText(t, "preview then", preview.testid("preview-then"), "Then €11.25 on")
	wantText(t, "then without the code", preview.testid("preview-then"), "code BOX10's last payment, and €12.50 every month after.")
	// The demo's dark roast goes from €11.90 to €12.90 a month: with the
	// demo's code for every payment, the payments at the new price are
	// €11.61, not €12.90.
	announced := b.get(paths.SubscribePreviewOf("cf-gbg-dark")+"&day="+payday+"&period=1&code="+demo.DiscountTenPercent, "HX-Request", "true")
	wantText(t, "announced price with a code", announced.testid("preview-new-price"), "so your payments on or after that day are €11.61")

	// Without JavaScript: "Show what I pay" brings the form back with it.
	form := b.subscribeForm(boxID, payday, "1")
	form.Set("code", " box10 ")
	form.Set("preview", "1")
	shown := b.post("/subscriptions", form)
	wantStatus(t, "plain preview", shown, http.StatusOK)
	wantText(t, "plain preview code", shown.testid("preview-code-today"), "€1.25")
	form.Del("preview")

	list := b.subscribePaying(form, payment.CardSucceeds)
	wantStatus(t, "subscriptions", list, http.StatusOK)
	if n, total := s.cardPayments(t); n != 1 || total != 1125 {
		t.Fatalf("test provider: %d payments of %d, want one of 1125", n, total)
	}
	wantText(t, "card's coupon", list.testid("sub-coupon"), "Code BOX10: 10 % off, 1 more payment")
	if n := s.codeUsed(t, "BOX10"); n != 1 {
		t.Fatalf("code used %d times, want 1", n)
	}
	rec := s.receiptOf(t, ada)
	mine := b.get(paths.Receipt(rec.Number))
	wantStatus(t, "receipt", mine, http.StatusOK)
	wantText(t, "receipt's code", mine.testid("receipt-discount"), "Code BOX10 −€1.25")
	wantText(t, "receipt amount", mine.testid("receipt-amount"), "€11.25")
	staff := s.staff(t).get(paths.AdminCustomerReceipt(ada, rec.Number))
	wantStatus(t, "staff's receipt", staff, http.StatusOK)
	wantText(t, "staff's receipt code", staff.testid("receipt-discount"), "Code BOX10 −€1.25")
	// The first receipt is mailed, written with it, and names the code in
	// its text and HTML parts.
	var mailed int
	for _, m := range s.mailsOf(t, store.MailReceipt) {
		if m.SubscriptionID != rec.SubscriptionID {
			continue
		}
		mailed++
		for part, body := range map[string]string{"text": strings.ReplaceAll(m.Text, "\n", " "), "html": m.HTML} {
			if !strings.Contains(body, "Code BOX10 took €1.25 off the price.") || !strings.Contains(body, rec.NumberInBooks()) {
				t.Errorf("the receipt mail's %s part does not name the code and the receipt %s:\n%s", part, rec.NumberInBooks(), body)
			}
		}
	}
	if mailed != 1 {
		t.Fatalf("%d receipt mails of the subscription, want 1", mailed)
	}
}

// A code that cannot be attached brings the form back with a message at
// the code (422, plain and htmx), and nothing is written or charged.
func TestSubscribeCodeBadInputIs422AndWritesNothing(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	s.discountCode(t, store.DiscountCode{Code: "GONE", ExpiresAt: s.env.Store.Now().Add(-time.Minute)})
	s.discountCode(t, store.DiscountCode{Code: "SPENT", UsageLimit: 1})
	s.discountCode(t, store.DiscountCode{Code: "DOLLARS", Kind: store.DiscountFixed, Amount: store.Money{Amount: 500, Currency: "USD"}})
	// SPENT's one use went to another subscribe.
	other, _ := s.newCustomer(t, "Bo Test")
	f := other.subscribeForm(boxID, "31", "1")
	f.Set("code", "SPENT")
	other.subscribePaying(f, payment.CardSucceeds)
	b, _ := s.newCustomer(t, "Ada Test")
	before := map[string]int{}
	entities := []string{"subscription", "receipt", "paidPeriod", "testPaySession", "idempotency"}
	for _, entity := range entities {
		before[entity] = s.env.CountEntities(t, entity)
	}
	for _, tc := range []struct{ name, code, message string }{
		{"unknown code", "NO-SUCH-CODE", "There is no discount code with that code."},
		{"used up", "SPENT", "This code has been used up."},
		{"expired", "gone", "This code has expired."},
		{"fixed code in another currency", "DOLLARS", "This code is for another currency."},
		{"not a code", "a!", "Codes are 4 to 32 letters, digits and dashes."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := b.subscribeForm(boxID, "31", "1")
			form.Set("code", tc.code)
			p := b.post("/subscriptions", form)
			wantMistakeRefused(t, p, formMistake{name: tc.name, field: "error-code"})
			wantText(t, tc.name, p.testid("error-code"), tc.message)
			if v, _ := p.testid("field-code").Attr("value"); v != tc.code {
				t.Fatalf("the code field came back with %q, want %q", v, tc.code)
			}
			h := b.post("/subscriptions", form, "HX-Request", "true")
			wantStatus(t, tc.name+" (htmx)", h, http.StatusUnprocessableEntity)
			if strings.Contains(h.body, "<html") || h.testid("error-code").Length() != 1 {
				t.Fatalf("htmx answer is not the subscribe section with the code's error:\n%s", trim(h.body))
			}
		})
	}
	for _, entity := range entities {
		if n := s.env.CountEntities(t, entity) - before[entity]; n != 0 {
			t.Fatalf("%d %s items written by refused subscribes", n, entity)
		}
	}
	if n := s.codeUsed(t, "SPENT") + s.codeUsed(t, "GONE") + s.codeUsed(t, "DOLLARS"); n != 1 {
		t.Fatalf("codes used %d times in all, want SPENT's one", n)
	}
}

// Staff say how many subscription payments a code covers: blank is every
// payment, a bad number is refused at its field.
func TestAdminDiscountCodeCoversSubscriptionPayments(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	wantStatus(t, "discounts", b.get("/admin/discounts"), http.StatusOK) // its form's token
	tomorrow := s.env.Store.Now().AddDate(0, 0, 1).Format("2006-01-02")
	form := url.Values{"code": {"FIRST3"}, "kind": {"percent"}, "value": {"20"}, "expires": {tomorrow}, "limit": {"10"}, "payments": {"3"}}
	wantStatus(t, "create", b.post("/admin/discounts", form), http.StatusSeeOther)
	form.Set("code", "EVERY")
	form.Del("payments")
	wantStatus(t, "create without payments", b.post("/admin/discounts", form), http.StatusSeeOther)
	for code, want := range map[string]int{"FIRST3": 3, "EVERY": 0} {
		d, err := s.env.Store.DiscountCode(context.Background(), code)
		if err != nil || d.Payments != want {
			t.Fatalf("%s covers %d payments (%v), want %d", code, d.Payments, err, want)
		}
	}
	list := b.get("/admin/discounts")
	wantText(t, "list", list.doc.Find(`[data-code="FIRST3"] [data-testid="discount-payments"]`), "3")
	wantText(t, "list", list.doc.Find(`[data-code="EVERY"] [data-testid="discount-payments"]`), "every")
	for _, bad := range []string{"-1", "121", "two"} {
		form.Set("code", "BAD-PAYMENTS")
		form.Set("payments", bad)
		p := b.post("/admin/discounts", form)
		wantMistakeRefused(t, p, formMistake{name: "payments " + bad, field: "error-payments"})
	}
	if _, err := s.env.Store.DiscountCode(context.Background(), "BAD-PAYMENTS"); err == nil {
		t.Fatal("a code with a bad number of payments was created")
	}
}
