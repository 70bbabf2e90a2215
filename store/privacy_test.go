package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/storetest"
)

// adaWithEverything is the demo shop with Ada holding one of each thing
// the shop keeps about a person: to her six orders, three subscriptions
// and their receipts it adds an address, a cart line, a session, a drop
// ticket, two mails (one naming her, one only to her address), a sign-in
// from an address and its rate-limit counters; and a mail to someone else.
type adaFixture struct {
	env     storetest.Env
	ada     store.Customer
	session string
}

func adaWithEverything(t *testing.T) adaFixture {
	t.Helper()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	if _, err := demo.Load(ctx, st, 4); err != nil {
		t.Fatal(err)
	}
	cred, err := st.CredentialsByEmail(ctx, demo.CustomerEmail)
	if err != nil {
		t.Fatal(err)
	}
	ada, err := st.Customer(ctx, cred.CustomerID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddAddress(ctx, ada.ID, store.Address{Name: "Ada Lindqvist", Street: "Linnégatan", Number: "21", ZipCode: "41304", City: "Göteborg", Country: "SE"}, true); err != nil {
		t.Fatal(err)
	}
	p, err := st.Product(ctx, "cf-light")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddToCart(ctx, store.CustomerOwner(ada.ID), p, 2); err != nil {
		t.Fatal(err)
	}
	session := store.NewID()
	if err := st.SaveSession(ctx, store.Session{ID: session, Data: []byte("Ada Lindqvist"), ExpiresAt: time.Now().Add(time.Hour), CustomerID: ada.ID, Device: "Firefox on Linux"}, true); err != nil {
		t.Fatal(err)
	}
	drops, err := st.PublishedDrops(ctx, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	claimed := false
	for _, d := range drops.Items {
		if d.Opens.Before(time.Now()) {
			if _, err := st.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: ada.ID, CustomerID: ada.ID, DropTitle: d.Title}, len(d.Counters) > 0); err != nil {
				t.Fatal(err)
			}
			claimed = true
			break
		}
	}
	if !claimed {
		t.Fatal("the demo has no open drop to claim")
	}
	for i, m := range []store.Mail{
		{To: ada.Email, CustomerID: ada.ID, Subject: "Your receipt, Ada Lindqvist"},
		{To: ada.Email, Subject: "Your drop was cancelled"},
		{To: "henrik@fikafield.example", CustomerID: "someone-else", Subject: "Not Ada's"},
	} {
		m.ID, m.Kind, m.Text, m.Status = fmt.Sprintf("test-mail-%d", i), store.MailReceipt, "Hello "+m.To, store.MailKept
		m.CreatedAt = time.Now()
		if err := st.PutMail(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	const addr = "203.0.113.5"
	if err := st.RecordSignIn(ctx, ada.Email, cred, addr); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"login-email", ada.Email}, {"login-email-addr", ada.Email + " " + addr}} {
		if _, err := st.CountAttempt(ctx, l[0], l[1], time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	return adaFixture{env: env, ada: ada, session: session}
}

func TestCustomerDataHoldsEverythingAboutTheCustomer(t *testing.T) {
	t.Parallel()
	f := adaWithEverything(t)
	st, ctx := f.env.Store, ctxT(t)
	var d store.CustomerData
	// The customer, then in parallel: the email item, the address book, the
	// cart, the orders, the expired ones and each of the six orders'
	// collections, the subscriptions, the receipts, the tickets, the
	// sessions, the mails, the role changes and the shop events carrying
	// her data (none here).
	f.env.Costs(t, "Ada's data", 19, func() {
		var err error
		if d, err = st.CustomerData(ctx, f.ada.ID); err != nil {
			t.Fatal(err)
		}
	})
	if d.Customer.Email != demo.CustomerEmail || d.Customer.Name != "Ada Lindqvist" {
		t.Errorf("customer %+v", d.Customer)
	}
	// She paid on the test provider's page: her customer there is hers.
	if ref := d.Customer.ProviderCustomers[payment.ProviderTest]; !strings.HasPrefix(ref, "cus_test_") || len(d.Customer.ProviderCustomers) != 1 {
		t.Errorf("her customers at the card providers: %v", d.Customer.ProviderCustomers)
	}
	if len(d.SignInAddresses) == 0 || d.SignInAddresses[0] != "203.0.113.5" {
		t.Errorf("sign-in addresses %v", d.SignInAddresses)
	}
	if len(d.Addresses.Addresses) != 1 || len(d.Cart.Lines) != 1 {
		t.Errorf("addresses %+v, cart %+v", d.Addresses, d.Cart)
	}
	if len(d.Orders) != 6 {
		t.Fatalf("%d orders, want Ada's six", len(d.Orders))
	}
	for _, o := range d.Orders {
		if _, ok := o.Invoice(); !ok || len(o.Items) == 0 || o.Order.CustomerID != f.ada.ID {
			t.Errorf("order %s: %d items, %d invoices", o.Order.Number, len(o.Items), len(o.Invoices))
		}
	}
	shipped := 0
	for _, o := range d.Orders {
		shipped += len(o.Shipments)
	}
	if shipped == 0 {
		t.Error("no shipments among Ada's orders")
	}
	if len(d.Subscriptions) != 3 || len(d.Receipts) == 0 {
		t.Errorf("%d subscriptions, %d receipts", len(d.Subscriptions), len(d.Receipts))
	}
	if len(d.Tickets) != 1 || len(d.Sessions) != 1 || d.Sessions[0].ID != f.session {
		t.Errorf("tickets %+v, sessions %+v", d.Tickets, d.Sessions)
	}
	var subjects []string
	for _, m := range d.Mails {
		subjects = append(subjects, m.Subject)
	}
	if strings.Join(subjects, "|") != "Your drop was cancelled|Your receipt, Ada Lindqvist" &&
		strings.Join(subjects, "|") != "Your receipt, Ada Lindqvist|Your drop was cancelled" {
		t.Errorf("mails %v, want Ada's two", subjects)
	}

	// What her deletion costs, in one go (docs/privacy.md).
	shipWaitingOrders(t, st, f.ada.ID)
	f.env.Counter.Reset()
	if err := st.DeleteCustomer(ctx, f.ada.ID); err != nil {
		t.Fatal(err)
	}
	t.Logf("Ada's deletion: %d requests %v", f.env.Counter.Total(), f.env.Counter.Ops())
}

// crashingStore is a store over the test's table whose requests fail from
// the n-th on, as if the process died there.
func crashingStore(env storetest.Env, n int32) *store.Store {
	var count atomic.Int32
	o := env.Client.Options()
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("crash",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if count.Add(1) >= n {
					return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("the process died")
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
	})
	return store.New(dynamodb.New(o), env.Table)
}

// shipWaitingOrders ships every order of the customer that waits.
func shipWaitingOrders(t *testing.T, st *store.Store, customerID string) {
	t.Helper()
	ctx := ctxT(t)
	orders, err := st.CustomerOrders(ctx, customerID, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	staff := store.Customer{ID: "staff", Name: "Sam Staff", Role: store.RoleStaff}
	for _, o := range orders.Items {
		if o.Status != store.OrderPlaced && o.Status != store.OrderShipping {
			continue
		}
		d, err := st.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		shs := d.Shipments
		if len(shs) == 0 {
			if shs, err = st.CreateShipments(ctx, o.ID, "Standard"); err != nil {
				t.Fatal(err)
			}
		}
		for _, sh := range shs {
			if sh.Status != store.ShipmentPending {
				continue
			}
			step := store.ShipmentStep{To: store.ShipmentShipped, Carrier: "other", Tracking: "PARCEL-" + sh.ID, Version: sh.Version}
			if _, err := st.ChangeShipment(ctx, o.ID, sh.ID, step, staff); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// stringsIn are every string of an item, keys and nested values alike.
func stringsIn(v types.AttributeValue, out *[]string) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		*out = append(*out, v.Value)
	case *types.AttributeValueMemberSS:
		*out = append(*out, v.Value...)
	case *types.AttributeValueMemberB:
		*out = append(*out, string(v.Value))
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			stringsIn(e, out)
		}
	case *types.AttributeValueMemberM:
		for k, e := range v.Value {
			*out = append(*out, k)
			stringsIn(e, out)
		}
	}
}

// mentions scans the whole table for items holding any of words (case
// ignored) and names them.
func mentions(t *testing.T, env storetest.Env, words ...string) []string {
	t.Helper()
	var found []string
	for _, item := range env.Items(t) {
		var texts []string
		stringsIn(&types.AttributeValueMemberM{Value: item}, &texts)
		for _, s := range texts {
			for _, w := range words {
				if strings.Contains(strings.ToLower(s), strings.ToLower(w)) {
					pk, sk := item["PK"].(*types.AttributeValueMemberS), item["SK"].(*types.AttributeValueMemberS)
					found = append(found, fmt.Sprintf("%s/%s holds %q", pk.Value, sk.Value, s))
				}
			}
		}
	}
	return found
}

// books is what the books hold of a customer's orders: each order's
// number, total, invoice amount and payments.
func books(t *testing.T, st *store.Store, customerID string) map[string]string {
	t.Helper()
	ctx := ctxT(t)
	orders, err := st.CustomerOrders(ctx, customerID, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range orders.Items {
		d, err := st.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		inv, _ := d.Invoice()
		lines := 0
		for _, it := range d.Items {
			lines += int(it.LineTotal().Amount)
		}
		out[o.Number] = fmt.Sprintf("total %v subtotal %v discount %v lines %d invoice %v %v %+v", d.Order.Total, d.Order.Subtotal, d.Order.Discount, lines, inv.ID, inv.Amount, inv.Payments)
	}
	return out
}

func TestDeleteCustomerErasesThePersonAndKeepsTheBooks(t *testing.T) {
	t.Parallel()
	f := adaWithEverything(t)
	st, ctx, ada := f.env.Store, ctxT(t), f.ada
	// Her customer at the test provider, where she paid, goes too.
	tp, err := payment.NewTestProvider(ctx, st, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	st.EraseProviderCustomersWith(payment.NewProviders(tp))
	providerRef := ada.ProviderCustomers[payment.ProviderTest]
	if _, err := st.TestPayCustomer(ctx, providerRef); err != nil {
		t.Fatalf("her customer at the test provider %q: %v", providerRef, err)
	}

	// Her last order has not shipped: its address is still needed.
	err = st.DeleteCustomer(ctx, ada.ID)
	var toShip *store.OrderToShipError
	if !errors.As(err, &toShip) || !errors.Is(err, store.ErrOrderToShip) || toShip.Number == "" {
		t.Fatalf("delete with an order to ship: %v", err)
	}
	if _, err := st.CredentialsByEmail(ctx, ada.Email); err != nil {
		t.Fatalf("a refused deletion changed the account: %v", err)
	}
	// A password reset mailed to her: its link's item holds her email.
	link := store.NewAccountLink(store.LinkResetPassword, ada, st.Now(), store.ResetLinkLife)
	if err := st.MailAccountLink(ctx, link, store.Mail{ID: "reset-" + ada.ID, To: ada.Email, Kind: store.MailPasswordReset,
		CustomerID: ada.ID, CreatedAt: st.Now(), Status: store.MailPending}); err != nil {
		t.Fatal(err)
	}
	if found := mentions(t, f.env, demo.CustomerEmail); len(found) < 10 {
		t.Fatalf("the scan finds her only %d times before the deletion: %v", len(found), found)
	}
	shipWaitingOrders(t, st, ada.ID)
	before := books(t, st, ada.ID)
	receiptsBefore, err := st.RecentReceipts(ctx, ada.ID, 100, "")
	if err != nil {
		t.Fatal(err)
	}

	// The process dies midway: the account is closing, and a rerun ends it.
	if err := crashingStore(f.env, 12).DeleteCustomer(ctx, ada.ID); err == nil {
		t.Fatal("the crashing deletion did not fail")
	}
	mid, err := st.Customer(ctx, ada.ID)
	if err != nil || !mid.Closing || mid.Deleted() {
		t.Fatalf("after the crash: %+v, %v", mid, err)
	}
	if _, err := st.CredentialsByEmail(ctx, ada.Email); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("sign-in still finds the closing account: %v", err)
	}
	if n, err := st.FinishDeletions(ctx, time.Now().Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("finish deletions: %d, %v", n, err)
	}
	// And again: nothing left to do.
	if err := st.DeleteCustomer(ctx, ada.ID); err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if n, err := st.FinishDeletions(ctx, time.Now().Add(time.Minute)); err != nil || n != 0 {
		t.Fatalf("finish deletions after: %d, %v", n, err)
	}

	// Nothing in the whole table names her, her email or her street.
	if found := mentions(t, f.env, "Ada Lindqvist", "Lindqvist", demo.CustomerEmail, "Linnégatan"); len(found) > 0 {
		t.Errorf("after deletion the table still holds her:\n%s", strings.Join(found, "\n"))
	}
	gone, err := st.Customer(ctx, ada.ID)
	if err != nil || !gone.Deleted() || gone.Closing || gone.Name != "" || gone.Email != "" || !gone.LastSignInAt.IsZero() {
		t.Errorf("the customer item: %+v, %v", gone, err)
	}
	if _, err := st.Session(ctx, f.session); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("her session still stands: %v", err)
	}
	if _, err := st.TestPayCustomer(ctx, providerRef); !errors.Is(err, store.ErrNotFound) || len(gone.ProviderCustomers) != 0 {
		t.Errorf("her customer at the test provider: %v; still named %v", err, gone.ProviderCustomers)
	}
	subs, err := st.Subscriptions(ctx, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range subs {
		if s.Status != store.SubscriptionCancelled || s.Card.Token != "" || !s.NextPaymentDate.IsZero() {
			t.Errorf("subscription %s: %s, token %q, next payment %v", s.ID, s.Status, s.Card.Token, s.NextPaymentDate)
		}
	}
	tickets, err := st.CustomerTickets(ctx, ada.ID, 10, "")
	if err != nil || len(tickets.Items) != 1 || tickets.Items[0].Status != store.TicketVoid {
		t.Errorf("tickets %+v, %v", tickets.Items, err)
	}
	cart, err := st.Cart(ctx, store.CustomerOwner(ada.ID))
	if err != nil || len(cart.Lines) != 0 {
		t.Errorf("cart %+v, %v", cart, err)
	}

	// The books: every order, total, invoice and payment as it was, the
	// buyer a deleted customer, the address only its country.
	after := books(t, st, ada.ID)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the books changed:\nbefore %v\nafter  %v", before, after)
	}
	orders, err := st.CustomerOrders(ctx, ada.ID, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range orders.Items {
		d, err := st.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		inv, _ := d.Invoice()
		if d.Order.Buyer.Name != store.DeletedCustomerName || d.Order.Buyer.Email != "" || inv.Buyer.Name != store.DeletedCustomerName || d.Items[0].Buyer.Email != "" {
			t.Errorf("order %s buyer %+v, invoice buyer %+v", o.Number, d.Order.Buyer, inv.Buyer)
		}
		if d.Order.ShipTo != (store.Address{Country: "Sweden"}) {
			t.Errorf("order %s ships to %+v", o.Number, d.Order.ShipTo)
		}
		for _, sh := range d.Shipments {
			if sh.ShipTo != (store.Address{Country: "Sweden"}) {
				t.Errorf("shipment %s to %+v", sh.ID, sh.ShipTo)
			}
		}
	}
	receiptsAfter, err := st.RecentReceipts(ctx, ada.ID, 100, "")
	if err != nil || len(receiptsAfter.Items) != len(receiptsBefore.Items) {
		t.Errorf("receipts %d before, %d after, %v", len(receiptsBefore.Items), len(receiptsAfter.Items), err)
	}
	// Someone else's mail stays.
	if found := mentions(t, f.env, "Not Ada's"); len(found) != 1 {
		t.Errorf("the other mail: %v", found)
	}

	// The address can sign up again, as a new customer.
	again, err := st.CreateCustomer(ctx, store.NewCustomer{Email: demo.CustomerEmail, Name: "Ada Again", PasswordHash: "x"})
	if err != nil || again.ID == ada.ID {
		t.Fatalf("sign up again: %+v, %v", again, err)
	}
	// A deletion run again after that leaves the new account alone.
	if err := st.DeleteCustomer(ctx, ada.ID); err != nil {
		t.Fatal(err)
	}
	if cred, err := st.CredentialsByEmail(ctx, demo.CustomerEmail); err != nil || cred.CustomerID != again.ID {
		t.Errorf("the new account: %+v, %v", cred, err)
	}
}

func TestStaffCannotDeleteTheirAccountFromTheAccountPage(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "sam@example.com", Name: "Sam", PasswordHash: "x", Role: store.RoleStaff})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteCustomer(ctx, c.ID); !errors.Is(err, store.ErrStaffAccount) {
		t.Fatalf("staff deletion: %v", err)
	}
	if err := st.DeleteCustomer(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown customer: %v", err)
	}
}

// Two tabs, a double click: every deletion of the account at once
// succeeds, and the account ends deleted once.
func TestDeletionsAtOnceAllEndTheAccount(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "twice@example.com", Name: "Twice Clicked", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddAddress(ctx, c.ID, store.Address{Name: "Twice Clicked", Street: "Storgatan", Number: "1", ZipCode: "11122", City: "Stockholm", Country: "SE"}, true); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := st.SaveSession(ctx, store.Session{ID: store.NewID(), ExpiresAt: time.Now().Add(time.Hour), CustomerID: c.ID, Device: "a tab"}, true); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = st.DeleteCustomer(ctx, c.ID) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("deletion %d: %v", i, err)
		}
	}
	gone, err := st.Customer(ctx, c.ID)
	if err != nil || !gone.Deleted() || gone.Name != "" {
		t.Errorf("the customer: %+v, %v", gone, err)
	}
	if found := mentions(t, env, "Twice Clicked", "twice@example.com"); len(found) > 0 {
		t.Errorf("left behind:\n%s", strings.Join(found, "\n"))
	}
}
