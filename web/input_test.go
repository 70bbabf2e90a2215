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
)

// A CSRF token is taken from the form body or the X-CSRF-Token header,
// never from the query string: a URL leaks into logs, history and Referer
// headers, and a link or a cross-site form's action can carry it.
func TestCSRFTokenInQueryStringRefused(t *testing.T) {
	t.Parallel()
	s := newShop(t)

	// A visitor's sign-up: the token in the URL, none in the body.
	v := s.browser(t)
	v.get("/signup")
	customers := s.env.CountEntities(t, "customer")
	form := url.Values{"_csrf": {""}, "email": {"query@example.com"}, "name": {"Query"}, "password": {"long enough password"}}
	p := v.post("/signup?_csrf="+url.QueryEscape(v.csrf), form)
	wantStatus(t, "sign-up with the token in the query string", p, http.StatusForbidden)
	if got := s.env.CountEntities(t, "customer"); got != customers {
		t.Fatalf("a refused sign-up wrote a customer (%d -> %d)", customers, got)
	}

	// A signed-in customer: neither alone nor over a forged body token.
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.get("/")
	for _, body := range []string{"", "forged"} {
		p := b.post("/logout?_csrf="+url.QueryEscape(b.csrf), url.Values{"_csrf": {body}})
		wantStatus(t, "sign-out with the token in the query string, body "+body, p, http.StatusForbidden)
	}
	wantSignedIn(t, b.get("/"), "a token in the query string signed the customer out")

	// The same token in the body works.
	p = b.post("/logout", url.Values{})
	wantStatus(t, "sign-out with the token in the body", p, http.StatusSeeOther)
	wantSignedOut(t, b.get("/"), "the sign-out with the body's token did not sign out")
}

// badText is text no one types on purpose, in the ways it comes: each is
// refused at its field, and shown back without the offending characters.
var badText = []struct{ name, value, shown string }{
	{"right-to-left override", "Eve\u202eevE", "EveevE"},
	{"NUL", "Ev\x00e", "Eve"},
	{"CR LF", "Eve\r\nSet-Cookie: x=y", "EveSet-Cookie: x=y"},
	{"invalid UTF-8", "Ev\xffe", "Eve"},
	{"isolate", "Eve\u2066x\u2069", "Evex"},
}

func TestSignupRefusesControlAndDirectionCharacters(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.get("/signup")
	customers, emails := s.env.CountEntities(t, "customer"), s.env.CountEntities(t, "email")
	for _, tc := range badText {
		p := b.post("/signup", url.Values{"email": {"eve@example.com"}, "name": {tc.value}, "password": {"long enough password"}})
		wantStatus(t, "sign-up with a name with "+tc.name, p, http.StatusUnprocessableEntity)
		if p.testid("error-name").Text() == "" || p.testid("error-email").Length() != 0 {
			t.Fatalf("%s: errors at name %q, email %q", tc.name, p.testid("error-name").Text(), p.testid("error-email").Text())
		}
		if v, _ := p.testid("field-name").Attr("value"); v != tc.shown {
			t.Fatalf("%s: the name is shown back as %q, want %q", tc.name, v, tc.shown)
		}
	}
	for _, email := range []string{"eve\u202e@example.com", "eve@exa\x00mple.com", "eve@example.com\r\nBcc: x@example.com", "ev\xffe@example.com"} {
		p := b.post("/signup", url.Values{"email": {email}, "name": {"Eve"}, "password": {"long enough password"}}, "HX-Request", "true")
		wantStatus(t, "sign-up with the email "+url.QueryEscape(email), p, http.StatusUnprocessableEntity)
		if p.testid("error-email").Text() == "" {
			t.Fatalf("sign-up with the email %q: no message at the email", email)
		}
	}
	if c, e := s.env.CountEntities(t, "customer"), s.env.CountEntities(t, "email"); c != customers || e != emails {
		t.Fatalf("refused sign-ups wrote customers %d -> %d, emails %d -> %d", customers, c, emails, e)
	}
	// Sign-in says so too, rather than looking the address up.
	p := b.post("/login", url.Values{"email": {demo.CustomerEmail + "\x00"}, "password": {demo.CustomerPassword}})
	wantStatus(t, "sign-in with a NUL in the email", p, http.StatusUnprocessableEntity)
	if p.testid("error-email").Text() == "" {
		t.Fatal("sign-in with a NUL in the email: no message at the email")
	}
}

// An address typed with a combining accent (NFD, as some keyboards and
// password managers send it) and with the precomposed letter (NFC) is one
// account.
func TestSignupEmailNFDAndNFCAreOneAccount(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	const (
		nfc      = "jos\u00e9@example.com"
		nfd      = "jose\u0301@example.com"
		password = "long enough password"
	)
	a := s.browser(t)
	a.get("/signup")
	p := a.post("/signup", url.Values{"email": {nfd}, "name": {"Jose\u0301"}, "password": {password}})
	wantStatus(t, "sign-up in NFD", p, http.StatusSeeOther)
	cred, err := s.env.Store.CredentialsByEmail(context.Background(), nfc)
	if err != nil {
		t.Fatalf("the NFD sign-up is not found under NFC: %v", err)
	}
	cust, err := s.env.Store.Customer(context.Background(), cred.CustomerID)
	if err != nil || cust.Email != nfc || cust.Name != "Jos\u00e9" {
		t.Fatalf("stored %q, %q (%v); want NFC %q, %q", cust.Email, cust.Name, err, nfc, "Jos\u00e9")
	}

	b := s.browser(t)
	b.get("/signup")
	p = b.post("/signup", url.Values{"email": {nfc}, "name": {"Other"}, "password": {password}})
	wantStatus(t, "sign-up in NFC with the NFD address taken", p, http.StatusUnprocessableEntity)
	wantText(t, "taken address", p.testid("error-email"), "already exists")
	// Signing in instead is a link, not a question in the error.
	if href := attr(p.testid("signup-sign-in-instead"), "href"); href != "/login" {
		t.Fatalf("the taken address offers sign-in at %q, want a link to /login", href)
	}

	for _, email := range []string{nfc, nfd} {
		c := s.browser(t)
		c.signIn(email, password)
		wantSignedIn(t, c.get("/"), "signed in as "+email)
	}
}

func TestCheckoutRefusesControlCharactersInShipTo(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ordersBefore := s.env.CountEntities(t, "order") // the demo's past orders
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.addToCart("cf-grinder", "1")
	for _, field := range []string{"name", "street", "number", "zip", "city", "country"} {
		for _, tc := range badText {
			form := b.freshCheckoutForm()
			form.Set(field, form.Get(field)+tc.value)
			p := b.post("/checkout", form)
			wantStatus(t, field+" with "+tc.name, p, http.StatusUnprocessableEntity)
			if p.testid("error-"+field).Text() == "" {
				t.Fatalf("%s with %s: no message at the field; form errors: %q", field, tc.name, p.testid("form-error").Text())
			}
		}
	}
	if n := s.env.CountEntities(t, "order") - ordersBefore; n != 0 {
		t.Fatalf("%d orders written by refused checkouts", n)
	}
	if n := s.madeHere(t, "testPaySession"); n != 0 {
		t.Fatalf("refused checkouts opened %d payment pages", n)
	}
	// The same address in NFD is taken, and kept in NFC.
	form := b.freshCheckoutForm()
	form.Set("city", "Go\u0308teborg")
	p := s.placeOrder(t, b, form)
	wantStatus(t, "checkout with an NFD city", p, http.StatusSeeOther)
	order := b.get(p.header.Get("Location"))
	if !strings.Contains(order.body, "G\u00f6teborg") || strings.Contains(order.body, "Go\u0308teborg") {
		t.Fatal("the order's city is not kept in NFC")
	}
}

// When codes cover the whole order there is nothing to pay by card: what
// is in the card fields (autofill, a half-typed card) is ignored.
func TestCheckoutCoveredByGiftCardIgnoresCardFields(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ordersBefore := s.env.CountEntities(t, "order") // the demo's past orders
	if _, err := s.env.Store.CreateGiftCard(context.Background(), store.GiftCard{Code: "GIFT-COVERS-ALL", Balance: store.Money{Amount: 50000, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	for _, tc := range []struct {
		name string
		card url.Values
	}{
		{"no number, an expiry and a cvc", url.Values{"card_number": {""}, "expiry": {"12/30"}, "cvc": {"123"}}},
		{"a junk card", url.Values{"card_number": {"not a card"}, "expiry": {"99/99"}, "cvc": {"x"}}},
		{"a declined card", url.Values{"card_number": {payment.CardDeclined}, "expiry": {"12/30"}, "cvc": {"123"}}},
	} {
		b.addToCart("cf-grinder", "1")
		key, _ := b.checkoutPage()
		sum := b.post("/checkout/summary", url.Values{"giftcard": {"GIFT-COVERS-ALL"}}, "HX-Request", "true")
		wantText(t, "to pay by card", sum.testid("summary-card"), "€0.00")
		total, _ := sum.testid("expected-total").Attr("value")
		form := checkoutForm(key, total)
		form.Set("giftcard", "GIFT-COVERS-ALL")
		for k, v := range tc.card {
			form[k] = v
		}
		p := b.post("/checkout", form)
		if p.status != http.StatusSeeOther {
			t.Fatalf("%s: status %d: card %q, form %q", tc.name, p.status, p.testid("error-card_number").Text(), p.testid("form-error").Text())
		}
	}
	if n := s.env.CountEntities(t, "order") - ordersBefore; n != 3 {
		t.Fatalf("%d orders placed, want 3", n)
	}
	if n := s.madeHere(t, "testPaySession"); n != 0 {
		t.Fatalf("%d payment pages opened for orders the gift card paid", n)
	}
}

// The staff's forms refuse the same text at its field, write nothing, and
// keep a description's line breaks (as \n) but no other control.
func TestStaffFormsRefuseControlAndDirectionCharacters(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	ctx := context.Background()

	b.get("/admin/products/new")
	products := s.env.CountEntities(t, "product")
	product := func(name, description string) url.Values {
		return url.Values{"name": {name}, "description": {description}, "category": {"kitchen"}, "price": {"12.50"}}
	}
	for _, tc := range badText {
		p := b.post("/admin/products", product("Birch Spoon"+tc.value, "Carved by hand."))
		wantStatus(t, "product name with "+tc.name, p, http.StatusUnprocessableEntity)
		wantText(t, "product name with "+tc.name, p.testid("error-name"), "now removed")
		p = b.post("/admin/products", product("Birch Spoon", "Carved by hand."+tc.value))
		if tc.name == "CR LF" { // a line break is a description's own
			wantStatus(t, "description with CR LF", p, http.StatusSeeOther)
			id := strings.TrimPrefix(p.header.Get("Location"), "/admin/products/")
			got, err := s.env.Store.Product(ctx, id)
			if err != nil || got.Description != "Carved by hand.Eve\nSet-Cookie: x=y" {
				t.Fatalf("description stored as %q (%v), want its CRLF as \\n", got.Description, err)
			}
			products++
			continue
		}
		wantStatus(t, "description with "+tc.name, p, http.StatusUnprocessableEntity)
		wantText(t, "description with "+tc.name, p.testid("error-description"), "now removed")
	}
	p := b.post("/admin/products", product("Birch Spoon", "Carved\tby hand."), "HX-Request", "true")
	wantStatus(t, "description with a tab", p, http.StatusUnprocessableEntity)
	wantText(t, "description with a tab", p.testid("error-description"), "line breaks are fine")
	if n := s.env.CountEntities(t, "product"); n != products {
		t.Fatalf("refused product forms wrote products: %d, want %d", n, products)
	}

	// A stock adjustment's reason.
	const product1 = "cf-grinder"
	before := stockIn(t, s, product1, "gbg")
	b.get("/admin/warehouses/gbg")
	for _, tc := range badText {
		p := b.post("/admin/warehouses/gbg/stock", url.Values{"product_id": {product1}, "delta": {"5"}, "reason": {"Delivery" + tc.value}, "on": {"warehouse"}}, "HX-Request", "true")
		wantStatus(t, "stock reason with "+tc.name, p, http.StatusUnprocessableEntity)
		wantText(t, "stock reason with "+tc.name, p.testid("adjust-error-reason"), "now removed")
	}
	if after := stockIn(t, s, product1, "gbg"); after != before {
		t.Fatalf("refused adjustments changed the stock %d -> %d", before, after)
	}

	// A drop's title.
	b.get("/admin/drops")
	drops := s.env.CountEntities(t, "drop")
	loc := s.env.Store.Location()
	at := func(d time.Duration) string { return time.Now().Add(d).In(loc).Format("2006-01-02T15:04") }
	for _, tc := range badText {
		p := b.post("/admin/drops", url.Values{"title": {"Spring" + tc.value}, "quantity": {"10"}, "opens": {at(time.Hour)}, "closes": {at(2 * time.Hour)}})
		wantStatus(t, "drop title with "+tc.name, p, http.StatusUnprocessableEntity)
		wantText(t, "drop title with "+tc.name, p.testid("error-title"), "now removed")
	}
	if n := s.env.CountEntities(t, "drop"); n != drops {
		t.Fatalf("refused drop forms wrote drops: %d, want %d", n, drops)
	}

	// Finding a customer by email.
	p = b.get("/admin/customers?email=" + url.QueryEscape(demo.CustomerEmail+"\u202e"))
	wantStatus(t, "customer lookup with an override", p, http.StatusUnprocessableEntity)
	wantText(t, "customer lookup with an override", p.testid("error-email"), "now removed")
}

// The API's drop titles are held to the same text, and a body that is not
// UTF-8 is refused rather than decoded with U+FFFD in its place.
func TestAPIDropTitleRefusesControlAndDirectionCharacters(t *testing.T) {
	t.Parallel()
	env, c := apiShop(t)
	o, cl := rfc3339(time.Now().Add(time.Hour)), rfc3339(time.Now().Add(2*time.Hour))
	body := func(titleJSON string) string {
		return `{"title": ` + titleJSON + `, "quantity": 5, "opens": "` + o + `", "closes": "` + cl + `"}`
	}
	for _, tc := range []struct{ name, title, field string }{
		{"NUL", `"Drop\u0000"`, "title"},
		{"line break", `"Drop\r\nX"`, "title"},
		{"right-to-left override", `"Drop\u202e"`, "title"},
		{"lone surrogate", `"Drop\ud800"`, "title"},
		{"raw byte that is not UTF-8", "\"Drop\xff\"", ""},
	} {
		e := c.do(http.MethodPost, "/api/v1/drops", body(tc.title)).want(t, tc.name, http.StatusBadRequest, "bad_request")
		if e.Field != tc.field {
			t.Fatalf("%s: field %q, want %q: %+v", tc.name, e.Field, tc.field, e)
		}
	}
	if n := env.CountEntities(t, "drop"); n != 0 {
		t.Fatalf("refused API requests wrote %d drops", n)
	}
	d := c.makeDrop(body(`"Cafe\u0301 drop"`))
	if d.Title != "Caf\u00e9 drop" {
		t.Fatalf("title %q, want it in NFC", d.Title)
	}
}

// A POST's fields come from its body: a query string that says otherwise
// (a link, a cross-site form's action) changes nothing.
func TestPostFieldsComeFromTheBodyNotTheQuery(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)

	b.get("/products/cf-light")
	p := b.post("/cart/items?product_id=cf-decaf&quantity=99", url.Values{"product_id": {"cf-light"}, "quantity": {"1"}})
	if p.status >= 400 {
		t.Fatalf("add to cart: %d\n%s", p.status, trim(p.body))
	}
	wantCart := func(what, qty string) {
		t.Helper()
		cart := b.get("/cart")
		lines := cart.testid("cart-line")
		if lines.Length() != 1 || lines.AttrOr("data-product", "") != "cf-light" {
			t.Fatalf("%s: the cart has %d lines (first %q), want cf-light alone", what, lines.Length(), lines.AttrOr("data-product", ""))
		}
		if got := lines.Find(`[data-testid="line-quantity"]`).AttrOr("value", ""); got != qty {
			t.Fatalf("%s: quantity %q, want the body's %s", what, got, qty)
		}
	}
	wantCart("added with ?quantity=99", "1")

	// The query's 0 would remove the line.
	p = b.post("/cart/items/cf-light?quantity=0", url.Values{"quantity": {"2"}})
	if p.status >= 400 {
		t.Fatalf("change the quantity: %d\n%s", p.status, trim(p.body))
	}
	wantCart("changed with ?quantity=0", "2")
}
