package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// previewPath asks what a day and period come to for the coffee box.
func previewPath(day, period string) string {
	return paths.SubscribePreview + "?" + url.Values{"product_id": {boxID}, "day": {day}, "period": {period}}.Encode()
}

// The case as a customer meets it, ten days before the payment day:
// the form says before confirming what is charged today and for which
// dates, then what on which day (with htmx as the day or period changes,
// and without JavaScript by its button); subscribing charges exactly that,
// on a receipt that says the dates, and the next payment is the payment
// day's, of a whole period.
func TestSubscribeBetweenPaymentDaysChargesTheFirstDays(t *testing.T) {
	t.Parallel()
	s := newShop(t, withoutBackgroundReads)
	s.coffeeBox(t)
	today := s.env.Store.Today()
	first := today.AddDate(0, 0, 10)
	payday := itoa(first.Day())
	en := lang.With(context.Background(), lang.English)
	monthly := store.Money{Amount: boxPerMon, Currency: "EUR"}
	want := rules.FirstPeriod(today, first.Day(), 1, monthly)
	if !want.Next.Equal(first) || want.Full || want.Free || want.Days != 10 {
		t.Fatalf("the case is not ten charged days: %+v", want)
	}
	dates := lang.DateRange(en, today, first.AddDate(0, 0, -1))
	amount := lang.Money(en, want.Charge)
	wantToday := "Today: " + amount + " for " + dates + ", 10 of the period's " + itoa(want.Of) + " days."
	wantThen := "Then €12.50 on " + day(first) + " and every month after."
	b, ada := s.newCustomer(t, "Ada Test")

	// htmx asks for the preview alone as the day changes; the product and
	// its scheduled price come from the shop window's read of its page.
	wantStatus(t, "product page", b.get("/products/"+boxID), http.StatusOK)
	s.env.Counter.Reset()
	p := b.get(previewPath(payday, "1"), "HX-Request", "true")
	// The session's read, and the product's collection when the window's
	// second has passed: never more (no price change read, no list).
	if n := s.env.Counter.Total(); n > 2 || s.env.Counter.Ops()["GetItem"] > 1 {
		t.Errorf("a preview made %d DynamoDB requests %v, want the session's and at most the product's Query", n, s.env.Counter.Ops())
	}
	wantStatus(t, "preview", p, http.StatusOK)
	if strings.Contains(p.body, "<html") || p.testid("subscribe-preview").Length() != 1 {
		t.Fatalf("htmx did not get the preview alone:\n%s", trim(p.body))
	}
	wantText(t, "preview today", p.testid("preview-today"), wantToday)
	wantText(t, "preview then", p.testid("preview-then"), wantThen)
	if got := attr(p.testid("preview-today"), "data-charge"); got != itoa(int(want.Charge.Amount)) {
		t.Fatalf("preview charges %s, want %d", got, want.Charge.Amount)
	}
	// And as the period changes: each period's share of its own price.
	for _, months := range rules.Periods {
		q := rules.FirstPeriod(today, first.Day(), months, store.Money{Amount: boxPerMon * int64(months), Currency: "EUR"})
		p := b.get(previewPath(payday, itoa(months)), "HX-Request", "true")
		wantText(t, "preview today", p.testid("preview-today"), "Today: "+lang.Money(en, q.Charge)+" for "+dates)
		wantText(t, "preview then", p.testid("preview-then"), "Then "+lang.Money(en, store.Money{Amount: boxPerMon * int64(months), Currency: "EUR"})+" on "+day(first)+" and "+views.PeriodWord(en, months)+" after.")
	}

	// Without JavaScript: "Show what I pay" brings the form back with the
	// same figures; nothing is charged or written.
	form := b.subscribeForm(boxID, payday, "1")
	form.Set("preview", "1")
	p = b.post("/subscriptions", form)
	wantStatus(t, "preview without JavaScript", p, http.StatusOK)
	wantText(t, "preview today", p.testid("preview-today"), wantToday)
	wantText(t, "preview then", p.testid("preview-then"), wantThen)
	if p.testid("subscribe-form").Length() != 1 {
		t.Fatal("the preview page has no form")
	}
	if got := attr(p.testid("field-day"), "value"); got != payday {
		t.Fatalf("the day comes back as %q, want %s", got, payday)
	}
	if n, _ := s.cardPayments(t); n != 0 || s.madeHere(t, "testPaySession") != 0 || len(s.subscriptionsOf(t, ada)) != 0 {
		t.Fatalf("a preview charged %d, opened a payment page or subscribed", n)
	}
	// A plain GET of the preview is the form with it, on a page of its own.
	p = b.get(previewPath(payday, "1"))
	wantStatus(t, "preview page", p, http.StatusOK)
	wantText(t, "preview today", p.testid("preview-today"), wantToday)
	if attr(p.doc.Find(`[data-testid="subscribe-form"] input[name="key"]`), "value") == "" {
		t.Fatal("the preview page's form has no key")
	}

	// Subscribe: the share, as quoted, on a receipt of those days.
	form.Del("preview")
	list := b.subscribePaying(form, payment.CardSucceeds)
	flash := text(list.testid("flash"))
	number := regexp.MustCompile(`receipt (R\d{4}-\d{6})`).FindStringSubmatch(flash)
	if number == nil || !strings.Contains(flash, amount+" for "+dates) || !strings.Contains(flash, "€12.50, is paid on "+day(first)) {
		t.Fatalf("flash %q should say %s for %s and €12.50 on %s", flash, amount, dates, day(first))
	}
	if n, total := s.cardPayments(t); n != 1 || total != want.Charge.Amount {
		t.Fatalf("the provider took %d payments of %d, want one of %d", n, total, want.Charge.Amount)
	}
	subs := s.subscriptionsOf(t, ada)
	if len(subs) != 1 || !subs[0].NextPaymentDate.Equal(first) || subs[0].AmountFor(first) != monthly {
		t.Fatalf("subscriptions %+v, want the next payment of €12.50 on %s", subs, day(first))
	}
	wantText(t, "next payment", list.testid("sub-next-payment"), day(first))
	rp := b.get("/receipts/" + s.receiptOf(t, ada).Number)
	wantText(t, "receipt's number in the books", rp.testid("receipt-number"), number[1])
	wantStatus(t, "receipt", rp, http.StatusOK)
	wantText(t, "receipt amount", rp.testid("receipt-amount"), amount)
	wantText(t, "receipt dates", rp.testid("receipt-dates"), dates)
	wantText(t, "receipt kind", rp.testid("receipt-kind"), "First days, prorated")
	row := b.get("/receipts").testid("receipt-row")
	wantText(t, "receipt row", row, dates)
	wantText(t, "receipt row", row, amount)
}

// One day before the payment day, a month's share is below the smallest
// charge: the preview and the receipt say the day is free, nothing is
// charged, and a product that ships says its first delivery comes with the
// payment on the payment day.
func TestFirstDaysBelowTheSmallestChargeAreFreeAndSaySo(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	box := s.coffeeBox(t)
	if err := s.env.Store.PutStockLevel(context.Background(), store.StockLevel{ProductID: box.ID, ProductName: box.Name, WarehouseID: "gbg", WarehouseName: "Göteborg", Quantity: 5}); err != nil {
		t.Fatal(err)
	}
	today := s.env.Store.Today()
	tomorrow := today.AddDate(0, 0, 1)
	payday := itoa(tomorrow.Day())
	b, ada := s.newCustomer(t, "Ada Test")

	p := b.get("/products/" + boxID) // the form and its preview, then the day changed
	wantStatus(t, "product page", p, http.StatusOK)
	p = b.get(previewPath(payday, "1"), "HX-Request", "true")
	wantText(t, "preview today", p.testid("preview-today"), "Today: nothing to pay. "+day(today)+": free: below the smallest charge")
	wantText(t, "preview then", p.testid("preview-then"), "Then €12.50 on "+day(tomorrow))
	wantText(t, "preview ships", p.testid("preview-ships"), "Your first delivery ships with the payment on "+day(tomorrow))

	list := b.subscribe(boxID, payday, "1")
	wantText(t, "flash", list.testid("flash"), day(today)+": free: below the smallest charge")
	if n, _ := s.cardPayments(t); n != 0 {
		t.Fatalf("the provider took %d payments for free days", n)
	}
	subs := s.subscriptionsOf(t, ada)
	if len(subs) != 1 || !subs[0].NextPaymentDate.Equal(tomorrow) || len(subs[0].Orders) != 0 {
		t.Fatalf("subscription %+v, want the first payment tomorrow and no order yet", subs)
	}
	rp := b.get(attr(b.get("/receipts").testid("receipt-link"), "href"))
	wantText(t, "receipt amount", rp.testid("receipt-amount"), "€0.00")
	wantText(t, "receipt kind", rp.testid("receipt-kind"), "Free: below the smallest charge")
}

// The preview refuses what the form would: a day or period that is no such
// thing says so where the figures go; a visitor is sent to sign in; an
// unknown product is a 404.
func TestSubscribePreviewRefusals(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	b, _ := s.newCustomer(t, "Ada Test")
	for _, tc := range []struct{ day, period, says string }{
		{"32", "1", "1 to 31"},
		{"", "1", "day of the month"},
		{"5", "4", "how often to pay"},
	} {
		p := b.get(previewPath(tc.day, tc.period), "HX-Request", "true")
		wantStatus(t, "preview "+tc.day+"/"+tc.period, p, http.StatusOK)
		if p.testid("preview-today").Length() != 0 {
			t.Fatalf("day %q period %q: figures shown", tc.day, tc.period)
		}
		wantText(t, "preview refusal", p.testid("preview-none"), tc.says)
		wantStatus(t, "preview page "+tc.day+"/"+tc.period, b.get(previewPath(tc.day, tc.period)), http.StatusUnprocessableEntity)
	}
	visitor := s.browser(t)
	p := visitor.get(previewPath("1", "1"))
	wantStatus(t, "visitor", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); !strings.HasPrefix(loc, "/login?next=") {
		t.Fatalf("visitor sent to %q", loc)
	}
	wantStatus(t, "unknown product", b.get(paths.SubscribePreview+"?product_id=no-such&day=1&period=1"), http.StatusNotFound)
}
