package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest/paytest"
)

// staff is a browser signed in as the demo staff member.
func (s *shop) staff(t *testing.T) *browser {
	t.Helper()
	b := s.browser(t)
	b.signIn(demo.StaffEmail, demo.StaffPassword)
	return b
}

// customerID is the id of a demo account.
func (s *shop) customerID(t *testing.T, email string) string {
	t.Helper()
	cred, err := s.env.Store.CredentialsByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return cred.CustomerID
}

// orderMaker places orders straight through the store, as the shop does:
// held, paid on the test provider's page with its Visa, and placed with
// that payment.
type orderMaker struct {
	t *testing.T
	n int
}

func newOrderMaker(t *testing.T, _ *store.Store) *orderMaker {
	return &orderMaker{t: t}
}

// place checks out the lines for the customer through st (whose clock says
// when the order is placed).
func (m *orderMaker) place(st *store.Store, customerID string, lines ...store.CheckoutLine) store.Order {
	m.t.Helper()
	m.n++
	// As the checkout handler does: the order keeps the buyer as they are.
	buyer, err := st.Customer(context.Background(), customerID)
	if err != nil {
		m.t.Fatal(err)
	}
	o, err := paytest.New(m.t, st).Checkout(context.Background(), store.CheckoutRequest{
		Key: fmt.Sprintf("admin-test-%03d", m.n), CustomerID: customerID, Lines: lines,
		Buyer:  store.Buyer{Name: buyer.Name, Email: buyer.Email},
		ShipTo: store.Address{Name: "Ada Lindqvist", Street: "Storgatan", Number: "1", ZipCode: "50330", City: "Borås", Country: "Sweden"},
	})
	if err != nil {
		m.t.Fatalf("place order %d: %v", m.n, err)
	}
	return o
}

// storeAt is the test's store with a clock stopped at t.
func (s *shop) storeAt(t time.Time) *store.Store {
	return store.New(s.env.Client, s.env.Table, store.WithClock(func() time.Time { return t }))
}

func line(product string, qty int) store.CheckoutLine {
	return store.CheckoutLine{ProductID: product, Quantity: qty}
}

func stockIn(t *testing.T, s *shop, product, warehouse string) int {
	t.Helper()
	levels, err := s.env.Store.ProductStock(context.Background(), product)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range levels {
		if l.WarehouseID == warehouse {
			return l.Quantity
		}
	}
	return -1
}

func wantText(t *testing.T, what string, sel *goquerySelection, want string) {
	t.Helper()
	if got := strings.Join(strings.Fields(sel.Text()), " "); !strings.Contains(got, want) {
		t.Fatalf("%s: %q does not say %q", what, got, want)
	}
}
