package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"shop/handlers"
	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
)

var guestOrderLink = regexp.MustCompile(`https?://[^/\s]+(/orders/([0-9a-z]+)/link\?t=[A-Za-z0-9_.%-]+)`)

// guestForm is a visitor's filled checkout form: the page's key and total,
// an address and email.
func (b *browser) guestForm(email string) url.Values {
	b.t.Helper()
	p := b.get("/checkout")
	wantStatus(b.t, "checkout page of a visitor", p, http.StatusOK)
	if p.testid("guest-checkout").Length() != 1 || p.testid("field-email").Length() != 1 {
		b.t.Fatalf("a visitor's checkout offers no guest checkout:\n%s", trim(p.body))
	}
	key, _ := p.doc.Find(`input[name="key"]`).Attr("value")
	total, _ := p.testid("expected-total").Attr("value")
	form := checkoutForm(key, total)
	form.Set("email", email)
	return form
}

// A visitor checks out with an email and an address: the order is placed
// for a passwordless customer under the email, the session sees that
// order and no account page, and the confirmation mail carries a signed
// link to the order's page that works without a session.
func TestGuestChecksOutWithAnEmail(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.addToCart("cf-grinder", "1")

	p := b.get("/checkout")
	wantStatus(t, "a visitor's checkout", p, http.StatusOK)
	if href, _ := p.testid("checkout-sign-in-link").Attr("href"); href != "/login?next=%2Fcheckout" {
		t.Fatalf("the guest checkout's sign-in links %q", href)
	}

	// A bad email is said at its field; nothing is written.
	form := b.guestForm("not an email")
	bad := b.post("/checkout", form)
	wantStatus(t, "a bad email", bad, http.StatusUnprocessableEntity)
	if bad.testid("error-email").Text() == "" {
		t.Fatalf("no message at the email:\n%s", trim(bad.body))
	}
	// The email of an account with a password: sign in instead.
	form = b.guestForm(strings.ToUpper(demo.CustomerEmail))
	taken := b.post("/checkout", form)
	wantStatus(t, "an account's email", taken, http.StatusConflict)
	if taken.testid("error-email").Text() == "" || taken.testid("guest-sign-in-instead").Length() != 1 {
		t.Fatalf("an account's email is not told to sign in:\n%s", trim(taken.body))
	}
	if s.madeHere(t, "order") != 0 {
		t.Fatal("a refused guest checkout wrote an order")
	}

	const email = "Guest.Buyer@Example.com"
	form = b.guestForm(email)
	s.env.Counter.Reset()
	held := b.post("/checkout", form)
	t.Logf("guest checkout (the form's post, to the payment page): %d DynamoDB requests %v", s.env.Counter.Total(), s.env.Counter.Ops())
	paid := s.pay(t, b, held)
	orderPath := paid.header.Get("Location")
	if !strings.HasPrefix(orderPath, "/orders/") {
		t.Fatalf("paid, sent to %q", orderPath)
	}
	orderID := strings.TrimPrefix(orderPath, "/orders/")
	op := b.get(orderPath)
	wantStatus(t, "the guest's order page", op, http.StatusOK)
	if got := trim(op.testid("order-status").Text()); !strings.HasPrefix(got, "Placed") {
		t.Fatalf("the order is %q", got)
	}
	if n := op.doc.Find(`a[href="/orders"]`).Length(); n != 0 {
		t.Errorf("a guest's order page links the list of orders they cannot open")
	}
	cred, err := s.env.Store.CredentialsByEmail(context.Background(), strings.ToLower(email))
	if err != nil || cred.PasswordHash != "" {
		t.Fatalf("the guest's email item: %+v, %v", cred, err)
	}
	d, err := s.env.Store.OrderDetails(context.Background(), orderID)
	if err != nil || d.Order.CustomerID != cred.CustomerID || !d.Order.Buyer.Guest {
		t.Fatalf("the order %+v is not the guest customer %s's: %v", d.Order, cred.CustomerID, err)
	}
	// A guest session is no account.
	for _, path := range []string{"/account", "/orders", "/subscriptions"} {
		if p := b.get(path); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
			t.Errorf("a guest at %s: %d to %q", path, p.status, p.header.Get("Location"))
		}
	}

	// The mail's link opens the order's page in any browser, for no one else's order.
	mails := outboxMails(t, s, store.MailOrderPlaced, strings.ToLower(email))
	if len(mails) != 1 {
		t.Fatalf("%d confirmation mails", len(mails))
	}
	m := guestOrderLink.FindStringSubmatch(mails[0].Text)
	if m == nil || m[2] != orderID {
		t.Fatalf("no link to order %s in the mail: %s", orderID, mails[0].Text)
	}
	anyone := s.browser(t)
	lp := anyone.get(m[1])
	wantStatus(t, "the mailed link", lp, http.StatusOK)
	if cc := lp.header.Get("Cache-Control"); cc != "private, no-store" {
		t.Errorf("the mailed link's page is Cache-Control %q", cc)
	}
	if lp.testid("order-number").Length() != 1 || lp.testid("invoice").Length() != 1 || lp.testid("cancel-offer").Length() != 0 {
		t.Fatalf("the mailed link's page:\n%s", trim(lp.body))
	}
	tampered := m[1][:len(m[1])-1] + map[bool]string{true: "A", false: "B"}[!strings.HasSuffix(m[1], "A")]
	wantStatus(t, "a changed link", anyone.get(tampered), http.StatusForbidden)
	other := strings.Replace(m[1], orderID, store.NewID(), 1)
	wantStatus(t, "the token on another order", anyone.get(other), http.StatusForbidden)
	signer, err := handlers.NewLinkSigner([][]byte{keyA})
	if err != nil {
		t.Fatal(err)
	}
	old := signer.GuestOrderLink(store.Order{ID: orderID, PlacedAt: time.Now().Add(-handlers.GuestOrderLinkLife - time.Hour)})
	gone := anyone.get(old)
	wantStatus(t, "an expired link", gone, http.StatusGone)
	if cc := gone.header.Get("Cache-Control"); cc != "private, no-store" {
		t.Errorf("an expired link's page is Cache-Control %q", cc)
	}

	// Another visitor with the same email is the same customer, and sees
	// only their own order.
	c := s.browser(t)
	c.addToCart("bk-fjord", "1")
	second := s.placeOrder(t, c, c.guestForm(email))
	secondID := strings.TrimPrefix(second.header.Get("Location"), "/orders/")
	d2, err := s.env.Store.OrderDetails(context.Background(), secondID)
	if err != nil || d2.Order.CustomerID != cred.CustomerID {
		t.Fatalf("a second guest checkout of the email: customer %q, want %q (%v)", d2.Order.CustomerID, cred.CustomerID, err)
	}
	wantStatus(t, "another guest's order", c.get(orderPath), http.StatusNotFound)
	wantStatus(t, "an earlier order, by a visitor", anyone.get(orderPath), http.StatusSeeOther)
}

// A guest's cart comes into the account when they sign in before paying.
func TestGuestCartFollowsIntoTheAccountAtSignIn(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.addToCart("cf-grinder", "2")
	// The guest checkout speaks the shop's three languages.
	for _, tc := range []struct{ lang, want string }{{"ko", "비회원으로 주문하기"}, {"id", "Checkout sebagai tamu"}, {"en", "Check out as a guest"}} {
		p := b.get("/checkout?lang=" + tc.lang)
		wantStatus(t, "checkout in "+tc.lang, p, http.StatusOK)
		wantText(t, "the guest checkout in "+tc.lang, p.testid("guest-checkout"), tc.want)
	}
	taken := b.post("/checkout", b.guestForm(demo.CustomerEmail))
	wantStatus(t, "an account's email", taken, http.StatusConflict)
	href, _ := taken.testid("guest-sign-in-instead").Find("a").First().Attr("href")
	b.get(href)
	p := b.post("/login", url.Values{"email": {demo.CustomerEmail}, "password": {demo.CustomerPassword}, "next": {"/checkout"}})
	if loc := p.header.Get("Location"); loc != "/checkout" {
		t.Fatalf("after sign-in sent to %q", loc)
	}
	cart := b.get("/cart")
	if n := cart.testid("cart-line").Length(); n < 1 || !strings.Contains(cart.body, "Hand Grinder") {
		t.Fatalf("after sign-in the cart has %d lines, not the guest's grinder", n)
	}
	wantStatus(t, "checkout signed in", b.get("/checkout"), http.StatusOK)
}

// Signing up later with a guest's email makes no second customer: the
// confirmation link, once used, sets the password on the guest's customer,
// whose orders are then the account's. Before it is used, the password
// typed opens nothing.
func TestGuestSignsUpLaterAndKeepsTheOrders(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	const email = "later@example.com"
	g := s.browser(t)
	g.addToCart("cf-grinder", "1")
	placed := s.placeOrder(t, g, g.guestForm(email))
	orderPath := placed.header.Get("Location")
	if !strings.HasPrefix(orderPath, "/orders/") {
		t.Fatalf("guest checkout answered %d to %q", placed.status, orderPath)
	}
	before, err := s.env.Store.CredentialsByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}

	b := s.browser(t)
	b.get("/signup")
	const password = "a long enough password"
	p := b.post("/signup", url.Values{"email": {email}, "name": {"Later Person"}, "password": {password}})
	wantStatus(t, "sign up with a guest's email", p, http.StatusSeeOther)
	wantText(t, "sign-up of a guest's email", b.get("/").testid("flash"), "mailed you a link")
	wantStatus(t, "the password before the email is confirmed", b.postLogin(email, password), http.StatusUnprocessableEntity)

	mails := outboxMails(t, s, store.MailVerifyEmail, email)
	if len(mails) != 1 {
		t.Fatalf("%d confirmation mails", len(mails))
	}
	v := b.get(linkIn(t, mails[0]))
	wantStatus(t, "the confirmation page", v, http.StatusOK)
	wantStatus(t, "confirm", b.post("/email/verify", hiddenFields(v, "verify-form")), http.StatusSeeOther)

	b.signIn(email, password)
	after, err := s.env.Store.CredentialsByEmail(context.Background(), email)
	if err != nil || after.CustomerID != before.CustomerID {
		t.Fatalf("after sign-up the email is customer %q, the guest was %q (%v)", after.CustomerID, before.CustomerID, err)
	}
	list := b.get("/orders")
	if href, _ := list.doc.Find(`a[href="` + orderPath + `"]`).Attr("href"); href != orderPath {
		t.Fatalf("the account's orders do not list the guest's order %s:\n%s", orderPath, trim(list.body))
	}
	wantStatus(t, "the guest's order, signed in", b.get(orderPath), http.StatusOK)
	c, err := s.env.Store.Customer(context.Background(), before.CustomerID)
	if err != nil || c.Guest || c.Name != "Later Person" || c.EmailVerifiedAt.IsZero() {
		t.Fatalf("the customer after joining: %+v, %v", c, err)
	}
}

// A guest checkout's hold costs 13 requests where a signed-in one costs 11
// (TestCardCheckoutKeepsItsRequestBudget): the guest's customer is one
// transaction (customer, email, finders) and sign-up's count, the session's
// new id a Put and a Delete, less the buyer's record a signed-in checkout
// reads and the session a visitor without a flash has not. The shop's
// requests only, not the test provider's.
func TestGuestCheckoutKeepsItsRequestBudget(t *testing.T) {
	t.Parallel()
	var counter storetest.Counter
	s := newShop(t, withStore(&counter), withoutBackgroundReads)
	b := s.browser(t)
	b.addToCart("cf-grinder", "1")
	form := b.guestForm("budget.guest@example.com")
	counter.Reset()
	held := b.post("/checkout", form)
	n := counter.Total()
	t.Logf("a guest's hold: %d requests %v", n, counter.Ops())
	if s.paymentPage(held) == "" {
		t.Fatalf("the guest checkout answered %d:\n%s", held.status, trim(held.body))
	}
	const budget = 13 // 12 before the shipping zones' Query
	if n > budget {
		t.Errorf("a guest's hold made %d DynamoDB requests, budget %d: %v", n, budget, counter.Ops())
	}
}
