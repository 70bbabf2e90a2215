package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
)

func TestAccountDataDownloadsAsJSON(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	if p := b.get("/account/data"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Fatalf("signed out: status %d to %q", p.status, p.header.Get("Location"))
	}
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p := b.get("/account")
	wantStatus(t, "account page", p, http.StatusOK)
	if href, _ := p.testid("account-data-download").Attr("href"); href != "/account/data" {
		t.Fatalf("the download link goes to %q", href)
	}

	// Her customer at Stripe, kept by her first card payment there, beside
	// the test provider's, where the demo's subscriptions were paid.
	if err := s.env.Store.SetProviderCustomer(context.Background(), s.customerID(t, demo.CustomerEmail), "stripe", "cus_ada_test"); err != nil {
		t.Fatal(err)
	}
	p = b.get("/account/data")
	wantStatus(t, "data", p, http.StatusOK)
	if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("content type %q", ct)
	}
	if cd := p.header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="fika-and-field-data-`) {
		t.Errorf("content disposition %q", cd)
	}
	var doc struct {
		Account struct {
			Email, Name           string
			CardProviderCustomers map[string]string
		}
		SignIns   struct{ RecentAddresses []string }
		Addresses []any
		Orders    []struct {
			Number    string
			Buyer     struct{ Name, Email string }
			Total     struct{ Cents int64 }
			Items     []struct{ Product string }
			Invoices  []struct{ Payments []struct{ Method string } }
			Shipments []struct{ Status string }
		}
		Subscriptions []struct{ Status, Card string }
		Receipts      []struct{ Number string }
		DropTickets   []any
		Sessions      []map[string]any
		Mails         []any
	}
	if err := json.Unmarshal([]byte(p.body), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, trim(p.body))
	}
	if doc.Account.Email != demo.CustomerEmail || doc.Account.Name != "Ada Lindqvist" || len(doc.SignIns.RecentAddresses) == 0 ||
		doc.Account.CardProviderCustomers["stripe"] != "cus_ada_test" || !strings.HasPrefix(doc.Account.CardProviderCustomers["test"], "cus_test_") {
		t.Errorf("account %+v, sign-ins %+v", doc.Account, doc.SignIns)
	}
	if len(doc.Orders) != 6 {
		t.Fatalf("%d orders, want Ada's six", len(doc.Orders))
	}
	shipments := 0
	for _, o := range doc.Orders {
		if o.Number == "" || o.Buyer.Email != demo.CustomerEmail || o.Total.Cents <= 0 || len(o.Items) == 0 || len(o.Invoices) != 1 || len(o.Invoices[0].Payments) == 0 {
			t.Errorf("order %+v", o)
		}
		shipments += len(o.Shipments)
	}
	if shipments == 0 {
		t.Error("no shipments in the export")
	}
	if len(doc.Subscriptions) != 3 || len(doc.Receipts) == 0 || doc.Subscriptions[0].Card == "" {
		t.Errorf("%d subscriptions (%+v), %d receipts", len(doc.Subscriptions), doc.Subscriptions, len(doc.Receipts))
	}
	if len(doc.Sessions) != 1 || doc.Sessions[0]["thisBrowser"] != true {
		t.Errorf("sessions %v", doc.Sessions)
	}
	// No secrets: no session id or data, no password hash, no card token.
	for _, sess := range doc.Sessions {
		for _, k := range []string{"id", "data", "handle"} {
			if _, ok := sess[k]; ok {
				t.Errorf("a session carries %q", k)
			}
		}
	}
	id := s.customerID(t, demo.CustomerEmail)
	subs, err := s.env.Store.Subscriptions(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"$2a$", "PasswordHash"}
	for _, sub := range subs {
		if sub.Card.Token != "" {
			secrets = append(secrets, sub.Card.Token)
		}
	}
	for _, c := range b.cookies() {
		if c.Name == "shop_session" {
			secrets = append(secrets, c.Value)
		}
	}
	for _, secret := range secrets {
		if strings.Contains(p.body, secret) {
			t.Errorf("the export holds a secret: %q", secret)
		}
	}
}

func TestDeletingTheAccountErasesThePersonAndSignsOut(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	b, id := s.newCustomer(t, "Grace Hopper")
	const email, password = "grace.hopper@example.com", "a long enough password"
	wantStatus(t, "save an address", b.get("/account"), http.StatusOK)
	wantStatus(t, "save an address", b.post("/account/addresses", addressForm("Birger Jarlsgatan", "SE")), http.StatusSeeOther)
	order := newOrderMaker(t, s.env.Store).place(s.env.Store, id, line("cf-light", 2))
	other := s.browser(t) // her other browser, signed in too
	other.signIn(email, password)
	wantSignedIn(t, other.get("/account"), "the other browser is not signed in")

	p := b.get("/account")
	if href, _ := p.testid("account-delete-link").Attr("href"); href != "/account/delete" {
		t.Fatalf("the delete link goes to %q", href)
	}
	p = b.get("/account/delete")
	wantStatus(t, "delete page", p, http.StatusOK)
	if p.testid("delete-account-form").Length() != 1 || p.testid("delete-account-kept").Text() == "" {
		t.Fatal("the delete page has no form or does not say what is kept")
	}
	for _, bad := range []string{"", "not her password"} {
		p = b.post("/account/delete", url.Values{"password": {bad}})
		wantStatus(t, fmt.Sprintf("password %q", bad), p, http.StatusUnprocessableEntity)
		if p.testid("error-password").Text() == "" || p.testid("error-summary").Length() == 0 {
			t.Errorf("password %q: no message at the field", bad)
		}
	}
	if _, err := s.env.Store.CredentialsByEmail(ctx, email); err != nil {
		t.Fatalf("a wrong password changed the account: %v", err)
	}

	// Her order has not shipped: its address is still needed.
	p = b.post("/account/delete", url.Values{"password": {password}})
	wantStatus(t, "order to ship", p, http.StatusConflict)
	if msg := p.testid("error-summary").Text(); !strings.Contains(msg, order.Number) {
		t.Errorf("the refusal does not name the order: %q", msg)
	}
	shipOrder(t, s.env.Store, order.ID)
	before, err := s.env.Store.OrderDetails(ctx, order.ID)
	if err != nil {
		t.Fatal(err)
	}

	p = b.post("/account/delete", url.Values{"password": {password}})
	wantStatus(t, "delete", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/" {
		t.Errorf("deletion goes to %q", loc)
	}
	p = b.get("/")
	wantSignedOut(t, p, "still signed in after deleting the account")
	if !strings.Contains(p.testid("flash").Text(), "account is deleted") {
		t.Errorf("flash %q", p.testid("flash").Text())
	}
	// The other browser's cookie is signed out too.
	p = other.get("/account")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Errorf("the other browser: status %d to %q", p.status, p.header.Get("Location"))
	}
	if p := other.postLogin(email, password); p.status == http.StatusSeeOther {
		t.Error("the deleted account signs in")
	}

	// The books: the order as it was, without her.
	after, err := s.env.Store.OrderDetails(ctx, order.ID)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := after.Invoice()
	beforeInv, _ := before.Invoice()
	if after.Order.Total != before.Order.Total || inv.Amount != beforeInv.Amount || fmt.Sprint(inv.Payments) != fmt.Sprint(beforeInv.Payments) {
		t.Errorf("the books changed: %+v / %+v, now %+v / %+v", before.Order, beforeInv, after.Order, inv)
	}
	if after.Order.Buyer.Name != store.DeletedCustomerName || after.Order.ShipTo != (store.Address{Country: "Sweden"}) {
		t.Errorf("the order keeps %+v, %+v", after.Order.Buyer, after.Order.ShipTo)
	}

	// Staff see an account was deleted, not whose.
	staff := s.staff(t)
	p = staff.get("/admin/customers")
	wantStatus(t, "customers", p, http.StatusOK)
	found := false
	p.testid("admin-customer-row").Each(func(_ int, row *goquerySelection) {
		if href, _ := row.Find(`[data-testid="admin-customer-link"]`).Attr("href"); href == "/admin/customers/"+id {
			found = true
			if row.Find(`[data-testid="admin-customer-link"]`).Text() != "Deleted account" || row.Find(`[data-testid="customer-deleted"]`).Length() != 1 {
				t.Errorf("the row reads %q", strings.Join(strings.Fields(row.Text()), " "))
			}
		}
	})
	if !found {
		t.Error("the deleted account is not on the customers page")
	}
	p = staff.get("/admin/customers/" + id)
	wantStatus(t, "deleted customer", p, http.StatusOK)
	if p.testid("customer-name").Text() != "Deleted account" || p.testid("customer-access-actions").Length() != 0 ||
		p.testid("customer-state").Text() != "deleted by the customer" {
		t.Errorf("the staff page: %q, %d action blocks", p.testid("customer-name").Text(), p.testid("customer-access-actions").Length())
	}
	for _, pg := range []page{p, staff.get("/admin/customers"), staff.get("/admin/orders/" + order.ID)} {
		for _, word := range []string{"Grace", "Hopper", email, "Birger"} {
			if strings.Contains(pg.body, word) {
				t.Errorf("a staff page still shows %q", word)
			}
		}
	}

	// The address can sign up again.
	again := s.browser(t)
	again.get("/signup")
	wantStatus(t, "sign up again", again.post("/signup", url.Values{"email": {email}, "name": {"Grace Again"}, "password": {password}}), http.StatusSeeOther)
}

// shipOrder ships every shipment of an order (made first if it has none).
func shipOrder(t *testing.T, st *store.Store, orderID string) {
	t.Helper()
	ctx := context.Background()
	shs, err := st.CreateShipments(ctx, orderID, "Standard")
	if err != nil {
		t.Fatal(err)
	}
	staff := store.Customer{ID: "staff", Name: "Sam Staff", Role: store.RoleStaff}
	for _, sh := range shs {
		step := store.ShipmentStep{To: store.ShipmentShipped, Carrier: "other", Tracking: "PARCEL-" + sh.ID, Version: sh.Version}
		if _, err := st.ChangeShipment(ctx, orderID, sh.ID, step, staff); err != nil {
			t.Fatal(err)
		}
	}
}
