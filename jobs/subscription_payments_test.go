package jobs_test

import (
	"encoding/json"
	"errors"
	"path"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	"shop/store/storetest"
)

// subBench is a table whose clock stands at noon of today, the test
// provider over it as the active one, subscriptions' payments through it,
// and the old gateway for the runner's other cards.
type subBench struct {
	env      storetest.Env
	clock    *storetest.Clock
	provider *payment.TestProvider
	sp       *jobs.SubscriptionPayments
	gateway  *payment.TestGateway
}

func newSubBench(t *testing.T, today string) *subBench {
	t.Helper()
	c := storetest.NewClock(day(today).Add(12*time.Hour), time.Millisecond)
	env := storetest.New(t, store.WithClock(c.Now), store.WithListShards(4))
	p, err := payment.NewTestProvider(ctxT(t), env.Store, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	p.Now = c.Now
	g := payment.NewTestGateway(env.Store)
	g.Now = c.Now
	sp := &jobs.SubscriptionPayments{Store: env.Store, Providers: payment.NewProviders(p), BaseURL: "http://shop.test"}
	return &subBench{env: env, clock: c, provider: p, sp: sp, gateway: g}
}

func (b *subBench) runner(replica string) *jobs.Runner {
	return jobs.NewRunner(b.env.Store, b.gateway, jobs.Config{Replica: replica, Concurrency: 8, RetryDays: []int{1, 3, 7},
		Payments: b.sp.Providers, BaseURL: "http://shop.test"})
}

func (b *subBench) customer(t *testing.T) store.Customer {
	t.Helper()
	c, err := b.env.Store.CreateCustomer(ctxT(t), store.NewCustomer{Email: store.NewID() + "@example.com", Name: "Ada Lovelace", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// plan is a subscribe of c to a monthly product of price cents, paid on
// day.
func (b *subBench) plan(t *testing.T, c store.Customer, price int64, payDay int) store.PendingSubscribe {
	t.Helper()
	p, err := b.env.Store.PlanSubscribe(store.SubscribeRequest{Key: store.NewID(), CustomerID: c.ID, Email: c.Email, Lang: "en",
		Product: store.Product{ID: "beans", Name: "Fika beans", MonthlyPrice: eur(price), Subscribable: true}, PaymentDay: payDay, PeriodMonths: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pay types number on the hosted page at url, and approves the bank's
// question if it asks one.
func (b *subBench) pay(t *testing.T, url, number string) {
	t.Helper()
	ctx := ctxT(t)
	id := path.Base(url)
	s, err := b.provider.PayCheckout(ctx, id, payment.CardForm{Number: number, Expiry: "12/40", CVC: "123", Name: "Ada Lovelace"})
	if errors.Is(err, payment.ErrAuthenticationRequired) {
		_, err = b.provider.AnswerChallenge(ctx, id, s.Challenge.ID, true)
	}
	if err != nil {
		t.Fatalf("pay %s: %v", id, err)
	}
}

// events are the provider's events of a type made so far.
func (b *subBench) events(t *testing.T, typ string) []payment.Event {
	t.Helper()
	due, _, err := b.env.Store.TestPayDue(ctxT(t), 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []payment.Event
	for _, e := range due {
		var ev payment.Event
		if err := json.Unmarshal([]byte(e.Body), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// savedCard saves number for c at the test provider, as a card-change's
// setup page does, and returns it as a subscription keeps it.
func (b *subBench) savedCard(t *testing.T, c store.Customer, number string) store.Card {
	t.Helper()
	ctx := ctxT(t)
	ref, err := b.sp.ProviderCustomer(ctx, b.provider, c)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := b.provider.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModeSetup, Amount: eur(0), CustomerRef: ref,
		SuccessURL: "http://shop.test/subscriptions", Key: store.NewID()})
	if err != nil {
		t.Fatal(err)
	}
	b.pay(t, cs.URL, number)
	cs, err = b.provider.RetrieveCheckout(ctx, cs.ID)
	if err != nil || cs.Card == nil {
		t.Fatalf("setup session: %+v, %v", cs, err)
	}
	return jobs.CardOf(*cs.Card, ref)
}

// subscriptionsOf reads c's subscriptions.
func (b *subBench) subscriptionsOf(t *testing.T, c store.Customer) []store.Subscription {
	t.Helper()
	subs, err := b.env.Store.Subscriptions(ctxT(t), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	return subs
}

// A new card pays the first days on the provider's page (payment mode,
// the card kept for the renewals): the subscription starts when the
// session completes, once, whether its event comes twice at once and the
// reconcile reads the session beside them. Before that nothing is
// subscribed, and a double submit gets the same page.
func TestSubscribeWithANewCardStartsOnceWhenThePageIsPaid(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	plan := b.plan(t, c, 990, 1) // 2026-03-15 to 2026-04-01: 17 days of a month, prorated
	st, err := b.sp.SubscribeWithNewCard(ctx, plan, c)
	if err != nil || st.Redirect == "" || st.Subscription != nil {
		t.Fatalf("subscribe: %+v, %v", st, err)
	}
	again, err := b.sp.SubscribeWithNewCard(ctx, plan, c)
	if err != nil || again.Redirect != st.Redirect {
		t.Fatalf("a double submit: %+v, %v; want the same page %s", again, err, st.Redirect)
	}
	if subs := b.subscriptionsOf(t, c); len(subs) != 0 {
		t.Fatalf("subscribed before paying: %+v", subs)
	}
	b.pay(t, st.Redirect, payment.CardSucceeds)
	evs := b.events(t, payment.EventCheckoutCompleted)
	if len(evs) != 1 {
		t.Fatalf("%d completed events, want 1", len(evs))
	}
	var g errgroup.Group
	for range 3 {
		g.Go(func() error { return b.sp.ApplySubscriptionEvent(ctx, evs[0]) })
	}
	g.Go(func() error { _, err := b.sp.ReconcileSubscribes(ctx, 0); return err })
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	subs := b.subscriptionsOf(t, c)
	if len(subs) != 1 {
		t.Fatalf("%d subscriptions, want 1", len(subs))
	}
	sub := subs[0]
	if sub.Card.Provider != payment.ProviderTest || sub.Card.Last4 != "4242" || sub.Card.Customer == "" || sub.Card.ExpYear != 2040 {
		t.Fatalf("the card kept: %+v", sub.Card)
	}
	if store.FormatDate(sub.NextPaymentDate) != "2026-04-01" {
		t.Fatalf("next payment %s, want 2026-04-01", store.FormatDate(sub.NextPaymentDate))
	}
	recs, err := b.env.Store.RecentReceipts(ctx, c.ID, 10, "")
	if err != nil || len(recs.Items) != 1 {
		t.Fatalf("receipts: %+v, %v", recs.Items, err)
	}
	r := recs.Items[0]
	if r.Kind != store.ReceiptFirstDays || r.Provider != payment.ProviderTest || r.ChargeID != evs[0].Session.PaymentRef || r.Amount != plan.Charge {
		t.Fatalf("receipt %+v, want first days of %s paid by %s", r, plan.Charge, evs[0].Session.PaymentRef)
	}
	cust, err := b.env.Store.Customer(ctx, c.ID)
	if err != nil || cust.ProviderCustomers[payment.ProviderTest] != sub.Card.Customer {
		t.Fatalf("the provider's customer kept on the customer: %+v, %v", cust.ProviderCustomers, err)
	}
	if got := b.env.CountEntities(t, "receipt"); got != 1 {
		t.Fatalf("%d receipts in the table, want 1", got)
	}
}

// Free first days save the card in setup mode and charge nothing; an
// event lost on the way is settled by the reconcile; a page left unpaid
// past its time fails its subscribe (expired at the provider), and
// nothing is subscribed.
func TestSubscribeSetupModeLostEventAndExpiredPage(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	free := b.plan(t, c, 30, 16) // one day of €0.30 a month: below the smallest charge
	if free.Charge.Amount != 0 {
		t.Fatalf("the first day charges %s, want nothing", free.Charge)
	}
	st, err := b.sp.SubscribeWithNewCard(ctx, free, c)
	if err != nil {
		t.Fatal(err)
	}
	b.pay(t, st.Redirect, payment.CardSucceeds) // its event is never applied: lost
	unpaid := b.plan(t, c, 990, 1)
	left, err := b.sp.SubscribeWithNewCard(ctx, unpaid, c)
	if err != nil {
		t.Fatal(err)
	}
	b.clock.Set(b.clock.Now().Add(2 * time.Hour))
	n, err := b.sp.ReconcileSubscribes(ctx, time.Minute)
	if err != nil || n != 2 {
		t.Fatalf("reconcile settled %d (%v), want 2", n, err)
	}
	subs := b.subscriptionsOf(t, c)
	if len(subs) != 1 || subs[0].ProductID != "beans" || subs[0].Card.Last4 != "4242" {
		t.Fatalf("subscriptions %+v, want the free one", subs)
	}
	recs, _ := b.env.Store.RecentReceipts(ctx, c.ID, 10, "")
	if len(recs.Items) != 1 || recs.Items[0].Kind != store.ReceiptFreeDays || recs.Items[0].ChargeID != "" {
		t.Fatalf("receipts %+v, want one free_days without a charge", recs.Items)
	}
	p, err := b.env.Store.PendingSubscribe(ctx, c.ID, unpaid.Key)
	if err != nil || p.Status != store.SubscribeFailed {
		t.Fatalf("the unpaid subscribe: %+v, %v", p, err)
	}
	cs, err := b.provider.RetrieveCheckout(ctx, left.Pending.Session)
	if err != nil || cs.Status != payment.SessionExpired {
		t.Fatalf("its page: %s, %v; want expired", cs.Status, err)
	}
	if got := b.events(t, payment.EventPaymentSucceeded); len(got) != 0 {
		t.Fatalf("a setup page charged: %+v", got)
	}
}

// A kept card pays a new subscription in one step; a card whose bank
// asks for the holder sends the customer to the bank's page and the
// subscription starts on the payment's event, once.
func TestSubscribeWithAKeptCard(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	good := b.savedCard(t, c, payment.CardSucceeds)
	st, err := b.sp.SubscribeWithKeptCard(ctx, b.plan(t, c, 990, 15), good)
	if err != nil || st.Subscription == nil || st.Receipt.ChargeID == "" || st.Receipt.Provider != payment.ProviderTest {
		t.Fatalf("kept card: %+v, %v", st, err)
	}
	asks := b.savedCard(t, c, payment.CardAuthenticationRequired)
	st, err = b.sp.SubscribeWithKeptCard(ctx, b.plan(t, c, 990, 15), asks)
	if err != nil || st.Subscription != nil || st.Redirect == "" {
		t.Fatalf("a card that asks: %+v, %v; want the bank's page", st, err)
	}
	if _, err := b.provider.AnswerPayment(ctx, path.Base(path.Dir(st.Redirect)), true); err != nil {
		t.Fatal(err)
	}
	evs := b.events(t, payment.EventPaymentSucceeded)
	var mine []payment.Event
	for _, ev := range evs {
		if ev.Payment.ID == st.Pending.Payment {
			mine = append(mine, ev)
		}
	}
	if len(mine) != 1 {
		t.Fatalf("%d events of the asked payment, want 1", len(mine))
	}
	for range 2 {
		if err := b.sp.ApplySubscriptionEvent(ctx, mine[0]); err != nil {
			t.Fatal(err)
		}
	}
	if subs := b.subscriptionsOf(t, c); len(subs) != 2 {
		t.Fatalf("%d subscriptions, want 2", len(subs))
	}
	if got := b.env.CountEntities(t, "receipt"); got != 2 {
		t.Fatalf("%d receipts, want 2", got)
	}
	declined := b.savedCard(t, c, payment.CardInsufficientFunds)
	if _, err := b.sp.SubscribeWithKeptCard(ctx, b.plan(t, c, 990, 15), declined); !errors.Is(err, payment.ErrInsufficientFunds) {
		t.Fatalf("a card short of funds: %v", err)
	}
	if subs := b.subscriptionsOf(t, c); len(subs) != 2 {
		t.Fatalf("%d subscriptions after a decline, want 2", len(subs))
	}
}

// seedSaved makes n subscriptions of c paid by card, due on due.
func (b *subBench) seedSaved(t *testing.T, c store.Customer, n int, due string, card store.Card) []store.Subscription {
	t.Helper()
	subs := make([]store.Subscription, n)
	for i := range n {
		d := day(due)
		subs[i] = store.Subscription{ID: store.NewID(), AccountID: c.ID, ProductID: "beans", ProductName: "Fika beans", Email: c.Email,
			MonthlyPrice: eur(990), PeriodMonths: 1, PaymentDay: d.Day(), Status: store.SubscriptionActive, Card: card,
			NextPaymentDate: d, CreatedAt: d.AddDate(0, -1, 0), Version: 1}
		if err := b.env.Store.CreateSubscription(ctxT(t), subs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return subs
}

// Renewals at the provider: two runs at once, with the payments' events
// (each twice) and the reconcile beside them, and a third run after,
// charge each subscription once: one payment at the provider, one receipt
// naming it.
func TestRenewalsThroughTheProviderChargeOnce(t *testing.T) {
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	card := b.savedCard(t, c, payment.CardSucceeds)
	n := 20
	b.seedSaved(t, c, n, "2026-03-15", card)
	var g errgroup.Group
	var mu sync.Mutex
	charged := 0
	// Beside the runs, the payments' events come (each twice) and the
	// reconcile reads the open intents by their saved ids, until both
	// runs are done.
	done := make(chan struct{})
	var beside errgroup.Group
	beside.Go(func() error {
		for {
			for _, ev := range b.events(t, payment.EventPaymentSucceeded) {
				for range 2 {
					if err := b.sp.ApplySubscriptionEvent(ctx, ev); err != nil {
						return err
					}
				}
			}
			if _, err := b.runner("reconcile").Reconcile(ctx, 0); err != nil {
				return err
			}
			select {
			case <-done:
				return nil
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	for i := range 2 {
		g.Go(func() error {
			run, err := b.runner("replica-"+string(rune('a'+i))).Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
			mu.Lock()
			charged += run.Counts.Charged
			mu.Unlock()
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	close(done)
	if err := beside.Wait(); err != nil {
		t.Fatal(err)
	}
	for _, ev := range b.events(t, payment.EventPaymentSucceeded) {
		if err := b.sp.ApplySubscriptionEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	again, err := b.runner("replica-c").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
	if err != nil || again.Counts.Charged != 0 {
		t.Fatalf("a third run charged %d (%v)", again.Counts.Charged, err)
	}
	// What the events or the reconcile recorded first, a run counts as
	// done by another.
	if charged > n {
		t.Fatalf("the runs charged %d, want at most %d", charged, n)
	}
	if got := b.env.CountEntities(t, "receipt"); got != n {
		t.Fatalf("%d receipts, want %d", got, n)
	}
	if got := len(b.events(t, payment.EventPaymentSucceeded)); got != n {
		t.Fatalf("%d payments succeeded at the provider, want %d", got, n)
	}
	for _, s := range b.subscriptionsOf(t, c) {
		if s.Intent != nil || store.FormatDate(s.NextPaymentDate) != "2026-04-15" {
			t.Fatalf("after the runs: %+v", s)
		}
	}
}

// A run that crashed after saving its payment's id and before confirming
// it: the next run confirms that very payment (no second one is made) and
// the reconcile settles one that was confirmed but not recorded.
func TestRenewalAfterACrashConfirmsTheSavedPayment(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	card := b.savedCard(t, c, payment.CardSucceeds)
	subs := b.seedSaved(t, c, 2, "2026-03-15", card)
	var refs []string
	for i, s := range subs {
		in := store.PaymentIntent{Period: s.NextPaymentDate, Attempt: 1}
		pi, err := b.provider.CreatePayment(ctx, payment.PaymentRequest{Amount: eur(990), CustomerRef: card.Customer, MethodRef: card.Token, Key: in.Key(s.ID),
			Metadata: map[string]string{payment.MetaFor: payment.ForPeriod, payment.MetaCustomer: c.ID, payment.MetaSubscription: s.ID,
				payment.MetaPeriod: "2026-03-15", payment.MetaAttempt: "1"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.env.Store.RecordProviderIntent(ctx, s, payment.ProviderTest, pi.ID); err != nil {
			t.Fatal(err)
		}
		if i == 1 { // confirmed, then the run died before its write
			if _, err := b.provider.ConfirmPayment(ctx, pi.ID); err != nil {
				t.Fatal(err)
			}
		}
		refs = append(refs, pi.ID)
	}
	b.clock.Set(b.clock.Now().Add(time.Hour))
	if _, err := b.runner("r").Reconcile(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	// The reconcile recorded the confirmed one, and left the other's
	// saved payment for the run to confirm.
	if recs, _ := b.env.Store.RecentReceipts(ctx, c.ID, 10, ""); len(recs.Items) != 1 || recs.Items[0].ChargeID != refs[1] {
		t.Fatalf("after the reconcile: receipts %+v, want the confirmed payment's", recs.Items)
	}
	if left, _ := b.env.Store.SubscriptionConsistent(ctx, c.ID, subs[0].ID); left.Intent == nil || left.Intent.Ref != refs[0] {
		t.Fatalf("after the reconcile the unconfirmed one's intent is %+v, want its saved payment %s", left.Intent, refs[0])
	}
	run, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.env.CountEntities(t, "testPayIntent"); got != 2 {
		t.Fatalf("%d payments at the provider, want the 2 saved", got)
	}
	recs, _ := b.env.Store.RecentReceipts(ctx, c.ID, 10, "")
	if len(recs.Items) != 2 {
		t.Fatalf("receipts %+v (run %+v), want 2", recs.Items, run.Counts)
	}
	for _, r := range recs.Items {
		if r.ChargeID != refs[0] && r.ChargeID != refs[1] {
			t.Fatalf("receipt paid by %s, want one of the saved %v", r.ChargeID, refs)
		}
	}
}

// A card whose bank asks its holder on every payment: the renewal is not
// retried blindly; the customer is mailed once, the subscription waits
// past due off the payments list, and paying the period on the provider's
// page (from the subscription's page) pays it once. A card saved with a
// provider new payments do not go to is not charged, and its holder is
// mailed a link to add a card.
func TestRenewalAsksTheHolderAndACardElsewhereIsNotCharged(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	asks := b.seedSaved(t, c, 1, "2026-03-15", b.savedCard(t, c, payment.CardAuthenticationRequired))[0]
	elsewhere := b.seedSaved(t, c, 1, "2026-03-15", store.Card{Token: "pm_1", Brand: "Visa", Last4: "1111", Provider: payment.ProviderStripe, Customer: "cus_1"})[0]
	// One more, due in a week, whose reminder (today) carries the link.
	ahead := elsewhere
	ahead.ID, ahead.NextPaymentDate, ahead.NextReminderDate, ahead.PaymentDay = store.NewID(), day("2026-03-22"), day("2026-03-15"), 22
	if err := b.env.Store.CreateSubscription(ctx, ahead); err != nil {
		t.Fatal(err)
	}
	if _, err := b.runner("r").Run(ctx, jobs.JobReminders, day("2026-03-15"), jobs.TriggerCommandLine); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		run, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		t.Logf("run %d: %+v", i, run.Counts)
	}
	for _, ev := range b.events(t, payment.EventPaymentSucceeded) {
		t.Logf("succeeded: %+v", ev.Payment)
	}
	for _, ev := range b.events(t, payment.EventPaymentFailed) {
		t.Logf("failed: %+v", ev.Payment)
	}
	if got := b.env.CountEntities(t, "testPayIntent"); got != 1 {
		t.Fatalf("%d payments at the provider, want the one the bank asked about", got)
	}
	waiting, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, asks.ID)
	if err != nil || waiting.Intent == nil || !waiting.Intent.Waiting || waiting.Status != store.SubscriptionPastDue {
		t.Fatalf("the asked one: %+v, %v", waiting, err)
	}
	mails := map[string]int{}
	for _, m := range b.outbox(t) {
		mails[m.SubscriptionID+" "+m.ID[:min(len(m.ID), 10)]]++
	}
	if mails[asks.ID+" payconfirm"] != 1 || mails[elsewhere.ID+" cardneeded"] != 1 || mails[ahead.ID+" cardneeded"] != 1 {
		t.Fatalf("mails %v: want one payconfirm and one cardneeded", mails)
	}
	url, err := b.sp.PayWaitingPeriod(ctx, waiting)
	if err != nil {
		t.Fatal(err)
	}
	b.pay(t, url, payment.CardSucceeds)
	for _, ev := range b.events(t, payment.EventCheckoutCompleted) {
		for range 2 {
			if err := b.sp.ApplySubscriptionEvent(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	paid, _ := b.env.Store.SubscriptionConsistent(ctx, c.ID, asks.ID)
	if paid.Status != store.SubscriptionActive || paid.Intent != nil || store.FormatDate(paid.NextPaymentDate) != "2026-04-15" {
		t.Fatalf("after paying on the page: %+v", paid)
	}
	if got := b.env.CountEntities(t, "receipt"); got != 1 {
		t.Fatalf("%d receipts, want 1", got)
	}
	notCharged, _ := b.env.Store.SubscriptionConsistent(ctx, c.ID, elsewhere.ID)
	if notCharged.LastPaymentDate.Equal(day("2026-03-15")) || notCharged.Intent != nil {
		t.Fatalf("the card elsewhere was charged: %+v", notCharged)
	}
}

func (b *subBench) outbox(t *testing.T) []store.Mail {
	t.Helper()
	p, err := b.env.Store.Outbox(ctxT(t), 100, "")
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// A new card for a subscription is saved on the provider's page in setup
// mode (nothing charged) and replaces the subscription's card when the
// session's event comes, once however often it comes.
func TestANewCardForASubscriptionIsSavedOnThePage(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	sub := b.seedSaved(t, c, 1, "2026-04-15", b.savedCard(t, c, payment.CardSucceeds))[0]
	url, err := b.sp.NewCard(ctx, sub, c)
	if err != nil {
		t.Fatal(err)
	}
	b.pay(t, url, payment.CardSucceedsMC)
	var evs []payment.Event
	for _, ev := range b.events(t, payment.EventCheckoutCompleted) {
		if ev.Session.Metadata[payment.MetaFor] == payment.ForCard {
			evs = append(evs, ev)
		}
	}
	if len(evs) != 1 || evs[0].Session.PaymentRef != "" {
		t.Fatalf("card events %+v: want one, charging nothing", evs)
	}
	for range 2 {
		if err := b.sp.ApplySubscriptionEvent(ctx, evs[0]); err != nil {
			t.Fatal(err)
		}
	}
	now, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, sub.ID)
	if err != nil || now.Card.Last4 != "4444" || now.Card.Provider != payment.ProviderTest || now.Version != sub.Version+1 {
		t.Fatalf("after the new card: %+v, %v", now, err)
	}
}

// A subscription waiting on its holder's answer to the bank gets a new
// card: the new card is charged at once (a new attempt, a key of its
// own), and the old payment stays unpaid.
func TestANewCardEndsTheWaitOnTheBank(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	sub := b.seedSaved(t, c, 1, "2026-03-15", b.savedCard(t, c, payment.CardAuthenticationRequired))[0]
	if _, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine); err != nil {
		t.Fatal(err)
	}
	waiting, _ := b.env.Store.SubscriptionConsistent(ctx, c.ID, sub.ID)
	if waiting.Intent == nil || !waiting.Intent.Waiting {
		t.Fatalf("not waiting: %+v", waiting)
	}
	good := b.savedCard(t, c, payment.CardSucceeds)
	if _, err := b.env.Store.ChangeSubscription(ctx, c.ID, sub.ID, waiting.Version, store.ChangeCard(good)); err != nil {
		t.Fatal(err)
	}
	run, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
	if err != nil || run.Counts.Charged != 1 {
		t.Fatalf("the run after the new card: %+v, %v", run.Counts, err)
	}
	paid, _ := b.env.Store.SubscriptionConsistent(ctx, c.ID, sub.ID)
	if paid.Status != store.SubscriptionActive || paid.Intent != nil || store.FormatDate(paid.NextPaymentDate) != "2026-04-15" || paid.Attempt != 0 {
		t.Fatalf("after the new card's payment: %+v", paid)
	}
	if got := len(b.events(t, payment.EventPaymentSucceeded)); got != 1 {
		t.Fatalf("%d payments succeeded, want the new card's", got)
	}
}

// What a subscribe through the provider and a renewal there cost in
// DynamoDB requests, logged for the cost notes. The test provider keeps
// its records in the same table, so its requests are counted too (with
// Stripe they are HTTP calls instead): its items are named in Ops.
func TestSubscriptionPaymentsRequestCounts(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	count := func(what string, bound int, fn func()) {
		t.Helper()
		b.env.Counter.Reset()
		fn()
		n := b.env.Counter.Total()
		t.Logf("%s: %d DynamoDB requests %v", what, n, b.env.Counter.Ops())
		if n > bound {
			t.Errorf("%s: %d requests, want at most %d", what, n, bound)
		}
	}
	plan := b.plan(t, c, 990, 15)
	var st jobs.Started
	count("subscribe with a new card (provider customer made, page opened, subscribe pending)", 12, func() {
		var err error
		if st, err = b.sp.SubscribeWithNewCard(ctx, plan, c); err != nil {
			t.Fatal(err)
		}
	})
	b.pay(t, st.Redirect, payment.CardSucceeds)
	ev := b.events(t, payment.EventCheckoutCompleted)[0]
	count("the page's event starts the subscription", 8, func() {
		if err := b.sp.ApplySubscriptionEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	})
	count("the same event again", 3, func() {
		if err := b.sp.ApplySubscriptionEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	})
	sub := b.subscriptionsOf(t, c)[0]
	sub.NextPaymentDate = day("2026-03-15").AddDate(0, 0, -1) // due yesterday: today's period is paid
	if _, err := b.env.Store.UpdateSubscription(ctx, sub); err != nil {
		t.Fatal(err)
	}
	count("a payment run renewing it at the provider", 30, func() {
		run, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
		if err != nil || run.Counts.Charged != 1 {
			t.Fatalf("run %+v, %v", run.Counts, err)
		}
	})
}
