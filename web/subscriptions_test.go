package web_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
	"shop/views"
	"shop/views/lang"
)

const (
	boxID     = "sub-coffee-box"
	boxName   = "Coffee Club Box"
	boxPerMon = 1250 // €12.50 a month
)

// coffeeBox makes a product staff marked subscribable (the demo shop may
// not have one), and one that is not.
func (s *shop) coffeeBox(t *testing.T) store.Product {
	t.Helper()
	ctx := context.Background()
	p, err := s.env.Store.CreateProduct(ctx, store.Product{
		ID: boxID, Name: boxName, Description: "Two bags of this month's roast.", Category: "coffee",
		Price: store.Money{Amount: 1490, Currency: "EUR"}, Subscribable: true, MonthlyPrice: store.Money{Amount: boxPerMon, Currency: "EUR"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CreateProduct(ctx, store.Product{
		ID: "one-off-mug", Name: "One-off Mug", Description: "Not by subscription.", Category: "coffee",
		Price: store.Money{Amount: 990, Currency: "EUR"},
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// newCustomer signs a new customer up (the demo's customers have
// subscriptions of their own) and returns their browser and id.
func (s *shop) newCustomer(t *testing.T, name string) (*browser, string) {
	t.Helper()
	email := strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@example.com"
	b := s.browser(t)
	b.get("/signup")
	p := b.post("/signup", url.Values{"email": {email}, "name": {name}, "password": {"a long enough password"}})
	wantStatus(t, "sign up "+name, p, http.StatusSeeOther)
	return b, s.customerID(t, email)
}

// subscribeForm opens a product page and fills its subscribe form with a
// new card (typed on the provider's page after: the form has no card).
func (b *browser) subscribeForm(productID, day, period string) url.Values {
	b.t.Helper()
	p := b.get("/products/" + productID)
	wantStatus(b.t, "product page", p, http.StatusOK)
	key, _ := p.doc.Find(`[data-testid="subscribe-form"] input[name="key"]`).Attr("value")
	if key == "" {
		b.t.Fatalf("the product page has no subscribe form with a key:\n%s", trim(p.testid("subscribe").Text()))
	}
	return url.Values{
		"key": {key}, "product_id": {productID}, "day": {day}, "period": {period}, "card": {"new"},
	}
}

// subscribe subscribes through the form with a new card that pays, typed
// on the test provider's page, delivers the provider's events and returns
// /subscriptions as the page sends the customer back to it, with its flash.
func (b *browser) subscribe(productID, day, period string) page {
	b.t.Helper()
	return b.subscribePaying(b.subscribeForm(productID, day, period), payment.CardSucceeds)
}

// subscribePaying posts a subscribe form with a new card and pays the
// provider's page it is sent to with card.
func (b *browser) subscribePaying(form url.Values, card string) page {
	b.t.Helper()
	if b.shop == nil {
		b.t.Fatal("subscribe: a browser of no shop (s.browser makes one)")
	}
	s := b.shop
	p := b.post("/subscriptions", form)
	wantStatus(b.t, "subscribe", p, http.StatusSeeOther)
	path := strings.TrimPrefix(p.header.Get("Location"), s.base)
	if !strings.HasPrefix(path, "/test-payments/checkout/") {
		b.t.Fatalf("subscribing with a new card went to %q, want the test payment page", path)
	}
	back := s.payOnPage(b.t, b, path, card)
	s.deliverEvents(b.t, nil)
	return b.get(back)
}

// text is the selection's text with its white space collapsed.
func text(sel *goquerySelection) string { return strings.Join(strings.Fields(sel.Text()), " ") }

func day(d time.Time) string { return d.Format("2 Jan 2006") }

// subscriptionsOf reads a customer's subscriptions from the store.
func (s *shop) subscriptionsOf(t *testing.T, customerID string) []store.Subscription {
	t.Helper()
	subs, err := s.env.Store.Subscriptions(context.Background(), customerID)
	if err != nil {
		t.Fatal(err)
	}
	return subs
}

func TestSubscribeFromTheProductPage(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	ctx := context.Background()
	today := s.env.Store.Today()

	// A visitor is asked to sign in; a product that is not subscribable has
	// no subscribe section.
	visitor := s.browser(t)
	p := visitor.get("/products/" + boxID)
	wantStatus(t, "product page", p, http.StatusOK)
	if href, _ := p.testid("subscribe-login").Attr("href"); href != "/login?next=%2Fproducts%2F"+boxID {
		t.Fatalf("sign-in link %q", href)
	}
	if p.testid("subscribe-form").Length() != 0 {
		t.Fatal("a visitor is shown the subscribe form")
	}
	wantText(t, "monthly price", p.testid("monthly-price"), "€12.50")
	if visitor.get("/products/one-off-mug").testid("subscribe").Length() != 0 {
		t.Fatal("a product that is not subscribable offers a subscription")
	}
	wantStatus(t, "visitor posts", visitor.post("/subscriptions", url.Values{"product_id": {boxID}}), http.StatusSeeOther)

	b, ada := s.newCustomer(t, "Ada Test")
	p = b.get("/products/" + boxID)
	if got, _ := p.testid("field-day").Attr("value"); got != itoa(today.Day()) {
		t.Fatalf("payment day defaults to %q, want today's %d", got, today.Day())
	}
	if _, ok := p.testid("period-1").Attr("checked"); !ok {
		t.Fatal("every month is not the default period")
	}
	for n, price := range map[int]string{1: "€12.50", 2: "€25.00", 3: "€37.50", 6: "€75.00"} {
		wantText(t, fmt.Sprintf("period %d", n), p.testid("period-"+itoa(n)).Parent(), price)
	}
	if p.testid("kept-card").Length() != 0 {
		t.Fatal("kept cards offered before any subscription")
	}

	// The preview says what the default day and period come to: today is
	// the payment day, so a whole period.
	wantText(t, "preview today", p.testid("preview-today"), "Today: €12.50 for "+lang.DateRange(lang.With(ctx, lang.English), today, rules.NextBillingDate(today, 1, today.Day()).AddDate(0, 0, -1)))
	wantText(t, "preview today", p.testid("preview-today"), "today is your payment day")
	wantText(t, "preview then", p.testid("preview-then"), "Then €12.50 on "+day(rules.NextBillingDate(today, 1, today.Day()))+" and every month after.")

	// Subscribe on today's day: one charge of a whole period on the test
	// payment page, a subscription and its first receipt.
	payday := today.Day()
	form := b.subscribeForm(boxID, itoa(payday), "1")
	s.env.Counter.Reset()
	done := b.post("/subscriptions", form)
	subscribeOps := s.env.Counter.Ops()
	wantStatus(t, "subscribe", done, http.StatusSeeOther)
	t.Logf("POST /subscriptions: %d DynamoDB requests %v", s.env.Counter.Total(), subscribeOps)
	back := s.payOnPage(t, b, s.local(t, done.header.Get("Location")), payment.CardSucceeds)
	s.deliverEvents(t, nil)
	list := b.get(back)
	wantStatus(t, "subscriptions", list, http.StatusOK)
	flash := text(list.testid("flash"))
	number := regexp.MustCompile(`receipt (R\d{4}-\d{6})`).FindStringSubmatch(flash)
	if number == nil || !strings.Contains(flash, boxName) || !strings.Contains(flash, "€12.50") {
		t.Fatalf("flash %q should name the product, the amount and the first receipt", flash)
	}
	subs := s.subscriptionsOf(t, ada)
	if len(subs) != 1 {
		t.Fatalf("%d subscriptions", len(subs))
	}
	sub := subs[0]
	next := rules.NextBillingDate(today, 1, payday)
	card := list.testid("subscription")
	if card.Length() != 1 {
		t.Fatalf("%d subscription cards", card.Length())
	}
	wantText(t, "product", card.Find(sel("sub-product")), boxName)
	wantText(t, "status", card.Find(sel("sub-status")), "Active")
	wantText(t, "amount", card.Find(sel("sub-amount")), "€12.50 every month")
	wantText(t, "card", card.Find(sel("sub-card")), "Visa •••• 4242")
	wantText(t, "day", card.Find(sel("sub-day")), "the "+views.Ordinal(payday))
	wantText(t, "next payment", card.Find(sel("sub-next-payment")), day(next))
	wantText(t, "reminder", card.Find(sel("sub-next-reminder")), day(sub.NextReminderDate))
	wantText(t, "last paid", card.Find(sel("sub-last-payment")), day(today))
	if v, _ := card.Find(`input[name="version"]`).First().Attr("value"); v != "1" {
		t.Fatalf("forms carry version %q, want 1", v)
	}
	if n, total := s.cardPayments(t); n != 1 || total != boxPerMon {
		t.Fatalf("test provider: %d payments of %d", n, total)
	}

	// The same form again: the same subscription, nothing more charged.
	again := b.post("/subscriptions", form)
	wantStatus(t, "double submit", again, http.StatusSeeOther)
	if flash := text(b.get("/subscriptions").testid("flash")); !strings.Contains(flash, "nothing more was charged") {
		t.Fatalf("flash after a double submit: %q", flash)
	}
	if n := len(s.subscriptionsOf(t, ada)); n != 1 {
		t.Fatalf("double submit made %d subscriptions", n)
	}
	if n, _ := s.cardPayments(t); n != 1 {
		t.Fatalf("double submit: %d payments", n)
	}

	// The receipt is on /receipts and has a page of its own.
	r := b.get("/receipts")
	wantStatus(t, "receipts", r, http.StatusOK)
	row := r.testid("receipt-row")
	if row.Length() != 1 {
		t.Fatalf("%d receipt rows", row.Length())
	}
	wantText(t, "receipt row", row, boxName)
	wantText(t, "receipt row", row, "€12.50")
	wantText(t, "receipt row", row, "Visa •••• 4242")
	wantText(t, "receipt row period", row, day(today)+" – "+day(next))
	href, _ := row.Find(sel("receipt-link")).Attr("href")
	if r := s.receiptOf(t, ada); href != "/receipts/"+r.Number || r.BookNumber != number[1] {
		t.Fatalf("receipt links to %q, want /receipts/%s, numbered %s in the books", href, r.Number, number[1])
	}
	rp := b.get(href)
	wantStatus(t, "receipt page", rp, http.StatusOK)
	wantText(t, "receipt number", rp.testid("receipt-number"), number[1])
	wantText(t, "receipt amount", rp.testid("receipt-amount"), "€12.50")
	if n := strings.TrimSpace(rp.testid("receipt-number").Text()); !regexp.MustCompile(`^R\d{4}-\d{6}$`).MatchString(n) {
		t.Fatalf("receipt's number in the books %q, want like R2026-000045", n)
	}
	if rp.testid("vat-row").Length() != 1 {
		t.Fatalf("%d VAT rows on the receipt, want 1", rp.testid("vat-row").Length())
	}
	wantText(t, "receipt VAT gross", rp.testid("vat-gross"), "€12.50")
	wantText(t, "receipt card", rp.testid("receipt-card"), "Visa •••• 4242")
	wantText(t, "receipt period", rp.testid("receipt-period"), day(today)+" – "+day(next))
	// The seller heads the receipt, on screen and printed (its legal
	// name, address and VAT number).
	wantText(t, "the seller", rp.testid("seller-name"), "Fika & Field")
	wantText(t, "the seller's VAT number", rp.testid("seller-vat"), "SE556677889901")
	if strings.Contains(rp.body, payment.CardSucceeds) || strings.Contains(list.body, payment.CardSucceeds) {
		t.Fatal("the card number is on a page")
	}

	// The card is kept: the next subscription can use it.
	p = b.get("/products/" + boxID)
	if tok, _ := p.testid("kept-card").Attr("value"); p.testid("kept-card").Length() != 1 || tok != sub.Card.Token {
		t.Fatalf("kept cards offered: %d", p.testid("kept-card").Length())
	}
	wantText(t, "kept card", p.testid("kept-card").Parent(), "Visa •••• 4242")
	key, _ := p.doc.Find(`[data-testid="subscribe-form"] input[name="key"]`).Attr("value")
	kept := b.post("/subscriptions", url.Values{"key": {key}, "product_id": {boxID}, "day": {itoa(payday)}, "period": {"3"}, "card": {sub.Card.Token}}, "HX-Request", "true")
	if kept.status != http.StatusNoContent || kept.header.Get("HX-Redirect") != "/subscriptions" {
		t.Fatalf("htmx subscribe with a kept card: %d, HX-Redirect %q\n%s", kept.status, kept.header.Get("HX-Redirect"), trim(kept.body))
	}
	subs = s.subscriptionsOf(t, ada)
	if len(subs) != 2 || subs[0].Card.Token != sub.Card.Token || subs[0].PeriodMonths != 3 || subs[0].Amount().Amount != 3*boxPerMon {
		t.Fatalf("subscriptions after the second: %+v", subs)
	}
	if n, total := s.cardPayments(t); n != 2 || total != 4*boxPerMon {
		t.Fatalf("test provider: %d payments of %d", n, total)
	}
	if n := b.get("/subscriptions").testid("subscription").Length(); n != 2 {
		t.Fatalf("%d cards", n)
	}
	_ = ctx
}

// Two submissions of one form at once: one page, one subscription, one
// charge.
func TestSubscribeTwiceAtOnceChargesOnce(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	b, ada := s.newCustomer(t, "Ada Test")
	receiptsBefore := s.env.CountEntities(t, "receipt")                  // the demo's customers have some
	form := b.subscribeForm(boxID, itoa(s.env.Store.Today().Day()), "2") // a whole period
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	pages := make([]string, 2)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := url.Values{}
			for k, v := range form {
				f[k] = v
			}
			p := b.post("/subscriptions", f)
			statuses[i], pages[i] = p.status, p.header.Get("Location")
		}()
	}
	wg.Wait()
	for _, st := range statuses {
		if st != http.StatusSeeOther {
			t.Fatalf("statuses %v", statuses)
		}
	}
	if pages[0] != pages[1] {
		t.Fatalf("two pages for one form: %v", pages)
	}
	s.payOnPage(t, b, s.local(t, pages[0]), payment.CardSucceeds)
	s.deliverEvents(t, nil)
	if n := len(s.subscriptionsOf(t, ada)); n != 1 {
		t.Fatalf("%d subscriptions", n)
	}
	if n, total := s.cardPayments(t); n != 1 || total != 2*boxPerMon {
		t.Fatalf("the test provider took %d payments of %d", n, total)
	}
	if n := s.env.CountEntities(t, "receipt") - receiptsBefore; n != 1 {
		t.Fatalf("%d receipts written", n)
	}
}

func TestSubscribeBadInputIs422AndWritesNothing(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	b, _ := s.newCustomer(t, "Ada Test")
	before := map[string]int{}
	for _, entity := range []string{"subscription", "receipt", "paidPeriod", "testPaySession"} {
		before[entity] = s.env.CountEntities(t, entity) // the demo's customers have some
	}

	// A card's mistakes are the provider's page's to point out
	// (TestTestPaymentPageTakesTheTestCard): the form has no card.
	for _, tc := range []formMistake{
		{"payment day 0", func(f url.Values) { f.Set("day", "0") }, "error-day"},
		{"payment day 32", func(f url.Values) { f.Set("day", "32") }, "error-day"},
		{"payment day text", func(f url.Values) { f.Set("day", "first") }, "error-day"},
		{"no payment day", func(f url.Values) { f.Del("day") }, "error-day"},
		{"period 4", func(f url.Values) { f.Set("period", "4") }, "error-period"},
		{"period 12", func(f url.Values) { f.Set("period", "12") }, "error-period"},
		{"no period", func(f url.Values) { f.Del("period") }, "error-period"},
		{"someone else's card token", func(f url.Values) { f.Set("card", "tok_0123456789abcdef01234567") }, "error-card"},
		{"not subscribable", func(f url.Values) { f.Set("product_id", "one-off-mug") }, "form-error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := b.subscribeForm(boxID, "31", "1")
			tc.edit(form)
			wantMistakeRefused(t, b.post("/subscriptions", form), tc)
			// With htmx, the form alone comes back in place.
			p := b.post("/subscriptions", form, "HX-Request", "true")
			wantStatus(t, tc.name+" (htmx)", p, http.StatusUnprocessableEntity)
			if strings.Contains(p.body, "<html") || p.testid(tc.field).Length() != 1 || p.testid("subscribe").Length() != 1 {
				t.Fatalf("htmx answer is not the subscribe section with the error:\n%s", trim(p.body))
			}
		})
	}
	t.Run("unknown product", func(t *testing.T) {
		form := b.subscribeForm(boxID, "31", "1")
		form.Set("product_id", "no-such-product")
		wantStatus(t, "unknown product", b.post("/subscriptions", form), http.StatusNotFound)
	})
	t.Run("broken key", func(t *testing.T) {
		form := b.subscribeForm(boxID, "31", "1")
		form.Set("key", "not a key!")
		wantStatus(t, "broken key", b.post("/subscriptions", form), http.StatusBadRequest)
	})
	for _, entity := range []string{"subscription", "receipt", "paidPeriod", "testPaySession"} {
		if n := s.env.CountEntities(t, entity) - before[entity]; n != 0 {
			t.Fatalf("%d %s items written by refused subscribes", n, entity)
		}
	}
	if n := b.get("/subscriptions").testid("subscription").Length(); n != 0 {
		t.Fatalf("%d subscriptions listed", n)
	}
}

// subCard is one subscription's card on a page (the whole page or the
// card htmx got back).
func subCard(p page, id string) *goquerySelection {
	return p.doc.Find(`[data-testid="subscription"][data-id="` + id + `"]`)
}

// act posts one action of a subscription with the version it has now.
func (s *shop) act(t *testing.T, b *browser, sub store.Subscription, action string, fields url.Values, headers ...string) page {
	t.Helper()
	form := url.Values{}
	for k, v := range fields {
		form[k] = v
	}
	if form.Get("version") == "" {
		form.Set("version", itoa(sub.Version))
	}
	return b.post("/subscriptions/"+sub.ID+"/"+action, form, headers...)
}

func (s *shop) current(t *testing.T, customerID, id string) store.Subscription {
	t.Helper()
	sub, err := s.env.Store.Subscription(context.Background(), customerID, id)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// subscribedShop is a shop with the coffee box and Ada, a new customer,
// subscribed to it every month on day ("" for today's, a whole period
// paid at once): her browser, id and subscription.
func subscribedShop(t *testing.T, day string, opts ...appOption) (*shop, *browser, string, store.Subscription) {
	t.Helper()
	s := newShop(t, opts...)
	s.coffeeBox(t)
	b, ada := s.newCustomer(t, "Ada Test")
	if day == "" {
		day = itoa(s.env.Store.Today().Day())
	}
	b.subscribe(boxID, day, "1")
	return s, b, ada, s.subscriptionsOf(t, ada)[0]
}

func TestSubscriptionActions(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "31")
	today := s.env.Store.Today()
	firstNext := sub.NextPaymentDate
	htmx := []string{"HX-Request", "true"}
	// inCard acts with htmx: the answer has the status and the card's
	// testid says want.
	inCard := func(step, action string, fields url.Values, status int, testid, want string) {
		t.Helper()
		p := s.act(t, b, sub, action, fields, htmx...)
		wantStatus(t, step, p, status)
		wantText(t, step, subCard(p, sub.ID).Find(sel(testid)), want)
	}

	// Change the day with htmx: the card comes back with what it did.
	p := s.act(t, b, sub, "day", url.Values{"day": {"15"}}, htmx...)
	wantStatus(t, "change day", p, http.StatusOK)
	card := subCard(p, sub.ID)
	if card.Length() != 1 || strings.Contains(p.body, "<html") {
		t.Fatalf("htmx did not get the card alone:\n%s", trim(p.body))
	}
	wantText(t, "day changed", card.Find(sel("sub-day")), "the 15th")
	wantText(t, "notice", card.Find(sel("sub-notice")), "15th")
	wantText(t, "then", card.Find(sel("sub-then")), day(rules.NextBillingDate(firstNext, 1, 15)))
	wantText(t, "next payment kept", card.Find(sel("sub-next-payment")), day(firstNext))
	if v, _ := card.Find(`input[name="version"]`).First().Attr("value"); v != "2" {
		t.Fatalf("the card's forms carry version %q, want 2", v)
	}
	sub = s.current(t, ada, sub.ID)
	if sub.PaymentDay != 15 || sub.Version != 2 {
		t.Fatalf("after the day change: day %d, version %d", sub.PaymentDay, sub.Version)
	}

	// The period, without JavaScript: back to the list with a flash.
	p = s.act(t, b, sub, "period", url.Values{"period": {"3"}})
	wantStatus(t, "change period", p, http.StatusSeeOther)
	if p.header.Get("Location") != "/subscriptions" {
		t.Fatalf("plain form sent to %q", p.header.Get("Location"))
	}
	list := b.get("/subscriptions")
	wantText(t, "flash", list.testid("flash"), "€37.50 every 3 months")
	wantText(t, "period", subCard(list, sub.ID).Find(sel("sub-amount")), "€37.50 every 3 months")
	sub = s.current(t, ada, sub.ID)

	// The card of another subscription (kept), then a new one.
	b.subscribePaying(b.subscribeForm(boxID, "2", "1"), payment.CardSucceedsMC)
	var mastercard store.Card
	for _, other := range s.subscriptionsOf(t, ada) {
		if other.ID != sub.ID {
			mastercard = other.Card
		}
	}
	visa := sub.Card
	list = b.get("/subscriptions")
	if tok, _ := subCard(list, sub.ID).Find(sel("sub-kept-card")).Attr("value"); tok != mastercard.Token {
		t.Fatalf("change card offers %q, want the other subscription's Mastercard", tok)
	}
	p = s.act(t, b, sub, "card", url.Values{"card": {mastercard.Token}})
	wantStatus(t, "kept card", p, http.StatusSeeOther)
	wantText(t, "kept card flash", b.get("/subscriptions").testid("flash"), "Mastercard •••• 4444")
	sub = s.current(t, ada, sub.ID)
	if sub.Card.Token != mastercard.Token {
		t.Fatalf("card is %s, want the kept Mastercard", sub.Card.Label())
	}
	// A new card is saved on the provider's page, and replaces the card
	// once its event came.
	p = s.act(t, b, sub, "card", url.Values{"card": {"new"}})
	wantStatus(t, "new card", p, http.StatusSeeOther)
	s.payOnPage(t, b, s.local(t, p.header.Get("Location")), payment.CardSucceeds)
	s.deliverEvents(t, nil)
	wantText(t, "new card", subCard(b.get("/subscriptions"), sub.ID).Find(sel("sub-card")), "Visa •••• 4242")
	sub = s.current(t, ada, sub.ID)
	if sub.Card.Token == visa.Token || sub.Card.Token == mastercard.Token {
		t.Fatal("the new card is not a new token")
	}

	// Skip the next payment: it moves one period on.
	inCard("skip", "skip", nil, http.StatusOK, "sub-next-payment", day(rules.NextBillingDate(firstNext, 3, 15)))
	sub = s.current(t, ada, sub.ID)

	// Pause; skipping a paused subscription is refused in its card; resume.
	inCard("pause", "pause", nil, http.StatusOK, "sub-status", "Paused")
	sub = s.current(t, ada, sub.ID)
	inCard("skip while paused", "skip", nil, http.StatusUnprocessableEntity, "sub-error", "paused")
	p = s.act(t, b, sub, "skip", nil) // the same without JavaScript: the list, with the message in that card
	wantStatus(t, "skip while paused (plain)", p, http.StatusUnprocessableEntity)
	wantText(t, "refusal", subCard(p, sub.ID).Find(sel("sub-error")), "paused")
	if v := s.current(t, ada, sub.ID).Version; v != sub.Version {
		t.Fatal("a refused change was written")
	}
	p = s.act(t, b, sub, "resume", nil)
	wantStatus(t, "resume", p, http.StatusSeeOther)
	list = b.get("/subscriptions")
	wantText(t, "resumed", subCard(list, sub.ID).Find(sel("sub-status")), "Active")
	wantText(t, "resumed flash", list.testid("flash"), "Resumed")
	sub = s.current(t, ada, sub.ID)
	inCard("resume an active one", "resume", nil, http.StatusUnprocessableEntity, "sub-error", "not paused")

	// Cancel at the end of the period, keep it after all, cancel now.
	inCard("cancel at period end", "cancel", url.Values{"when": {"period_end"}}, http.StatusOK, "sub-status", "Ending on "+day(sub.NextPaymentDate))
	sub = s.current(t, ada, sub.ID)
	wantStatus(t, "skip an ending one", s.act(t, b, sub, "skip", nil, htmx...), http.StatusUnprocessableEntity)
	inCard("keep", "keep", nil, http.StatusOK, "sub-status", "Active")
	sub = s.current(t, ada, sub.ID)
	wantStatus(t, "keep one not ending", s.act(t, b, sub, "keep", nil, htmx...), http.StatusUnprocessableEntity)
	p = s.act(t, b, sub, "cancel", url.Values{"when": {"now"}})
	wantStatus(t, "cancel now", p, http.StatusSeeOther)
	list = b.get("/subscriptions")
	card = subCard(list, sub.ID)
	wantText(t, "cancelled", card.Find(sel("sub-status")), "Cancelled")
	wantText(t, "cancelled on", card.Find(sel("sub-cancelled-on")), day(today))
	if href, _ := card.Find(sel("subscribe-again")).Attr("href"); href != "/products/"+boxID {
		t.Fatalf("subscribe again links to %q", href)
	}
	if card.Find("form").Length() != 0 {
		t.Fatal("a cancelled subscription still offers actions")
	}
	sub = s.current(t, ada, sub.ID)
	for _, action := range []string{"day", "period", "skip", "pause", "resume", "cancel", "card"} {
		form := url.Values{"day": {"3"}, "period": {"6"}, "when": {"now"}, "card": {visa.Token}}
		if action == "card" {
			form.Set("card", "new") // and no provider's page opened for it
		}
		inCard(action+" on a cancelled one", action, form, http.StatusUnprocessableEntity, "sub-error", "cancelled")
	}
	if v := s.current(t, ada, sub.ID).Version; v != sub.Version {
		t.Fatal("a change to a cancelled subscription was written")
	}
}

func TestSubscriptionActionBadInput(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "10")
	htmx := []string{"HX-Request", "true"}

	for _, tc := range []struct {
		name, action string
		form         url.Values
		field        string // "" for a message about the whole card
	}{
		{"day 0", "day", url.Values{"day": {"0"}}, "day"},
		{"day 32", "day", url.Values{"day": {"32"}}, "day"},
		{"day text", "day", url.Values{"day": {"tenth"}}, "day"},
		{"the same day", "day", url.Values{"day": {"10"}}, ""},
		{"period 5", "period", url.Values{"period": {"5"}}, "period"},
		{"the same period", "period", url.Values{"period": {"1"}}, ""},
		{"unknown kept card", "card", url.Values{"card": {"tok_nope"}}, "card"},
		{"the same card", "card", url.Values{"card": {sub.Card.Token}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, headers := range [][]string{htmx, nil} {
				form := url.Values{}
				for k, v := range tc.form {
					form[k] = v
				}
				p := s.act(t, b, sub, tc.action, form, headers...)
				wantStatus(t, tc.name, p, http.StatusUnprocessableEntity)
				card := subCard(p, sub.ID)
				testid := "sub-error"
				if tc.field != "" {
					testid = "sub-error-" + tc.field
				}
				if msg := card.Find(sel(testid)).Text(); msg == "" {
					t.Fatalf("no message at %s in the card:\n%s", testid, trim(text(card)))
				}
				if _, open := card.Find(sel("sub-change-" + tc.action)).Attr("open"); !open && tc.field != "" {
					t.Fatal("the form with the error is not open")
				}
			}
		})
	}
	for _, tc := range []struct {
		name, action string
		form         url.Values
	}{
		{"cancel when later", "cancel", url.Values{"when": {"later"}}},
		{"no version", "pause", url.Values{"version": {"none"}}},
		{"version 0", "pause", url.Values{"version": {"0"}}},
	} {
		wantStatus(t, tc.name, s.act(t, b, sub, tc.action, tc.form), http.StatusBadRequest)
	}
	if now := s.current(t, ada, sub.ID); now.Version != sub.Version {
		t.Fatalf("bad input wrote: version %d", now.Version)
	}
}

// A page showing an older version: 409, the card as it is now, nothing
// written. Another customer's subscription is a 404, like an unknown one.
func TestSubscriptionStaleAndForeign(t *testing.T) {
	t.Parallel()
	s, b, ada, old := subscribedShop(t, "10")

	// Another tab pauses it.
	other := s.browser(t)
	other.signIn("ada.test@example.com", "a long enough password")
	other.get("/subscriptions")
	wantStatus(t, "pause in another tab", s.act(t, other, old, "pause", nil), http.StatusSeeOther)
	paused := s.current(t, ada, old.ID)

	for _, tc := range []struct {
		action string
		form   url.Values
	}{
		{"day", url.Values{"day": {"20"}}}, {"period", url.Values{"period": {"2"}}}, {"skip", nil},
		{"cancel", url.Values{"when": {"period_end"}}}, {"resume", nil}, {"day", url.Values{"day": {"99"}}},
	} {
		for _, headers := range [][]string{{"HX-Request", "true"}, nil} {
			p := s.act(t, b, old, tc.action, tc.form, headers...)
			wantStatus(t, "stale "+tc.action, p, http.StatusConflict)
			card := subCard(p, old.ID)
			wantText(t, "stale message", card.Find(sel("sub-error")), "This subscription changed in another tab or by the shop; here it is now. Nothing was changed.")
			wantText(t, "the card as it is now", card.Find(sel("sub-status")), "Paused")
			if v, _ := card.Find(`input[name="version"]`).First().Attr("value"); v != itoa(paused.Version) {
				t.Fatalf("the re-rendered card carries version %q, want %d", v, paused.Version)
			}
		}
	}
	if now := s.current(t, ada, old.ID); now.Version != paused.Version || now.Status != store.SubscriptionPaused {
		t.Fatalf("a stale change was written: version %d, %s", now.Version, now.Status)
	}

	// Another customer, and ids that do not exist.
	henrik, _ := s.newCustomer(t, "Henrik Test")
	henrik.get("/subscriptions")
	for _, action := range []string{"day", "period", "card", "skip", "pause", "resume", "cancel", "keep"} {
		form := url.Values{"day": {"3"}, "period": {"2"}, "when": {"now"}, "card": {paused.Card.Token}}
		for _, headers := range [][]string{{"HX-Request", "true"}, nil} {
			wantStatus(t, "someone else's "+action, s.act(t, henrik, paused, action, form, headers...), http.StatusNotFound)
		}
		unknown := paused
		unknown.ID = store.NewID()
		wantStatus(t, "unknown "+action, s.act(t, b, unknown, action, form), http.StatusNotFound)
	}
	wantStatus(t, "malformed id", b.post("/subscriptions/no!such/pause", url.Values{"version": {"1"}}), http.StatusNotFound)
	if now := s.current(t, ada, old.ID); now.Version != paused.Version {
		t.Fatal("another customer changed it")
	}
	if n := henrik.get("/subscriptions").testid("subscription").Length(); n != 0 {
		t.Fatalf("another customer sees %d subscriptions", n)
	}
	visitor := s.browser(t)
	visitor.get("/products/" + boxID)
	p := s.act(t, visitor, paused, "resume", nil)
	wantStatus(t, "visitor", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); !strings.HasPrefix(loc, "/login") {
		t.Fatalf("visitor sent to %q", loc)
	}
	if loc := visitor.get("/subscriptions").header.Get("Location"); loc != "/login?next=%2Fsubscriptions" {
		t.Fatalf("visitor at /subscriptions sent to %q", loc)
	}
}

// The receipts page lists subscription receipts and shop invoices of the
// last six months together, newest first, a page at a time.
func TestReceiptsListsReceiptsAndInvoicesTogether(t *testing.T) {
	t.Parallel()
	s := newShop(t, withoutBackgroundReads) // it counts the page's requests
	box := s.coffeeBox(t)
	ctx := context.Background()
	b, ada := s.newCustomer(t, "Ada Test")
	now := time.Now().UTC().Truncate(time.Millisecond)

	// 12 orders and 13 receipts, interleaved over five months, and one of
	// each from seven months ago that must not show.
	m := newOrderMaker(t, s.env.Store)
	sub := store.Subscription{ID: store.NewID(), AccountID: ada, ProductID: box.ID, ProductName: box.Name, Email: "ada.test@example.com",
		MonthlyPrice: box.MonthlyPrice, PeriodMonths: 1, PaymentDay: 5, Card: store.Card{Token: "tok_x", Brand: "Visa", Last4: "4242"}}
	type want struct {
		kind string
		at   time.Time
		href string
	}
	var wants []want
	for i := range 25 {
		at := now.Add(-time.Duration(i)*6*24*time.Hour - time.Hour)
		if i%2 == 0 {
			start := rules.DateOf(at, time.UTC)
			r := store.NewReceipt(sub, store.GatewayCharge{ID: fmt.Sprintf("ch_%02d", i), Amount: box.MonthlyPrice, At: at}, start, start.AddDate(0, 1, 0))
			if err := s.env.Store.PutReceipt(ctx, r); err != nil {
				t.Fatal(err)
			}
			wants = append(wants, want{"receipt", at, "/receipts/" + r.Number})
		} else {
			o := m.place(s.storeAt(at), ada, line("kt-mug", 1))
			wants = append(wants, want{"invoice", at, "/orders/" + o.ID})
		}
	}
	old := now.AddDate(0, -7, 0)
	if err := s.env.Store.PutReceipt(ctx, store.NewReceipt(sub, store.GatewayCharge{ID: "ch_old", Amount: box.MonthlyPrice, At: old}, rules.DateOf(old, time.UTC), rules.DateOf(old, time.UTC).AddDate(0, 1, 0))); err != nil {
		t.Fatal(err)
	}
	m.place(s.storeAt(old), ada, line("kt-mug", 1))
	// Someone else's payments are not on it.
	hb, henrik := s.newCustomer(t, "Henrik Test")
	m.place(s.storeAt(now.Add(-time.Minute)), henrik, line("kt-mug", 1))

	b.get("/orders") // shows the sign-up's welcome, which costs a session write
	s.env.Counter.Reset()
	first := b.get("/receipts")
	t.Logf("GET /receipts: %d DynamoDB requests %v", s.env.Counter.Total(), s.env.Counter.Ops())
	if n := s.env.Counter.Total(); n > 3 {
		t.Errorf("GET /receipts costs %d DynamoDB requests %v, want at most 3 (session, receipts, invoices)", n, s.env.Counter.Ops())
	}
	wantStatus(t, "receipts", first, http.StatusOK)
	rows := first.testid("receipt-row")
	if rows.Length() != 20 {
		t.Fatalf("first page has %d rows, want 20", rows.Length())
	}
	more, _ := first.testid("receipts-more").Attr("href")
	if more == "" {
		t.Fatal("no link to the older payments")
	}
	second := b.get(more, "HX-Request", "true")
	wantStatus(t, "second page", second, http.StatusOK)
	if strings.Contains(second.body, "<html") {
		t.Fatal("htmx got a whole page for the next rows")
	}
	if second.testid("receipts-more").Length() != 0 {
		t.Fatal("the last page links to more")
	}
	var got []want
	for _, p := range []page{first, second} {
		p.testid("receipt-row").Each(func(_ int, row *goquerySelection) {
			kind, _ := row.Attr("data-kind")
			href, _ := row.Find("a").First().Attr("href")
			got = append(got, want{kind: kind, href: href})
		})
	}
	if len(got) != len(wants) {
		t.Fatalf("%d lines over two pages, want %d", len(got), len(wants))
	}
	for i := range wants {
		if got[i].kind != wants[i].kind || got[i].href != wants[i].href {
			t.Fatalf("line %d is %s %s, want %s %s (newest first, both kinds merged)", i, got[i].kind, got[i].href, wants[i].kind, wants[i].href)
		}
	}
	wantText(t, "invoice row", first.doc.Find(`[data-kind="invoice"]`).First(), "Visa •••• 4242")
	wantText(t, "invoice row", first.doc.Find(`[data-kind="invoice"]`).First(), "Shop order")

	// The cursor belongs to this customer's statement.
	after := strings.TrimPrefix(more, "/receipts?after=")
	wantStatus(t, "someone else's cursor", hb.get(more), http.StatusBadRequest)
	raw, _ := base64.RawURLEncoding.DecodeString(after)
	tampered := regexp.MustCompile(`"SK":"REC#[^"]*"`).ReplaceAllString(string(raw), `"SK":"SUB#zzz"`)
	if tampered == string(raw) {
		t.Fatalf("cursor %s has no receipt position to tamper with", raw)
	}
	for _, bad := range []string{"garbage!", "eyJxIjoieCJ9", after[:len(after)-4], base64.RawURLEncoding.EncodeToString([]byte(tampered))} {
		wantStatus(t, "cursor "+bad, b.get("/receipts?after="+url.QueryEscape(bad)), http.StatusBadRequest)
	}
	if n := hb.get("/receipts").testid("receipt-row").Length(); n != 1 {
		t.Fatalf("henrik sees %d lines, want his one order", n)
	}

	// A receipt's page is its customer's only.
	number := strings.TrimPrefix(wants[0].href, "/receipts/")
	wantStatus(t, "own receipt", b.get("/receipts/"+number), http.StatusOK)
	wantStatus(t, "someone else's receipt", hb.get("/receipts/"+number), http.StatusNotFound)
	wantStatus(t, "unknown receipt", b.get("/receipts/R0000000000zz"), http.StatusNotFound)
	wantStatus(t, "malformed receipt", b.get("/receipts/nope!"), http.StatusNotFound)
	oldNumber := store.ReceiptNumber(old, box.ID)
	wantStatus(t, "expired receipt", b.get("/receipts/"+oldNumber), http.StatusNotFound)
	visitor := s.browser(t)
	wantStatus(t, "visitor", visitor.get("/receipts/"+number), http.StatusSeeOther)
}

// What the customer pages cost in DynamoDB requests, without the app's
// own timers' reads (a drop gate refresh counted one more in a run).
func TestSubscriptionPagesRequestCounts(t *testing.T) {
	t.Parallel()
	s, b, _, _ := subscribedShop(t, "10", withoutBackgroundReads)
	b.get("/subscriptions") // the flash is gone
	// The swap form's products come from the shop window's copy of the
	// catalogue: one Query a minute per replica, warm here as on a busy shop.
	b.get("/subscriptions")

	s.env.Counter.Reset()
	wantStatus(t, "subscriptions", b.get("/subscriptions"), http.StatusOK)
	t.Logf("GET /subscriptions: %d DynamoDB requests %v", s.env.Counter.Total(), s.env.Counter.Ops())
	if n := s.env.Counter.Total(); n != 2 {
		t.Errorf("GET /subscriptions: %d requests %v, want 2 (session, subscriptions)", n, s.env.Counter.Ops())
	}
	s.env.Counter.Reset()
	wantStatus(t, "receipts", b.get("/receipts"), http.StatusOK)
	t.Logf("GET /receipts: %d DynamoDB requests %v", s.env.Counter.Total(), s.env.Counter.Ops())
	if n := s.env.Counter.Total(); n != 3 {
		t.Errorf("GET /receipts: %d requests %v, want 3 (session, receipts, invoices)", n, s.env.Counter.Ops())
	}
}
