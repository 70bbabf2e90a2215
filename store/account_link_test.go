package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

func linkMail(kind store.MailKind) func(store.Customer, store.AccountLink) store.Mail {
	return func(c store.Customer, l store.AccountLink) store.Mail {
		return store.Mail{ID: string(kind) + "-" + l.CreatedAt.Format("150405.000") + "-" + c.ID, To: l.Email, Kind: kind,
			Subject: "link", Text: "/x?t=" + l.Secret, CustomerID: c.ID, CreatedAt: l.CreatedAt, Status: store.MailPending}
	}
}

// outboxOf is every mail of kind in the outbox.
func outboxOf(t *testing.T, st *store.Store, kind store.MailKind) []store.Mail {
	t.Helper()
	p, err := st.Outbox(ctxT(t), 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Mail
	for _, m := range p.Items {
		if m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}

// A sign-up with a verification mail writes the account unverified, its
// link and its mail in the one transaction; the link verifies once.
func TestSignUpMailsAVerificationLinkThatWorksOnce(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	var link store.AccountLink
	mail := linkMail(store.MailVerifyEmail)
	env.Counter.Reset()
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "New@Example.com", Name: "New", PasswordHash: "h",
		VerifyMail: func(c store.Customer, l store.AccountLink) store.Mail { link = l; return mail(c, l) }})
	if err != nil {
		t.Fatal(err)
	}
	if ops := env.Counter.Ops(); ops["TransactWriteItems"] != 1 || env.Counter.Total() != 1 {
		t.Fatalf("sign-up made %v, want one transaction", ops)
	}
	if got, err := st.Customer(ctx, c.ID); err != nil || !got.EmailUnverified {
		t.Fatalf("customer %+v, %v: want unverified", got, err)
	}
	if m := outboxOf(t, st, store.MailVerifyEmail); len(m) != 1 || m[0].To != "new@example.com" || m[0].Status != store.MailPending {
		t.Fatalf("outbox holds %+v, want one pending verification mail", m)
	}
	if link.ValidUntil.Sub(link.CreatedAt) != store.VerifyLinkLife || link.Secret == "" {
		t.Fatalf("link %+v", link)
	}
	if _, err := st.VerifyEmail(ctx, link.Secret); err != nil {
		t.Fatal(err)
	}
	got, err := st.Customer(ctx, c.ID)
	if err != nil || got.EmailUnverified || got.EmailVerifiedAt.IsZero() {
		t.Fatalf("after the link: %+v, %v", got, err)
	}
	if _, err := st.VerifyEmail(ctx, link.Secret); !errors.Is(err, store.ErrLinkUsed) {
		t.Fatalf("second use: %v, want ErrLinkUsed", err)
	}
	if _, err := st.VerifyEmail(ctx, "made-up"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown link: %v, want ErrNotFound", err)
	}
	// A verification link does not reset a password.
	if _, err := st.ResetPassword(ctx, link.Secret, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("verification link used to reset: %v, want ErrNotFound", err)
	}
	// Accounts made without it (staff, the demo) are not unverified.
	old, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "old@example.com", Name: "Old", PasswordHash: "h"})
	if err != nil || old.EmailUnverified {
		t.Fatalf("%+v, %v", old, err)
	}
}

// Ten uses of one reset link at once: one sets its password, the others
// are told the link was used; the email item (sign-in's) holds the winner's.
func TestResetLinkRaceOneUseWins(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "ada@example.com", Name: "Ada", PasswordHash: "old"})
	if err != nil {
		t.Fatal(err)
	}
	l := store.NewAccountLink(store.LinkResetPassword, c, st.Now(), store.ResetLinkLife)
	if err := st.MailAccountLink(ctx, l, linkMail(store.MailPasswordReset)(c, l)); err != nil {
		t.Fatal(err)
	}
	const racers = 10
	var wg sync.WaitGroup
	errs := make([]error, racers)
	for i := range racers {
		wg.Go(func() { _, errs[i] = st.ResetPassword(ctx, l.Secret, "new-"+string(rune('a'+i))) })
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won < 0:
			won = i
		case err == nil:
			t.Fatalf("uses %d and %d both won", won, i)
		case !errors.Is(err, store.ErrLinkUsed):
			t.Fatalf("use %d: %v, want ErrLinkUsed", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no use won")
	}
	cred, err := st.CredentialsByEmail(ctx, c.Email)
	if err != nil || cred.PasswordHash != "new-"+string(rune('a'+won)) {
		t.Fatalf("sign-in reads %q (%v), want the winner's new-%c", cred.PasswordHash, err, 'a'+won)
	}
	if got, err := st.AccountLink(ctx, store.LinkResetPassword, l.Secret); err != nil || got.Check(st.Now()) != store.ErrLinkUsed {
		t.Fatalf("link after: %+v, %v", got, err)
	}
}

// A reset link works for an hour: a minute past, it is expired and the
// password stays.
func TestResetLinkExpiresAfterAnHour(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	clock := storetest.NewClock(time.Now(), time.Millisecond)
	st := env.Store.At(clock.Now)
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "bo@example.com", Name: "Bo", PasswordHash: "old"})
	if err != nil {
		t.Fatal(err)
	}
	l := store.NewAccountLink(store.LinkResetPassword, c, st.Now(), store.ResetLinkLife)
	if err := st.MailAccountLink(ctx, l, linkMail(store.MailPasswordReset)(c, l)); err != nil {
		t.Fatal(err)
	}
	clock.Set(l.CreatedAt.Add(59 * time.Minute))
	if got, err := st.AccountLink(ctx, store.LinkResetPassword, l.Secret); err != nil || got.Check(st.Now()) != nil {
		t.Fatalf("at 59 minutes: %+v, %v", got, err)
	}
	clock.Set(l.CreatedAt.Add(61 * time.Minute))
	if _, err := st.ResetPassword(ctx, l.Secret, "new"); !errors.Is(err, store.ErrLinkExpired) {
		t.Fatalf("at 61 minutes: %v, want ErrLinkExpired", err)
	}
	if cred, err := st.CredentialsByEmail(ctx, c.Email); err != nil || cred.PasswordHash != "old" {
		t.Fatalf("password after an expired link: %q, %v", cred.PasswordHash, err)
	}
}

// The order's confirmation is written by the checkout's one transaction,
// and a shipment's steps forward each mail once with their change.
func TestOrderMailsGoWithTheirWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p1": {9, -1}}, 1200)
	st, ctx := f.env.Store, ctxT(t)
	req := request("mail-checkout", "c1", store.CheckoutLine{ProductID: "p1", Quantity: 2})
	req.Buyer = store.Buyer{Name: "Ada", Email: "ada@example.com"}
	req.Confirmation = func(o store.Order, items []store.OrderItem, _ store.Invoice) store.Mail {
		return store.Mail{ID: "order-" + o.ID, To: o.Buyer.Email, Kind: store.MailOrderPlaced, Subject: "Order " + o.Number + " " + items[0].ProductName,
			CustomerID: o.CustomerID, CreatedAt: o.PlacedAt, Status: store.MailPending}
	}
	// The mail costs the checkout no request: the same order without it
	// makes as many. A first order has the process read its invoice
	// counter (books.go); both measured ones come after it.
	first := request("first-checkout", "c1", store.CheckoutLine{ProductID: "p1", Quantity: 1})
	first.Buyer = req.Buyer
	f.checkoutInOneTransaction(t, first)
	plain := request("plain-checkout", "c1", store.CheckoutLine{ProductID: "p1", Quantity: 2})
	plain.Buyer = req.Buyer
	f.checkoutInOneTransaction(t, plain)
	without := f.env.Counter.Total()
	d := f.checkoutInOneTransaction(t, req)
	if with := f.env.Counter.Total(); with != without {
		t.Fatalf("checkout makes %d requests with its mail, %d without", with, without)
	}
	t.Logf("checkout: %d requests with or without the mail", without)
	placed := outboxOf(t, st, store.MailOrderPlaced)
	if len(placed) != 1 || placed[0].Subject != "Order "+d.Order.Number+" Product p1" || placed[0].To != "ada@example.com" {
		t.Fatalf("outbox after checkout: %+v", placed)
	}
	// The same form sent again places nothing and mails nothing.
	if _, err := paytest.New(t, st).Checkout(ctx, req); err != nil {
		t.Fatal(err)
	}
	if n := len(outboxOf(t, st, store.MailOrderPlaced)); n != 1 {
		t.Fatalf("%d confirmations after a double submit", n)
	}

	shipments, err := st.CreateShipments(ctx, d.Order.ID, "Standard")
	if err != nil {
		t.Fatal(err)
	}
	sh := shipments[0]
	step := func(o store.Order, next store.Shipment) *store.Mail {
		kind := map[store.ShipmentStatus]store.MailKind{store.ShipmentShipped: store.MailOrderShipped, store.ShipmentDelivered: store.MailDelivered}[next.Status]
		return &store.Mail{ID: string(kind) + "-" + next.ID + "-" + string(rune('0'+next.Version)), To: o.Buyer.Email, Kind: kind,
			Subject: next.Carrier + " " + next.Tracking, CreatedAt: st.Now(), Status: store.MailPending}
	}
	if _, err := st.ChangeShipment(ctx, d.Order.ID, sh.ID, store.ShipmentStep{To: store.ShipmentShipped, Carrier: "postnord", Tracking: "RR123456785SE", Version: 1, Mail: step}, stocktaker); err != nil {
		t.Fatal(err)
	}
	// A change refused (a stale version) writes no mail.
	if _, err := st.ChangeShipment(ctx, d.Order.ID, sh.ID, store.ShipmentStep{To: store.ShipmentDelivered, Version: 1, Mail: step}, stocktaker); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale change: %v", err)
	}
	if _, err := st.ChangeShipment(ctx, d.Order.ID, sh.ID, store.ShipmentStep{To: store.ShipmentDelivered, Version: 2, Mail: step}, stocktaker); err != nil {
		t.Fatal(err)
	}
	shipped, delivered := outboxOf(t, st, store.MailOrderShipped), outboxOf(t, st, store.MailDelivered)
	if len(shipped) != 1 || shipped[0].Subject != "postnord RR123456785SE" || len(delivered) != 1 {
		t.Fatalf("shipped %+v, delivered %+v", shipped, delivered)
	}
}
