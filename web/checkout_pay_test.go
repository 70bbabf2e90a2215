package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	"shop/web/paths"
)

// A checkout with something left for the card answers a 303 to the test
// provider's page (the shop's own, in test mode); these helpers pay there
// as a customer would and deliver the provider's events to the shop's
// webhook, as the test-payment-events job does.

// deliverEvents posts the test provider's due events to the webhook
// (filter, if set, drops, doubles or holds some) and expires its sessions
// past their time.
func (s *shop) deliverEvents(t testing.TB, filter func(store.TestPayEvent) jobs.EventDelivery) jobs.EventCounts {
	t.Helper()
	d := &jobs.TestPaymentEvents{Store: s.env.Store, Provider: s.provider, URL: s.base + paths.WebhookTest, Filter: filter}
	n, err := d.DeliverDue(context.Background())
	if err != nil {
		t.Fatalf("deliver the test provider's events: %v", err)
	}
	if n.Failed > 0 {
		t.Fatalf("the webhook refused %d events:\n%s", n.Failed, s.log.String())
	}
	return n
}

// paymentPage is the path of the test provider's page a checkout's answer
// sends the customer to ("" when it sends them elsewhere).
func (s *shop) paymentPage(p page) string {
	loc := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(loc, s.base+"/test-payments/checkout/") {
		return ""
	}
	return strings.TrimPrefix(loc, s.base)
}

// payWith pays the page a checkout's answer p sends the customer to, with
// card, on the test provider's page, and delivers the provider's events:
// the answer is the page's 303 back to the order, its Location a path.
func (s *shop) payWith(t testing.TB, b *browser, p page, card string) page {
	t.Helper()
	path := s.paymentPage(p)
	if path == "" {
		t.Fatalf("checkout answered %d to %q, want a 303 to the test payment page:\n%s", p.status, p.header.Get("Location"), trim(p.body))
	}
	wantStatus(t, "the test payment page", b.get(path), http.StatusOK)
	paid := b.post(path, cardFields(card))
	wantStatus(t, "pay on the test payment page", paid, http.StatusSeeOther)
	s.deliverEvents(t, nil)
	paid.header.Set("Location", strings.TrimPrefix(paid.header.Get("Location"), s.base))
	return paid
}

// pay is payWith the card that pays.
func (s *shop) pay(t testing.TB, b *browser, p page) page {
	t.Helper()
	return s.payWith(t, b, p, payment.CardSucceeds)
}

// placeOrder posts the checkout form and, when it sends the customer to
// the test payment page, pays there with the card that pays: the answer
// is a 303 to the order (or the checkout's own answer: an order the codes
// paid, or the form refused).
func (s *shop) placeOrder(t testing.TB, b *browser, form url.Values) page {
	t.Helper()
	p := b.post("/checkout", form)
	if s.paymentPage(p) == "" {
		return p
	}
	return s.pay(t, b, p)
}

// cardPayments are the test provider's payments that took money: how many
// and their sum, in minor units.
func (s *shop) cardPayments(t testing.TB) (n int, total int64) {
	t.Helper()
	for _, it := range s.env.Items(t) {
		var rec struct {
			EntityType, Status string
			Amount             int64
		}
		if err := attributevalue.UnmarshalMap(it, &rec); err != nil || rec.EntityType != "testPayIntent" || rec.Status != payment.PaymentSucceeded || fromDemo(it) {
			continue
		}
		n++
		total += rec.Amount
	}
	return n, total
}

// dueEvents are the test provider's events due now, not yet posted.
func (s *shop) dueEvents(t testing.TB) []store.TestPayEvent {
	t.Helper()
	events, _, err := s.env.Store.TestPayDue(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// postEvents posts events to the webhook, signed now, as the delivery job
// does (without its own reads and marks, which are the provider's side:
// with Stripe they are Stripe's), each answered 200.
func (s *shop) postEvents(t testing.TB, events []store.TestPayEvent) {
	t.Helper()
	for _, ev := range events {
		body := []byte(ev.Body)
		if status, answer := postEvent(t, s.base, body, s.provider.Sign(body, time.Now())); status != http.StatusOK {
			t.Fatalf("the webhook answered %d to %s: %s", status, ev.Type, answer)
		}
	}
}

// markDelivered records events delivered, as the job does after posting.
func (s *shop) markDelivered(t testing.TB, events []store.TestPayEvent) {
	t.Helper()
	for _, ev := range events {
		ev.Attempts++
		ev.DeliveredAt = time.Now()
		if err := s.env.Store.MarkTestPayEvent(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
}
