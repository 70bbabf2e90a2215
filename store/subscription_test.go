package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/dynamolocal"
	"shop/store/payment"
	"shop/store/rules"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

type billingFixture struct {
	env     storetest.Env
	gateway *payment.TestGateway
	product store.Product
	card    store.Card
	clock   *testClock
	// pay subscribes as the shop does: the first payment on the test
	// provider's page, the card saved there.
	pay *paytest.Payer
}

type testClock = storetest.Clock

// newBillingFixture makes a table whose clock stands at now, a subscribable
// product "beans" at €12.99 a month and a card that pays.
func newBillingFixture(t *testing.T, now time.Time, opts ...store.Option) billingFixture {
	t.Helper()
	clock := storetest.NewClock(now, time.Millisecond)
	env := storetest.New(t, append([]store.Option{store.WithClock(clock.Now)}, opts...)...)
	ctx := ctxT(t)
	p := store.Product{ID: "beans", Name: "Fika beans", Category: "coffee", Price: eur(1500), Subscribable: true, MonthlyPrice: eur(1299)}
	if err := env.Store.PutProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	g := payment.NewTestGateway(env.Store)
	card := paytest.LegacyCard(t, env.Store, payment.CardSucceeds, "12/99") // a card an older version kept
	env.Counter.Reset()
	return billingFixture{env: env, gateway: g, product: p, card: card, clock: clock, pay: paytest.New(t, env.Store)}
}

func (f billingFixture) subscribe(t *testing.T, customer string, day, period int) store.Subscription {
	t.Helper()
	sub, _, err := f.pay.Subscribe(ctxT(t), store.SubscribeRequest{
		Key: store.NewID(), CustomerID: customer, Email: customer + "@example.com", Product: f.product,
		PaymentDay: day, PeriodMonths: period,
	})
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// Subscribing on the payment day pays a whole period at once (created 18
// May with day 18: next payment 18 June, reminder 11 June). The AWS
// sample, created 18 May with day 28, pays the days up to the first payment
// day: 10 of the 30 days from 28 April to 28 May of €12.99, €4.33, then a
// whole period on 28 May, its reminder on 21 May.
func TestSubscribeTakesTheFirstPaymentAndSetsTheNextDates(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 41, 25, 856e6, time.UTC))
	ctx := ctxT(t)
	for _, tc := range []struct {
		day                  int
		amount               int64
		kind                 store.ReceiptKind
		next, reminder       string
		wantCharges, wantSum int64
	}{
		{18, 1299, store.ReceiptWholePeriod, "2026-06-18", "2026-06-11", 1, 1299},
		{28, 433, store.ReceiptFirstDays, "2026-05-28", "2026-05-21", 2, 1299 + 433},
	} {
		sub, rec, err := f.pay.Subscribe(ctx, store.SubscribeRequest{
			Key: store.NewID(), CustomerID: "123", Email: "s@s.com", Product: f.product, PaymentDay: tc.day, PeriodMonths: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := store.FormatDate(sub.NextPaymentDate); got != tc.next {
			t.Errorf("day %d: next payment %s, want %s", tc.day, got, tc.next)
		}
		if got := store.FormatDate(sub.NextReminderDate); got != tc.reminder {
			t.Errorf("day %d: next reminder %s, want %s", tc.day, got, tc.reminder)
		}
		if rec.Amount != eur(tc.amount) || rec.Kind != tc.kind || store.FormatDate(rec.PeriodStart) != "2026-05-18" || store.FormatDate(rec.PeriodEnd) != tc.next {
			t.Errorf("day %d: first receipt %+v", tc.day, rec)
		}
		if rec.Card.Last4 != "4242" || rec.Card.Token != "" {
			t.Errorf("receipt card %+v: brand and last four, no token", rec.Card)
		}
		if n, total := paytest.Payments(t, f.env); int64(n) != tc.wantCharges || total != tc.wantSum {
			t.Errorf("day %d: the provider took %d payments, %d cents", tc.day, n, total)
		}
	}
	// A six-month period costs six months; its first days are a share of
	// the six months from 3 December to 3 June: 16 of 182 days.
	six, rec, err := f.pay.Subscribe(ctx, store.SubscribeRequest{
		Key: store.NewID(), CustomerID: "123", Product: f.product, PaymentDay: 3, PeriodMonths: 6,
	})
	if err != nil {
		t.Fatal(err)
	}
	if six.Amount() != eur(6*1299) || store.FormatDate(six.NextPaymentDate) != "2026-06-03" || rec.Amount != eur(6*1299*16/182) {
		t.Errorf("six-monthly: amount %v, next %s, first receipt %v", six.Amount(), store.FormatDate(six.NextPaymentDate), rec.Amount)
	}
}

// The seven access patterns of the guide, each one request (the due-date
// ones one Query per shard, in parallel).
func TestRecurringPaymentPatternsCostOneRequestEach(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	f := newBillingFixture(t, now)
	ctx := ctxT(t)
	sub := store.Subscription{ID: "sub1", AccountID: "acc1", ProductID: "beans", ProductName: "Fika beans", Email: "a@example.com",
		MonthlyPrice: eur(1299), PeriodMonths: 1, PaymentDay: 15, Status: store.SubscriptionActive, Card: f.card,
		NextPaymentDate: d("2026-03-15"), NextReminderDate: d("2026-03-08"), CreatedAt: now, Version: 1}
	f.env.Once(t, "create subscription (1)", func() {
		if err := f.env.Store.CreateSubscription(ctx, sub); err != nil {
			t.Error(err)
		}
	})
	rec := store.NewReceipt(sub, store.GatewayCharge{ID: "ch_1", Amount: eur(1299), At: now}, d("2026-02-15"), d("2026-03-15"))
	// The process's first receipt of the year reads the series' counter
	// (books.go); from then on it knows the last number.
	warm := sub
	warm.ID, warm.AccountID = "sub0", "acc0"
	if err := f.env.Store.PutReceipt(ctx, store.NewReceipt(warm, store.GatewayCharge{ID: "ch_0", Amount: eur(1299), At: now}, d("2026-02-15"), d("2026-03-15"))); err != nil {
		t.Fatal(err)
	}
	f.env.Once(t, "create receipt (2)", func() {
		if err := f.env.Store.PutReceipt(ctx, rec); err != nil {
			t.Error(err)
		}
	})
	if err := f.env.Store.PutReceipt(ctx, rec); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second receipt for the period: %v, want ErrConflict", err)
	}
	f.env.Once(t, "update subscription (3)", func() {
		next := sub
		next.PaymentDay = 20
		var err error
		if sub, err = f.env.Store.UpdateSubscription(ctx, next); err != nil || sub.Version != 2 {
			t.Errorf("update: %v, version %d", err, sub.Version)
		}
	})
	shards := store.DefaultBillingShards
	f.env.Counter.Reset()
	reminders, err := f.env.Store.RemindersDue(ctx, d("2026-03-10"), 50, "")
	if err != nil || len(reminders.Items) != 1 || reminders.Items[0].ID != "sub1" {
		t.Fatalf("reminders due on or before 10 March (4): %+v, %v", reminders, err)
	}
	if n := f.env.Counter.Ops()["Query"]; n != shards || f.env.Counter.Total() != shards {
		t.Errorf("reminders due: %v requests, want %d queries", f.env.Counter.Ops(), shards)
	}
	f.env.Counter.Reset()
	payments, err := f.env.Store.PaymentsDue(ctx, d("2026-03-15"), 50, "")
	if err != nil || len(payments.Items) != 1 || payments.Items[0].PaymentDay != 20 {
		t.Fatalf("payments due on or before 15 March (5): %+v, %v", payments, err)
	}
	if n := f.env.Counter.Total(); n != shards {
		t.Errorf("payments due: %v requests, want %d queries", f.env.Counter.Ops(), shards)
	}
	if early, _ := f.env.Store.PaymentsDue(ctx, d("2026-03-14"), 50, ""); len(early.Items) != 0 {
		t.Errorf("payments due on or before 14 March: %d, want none", len(early.Items))
	}
	f.env.Once(t, "subscriptions of an account (6)", func() {
		subs, err := f.env.Store.Subscriptions(ctx, "acc1")
		if err != nil || len(subs) != 1 || subs[0].Version != 2 {
			t.Errorf("subscriptions: %+v, %v", subs, err)
		}
	})
	f.env.Once(t, "receipts of an account in a date range (7)", func() {
		page, err := f.env.Store.Receipts(ctx, "acc1", "2026-03-01", "2026-03-10", 10, "")
		if err != nil || len(page.Items) != 1 || page.Items[0].Number != rec.Number {
			t.Errorf("receipts: %+v, %v", page, err)
		}
	})
	f.env.Once(t, "a receipt by its number", func() {
		got, err := f.env.Store.Receipt(ctx, "acc1", rec.Number)
		if err != nil || got.ChargeID != "ch_1" {
			t.Errorf("receipt %s: %+v, %v", rec.Number, got, err)
		}
	})
	if _, err := f.env.Store.Receipt(ctx, "acc2", rec.Number); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another account's receipt: %v, want ErrNotFound", err)
	}
}

// A receipt stays visible the full six months; one past them, or past its
// TTL but not yet deleted by DynamoDB, is not shown.
func TestReceiptsAreKeptSixMonthsAndNoLonger(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	f := newBillingFixture(t, now)
	ctx := ctxT(t)
	put := func(at time.Time, expires time.Time) store.Receipt {
		t.Helper()
		sub := store.Subscription{ID: store.NewID(), AccountID: "acc", ProductID: "beans", MonthlyPrice: eur(100), PeriodMonths: 1, Card: f.card}
		r := store.NewReceipt(sub, store.GatewayCharge{ID: "ch", Amount: eur(100), At: at}, rules.DateOf(at, time.UTC), rules.DateOf(at, time.UTC).AddDate(0, 1, 0))
		if !expires.IsZero() {
			r.ExpiresAt = expires
		}
		if err := f.env.Store.PutReceipt(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	justInside := put(now.AddDate(0, -6, 0).Add(time.Hour), time.Time{})
	if min := justInside.ProcessedAt.AddDate(0, 6, 0); justInside.ExpiresAt.Before(min) {
		t.Fatalf("TTL %s is before six months after %s", justInside.ExpiresAt, justInside.ProcessedAt)
	}
	put(now.AddDate(0, -6, 0).Add(-time.Hour), time.Time{})    // six months and an hour ago
	stale := put(now.AddDate(0, -1, 0), now.Add(-time.Minute)) // TTL passed, not deleted yet
	fresh := put(now.Add(-time.Hour), time.Time{})
	page, err := f.env.Store.RecentReceipts(ctx, "acc", 10, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range page.Items {
		got = append(got, r.Number)
	}
	if len(got) != 2 || got[0] != fresh.Number || got[1] != justInside.Number {
		t.Fatalf("recent receipts %v, want [%s %s] (newest first)", got, fresh.Number, justInside.Number)
	}
	if _, err := f.env.Store.Receipt(ctx, "acc", stale.Number); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an expired receipt by number: %v, want ErrNotFound", err)
	}
	// Still shown just before the end of its six months.
	f.clock.Set(justInside.ProcessedAt.AddDate(0, 6, 0).Add(-time.Minute))
	if _, err := f.env.Store.Receipt(ctx, "acc", justInside.Number); err != nil {
		t.Fatalf("receipt on the last day of its six months: %v", err)
	}
}

// Twenty customers' tabs change one subscription at the version they saw:
// one change wins, the others get the subscription as it is now and write
// nothing.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestSubscriptionChangesRaceOnTheVersion(t *testing.T) {
	f := newBillingFixture(t, time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	sub := f.subscribe(t, "acc", 10, 1)
	const tabs = 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, stale := 0, 0
	for i := range tabs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.env.Store.ChangeSubscription(ctx, "acc", sub.ID, sub.Version, store.ChangeDay(11+i))
			mu.Lock()
			defer mu.Unlock()
			var se *store.StaleError
			switch {
			case err == nil:
				won++
			case errors.As(err, &se):
				stale++
				if se.Current.Version < 2 {
					t.Errorf("stale error carries version %d", se.Current.Version)
				}
			default:
				t.Errorf("change: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || stale != tabs-1 {
		t.Fatalf("%d changes won and %d were stale, want 1 and %d", won, stale, tabs-1)
	}
	now, err := f.env.Store.Subscription(ctx, "acc", sub.ID)
	if err != nil || now.Version != 2 || now.PaymentDay < 11 {
		t.Fatalf("after the race: %+v, %v", now, err)
	}
	// A tab still showing version 1 is told so, and nothing is written.
	if _, err := f.env.Store.ChangeSubscription(ctx, "acc", sub.ID, 1, store.Pause()); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("change at an old version: %v, want a StaleError", err)
	}
	if _, err := f.env.Store.ChangeSubscription(ctx, "other", sub.ID, 2, store.Pause()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another account's subscription: %v, want ErrNotFound", err)
	}
}

// The subscribe form submitted ten times at once makes one subscription, one
// charge and one receipt.
func TestSubscribeTwinSubmissionsChargeOnce(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	const twins = 10
	ids := make([]string, twins)
	var wg sync.WaitGroup
	for i := range twins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub, _, err := f.pay.Subscribe(ctx, store.SubscribeRequest{
				Key: "same-key", CustomerID: "acc", Product: f.product, PaymentDay: 10, PeriodMonths: 1,
			})
			if err != nil {
				t.Errorf("twin %d: %v", i, err)
				return
			}
			ids[i] = sub.ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("twins got different subscriptions: %v", ids)
		}
	}
	if n, total := paytest.Payments(t, f.env); n != 1 || total != 1299 {
		t.Fatalf("the provider holds %d payments (%d cents), want 1", n, total)
	}
	if n := f.env.CountEntities(t, "subscription"); n != 1 {
		t.Fatalf("%d subscriptions, want 1", n)
	}
	if n := f.env.CountEntities(t, "receipt"); n != 1 {
		t.Fatalf("%d receipts, want 1", n)
	}
	// The same key from another customer is not theirs.
	if _, _, err := f.pay.Subscribe(ctx, store.SubscribeRequest{
		Key: "same-key", CustomerID: "acc2", Product: f.product, PaymentDay: 10, PeriodMonths: 1,
	}); err != nil {
		t.Fatalf("another customer's own key: %v", err)
	}
}

func TestSubscribeRefusesBadInputAndDeclinesWithoutWriting(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	plain := f.product
	plain.Subscribable = false
	for _, tc := range []struct {
		name string
		req  store.SubscribeRequest
		want error
	}{
		{"day 0", store.SubscribeRequest{PaymentDay: 0, PeriodMonths: 1}, store.ErrBadPaymentDay},
		{"day 32", store.SubscribeRequest{PaymentDay: 32, PeriodMonths: 1}, store.ErrBadPaymentDay},
		{"period 4", store.SubscribeRequest{PaymentDay: 1, PeriodMonths: 4}, store.ErrBadPeriod},
		{"not subscribable", store.SubscribeRequest{PaymentDay: 1, PeriodMonths: 1, Product: plain}, store.ErrNotSubscribable},
		{"bad key", store.SubscribeRequest{Key: "a b", PaymentDay: 1, PeriodMonths: 1}, store.ErrBadSubscribeKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req
			if r.Key == "" {
				r.Key = store.NewID()
			}
			if r.Product.ID == "" {
				r.Product = f.product
			}
			r.CustomerID = "acc"
			if _, _, err := f.pay.Subscribe(ctx, r); !errors.Is(err, tc.want) {
				t.Fatalf("Subscribe: %v, want %v", err, tc.want)
			}
		})
	}
	for _, e := range []string{"subscription", "receipt", "paidPeriod", "idempotency", "gatewayCharge", "testPaySession"} {
		if n := f.env.CountEntities(t, e); n != 0 {
			t.Errorf("%d %s items written", n, e)
		}
	}
	// A card the provider's page declines starts nothing and takes
	// nothing: the subscribe waits, pending, for another card (or its
	// page's expiry, when the reconcile fails it).
	declined := *f.pay
	declined.Card = payment.CardForm{Number: payment.CardDeclined, Expiry: "12/99", CVC: "123"}
	key := store.NewID()
	if _, _, err := declined.Subscribe(ctx, store.SubscribeRequest{Key: key, CustomerID: "acc", Product: f.product, PaymentDay: 1, PeriodMonths: 1}); !errors.Is(err, payment.ErrDeclined) {
		t.Fatalf("declined: %v", err)
	}
	for _, e := range []string{"subscription", "receipt", "paidPeriod", "gatewayCharge"} {
		if n := f.env.CountEntities(t, e); n != 0 {
			t.Errorf("after a decline: %d %s items written", n, e)
		}
	}
	if n, _ := paytest.Payments(t, f.env); n != 0 {
		t.Errorf("%d payments after a decline", n)
	}
	if p, err := f.env.Store.PendingSubscribe(ctx, "acc", key); err != nil || p.Status != store.SubscribePending {
		t.Errorf("the declined subscribe: %+v, %v", p, err)
	}
}

// A subscription is in the due-date indexes exactly while a job has to act
// on it, and the change is in the same write.
func TestDueIndexesFollowTheStatus(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	sub := f.subscribe(t, "acc", 20, 1) // the first days to 20 Jan, reminder today
	far := d("2027-01-01")
	inIndexes := func() (rem, pay bool) {
		t.Helper()
		r, err := f.env.Store.RemindersDue(ctx, far, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.env.Store.PaymentsDue(ctx, far, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Items) == 1, len(p.Items) == 1
	}
	step := func(name string, change store.SubscriptionChange, wantRem, wantPay bool) {
		t.Helper()
		var err error
		if sub, err = f.env.Store.ChangeSubscription(ctx, "acc", sub.ID, sub.Version, change); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rem, pay := inIndexes(); rem != wantRem || pay != wantPay {
			t.Fatalf("after %s: reminders %v payments %v, want %v %v", name, rem, pay, wantRem, wantPay)
		}
	}
	if rem, pay := inIndexes(); !rem || !pay {
		t.Fatalf("a new subscription: reminders %v payments %v", rem, pay)
	}
	step("pause", store.Pause(), false, false)
	step("resume", store.Resume(), true, true)
	step("pause until a day", store.PauseUntil(d("2026-03-01")), false, true)
	resuming, _ := f.env.Store.PaymentsDueOn(ctx, d("2026-03-01"), 10, "")
	if len(resuming.Items) != 1 || !resuming.Items[0].ResumesOn.Equal(d("2026-03-01")) {
		t.Fatalf("a subscription paused until a day is due that day: %+v", resuming.Items)
	}
	step("resume", store.Resume(), true, true)
	step("cancel at period end", store.CancelAtPeriodEnd(), false, true)
	ending, _ := f.env.Store.PaymentsDueOn(ctx, sub.EndsOn, 10, "")
	if len(ending.Items) != 1 || !ending.Items[0].Ending() {
		t.Fatalf("an ending subscription is due on its end date: %+v", ending.Items)
	}
	step("keep", store.KeepOn(), true, true)
	step("cancel now", store.CancelNow(), false, false)
	onStatus, err := f.env.Store.SubscriptionsByStatus(ctx, store.SubscriptionCancelled, 10, "")
	if err != nil || len(onStatus.Items) != 1 {
		t.Fatalf("cancelled list: %+v, %v", onStatus, err)
	}
}

// Pages of the due lists merge every shard in date order, each subscription
// once, with a cursor that carries each shard's position.
func TestDueListsPageAcrossShards(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC)
	f := newBillingFixture(t, now)
	ctx := ctxT(t)
	const n = 41
	for i := range n {
		sub := store.Subscription{ID: fmt.Sprintf("sub%02d", i), AccountID: fmt.Sprintf("acc%d", i), ProductID: "beans",
			MonthlyPrice: eur(100), PeriodMonths: 1, PaymentDay: 1 + i%28, Status: store.SubscriptionActive, Card: f.card,
			NextPaymentDate: d("2026-02-01").AddDate(0, 0, i%28), NextReminderDate: d("2026-01-25").AddDate(0, 0, i%28), CreatedAt: now, Version: 1}
		if err := f.env.Store.CreateSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	last := ""
	cursor := ""
	pages := 0
	for {
		page, err := f.env.Store.PaymentsDue(ctx, d("2026-03-01"), 6, cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, s := range page.Items {
			key := store.FormatDate(s.NextPaymentDate)
			if seen[s.ID] {
				t.Fatalf("%s twice", s.ID)
			}
			if key < last {
				t.Fatalf("%s due %s after %s: not in date order", s.ID, key, last)
			}
			seen[s.ID], last = true, key
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
		if pages > 20 {
			t.Fatal("paging does not end")
		}
	}
	if len(seen) != n {
		t.Fatalf("saw %d subscriptions, want %d", len(seen), n)
	}
	// One day only, for staff.
	on, err := f.env.Store.PaymentsDueOn(ctx, d("2026-02-03"), 50, "")
	if err != nil || len(on.Items) != 2 { // i = 2 and 30
		t.Fatalf("due on 3 Feb: %d, %v", len(on.Items), err)
	}
	// A cursor of another list is refused.
	first, _ := f.env.Store.PaymentsDue(ctx, d("2026-03-01"), 6, "")
	if _, err := f.env.Store.RemindersDue(ctx, d("2026-03-01"), 6, first.Next); !errors.Is(err, store.ErrBadCursor) {
		t.Fatalf("a payments cursor on the reminders list: %v", err)
	}
	if _, err := f.env.Store.PaymentsDue(ctx, d("2026-03-01"), 6, "bm90IGEgY3Vyc29y"); !errors.Is(err, store.ErrBadCursor) {
		t.Fatalf("a junk cursor: %v", err)
	}
}

func TestBillingShardsAreFixedForATable(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	other := store.New(env.Client, env.Table, store.WithBillingShards(3))
	if err := other.Migrate(ctx); !errors.Is(err, store.ErrShardsChanged) {
		t.Fatalf("migrate with another shard count: %v, want ErrShardsChanged", err)
	}
	same := store.New(env.Client, env.Table, store.WithBillingShards(store.DefaultBillingShards))
	if err := same.Migrate(ctx); err != nil {
		t.Fatalf("migrate with the table's shard count: %v", err)
	}
}

// A table made when the billing indexes projected a few attributes gets
// them recreated with the code's projection.
func TestMigrateRecreatesAnIndexWhoseProjectionDiffers(t *testing.T) {
	t.Parallel()
	// An engine of its own: DynamoDB Local, once it holds the many tables
	// of the other tests, leaves a deleted index DELETING for minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	eng, err := dynamolocal.Start(ctx, dynamolocal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Stop() })
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: eng.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	env := storetest.Env{Client: client, Table: "shop"}
	table := env.Table + "-old"
	key := func(pk, sk string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(sk), KeyType: types.KeyTypeRange}}
	}
	var defs []types.AttributeDefinition
	for _, a := range []string{"PK", "SK", "PAY-PK", "PAY-SK"} {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	_, err = env.Client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest, AttributeDefinitions: defs, KeySchema: key("PK", "SK"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("PaymentsDue"), KeySchema: key("PAY-PK", "PAY-SK"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"Email"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = env.Client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	if err := store.New(env.Client, table).Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	desc, err := env.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, g := range desc.Table.GlobalSecondaryIndexes {
		found++
		if aws.ToString(g.IndexName) == "PaymentsDue" && g.Projection.ProjectionType != types.ProjectionTypeAll {
			t.Fatalf("PaymentsDue projects %s, want ALL", g.Projection.ProjectionType)
		}
	}
	if found != 6 { // GSI1, GSI2, RemindersDue, PaymentsDue, ShipmentsByStatus, Attention
		t.Fatalf("%d indexes after migrate, want 6", found)
	}
}

func d(s string) time.Time {
	t, err := rules.ParseDate(s)
	if err != nil {
		panic(s)
	}
	return t
}
