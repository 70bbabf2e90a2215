package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
	"shop/store/storetest/paytest"
)

// trialTea is tea (€12.90 a month) with a free trial of 14 days.
func (f billingFixture) trialTea(t *testing.T) store.Product {
	t.Helper()
	p := store.Product{ID: "tea", Name: "Fika tea", Category: "coffee", Price: eur(1500), Subscribable: true, MonthlyPrice: eur(1290), TrialDays: 14}
	if err := f.env.Store.PutProduct(ctxT(t), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// Subscribing on 28 November to tea with a 14-day trial, payment day 1:
// nothing charged (the card saved in setup mode), a receipt of the free
// trial, the first payment on 12 December (its reminder three days
// before); the payments job's steps then charge €8.32 for 12-31 December
// (20 of 31 days), then €12.90 on 1 January. The customer's second
// subscribe to tea is charged as if it had no trial.
func TestATrialChargesNothingThenItsShareOnItsEndThenWholePeriods(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	tea := f.trialTea(t)
	f.env.Counter.Reset()
	sub, trial, err := f.pay.Subscribe(ctx, store.SubscribeRequest{
		Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com", Product: tea, PaymentDay: 1, PeriodMonths: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("subscribing with a trial (test provider included): %d requests %v", f.env.Counter.Total(), f.env.Counter.Ops())
	if trial.Amount.Amount != 0 || trial.Kind != store.ReceiptTrial || store.FormatDate(trial.PeriodStart) != "2026-11-28" ||
		store.FormatDate(trial.PeriodEnd) != "2026-12-12" {
		t.Fatalf("trial receipt %+v", trial)
	}
	if store.FormatDate(sub.TrialEnds) != "2026-12-12" || store.FormatDate(sub.NextPaymentDate) != "2026-12-12" ||
		store.FormatDate(sub.NextReminderDate) != "2026-12-09" || sub.AmountFor(sub.NextPaymentDate) != eur(832) {
		t.Fatalf("trial ends %s, next payment %s (%v), reminder %s", store.FormatDate(sub.TrialEnds), store.FormatDate(sub.NextPaymentDate),
			sub.AmountFor(sub.NextPaymentDate), store.FormatDate(sub.NextReminderDate))
	}
	if n, total := paytest.Payments(t, f.env); n != 0 || total != 0 {
		t.Fatalf("the trial charged %d payments, %d cents", n, total)
	}
	back, err := f.env.Store.SubscriptionConsistent(ctx, "ada", sub.ID)
	if err != nil || !back.TrialEnds.Equal(sub.TrialEnds) {
		t.Fatalf("read back: trial ends %s, %v", store.FormatDate(back.TrialEnds), err)
	}

	sub, share := f.renew(t, back, rules.Date(2026, 12, 12))
	if share.Amount != eur(832) || share.Kind != store.ReceiptFirstDays || store.FormatDate(share.PeriodStart) != "2026-12-12" ||
		store.FormatDate(share.PeriodEnd) != "2027-01-01" || store.FormatDate(sub.NextPaymentDate) != "2027-01-01" {
		t.Fatalf("the first charge after the trial %+v, next %s", share, store.FormatDate(sub.NextPaymentDate))
	}
	sub, whole := f.renew(t, sub, rules.Date(2027, 1, 1))
	if whole.Amount != eur(1290) || whole.Kind != store.ReceiptWholePeriod || store.FormatDate(sub.NextPaymentDate) != "2027-02-01" {
		t.Fatalf("the first whole period %+v, next %s", whole, store.FormatDate(sub.NextPaymentDate))
	}

	taken, err := f.env.Store.TrialTaken(ctx, "ada", tea.ID)
	if err != nil || !taken {
		t.Fatalf("trial taken: %v, %v", taken, err)
	}
	_, _, err = f.pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com", Product: tea,
		PaymentDay: 15, PeriodMonths: 1})
	if !errors.Is(err, store.ErrTrialTaken) {
		t.Fatalf("a second trial of tea: %v, want ErrTrialTaken", err)
	}
	again, first, err := f.pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com", Product: tea,
		PaymentDay: 15, PeriodMonths: 1, TrialTaken: true})
	if err != nil || !again.TrialEnds.IsZero() || first.Kind != store.ReceiptFirstDays || first.Amount.Amount <= 0 {
		t.Fatalf("subscribing again after the trial: trial ends %s, first %+v, %v", store.FormatDate(again.TrialEnds), first, err)
	}
}

// Many tabs of one customer subscribing to a product with a trial at once:
// exactly one takes the trial, the others are refused (ErrTrialTaken) with
// nothing written, and nothing is charged. A trial whose subscribe fails
// (its page expired) is given back, once.
func TestManyTabsTakeAProductsTrialOnce(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	tea := f.trialTea(t)
	const n = 8
	var wg sync.WaitGroup
	subs := make([]store.Subscription, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			subs[i], _, errs[i] = f.pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com",
				Product: tea, PaymentDay: 1, PeriodMonths: 1})
		}()
	}
	wg.Wait()
	started := 0
	for i, err := range errs {
		switch {
		case err == nil:
			started++
		case !errors.Is(err, store.ErrTrialTaken):
			t.Errorf("tab %d: %v, want ErrTrialTaken", i, err)
		}
	}
	all, err := f.env.Store.Subscriptions(ctx, "ada")
	if err != nil {
		t.Fatal(err)
	}
	if started != 1 || len(all) != 1 || all[0].TrialEnds.IsZero() {
		t.Fatalf("%d tabs started, %d subscriptions; want one trial", started, len(all))
	}
	if n, total := paytest.Payments(t, f.env); n != 0 || total != 0 {
		t.Fatalf("%d payments, %d cents charged", n, total)
	}
	pending, err := f.env.Store.PendingSubscribes(ctx, f.clock.Now().Add(time.Hour), 100)
	if err != nil || len(pending) != 0 {
		t.Fatalf("subscribes left pending: %+v, %v", pending, err)
	}

	// Another customer's trial whose page expires unpaid: the trial is
	// theirs to take again, however often the failure is reported.
	plan, err := f.env.Store.PlanSubscribe(store.SubscribeRequest{Key: store.NewID(), CustomerID: "bo", Email: "bo@example.com", Product: tea,
		PaymentDay: 1, PeriodMonths: 1})
	if err != nil {
		t.Fatal(err)
	}
	plan.Provider, plan.Session = "test", "cs_bo"
	p, err := f.env.Store.PendSubscribe(ctx, plan)
	if err != nil || p.TrialDays != 14 {
		t.Fatalf("pend: %+v, %v", p, err)
	}
	if taken, err := f.env.Store.TrialTaken(ctx, "bo", tea.ID); err != nil || !taken {
		t.Fatalf("pending trial taken: %v, %v", taken, err)
	}
	fails := make([]error, 3)
	for i := range fails {
		wg.Add(1)
		go func() { defer wg.Done(); fails[i] = f.env.Store.FailSubscribe(ctx, p, "") }()
	}
	wg.Wait()
	ok := 0
	for _, err := range fails {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, store.ErrSubscribeSettled):
			t.Errorf("failing it: %v", err)
		}
	}
	if taken, err := f.env.Store.TrialTaken(ctx, "bo", tea.ID); ok != 1 || err != nil || taken {
		t.Fatalf("%d fails applied; trial still taken: %v, %v", ok, taken, err)
	}
}

// A code for one payment on a subscribe with a trial: its use is counted
// when attached, the trial uses none of its payments, and the first charge
// after the trial (the share, €8.32) takes its 10 % off (€0.83); the first
// whole period pays the whole price.
func TestATrialsCodeCoversTheFirstChargeAfterIt(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	tea := f.trialTea(t)
	d := f.code(t, store.DiscountCode{Code: "TEA10", Payments: 1})
	sub, trial, err := f.pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com", Product: tea,
		PaymentDay: 1, PeriodMonths: 1, Discount: &d})
	if err != nil {
		t.Fatal(err)
	}
	if trial.Amount.Amount != 0 || trial.Discount.Amount != 0 || sub.Coupon == nil || sub.Coupon.Left != 1 || f.used(t, "TEA10") != 1 {
		t.Fatalf("trial receipt %+v, coupon %+v, used %d", trial, sub.Coupon, f.used(t, "TEA10"))
	}
	sub, share := f.renew(t, sub, rules.Date(2026, 12, 12))
	if share.Amount != eur(749) || share.Discount != eur(83) || share.DiscountCode != "TEA10" || sub.Coupon != nil {
		t.Fatalf("the first charge %+v, coupon after %+v", share, sub.Coupon)
	}
	if _, whole := f.renew(t, sub, rules.Date(2027, 1, 1)); whole.Amount != eur(1290) || whole.Discount.Amount != 0 {
		t.Fatalf("the first whole period %+v", whole)
	}
}
