package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
	"shop/store/storetest/paytest"
)

// tea is a product at €12.90 a month, the example.
func (f billingFixture) tea(t *testing.T) store.Product {
	t.Helper()
	p := store.Product{ID: "tea", Name: "Fika tea", Category: "coffee", Price: eur(1500), Subscribable: true, MonthlyPrice: eur(1290)}
	if err := f.env.Store.PutProduct(ctxT(t), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// Subscribing on 28 November with payment day 1 pays 28-30 November, 3 of
// the 30 days of a month of €12.90: €1.29, on a receipt of those days.
// The payments job then charges the whole period starting on 1 December
// as usual, with its own receipt: the two period markers do not collide,
// and each period is still receipted once.
func TestSubscribingBetweenPaymentDaysPaysTheFirstDaysThenWholePeriods(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	tea := f.tea(t)
	sub, first, err := f.pay.Subscribe(ctx, store.SubscribeRequest{
		Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com", Product: tea, PaymentDay: 1, PeriodMonths: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if first.Amount != eur(129) || first.Kind != store.ReceiptFirstDays || first.ChargeID == "" ||
		store.FormatDate(first.PeriodStart) != "2026-11-28" || store.FormatDate(first.LastDay()) != "2026-11-30" || store.FormatDate(first.PeriodEnd) != "2026-12-01" {
		t.Fatalf("first receipt %+v, want €1.29 for 28-30 Nov", first)
	}
	if store.FormatDate(sub.NextPaymentDate) != "2026-12-01" || store.FormatDate(sub.NextReminderDate) != "2026-11-28" || store.FormatDate(sub.LastPaymentDate) != "2026-11-28" {
		t.Fatalf("next payment %s, reminder %s, last paid %s", store.FormatDate(sub.NextPaymentDate), store.FormatDate(sub.NextReminderDate), store.FormatDate(sub.LastPaymentDate))
	}
	if n, total := paytest.Payments(t, f.env); n != 1 || total != 129 {
		t.Fatalf("gateway captured %d charges, %d cents, want one of 129", n, total)
	}
	back, err := f.env.Store.Receipt(ctx, "ada", first.Number)
	if err != nil || back.Kind != store.ReceiptFirstDays || back.Amount != eur(129) {
		t.Fatalf("the receipt read back: %+v, %v", back, err)
	}

	// 1 December: the payments job's steps charge the whole period.
	f.clock.Set(time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC))
	due, err := f.env.Store.RecordPaymentIntent(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	if store.FormatDate(due.Intent.Period) != "2026-12-01" || due.AmountFor(due.Intent.Period) != eur(1290) {
		t.Fatalf("intent %+v", due.Intent)
	}
	charge, err := f.pay.Renew(ctx, due)
	if err != nil {
		t.Fatal(err)
	}
	today := rules.DateOf(f.clock.Now(), time.UTC)
	next, whole, err := f.env.Store.CompletePayment(ctx, due, charge, today, nil)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Amount != eur(1290) || whole.Kind != store.ReceiptWholePeriod || store.FormatDate(whole.PeriodStart) != "2026-12-01" || store.FormatDate(whole.PeriodEnd) != "2027-01-01" {
		t.Fatalf("the first whole period's receipt %+v", whole)
	}
	if store.FormatDate(next.NextPaymentDate) != "2027-01-01" {
		t.Fatalf("then next payment %s", store.FormatDate(next.NextPaymentDate))
	}
	if _, _, err := f.env.Store.CompletePayment(ctx, due, charge, today, nil); !errors.Is(err, store.ErrAlreadyPaid) {
		t.Fatalf("1 December again: %v, want ErrAlreadyPaid", err)
	}
	again := first
	again.Number, again.ProcessedAt = store.ReceiptNumber(f.clock.Now(), tea.ID), f.clock.Now()
	if err := f.env.Store.PutReceipt(ctx, again); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("the first days again: %v, want ErrConflict", err)
	}
	if n := f.env.CountEntities(t, "paidPeriod"); n != 2 {
		t.Fatalf("%d period markers, want 2 (the first days, December)", n)
	}
	if n := f.env.CountEntities(t, "receipt"); n != 2 {
		t.Fatalf("%d receipts, want 2", n)
	}
}

// A share below the smallest charge (€0.50) is not charged: 30 November to
// the 1st is 1 of 30 days of €12.90, €0.43. The receipt says the day was
// free; the provider charges nothing (the card is saved in setup mode);
// the 1st charges the whole period.
func TestFirstDaysBelowTheSmallestChargeAreFree(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	sub, rec, err := f.pay.Subscribe(ctx, store.SubscribeRequest{
		Key: store.NewID(), CustomerID: "ada", Product: f.tea(t), PaymentDay: 1, PeriodMonths: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Amount != eur(0) || rec.Kind != store.ReceiptFreeDays || rec.ChargeID != "" || rec.Number == "" ||
		store.FormatDate(rec.PeriodStart) != "2026-11-30" || store.FormatDate(rec.PeriodEnd) != "2026-12-01" {
		t.Fatalf("receipt %+v, want a free day", rec)
	}
	if n, _ := paytest.Payments(t, f.env); n != 0 || f.env.CountEntities(t, "testPayIntent") != 0 {
		t.Fatalf("the provider was asked %d times, took %d", f.env.CountEntities(t, "testPayIntent"), n)
	}
	if n := f.env.CountEntities(t, "gatewayCharge"); n != 0 {
		t.Fatalf("%d charges in the ledger", n)
	}
	if store.FormatDate(sub.NextPaymentDate) != "2026-12-01" || sub.AmountFor(sub.NextPaymentDate) != eur(1290) {
		t.Fatalf("next payment %s of %v", store.FormatDate(sub.NextPaymentDate), sub.AmountFor(sub.NextPaymentDate))
	}
}

// Ten presses of one form at once between payment days make one
// subscription, one charge of the share (or none, the days being free) and
// one receipt of the first days.
func TestSubscribeTwinSubmissionsBetweenPaymentDaysChargeTheShareOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		now     time.Time
		charges int
		total   int64
	}{
		{"charged", time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC), 1, 129},
		{"free", time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newBillingFixture(t, tc.now)
			ctx := ctxT(t)
			tea := f.tea(t)
			const twins = 10
			ids := make([]string, twins)
			var wg sync.WaitGroup
			for i := range twins {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sub, _, err := f.pay.Subscribe(ctx, store.SubscribeRequest{
						Key: "same-key", CustomerID: "acc", Product: tea, PaymentDay: 1, PeriodMonths: 1,
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
			if n, total := paytest.Payments(t, f.env); n != tc.charges || total != tc.total {
				t.Fatalf("the provider holds %d payments (%d cents), want %d (%d)", n, total, tc.charges, tc.total)
			}
			for entity, want := range map[string]int{"subscription": 1, "receipt": 1, "paidPeriod": 1} {
				if n := f.env.CountEntities(t, entity); n != want {
					t.Errorf("%d %s items, want %d", n, entity, want)
				}
			}
		})
	}
}

// A product that ships: first days of half a month or more ship one unit,
// at what they paid; fewer ship nothing, the first delivery coming with the
// first whole period; a payment day ships the whole period as before.
func TestFirstDaysShipAUnitWhenHalfAMonthIsPaid(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	f.stock(t, map[string]int{"gbg": 10})
	for _, tc := range []struct {
		day, months int
		paid        int64 // €12.99 a month
		units       int
	}{
		{10, 1, 1299 * 23 / 31, 1}, // 18 May to 10 June: 23 of 31 days
		{28, 1, 1299 * 10 / 30, 0}, // to 28 May: 10 of 30 days
		{3, 6, 6 * 1299 * 16 / 182, 1},
		{18, 3, 3 * 1299, 3}, // the payment day: a whole period
	} {
		t.Run(fmt.Sprintf("day %d every %d months", tc.day, tc.months), func(t *testing.T) {
			customer := fmt.Sprintf("cust-%d-%d", tc.day, tc.months)
			sub, rec, err := f.pay.Subscribe(ctxT(t), store.SubscribeRequest{
				Key: store.NewID(), CustomerID: customer, Email: customer + "@example.com", Product: f.product, PaymentDay: tc.day, PeriodMonths: tc.months,
			})
			if err != nil {
				t.Fatal(err)
			}
			if rec.Amount != eur(tc.paid) {
				t.Fatalf("paid %v, want %v", rec.Amount, eur(tc.paid))
			}
			if tc.units == 0 {
				if len(sub.Orders) != 0 {
					t.Fatalf("orders %+v, want none", sub.Orders)
				}
				return
			}
			if len(sub.Orders) != 1 {
				t.Fatalf("orders %+v, want the first days'", sub.Orders)
			}
			d := f.details(t, sub.Orders[0].OrderID)
			if d.Order.Total != rec.Amount || d.Order.ReceiptNumber != rec.Number || len(d.Items) != 1 || d.Items[0].Quantity != tc.units ||
				d.Items[0].Price.Amount*int64(tc.units) != tc.paid {
				t.Fatalf("order %+v, items %+v", d.Order, d.Items)
			}
		})
	}
	if left := f.stockLeft(t); left["gbg"] != 10-1-1-3 {
		t.Fatalf("stock left %v, want 5", left)
	}
}
