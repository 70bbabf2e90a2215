package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
	"shop/store/storetest"
	"shop/web"
)

// local is a URL of the shop as a path.
func (s *shop) local(t testing.TB, u string) string {
	t.Helper()
	if !strings.HasPrefix(u, s.base) && !strings.HasPrefix(u, "/") {
		t.Fatalf("%q is not the shop's", u)
	}
	return strings.TrimPrefix(u, s.base)
}

// payOnPage types number on the test provider's page at path (approving
// the bank's question if it asks) and returns where the page sends the
// customer back to.
func (s *shop) payOnPage(t testing.TB, b *browser, path, number string) string {
	t.Helper()
	p := b.get(path)
	wantStatus(t, "the test payment page", p, http.StatusOK)
	p = b.post(path, cardFields(number))
	wantStatus(t, "pay on the test page", p, http.StatusSeeOther)
	if loc := s.local(t, p.header.Get("Location")); loc == path {
		q := b.get(path)
		challenge := q.doc.Find(`input[name="challenge"]`).AttrOr("value", "")
		p = b.post(path+"/confirm", url.Values{"challenge": {challenge}, "answer": {"approve"}})
		wantStatus(t, "approve the bank's question", p, http.StatusSeeOther)
	}
	return s.local(t, p.header.Get("Location"))
}

// subscriptionsThrough makes subscriptions pay through the test provider
// as through wraps it (to fail, say); checkout keeps the provider itself.
func subscriptionsThrough(through func(*payment.TestProvider) payment.Provider) appOption {
	return func(_ storetest.Env, cfg *web.Config) {
		test := cfg.Payments.Active().(*payment.TestProvider)
		_, cfg.SubscriptionPayments = jobs.NewCardPayments(cfg.Store, payment.NewProviders(through(test)), "", cfg.Log)
	}
}

// A new card is typed on the test provider's page, never on the shop's:
// the subscribe form has no card fields and the shop is not sent any; the
// page returns to the subscriptions, which say so once the provider's
// event started the subscription (before it, that the payment is being
// confirmed). The card kept is the provider's (brand, last four, expiry),
// the receipt names the provider's payment. A second subscription pays
// with the kept card in one step.
func TestSubscribeWithANewCardOnTheTestPaymentPage(t *testing.T) {
	t.Parallel()
	h := newShop(t)
	h.coffeeBox(t)
	b, id := h.newCustomer(t, "Grace Hopper")
	today := time.Now().UTC()
	p := b.get("/products/" + boxID)
	if p.doc.Find(`[data-testid="subscribe-form"] input[name="card_number"]`).Length() != 0 || p.testid("card-on-provider-page").Length() != 1 {
		t.Fatalf("the subscribe form asks for a card number:\n%s", trim(p.testid("subscribe").Text()))
	}
	form := b.subscribeForm(boxID, strconv.Itoa(today.Day()), "1")
	form.Del("card_number")
	form.Del("expiry")
	form.Del("cvc")
	p = b.post("/subscriptions", form)
	wantStatus(t, "subscribe", p, http.StatusSeeOther)
	pagePath := h.local(t, p.header.Get("Location"))
	back := h.payOnPage(t, b, pagePath, payment.CardSucceeds)
	if !strings.HasPrefix(back, "/subscriptions?subscribe=") {
		t.Fatalf("the page sent the customer back to %q", back)
	}
	p = b.get(back)
	if !strings.Contains(p.testid("flash").Text(), "confirming") || len(h.subscriptionsOf(t, id)) != 0 {
		t.Fatalf("before the event: flash %q, %d subscriptions", p.testid("flash").Text(), len(h.subscriptionsOf(t, id)))
	}
	if n := h.deliverEvents(t, nil); n.Delivered != 1 {
		t.Fatalf("delivered %+v", n)
	}
	p = b.get(back)
	subs := h.subscriptionsOf(t, id)
	if len(subs) != 1 || subs[0].Card.Provider != payment.ProviderTest || subs[0].Card.Last4 != "4242" || !strings.HasPrefix(subs[0].Card.Token, "pm_test_") {
		t.Fatalf("subscriptions %+v", subs)
	}
	if flash := p.testid("flash").Text(); !strings.Contains(flash, "€12.50") || !strings.Contains(flash, "You are subscribed") {
		t.Fatalf("flash after the event: %q", flash)
	}
	r, err := h.env.Store.CurrentReceipt(context.Background(), subs[0])
	if err != nil || r.Provider != payment.ProviderTest || !strings.HasPrefix(r.ChargeID, "pi_test_") || r.Amount.Amount != boxPerMon {
		t.Fatalf("receipt %+v, %v", r, err)
	}
	if h.deliverEvents(t, nil).Delivered != 0 || len(h.subscriptionsOf(t, id)) != 1 {
		t.Fatal("a second delivery made another subscription")
	}
	// The kept card pays the next one in one step.
	form = b.subscribeForm(boxID, strconv.Itoa(today.Day()), "1")
	form.Set("card", subs[0].Card.Token)
	form.Del("card_number")
	p = b.post("/subscriptions", form)
	wantStatus(t, "subscribe with the kept card", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/subscriptions" {
		t.Fatalf("the kept card went to %q", loc)
	}
	if got := h.subscriptionsOf(t, id); len(got) != 2 {
		t.Fatalf("%d subscriptions after the kept card, want 2", len(got))
	}
	// A new card for the first one is saved on the page (setup mode,
	// nothing charged) and replaces its card once the event came.
	paid, _ := h.cardPayments(t)
	first := subs[0]
	p = b.post("/subscriptions/"+first.ID+"/card", url.Values{"version": {strconv.Itoa(first.Version)}, "card": {"new"}})
	wantStatus(t, "a new card", p, http.StatusSeeOther)
	setup := h.local(t, p.header.Get("Location"))
	if !strings.HasPrefix(setup, "/test-payments/checkout/") {
		t.Fatalf("a new card went to %q", setup)
	}
	h.payOnPage(t, b, setup, payment.CardSucceedsMC)
	h.deliverEvents(t, nil)
	now, err := h.env.Store.SubscriptionConsistent(context.Background(), id, first.ID)
	if err != nil || now.Card.Last4 != "4444" || now.Card.Provider != payment.ProviderTest {
		t.Fatalf("after the new card: %+v, %v", now.Card, err)
	}
	if again, _ := h.cardPayments(t); again != paid {
		t.Fatalf("saving a card took %d payments", again-paid)
	}
}

// A payment the bank asks its holder to confirm at renewal: the customer
// is mailed, the subscription's page offers "Pay now", which goes to the
// test payment page for that period; paid there, the period is paid once.
func TestRenewalTheBankAsksAboutIsPaidOnThePage(t *testing.T) {
	t.Parallel()
	h := newShop(t)
	h.coffeeBox(t)
	b, id := h.newCustomer(t, "Ada Byron")
	today := time.Now().UTC()
	b.subscribePaying(b.subscribeForm(boxID, strconv.Itoa(today.Day()), "1"), payment.CardAuthenticationRequired)
	subs := h.subscriptionsOf(t, id)
	if len(subs) != 1 {
		t.Fatalf("%d subscriptions", len(subs))
	}
	// Its next payment fell due yesterday (today's period is paid).
	sub := subs[0]
	sub.NextPaymentDate = rules.DateOf(today, time.UTC).AddDate(0, 0, -1)
	if _, err := h.env.Store.UpdateSubscription(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	runner := jobs.NewRunner(h.env.Store, h.gateway, jobs.Config{Payments: h.subs.Providers, BaseURL: h.base})
	if _, err := runner.Run(context.Background(), jobs.JobPayments, rules.DateOf(today, time.UTC), jobs.TriggerCommandLine); err != nil {
		t.Fatal(err)
	}
	p := b.get("/subscriptions")
	if p.testid("sub-pay-waiting").Length() != 1 {
		t.Fatalf("no payment waiting on the page:\n%s", trim(p.testid("subscriptions").Text()))
	}
	form := p.testid("sub-pay-form")
	action, _ := form.Attr("action")
	vals := url.Values{}
	form.Find("input").Each(func(_ int, s *goquerySelection) { vals.Set(s.AttrOr("name", ""), s.AttrOr("value", "")) })
	p = b.post(action, vals)
	wantStatus(t, "pay now", p, http.StatusSeeOther)
	back := h.payOnPage(t, b, h.local(t, p.header.Get("Location")), payment.CardSucceeds)
	h.deliverEvents(t, nil)
	b.get(back)
	paid := h.subscriptionsOf(t, id)[0]
	if paid.Status != store.SubscriptionActive || paid.Intent != nil || !paid.NextPaymentDate.After(rules.DateOf(today, time.UTC)) {
		t.Fatalf("after paying on the page: %+v", paid)
	}
	r, err := h.env.Store.CurrentReceipt(context.Background(), paid)
	if err != nil || !strings.HasPrefix(r.ChargeID, "pi_test_") || r.Amount.Amount != boxPerMon || !r.PeriodStart.Equal(sub.NextPaymentDate) {
		t.Fatalf("the period's receipt: %+v, %v", r, err)
	}
	if again, _ := runner.Run(context.Background(), jobs.JobPayments, rules.DateOf(today, time.UTC), jobs.TriggerCommandLine); again.Counts.Charged != 0 {
		t.Fatalf("a run after it charged %d", again.Counts.Charged)
	}
}
