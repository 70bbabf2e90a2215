package jobs_test

import (
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/carrier"
	"shop/views/mail"
)

// The order and account mails reach an SMTP server as text and HTML, each
// with its link: the confirmation, shipped (carrier and tracking link),
// delivered, and the two account links, written by the store's own calls.
func TestOrderAndAccountMailsGoOutOverSMTP(t *testing.T) {
	t.Parallel()
	m := mail.Links{BaseURL: "https://shop.example/"}
	now := time.Now().UTC().Truncate(time.Millisecond)
	o := store.Order{ID: "o1", Number: "FF-7K3Q92", CustomerID: "c1", Buyer: store.Buyer{Name: "Åsa Berg", Email: "asa@example.com"},
		PlacedAt: now, Total: store.Money{Amount: 2400, Currency: "EUR"},
		ShipTo: store.Address{Name: "Åsa Berg", Street: "Storgatan", Number: "1", ZipCode: "11111", City: "Stockholm", Country: "Sweden"}}
	items := []store.OrderItem{{ProductName: "Kaffe", Price: store.Money{Amount: 1200, Currency: "EUR"}, Quantity: 2}}
	sh := store.Shipment{ID: "sh1", OrderID: "o1", Status: store.ShipmentShipped, Carrier: "postnord", Tracking: "RR123456785SE",
		ShippedAt: now, Version: 2, Items: []store.ShipmentItem{{ProductName: "Kaffe", Quantity: 2}}}
	delivered := sh
	delivered.Status, delivered.DeliveredAt, delivered.Version = store.ShipmentDelivered, now, 3

	env, srv, d := newDelivery(t, m.OrderPlaced(o, items, store.Invoice{}), *m.ShipmentStep(o, sh), *m.ShipmentStep(o, delivered))
	if pending := m.ShipmentStep(o, store.Shipment{ID: "sh1", Status: store.ShipmentPending}); pending != nil {
		t.Fatalf("a step back to pending mails %+v", pending)
	}
	ctx := ctxT(t)
	c, err := env.Store.CreateCustomer(ctx, store.NewCustomer{Email: "bo@example.com", Name: "Bo", PasswordHash: "h",
		VerifyMail: func(c store.Customer, l store.AccountLink) store.Mail {
			return m.VerifyEmail(c, l, "/email/verify?t="+l.Secret+".sig", time.UTC)
		}})
	if err != nil {
		t.Fatal(err)
	}
	l := store.NewAccountLink(store.LinkResetPassword, c, now, store.ResetLinkLife)
	if err := env.Store.MailAccountLink(ctx, l, m.PasswordReset("", c.Name, l, "/password/reset?t="+l.Secret+".sig")); err != nil {
		t.Fatal(err)
	}

	deliver(t, d, 5, 0)
	want := map[string][]string{ // subject: what text and HTML both hold
		"Your order FF-7K3Q92":                       {"2 × Kaffe", "€24.00", "https://shop.example/orders/o1", "Storgatan 1"},
		"Your order FF-7K3Q92 is on its way":         {"PostNord", "RR123456785SE", carrier.TrackingURL("postnord", "RR123456785SE")},
		"Your order FF-7K3Q92 was delivered":         {"was delivered on", "https://shop.example/orders/o1"},
		"Confirm your email address at Fika & Field": {"https://shop.example/email/verify?t=", "works once"},
		"Set a new password at Fika & Field":         {"https://shop.example/password/reset?t=" + l.Secret, "for an hour"},
	}
	got := srv.Received()
	if len(got) != len(want) {
		t.Fatalf("the server received %d messages, want %d", len(got), len(want))
	}
	for _, r := range got {
		p := parseMessage(t, r.Data)
		holds, ok := want[p.Subject]
		if !ok {
			t.Errorf("unexpected mail %q", p.Subject)
			continue
		}
		delete(want, p.Subject)
		for _, s := range holds {
			html := strings.ReplaceAll(p.HTML, "&amp;", "&")
			if !strings.Contains(p.Text, s) || !strings.Contains(html, s) {
				t.Errorf("%q: text or HTML lacks %q\ntext: %s\nhtml: %s", p.Subject, s, p.Text, p.HTML)
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("not received: %v", want)
	}
}
