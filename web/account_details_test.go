package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/store/rules"
)

// headerCartCount is the number beside the header's cart link (0 when none
// is shown); both links must agree.
func headerCartCount(t *testing.T, p page) int {
	t.Helper()
	count := func(id string) int {
		s := strings.Trim(strings.TrimSpace(p.doc.Find(`#`+id+` [aria-hidden="true"]`).Text()), "()")
		if s == "" {
			return 0
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s reads %q", id, s)
		}
		return n
	}
	n, quick := count("cart-count"), count("cart-count-quick")
	if n != quick {
		t.Fatalf("the header's cart links say %d and %d", n, quick)
	}
	return n
}

func addressForm(street, country string) url.Values {
	return url.Values{"recipient": {"Grace Hopper"}, "street": {street}, "number": {"7"}, "zip": {"11122"}, "city": {"Stockholm"}, "country": {country}}
}

func TestAccountPageChangesTheName(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b, id := s.newCustomer(t, "Grace Hopper")

	p := b.get("/account")
	wantStatus(t, "account page", p, http.StatusOK)
	if got := p.testid("account-email").Text(); got != "grace.hopper@example.com" {
		t.Errorf("account page shows email %q", got)
	}
	if href, _ := p.testid("viewer-name").Attr("href"); href != "/account" {
		t.Errorf("the name in the header links to %q, want /account", href)
	}
	if v, _ := p.testid("field-name").Attr("value"); v != "Grace Hopper" {
		t.Errorf("name field holds %q", v)
	}

	for _, bad := range []string{"", "   ", strings.Repeat("x", 101), "Grace\x00"} {
		p := b.post("/account/name", url.Values{"name": {bad}})
		wantStatus(t, "name "+strconv.Quote(bad), p, http.StatusUnprocessableEntity)
		if p.testid("error-name").Text() == "" || p.testid("error-summary").Length() == 0 {
			t.Errorf("name %q: no message at the field or no summary", bad)
		}
	}
	p = b.post("/account/name", url.Values{"name": {""}}, "HX-Request", "true")
	wantStatus(t, "htmx bad name", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "<html") || p.testid("name-form").Length() != 1 {
		t.Fatalf("htmx got more than the form: %s", trim(p.body))
	}

	p = b.post("/account/name", url.Values{"name": {"  Grace Brewster Hopper "}})
	wantStatus(t, "rename", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/account" {
		t.Errorf("rename redirects to %q", loc)
	}
	p = b.get("/account")
	if got := p.testid("viewer-name").Text(); got != "Grace Brewster Hopper" {
		t.Errorf("the header shows %q after the rename", got)
	}
	cust, err := s.env.Store.Customer(context.Background(), id)
	if err != nil || cust.Name != "Grace Brewster Hopper" {
		t.Fatalf("stored customer %+v, %v", cust, err)
	}
	cred, err := s.env.Store.CredentialsByEmail(context.Background(), cust.Email)
	if err != nil || cred.Name != "Grace Brewster Hopper" {
		t.Fatalf("sign-in's copy of the name: %+v, %v", cred, err)
	}

	if p := s.browser(t).post("/account/name", url.Values{"name": {"Mallory"}}); p.status != http.StatusForbidden {
		t.Errorf("a visitor's rename: status %d, want 403", p.status)
	}
	if p := s.browser(t).get("/account"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Errorf("a visitor's /account: %d %s, want to sign in", p.status, p.header.Get("Location"))
	}
}

func TestAccountPageChangesThePasswordAndSignsOutElsewhere(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b, _ := s.newCustomer(t, "Ada Byron")
	const email, old, next = "ada.byron@example.com", "a long enough password", "an even longer password"
	phone := s.browser(t)
	phone.signIn(email, old)
	b.get("/account")
	stolen := b.cookies()

	for _, tc := range []struct {
		current, next, again, field string
	}{
		{"", next, next, "error-current_password"},
		{"not my password", next, next, "error-current_password"},
		{old, "short", "short", "error-new_password"},
		{old, strings.Repeat("é", 40), strings.Repeat("é", 40), "error-new_password"}, // 80 bytes
		{old, next, next + "!", "error-new_password_again"},
	} {
		p := b.post("/account/password", url.Values{"current_password": {tc.current}, "new_password": {tc.next}, "new_password_again": {tc.again}})
		wantStatus(t, "bad password change "+tc.field, p, http.StatusUnprocessableEntity)
		if p.testid(tc.field).Text() == "" || p.testid("error-summary").Length() == 0 {
			t.Errorf("%+v: no %s or no summary", tc, tc.field)
		}
		if p.doc.Find(`input[type="password"][value]`).FilterFunction(func(_ int, s *goquerySelection) bool { v, _ := s.Attr("value"); return v != "" }).Length() != 0 {
			t.Errorf("%+v: a password was echoed back", tc)
		}
	}

	p := b.post("/account/password", url.Values{"current_password": {old}, "new_password": {next}, "new_password_again": {next}})
	wantStatus(t, "change password", p, http.StatusSeeOther)
	p = b.get("/account")
	wantSignedIn(t, p, "changing the password signed this browser out")
	if msg := p.testid("flash").Text(); !strings.Contains(msg, "Password changed") || !strings.Contains(msg, "Signed out 1 session elsewhere") {
		t.Errorf("flash %q", msg)
	}
	wantSignedOut(t, phone.get("/"), "the other session is still signed in after the password change")
	thief := s.browser(t)
	thief.setCookies(stolen)
	wantSignedOut(t, thief.get("/"), "a copy of this browser's old cookie still signs in: the session id was not renewed")

	if p := s.browser(t).postLogin(email, old); p.status != http.StatusUnprocessableEntity {
		t.Errorf("the old password still signs in: %d", p.status)
	}
	s.browser(t).signIn(email, next)
}

func TestPasswordGuessesFromASessionAreLimited(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b, _ := s.newCustomer(t, "Eve Guess")
	b.get("/account")
	var last page
	for range 11 {
		last = b.post("/account/password", url.Values{"current_password": {"guess guess"}, "new_password": {"a new long password"}, "new_password_again": {"a new long password"}})
	}
	wantStatus(t, "the 11th wrong current password", last, http.StatusTooManyRequests)
	if last.testid("form-error").Text() == "" {
		t.Error("no message about the limit")
	}
}

func TestSavedAddresses(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b, id := s.newCustomer(t, "Grace Hopper")
	p := b.get("/account")
	if p.testid("addresses-empty").Length() != 1 || p.testid("address-form").Length() != 1 {
		t.Fatal("a new customer's account shows no empty address book with its form")
	}
	if n := p.doc.Find(`[data-testid="field-country"] option`).Length(); n != len(rules.Countries)+1 {
		t.Errorf("the country list has %d options, want %d and a prompt", n, len(rules.Countries))
	}

	// Bad input: every field at once, then a country that is no ISO code.
	p = b.post("/account/addresses", url.Values{"country": {""}})
	wantStatus(t, "empty address", p, http.StatusUnprocessableEntity)
	for _, f := range []string{"recipient", "street", "number", "zip", "city", "country"} {
		if p.testid("error-"+f).Text() == "" || p.testid("summary-link-"+f).Length() == 0 {
			t.Errorf("empty address: no message for %s at the field and in the summary", f)
		}
	}
	p = b.post("/account/addresses", addressForm("Storgatan", "XX"), "HX-Request", "true")
	wantStatus(t, "country XX", p, http.StatusUnprocessableEntity)
	if p.testid("error-country").Text() == "" || strings.Contains(p.body, "<html") {
		t.Errorf("country XX: %s", trim(p.body))
	}
	if v, _ := p.testid("field-street").Attr("value"); v != "Storgatan" {
		t.Errorf("the form lost the street: %q", v)
	}

	wantStatus(t, "add home", b.post("/account/addresses", addressForm("Storgatan", "SE")), http.StatusSeeOther)
	wantStatus(t, "add work", b.post("/account/addresses", addressForm("Karl Johans gate", "no")), http.StatusSeeOther)
	p = b.get("/account")
	rows := p.testid("address")
	if rows.Length() != 2 {
		t.Fatalf("%d addresses listed, want 2", rows.Length())
	}
	if !strings.Contains(rows.First().Text(), "Storgatan") || rows.First().Find(`[data-testid="address-default"]`).Length() != 1 {
		t.Errorf("the first address is not the default: %q", rows.First().Text())
	}
	if !strings.Contains(rows.Eq(1).Text(), "Norway") {
		t.Errorf("the country reads %q, want its name", rows.Eq(1).Find(`address`).Text())
	}
	work, _ := rows.Eq(1).Attr("data-address-id")

	// Make the second the default; then edit it.
	wantStatus(t, "make default", b.post("/account/addresses/"+work+"/default", url.Values{}), http.StatusSeeOther)
	p = b.get("/account")
	if got, _ := p.testid("address").First().Attr("data-address-id"); got != work || p.testid("address-default").Length() != 1 {
		t.Fatalf("after make default the first listed is %s, want %s, with one default", got, work)
	}
	p = b.get("/account/addresses/" + work)
	wantStatus(t, "edit form", p, http.StatusOK)
	if v, _ := p.doc.Find(`[data-testid="field-country"] option[selected]`).Attr("value"); v != "NO" {
		t.Errorf("the edit form has country %q selected", v)
	}
	bad := addressForm("", "NO")
	p = b.post("/account/addresses/"+work, bad)
	wantStatus(t, "edit with no street", p, http.StatusUnprocessableEntity)
	if p.testid("error-street").Text() == "" {
		t.Error("edit: no message at the street")
	}
	wantStatus(t, "edit", b.post("/account/addresses/"+work, addressForm("Drammensveien", "NO")), http.StatusSeeOther)
	book, err := s.env.Store.Addresses(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if def, ok := book.Default(); !ok || def.ID != work || def.Street != "Drammensveien" {
		t.Fatalf("stored default %+v", def)
	}

	// Someone else's or a missing address: nothing happens, and it says so.
	other, _ := s.newCustomer(t, "Other Person")
	other.get("/account")
	for _, path := range []string{"/account/addresses/" + work + "/delete", "/account/addresses/" + work + "/default"} {
		p := other.post(path, url.Values{})
		wantStatus(t, "someone else's "+path, p, http.StatusSeeOther)
		if msg := other.get("/account").testid("flash").Text(); !strings.Contains(msg, "no longer saved") {
			t.Errorf("%s: flash %q", path, msg)
		}
	}
	if p := other.get("/account/addresses/" + work); p.status != http.StatusNotFound {
		t.Errorf("someone else's edit form: %d", p.status)
	}
	if p := other.post("/account/addresses/"+work, addressForm("Hijack", "SE")); p.status != http.StatusNotFound {
		t.Errorf("someone else's edit: %d", p.status)
	}

	// Delete the default: none is default, one is left.
	wantStatus(t, "delete", b.post("/account/addresses/"+work+"/delete", url.Values{}), http.StatusSeeOther)
	p = b.get("/account")
	if p.testid("address").Length() != 1 || p.testid("address-default").Length() != 0 {
		t.Errorf("after deleting the default: %d addresses, %d defaults", p.testid("address").Length(), p.testid("address-default").Length())
	}

	// Up to the cap, then the form gives way to a note and a post is refused.
	for i := 1; i < store.MaxAddresses; i++ {
		wantStatus(t, "add "+itoa(i), b.post("/account/addresses", addressForm("Gatan "+itoa(i), "SE")), http.StatusSeeOther)
	}
	p = b.get("/account")
	if p.testid("addresses-full").Length() != 1 || p.testid("address-form").Length() != 0 {
		t.Error("a full address book still shows the add form")
	}
	p = b.post("/account/addresses", addressForm("One too many", "SE"))
	wantStatus(t, "the 11th address", p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.testid("form-error").Text(), "at most 10") {
		t.Errorf("the 11th address: %q", p.testid("form-error").Text())
	}
}

func TestCheckoutFillsInTheDefaultAddressAndSavesATypedOne(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b, id := s.newCustomer(t, "Grace Hopper")
	b.get("/account")
	wantStatus(t, "add home", b.post("/account/addresses", addressForm("Storgatan", "SE")), http.StatusSeeOther)
	wantStatus(t, "add work", b.post("/account/addresses", url.Values{"recipient": {"G. Hopper"}, "street": {"Karl Johans gate"}, "number": {"22"},
		"zip": {"0159"}, "city": {"Oslo"}, "country": {"NO"}, "default": {"yes"}}), http.StatusSeeOther)
	b.addToCart("cf-grinder", "1")

	p := b.get("/checkout")
	wantStatus(t, "checkout", p, http.StatusOK)
	value := func(p page, f string) string { v, _ := p.testid("field-" + f).Attr("value"); return v }
	if value(p, "street") != "Karl Johans gate" || value(p, "city") != "Oslo" || value(p, "name") != "G. Hopper" {
		t.Errorf("checkout filled in %q %q %q, want the default address", value(p, "name"), value(p, "street"), value(p, "city"))
	}
	if v, _ := p.doc.Find(`[data-testid="field-country"] option[selected]`).Attr("value"); v != "NO" {
		t.Errorf("checkout's country is %q, want NO", v)
	}
	links := p.testid("saved-address")
	if links.Length() != 2 {
		t.Fatalf("%d saved addresses offered, want 2", links.Length())
	}
	home, _ := links.Eq(1).Attr("href")
	p = b.get(home)
	if value(p, "street") != "Storgatan" {
		t.Errorf("the other saved address's link fills in %q", value(p, "street"))
	}

	// Place an order to a typed address, saving it; then again: not twice.
	for range 2 {
		key, total := b.checkoutPage()
		f := checkoutForm(key, total)
		f.Set("country", "FI")
		f.Set("city", "Helsinki")
		f.Set("save_address", "yes")
		p = s.placeOrder(t, b, f)
		wantStatus(t, "place order", p, http.StatusSeeOther)
		b.addToCart("cf-grinder", "1")
	}
	book, err := s.env.Store.Addresses(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(book.Addresses) != 3 {
		t.Fatalf("%d saved addresses after two orders to one new address, want 3", len(book.Addresses))
	}
	orders, err := s.env.Store.CustomerOrders(context.Background(), id, 5, "")
	if err != nil || len(orders.Items) == 0 || orders.Items[0].ShipTo.Country != "Finland" {
		t.Fatalf("the order ships to %+v (%v), want the country by name", orders, err)
	}
}

func TestHeaderCartCountFollowsTheCart(t *testing.T) {
	t.Parallel()
	s := newShop(t, withoutBackgroundReads)
	b := s.browser(t)
	if n := headerCartCount(t, b.get("/")); n != 0 {
		t.Fatalf("a new visitor's cart count is %d", n)
	}
	// htmx: the answer carries the header's counts out of band.
	p := b.addToCart("cf-grinder", "2", "HX-Request", "true")
	if p.doc.Find(`#cart-count[hx-swap-oob="true"]`).Length() != 1 || headerCartCount(t, p) != 2 {
		t.Fatalf("htmx add: no out-of-band count of 2: %s", trim(p.body))
	}
	b.addToCart("bk-fjord", "1")
	if n := headerCartCount(t, b.get("/")); n != 3 {
		t.Fatalf("after adding 2 and 1 the header says %d", n)
	}
	wantStatus(t, "set quantity", b.post("/cart/items/cf-grinder", url.Values{"quantity": {"4"}}), http.StatusSeeOther)
	if n := headerCartCount(t, b.get("/products")); n != 5 {
		t.Fatalf("after setting 4 the header says %d", n)
	}
	p = b.post("/cart/items/bk-fjord/remove", url.Values{}, "HX-Request", "true")
	if n := headerCartCount(t, p); n != 4 {
		t.Fatalf("htmx remove: out-of-band count %d, want 4", n)
	}

	// Sign in as a customer whose cart has 1 already: the merge's count.
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	ada.addToCart("cf-light", "1")
	ada.post("/logout", url.Values{})
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	var before int
	if p := b.get("/"); p.testid("viewer-name").Length() == 1 {
		before = headerCartCount(t, p)
	}
	adaCart, err := s.env.Store.Cart(context.Background(), store.CustomerOwner(s.customerID(t, demo.CustomerEmail)))
	if err != nil {
		t.Fatal(err)
	}
	if before != adaCart.Units() || before < 5 {
		t.Fatalf("after the sign-in merge the header says %d, the cart holds %d", before, adaCart.Units())
	}

	// Reading the count costs nothing: a page shows it from the session
	// (the shop window warm, the page reads only the session).
	b.get("/products?category=coffee")
	s.env.Counter.Reset()
	headerCartCount(t, b.get("/products?category=coffee"))
	if n := s.env.Counter.Total(); n > 1 {
		t.Errorf("a catalogue page with the cart count made %d requests %v", n, s.env.Counter.Ops())
	}

	// Checkout empties it.
	wantStatus(t, "place order", s.placeOrder(t, b, b.freshCheckoutForm()), http.StatusSeeOther)
	if n := headerCartCount(t, b.get("/")); n != 0 {
		t.Fatalf("after checkout the header says %d", n)
	}
	// Signing out forgets it (the next visitor's cart is empty).
	b.post("/logout", url.Values{})
	if n := headerCartCount(t, b.get("/")); n != 0 {
		t.Fatalf("after sign-out the header says %d", n)
	}
}
