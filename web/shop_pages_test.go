package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/rules"
)

func (b *browser) addToCart(product string, qty string, headers ...string) page {
	b.t.Helper()
	b.get("/products/" + product)
	return b.post("/cart/items", url.Values{"product_id": {product}, "quantity": {qty}}, headers...)
}

// checkoutForm is a filled checkout form for the key and the total (in
// cents) the page showed. The card is typed on the provider's page after
// (shop.pay).
func checkoutForm(key, total string) url.Values {
	return url.Values{
		"key": {key}, "total": {total}, "name": {"Ada Lindqvist"}, "street": {"Storgatan"}, "number": {"1"}, "zip": {"41101"},
		"city": {"Göteborg"}, "country": {"Sweden"},
	}
}

// checkoutPage opens checkout and returns its form's key and total.
func (b *browser) checkoutPage() (key, total string) {
	b.t.Helper()
	p := b.get("/checkout")
	wantStatus(b.t, "checkout page", p, http.StatusOK)
	key, _ = p.doc.Find(`input[name="key"]`).Attr("value")
	total, _ = p.testid("expected-total").Attr("value")
	if key == "" {
		b.t.Fatal("checkout form has no key")
	}
	return key, total
}

// freshCheckoutForm opens checkout and fills its form.
func (b *browser) freshCheckoutForm() url.Values {
	b.t.Helper()
	return checkoutForm(b.checkoutPage())
}

func TestVisitorCartFollowsToTheAccount(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)

	p := b.addToCart("cf-grinder", "2", "HX-Request", "true")
	wantStatus(t, "add with htmx", p, http.StatusOK)
	if !strings.Contains(p.testid("added").Text(), "2 × Hand Grinder") || strings.Contains(p.body, "<html") {
		t.Fatalf("htmx add answered %s", trim(p.body))
	}
	p = b.addToCart("bk-fjord", "1")
	wantStatus(t, "plain add", p, http.StatusSeeOther)
	cart := b.get("/cart")
	if n := cart.testid("cart-line").Length(); n != 2 {
		t.Fatalf("visitor cart has %d lines", n)
	}
	if got := cart.testid("cart-total").Text(); !strings.Contains(got, "€129.70") {
		t.Fatalf("cart total %q, want €129.70 (2×54.90 + 19.90)", got)
	}

	for _, bad := range []string{"0", "-1", "abc", "100", "2.5", ""} {
		p := b.addToCart("cf-grinder", bad, "HX-Request", "true")
		wantStatus(t, "add quantity "+bad, p, http.StatusUnprocessableEntity)
		if p.testid("add-error").Text() == "" {
			t.Errorf("quantity %q: no message", bad)
		}
	}
	wantStatus(t, "unknown product", b.addToCart("no-such-thing", "1"), http.StatusNotFound)

	// Checkout offers a visitor to sign in (or to check out as a guest),
	// and the cart comes along.
	p = b.get("/checkout")
	wantStatus(t, "visitor at checkout", p, http.StatusOK)
	if loc, _ := p.testid("checkout-sign-in-link").Attr("href"); loc != "/login?next=%2Fcheckout" {
		t.Fatalf("visitor sent to %q", loc)
	}
	b.get("/login?next=%2Fcheckout")
	p = b.post("/login", url.Values{"email": {demo.CustomerEmail}, "password": {demo.CustomerPassword}, "next": {"/checkout"}})
	if loc := p.header.Get("Location"); loc != "/checkout" {
		t.Fatalf("after sign-in sent to %q", loc)
	}
	cart = b.get("/cart")
	if n := cart.testid("cart-line").Length(); n != 2 {
		t.Fatalf("after sign-in the cart has %d lines, want the visitor's 2", n)
	}

	// Change a quantity and remove a line, with htmx and without.
	p = b.post("/cart/items/cf-grinder", url.Values{"quantity": {"3"}}, "HX-Request", "true")
	wantStatus(t, "update", p, http.StatusOK)
	if !strings.Contains(p.testid("cart-total").Text(), "€184.60") {
		t.Fatalf("after update total %q", p.testid("cart-total").Text())
	}
	p = b.post("/cart/items/cf-grinder", url.Values{"quantity": {"lots"}}, "HX-Request", "true")
	wantStatus(t, "bad update", p, http.StatusUnprocessableEntity)
	if p.testid("line-error").Text() == "" {
		t.Fatal("no message at the line")
	}
	wantStatus(t, "remove", b.post("/cart/items/bk-fjord/remove", url.Values{}), http.StatusSeeOther)
	wantStatus(t, "unknown line", b.post("/cart/items/nope/remove", url.Values{}), http.StatusSeeOther)
	if n := b.get("/cart").testid("cart-line").Length(); n != 1 {
		t.Fatalf("%d lines after removing one", n)
	}

	// Signed out and in again, the cart is still there.
	b.get("/")
	b.post("/logout", url.Values{})
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	if n := b.get("/cart").testid("cart-line").Length(); n != 1 {
		t.Fatalf("cart lost over sign-out: %d lines", n)
	}
}

func TestCheckoutWithGiftCardAndCard(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	if _, err := s.env.Store.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-TEST-0001", Balance: store.Money{Amount: 2000, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CreateDiscountCode(ctx, store.DiscountCode{Code: "WELCOME10", Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: time.Now().Add(24 * time.Hour), UsageLimit: 100}); err != nil {
		t.Fatal(err)
	}
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	earlier := b.get("/orders").testid("order-row").Length() // the demo's past orders
	b.addToCart("cf-grinder", "1")
	b.addToCart("bk-fjord", "2")
	key, _ := b.checkoutPage()

	// The summary re-prices as codes are typed.
	sum := b.post("/checkout/summary", url.Values{"discount": {"welcome10"}, "giftcard": {"gift-test-0001"}}, "HX-Request", "true")
	wantStatus(t, "summary", sum, http.StatusOK)
	if got := sum.testid("summary-card").Text(); !strings.Contains(got, "€65.23") {
		t.Fatalf("to pay by card %q, want €65.23 (94.70 - 9.47 - 20.00)", got)
	}

	total, _ := sum.testid("expected-total").Attr("value")
	if total != "8523" {
		t.Fatalf("the summary did not update the form's expected total: %q", total)
	}
	form := checkoutForm(key, total)
	form.Set("discount", "welcome10")
	form.Set("giftcard", "GIFT-TEST-0001")
	held := b.post("/checkout", form)
	if s.paymentPage(held) == "" {
		t.Fatalf("place order: %d to %q, want the card's payment page", held.status, held.header.Get("Location"))
	}
	p := s.pay(t, b, held) // on the test provider's page, then its webhook
	loc := p.header.Get("Location")
	if !strings.HasPrefix(loc, "/orders/") {
		t.Fatalf("paid order sent to %q", loc)
	}
	order := b.get(loc)
	wantStatus(t, "order page", order, http.StatusOK)
	if order.testid("order-item").Length() != 2 || !strings.Contains(order.testid("invoice-total").Text(), "€85.23") {
		t.Fatalf("order page: %d items, total %q", order.testid("order-item").Length(), order.testid("invoice-total").Text())
	}
	// The invoice is numbered in the year's series, and shows its VAT per
	// rate, the gross adding up to what was paid.
	if n := strings.TrimSpace(order.testid("invoice-number").Text()); !regexp.MustCompile(`^\d{4}-\d{6}$`).MatchString(n) {
		t.Fatalf("invoice number %q, want like 2026-000123", n)
	}
	var gross int64
	order.testid("vat-gross").Each(func(_ int, g *goquery.Selection) {
		m, err := rules.ParseMoney(strings.TrimPrefix(strings.TrimSpace(g.Text()), "€"), "EUR")
		if err != nil {
			t.Fatalf("VAT gross %q: %v", g.Text(), err)
		}
		gross += m.Amount
	})
	if order.testid("vat-row").Length() == 0 || gross != 8523 {
		t.Fatalf("VAT rows %d, their gross %d, want 8523", order.testid("vat-row").Length(), gross)
	}
	pays := order.testid("payment")
	if pays.Length() != 2 || !strings.Contains(pays.Eq(0).Text(), "Gift card ending 0001") || !strings.Contains(pays.Eq(1).Text(), "Visa ending in 4242") ||
		!strings.Contains(pays.Eq(1).Text(), "€65.23") || strings.Contains(pays.Text(), "ch_") {
		t.Fatalf("payments: %q (in people's words, no gateway reference)", pays.Text())
	}
	// Its confirmation mail says how it was paid, as the invoice does.
	mails := outboxMails(t, s, store.MailOrderPlaced, demo.CustomerEmail)
	if len(mails) != 1 {
		t.Fatalf("%d confirmation mails, want 1", len(mails))
	}
	for _, want := range []string{"Discount, code WELCOME10  −€9.47", "Paid with\n  Gift card ending 0001  €20.00\n  Visa ending in 4242  €65.23\n"} {
		if !strings.Contains(mails[0].Text, want) {
			t.Errorf("the confirmation lacks %q:\n%s", want, mails[0].Text)
		}
	}
	// The order is named by a number a person can read out.
	number := strings.TrimSpace(strings.TrimPrefix(order.testid("order-number").Text(), "Order"))
	if _, ok := store.ParseOrderNumber(number); !ok || strings.Contains(order.testid("order-number").Text(), strings.TrimPrefix(loc, "/orders/")) {
		t.Fatalf("order page is headed %q, want an order number", order.testid("order-number").Text())
	}
	if strings.Contains(order.body, payment.CardSucceeds) {
		t.Fatal("the card number is on the page")
	}
	if n, total := s.cardPayments(t); n != 1 || total != 6523 {
		t.Fatalf("the card provider took %d payments of %d", n, total)
	}
	if b.get("/cart").testid("cart-empty").Length() != 1 {
		t.Fatal("cart not emptied by the order")
	}
	// Submitting the same form again shows the same order, charges nothing more.
	again := b.post("/checkout", form)
	if again.status != http.StatusSeeOther || again.header.Get("Location") != loc {
		t.Fatalf("resubmitting the placed form: %d to %q, want the order %q", again.status, again.header.Get("Location"), loc)
	}
	if n, _ := s.cardPayments(t); n != 1 {
		t.Fatalf("resubmitting charged again: %d payments", n)
	}

	list := b.get("/orders")
	if list.testid("order-row").Length() != earlier+1 || list.testid("order-number").First().Text() != number {
		t.Fatalf("orders list has %d rows after %d, the first named %q", list.testid("order-row").Length(), earlier, list.testid("order-number").First().Text())
	}
	// Another customer cannot see it.
	other := s.browser(t)
	other.signIn(demo.StaffEmail, demo.StaffPassword)
	wantStatus(t, "someone else's order", other.get(loc), http.StatusNotFound)
	visitor := s.browser(t)
	wantStatus(t, "visitor at an order", visitor.get(loc), http.StatusSeeOther)
}

// formMistake is one mistake in a form and the testid of the message
// that points it out.
type formMistake struct {
	name  string
	edit  func(url.Values)
	field string
}

// wantMistakeRefused wants the form with the mistake answered 422 with a message
// at the mistake's field.
func wantMistakeRefused(t *testing.T, p page, m formMistake) {
	t.Helper()
	wantStatus(t, m.name, p, http.StatusUnprocessableEntity)
	if msg := p.testid(m.field).Text(); msg == "" {
		t.Fatalf("no message at %s; form errors: %q", m.field, p.testid("form-error").Text())
	}
}

func TestCheckoutBadInputIs422AndWritesNothing(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ordersBefore := s.env.CountEntities(t, "order") // the demo's past orders
	ctx := context.Background()
	if _, err := s.env.Store.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-EMPTY", Balance: store.Money{Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CreateDiscountCode(ctx, store.DiscountCode{Code: "OLDCODE", Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: time.Now().Add(-time.Hour), UsageLimit: 100}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CreateDiscountCode(ctx, store.DiscountCode{Code: "USEDUP", Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: time.Now().Add(time.Hour), UsageLimit: 0}); err != nil {
		t.Fatal(err)
	}
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.addToCart("cf-grinder", "1")
	stockBefore, _ := s.env.Store.ProductStock(ctx, "cf-grinder")

	// The card is typed on the provider's page, not here (its mistakes
	// are the page's: TestTestPaymentPageTakesTheTestCard).
	if n := b.get("/checkout").testid("field-card_number").Length(); n != 0 {
		t.Fatal("the checkout form asks for the card")
	}
	for _, tc := range []formMistake{
		{"missing street", func(f url.Values) { f.Del("street") }, "error-street"},
		{"missing city and country", func(f url.Values) { f.Set("city", " "); f.Del("country") }, "error-city"},
		{"unknown discount", func(f url.Values) { f.Set("discount", "NOSUCHCODE") }, "error-discount"},
		{"expired discount", func(f url.Values) { f.Set("discount", "OLDCODE") }, "error-discount"},
		{"used-up discount", func(f url.Values) { f.Set("discount", "USEDUP") }, "error-discount"},
		{"malformed discount", func(f url.Values) { f.Set("discount", "!!") }, "error-discount"},
		{"unknown gift card", func(f url.Values) { f.Set("giftcard", "GIFT-NOPE") }, "error-giftcard"},
		{"empty gift card", func(f url.Values) { f.Set("giftcard", "GIFT-EMPTY") }, "error-giftcard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := b.freshCheckoutForm()
			tc.edit(form)
			wantMistakeRefused(t, b.post("/checkout", form), tc)
		})
	}
	if n := s.env.CountEntities(t, "order") - ordersBefore; n != 0 {
		t.Fatalf("%d orders written by refused checkouts", n)
	}
	if n, _ := s.cardPayments(t); n != 0 {
		t.Fatalf("%d payments taken", n)
	}
	stockAfter, _ := s.env.Store.ProductStock(ctx, "cf-grinder")
	for i := range stockBefore {
		if stockBefore[i].Quantity != stockAfter[i].Quantity {
			t.Fatal("stock changed")
		}
	}

	// Stock ran out after the cart was filled: the line and how many are left.
	b.post("/cart/items/cf-grinder", url.Values{"quantity": {"2"}})
	for i, l := range stockBefore {
		l.Quantity = 0
		if i == 0 {
			l.Quantity = 1
		}
		if err := s.env.Store.PutStockLevel(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	p := b.post("/checkout", b.freshCheckoutForm())
	wantStatus(t, "over stock", p, http.StatusUnprocessableEntity)
	if msg := p.testid("form-error").Text(); !strings.Contains(msg, "Only 1 of Hand Grinder left") {
		t.Fatalf("stock message %q should name the product and the 1 left", msg)
	}
}

func TestCartRefusesMoreThanInStock(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	stock, err := s.env.Store.ProductStock(context.Background(), "cf-grinder")
	if err != nil {
		t.Fatal(err)
	}
	total := store.TotalStock(stock)
	p := b.addToCart("cf-grinder", itoa(total+1), "HX-Request", "true")
	wantStatus(t, "add above stock", p, http.StatusUnprocessableEntity)
	if msg := p.testid("add-error").Text(); !strings.Contains(msg, "Only "+itoa(total)+" of Hand Grinder left") {
		t.Fatalf("message %q", msg)
	}
	wantStatus(t, "add all there is", b.addToCart("cf-grinder", itoa(total)), http.StatusSeeOther)
	p = b.addToCart("cf-grinder", "1", "HX-Request", "true")
	wantStatus(t, "one more than there is", p, http.StatusUnprocessableEntity)
	p = b.post("/cart/items/cf-grinder", url.Values{"quantity": {itoa(total + 1)}}, "HX-Request", "true")
	wantStatus(t, "update above stock", p, http.StatusUnprocessableEntity)
	if p.testid("line-error").Text() == "" {
		t.Fatal("no message at the line")
	}
	if n := b.get("/cart").testid("line-quantity").AttrOr("value", ""); n != itoa(total) {
		t.Fatalf("quantity in cart %s, want %d", n, total)
	}
}

// The customer pays the total they were shown: a price changed since the
// page was opened brings the form back with the new total, nothing charged.
func TestCheckoutConfirmsAChangedTotal(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.addToCart("cf-grinder", "1")
	form := b.freshCheckoutForm()
	p, err := s.env.Store.Product(ctx, "cf-grinder")
	if err != nil {
		t.Fatal(err)
	}
	p.Price.Amount *= 10
	if err := s.env.Store.UpdateProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	page := b.post("/checkout", form)
	wantStatus(t, "changed price", page, http.StatusUnprocessableEntity)
	if msg := page.testid("form-error").Text(); !strings.Contains(msg, "€549.00") {
		t.Fatalf("message %q should give the new total", msg)
	}
	if n, _ := s.cardPayments(t); n != 0 || s.madeHere(t, "testPaySession") != 0 {
		t.Fatal("sent to pay a total the customer did not see")
	}
	total, _ := page.testid("expected-total").Attr("value")
	key, _ := page.doc.Find(`input[name="key"]`).Attr("value")
	wantStatus(t, "confirmed", b.post("/checkout", checkoutForm(key, total)), http.StatusSeeOther)
}

// Another customer's checkout key is no way into their order.
func TestCheckoutKeyBelongsToItsCustomer(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	a := s.browser(t)
	a.signIn(demo.CustomerEmail, demo.CustomerPassword)
	a.addToCart("cf-grinder", "1")
	form := a.freshCheckoutForm()
	placed := a.post("/checkout", form)
	wantStatus(t, "place", placed, http.StatusSeeOther)
	other := s.browser(t)
	other.signIn(demo.StaffEmail, demo.StaffPassword)
	other.addToCart("bk-fjord", "1")
	other.checkoutPage()
	p := other.post("/checkout", form) // a's key
	if p.status == http.StatusSeeOther && p.header.Get("Location") == placed.header.Get("Location") {
		t.Fatal("another customer's key led to their order")
	}
	if p.status >= 500 {
		t.Fatalf("status %d", p.status)
	}
}
