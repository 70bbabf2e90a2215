package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"shop/store"
	"shop/store/payment"
)

// The demo's subscriptions, made relative to the day they are loaded:
// Ada has an active monthly one, an active one every three months (taken
// out 12 days before its first payment day, so its first receipt is of
// those days, prorated) and a paused one; Henrik has a payment due today and a past-due one retried
// today; Samaneh has a reminder due today and a cancelled one. Every past
// period has its receipt (those of the last six months). The card is the
// test gateway's succeeding Visa, kept on the gateway's side too, so that
// "Run now" in the staff console charges the ones due.

var demoCard = store.Card{Token: "tok_demo_visa_4242", Brand: "Visa", Last4: "4242"}

// subscriptionPlan is one demo subscription: its first payment (the day it
// was taken out), and how it stands today.
type subscriptionPlan struct {
	email, product string
	months         int
	first          time.Time // first payment of a whole period
	// joined, when set, is the day it was taken out, between payment
	// days: the days from it to first were paid prorated (FirstPeriod),
	// on a receipt of their own.
	joined     time.Time
	day        int       // payment day
	paidBefore time.Time // payments on days before this were taken
	// finish sets what its status calls for; next is the payment after the
	// last one taken.
	finish func(s *store.Subscription, next time.Time)
}

func subscriptionPlans(today time.Time, lead int) []subscriptionPlan {
	tomorrow := today.AddDate(0, 0, 1)
	active := func(s *store.Subscription, next time.Time) {
		s.Status, s.NextPaymentDate = store.SubscriptionActive, next
		s.NextReminderDate = store.ReminderDate(next, today, lead)
	}
	adaMonthly := today.AddDate(0, -5, -10)
	adaQuarterly := today.AddDate(0, -4, -3)
	adaPaused := today.AddDate(0, -4, -20)
	pausedOn := today.AddDate(0, -1, -5)
	henrikDay := today.Day()
	missed := today.AddDate(0, 0, -3)
	remindedFor := today.AddDate(0, 0, lead) // Samaneh's next payment: its reminder is due today
	samanehCancelled := today.AddDate(0, -5, 0)
	cancelledOn := today.AddDate(0, -2, 10)
	return []subscriptionPlan{
		{email: CustomerEmail, product: "cf-gbg-dark", months: 1, first: adaMonthly, day: adaMonthly.Day(), paidBefore: tomorrow, finish: active},
		{email: CustomerEmail, product: "cf-espresso", months: 3, first: adaQuarterly, joined: adaQuarterly.AddDate(0, 0, -12), day: adaQuarterly.Day(), paidBefore: tomorrow, finish: active},
		{email: CustomerEmail, product: "cf-decaf", months: 1, first: adaPaused, day: adaPaused.Day(), paidBefore: pausedOn.AddDate(0, 0, 1),
			finish: func(s *store.Subscription, next time.Time) {
				s.Status, s.PausedOn, s.NextPaymentDate = store.SubscriptionPaused, pausedOn, next
			}},
		{email: "henrik@fikafield.example", product: "cf-light", months: 1, day: henrikDay,
			first: store.BillingDate(today.Year(), today.Month()-3, henrikDay), paidBefore: today,
			finish: func(s *store.Subscription, next time.Time) {
				// Due today; its reminder went out already.
				s.Status, s.NextPaymentDate, s.LastReminderDate = store.SubscriptionActive, next, next.AddDate(0, 0, -lead)
			}},
		{email: "henrik@fikafield.example", product: "cf-filters", months: 1, day: missed.Day(),
			first: store.BillingDate(missed.Year(), missed.Month()-2, missed.Day()), paidBefore: missed,
			finish: func(s *store.Subscription, next time.Time) {
				// The payment three days ago was declined; it is retried today.
				s.Status, s.NextPaymentDate, s.RetryDate = store.SubscriptionPastDue, next, today
			}},
		{email: "samaneh@fikafield.example", product: "cf-espresso", months: 1, day: remindedFor.Day(),
			first: store.BillingDate(remindedFor.Year(), remindedFor.Month()-2, remindedFor.Day()), paidBefore: tomorrow, finish: active},
		{email: "samaneh@fikafield.example", product: "cf-gbg-dark", months: 1, first: samanehCancelled, day: samanehCancelled.Day(),
			paidBefore: cancelledOn.AddDate(0, 0, 1),
			finish: func(s *store.Subscription, _ time.Time) {
				s.Status, s.CancelledOn = store.SubscriptionCancelled, cancelledOn
			}},
	}
}

// categoryOf is the demo category of a product, whose VAT rate its
// subscription's receipts pay.
func categoryOf(productID string) string {
	for _, p := range products {
		if p.id == productID {
			return p.category
		}
	}
	return ""
}

// paidAt is when a demo payment was taken: 06:00 on its day in the shop's
// time zone, and never later than now.
func paidAt(day time.Time, loc *time.Location, now time.Time) time.Time {
	t := time.Date(day.Year(), day.Month(), day.Day(), 6, 0, 0, 0, loc)
	if t.After(now) {
		t = now.Add(-time.Minute)
	}
	return t.UTC().Truncate(time.Millisecond)
}

// build makes the subscription and the receipts of its past periods.
func (pl subscriptionPlan) build(customerID, lang, productName string, loc *time.Location, now time.Time, lead int) (store.Subscription, []store.Receipt) {
	created := paidAt(pl.first, loc, now)
	if !pl.joined.IsZero() {
		created = paidAt(pl.joined, loc, now)
	}
	sub := store.Subscription{
		ID: store.NewIDAt(created), AccountID: customerID, ProductID: pl.product, ProductName: productName, Category: categoryOf(pl.product), Email: pl.email, Lang: lang,
		MonthlyPrice: store.Money{Amount: monthlyPrices[pl.product], Currency: store.DefaultCurrency},
		PeriodMonths: pl.months, PaymentDay: pl.day, Card: demoCard, CreatedAt: created, Version: 1,
	}
	first := pl.first
	var prorated store.Proration
	if !pl.joined.IsZero() {
		// The first days, as Subscribe charged them; whole periods from
		// the first payment date they end on.
		prorated = store.FirstPeriod(pl.joined, pl.day, pl.months, sub.Amount())
		first = prorated.Next
	}
	var paid []time.Time
	for d := first; d.Before(pl.paidBefore); d = store.NextBillingDate(d, pl.months, pl.day) {
		paid = append(paid, d)
	}
	last := paid[len(paid)-1]
	next := store.NextBillingDate(last, pl.months, pl.day)
	sub.LastPaymentDate = last
	if len(paid) > 1 {
		sub.LastReminderDate = last.AddDate(0, 0, -lead)
	}
	pl.finish(&sub, next)
	// Receipts are kept six months: only those still in that window.
	keptFrom := now.AddDate(0, -store.ReceiptRetention, 0).Add(time.Hour)
	var receipts []store.Receipt
	if at := paidAt(pl.joined, loc, now); !pl.joined.IsZero() && !at.Before(keptFrom) {
		charge := store.GatewayCharge{Amount: prorated.Charge, At: at}
		r := store.NewReceipt(sub, charge, pl.joined, prorated.Next)
		r.Kind = store.ReceiptFirstDays
		if prorated.Free {
			r.Kind = store.ReceiptFreeDays
		} else {
			r.ChargeID = fmt.Sprintf("ch_demo_%s_0", sub.ID)
		}
		receipts = append(receipts, r)
	}
	for i, d := range paid {
		at := paidAt(d, loc, now)
		if at.Before(keptFrom) {
			continue
		}
		charge := store.GatewayCharge{ID: fmt.Sprintf("ch_demo_%s_%d", sub.ID, i+1), Amount: sub.Amount(), At: at}
		receipts = append(receipts, store.NewReceipt(sub, charge, d, store.NextBillingDate(d, pl.months, pl.day)))
	}
	return sub, receipts
}

// loadSubscriptions makes the demo products subscribable (a table loaded
// before they were) and writes the demo subscriptions, each unless its
// customer already subscribes to its product.
func loadSubscriptions(ctx context.Context, st *store.Store) error {
	names := map[string]string{}
	for id, cents := range monthlyPrices {
		p, err := st.Product(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // staff removed it
		}
		if err != nil {
			return err
		}
		names[id] = p.Name
		if !p.Subscribable {
			p.Subscribable, p.MonthlyPrice = true, store.Money{Amount: cents, Currency: p.Price.Currency}
			if err := st.PutProduct(ctx, p); err != nil {
				return err
			}
		}
	}
	err := st.PutGatewayCard(ctx, store.GatewayCard{Token: demoCard.Token, Brand: demoCard.Brand, Last4: demoCard.Last4,
		Outcome: payment.OutcomeOK, Expires: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	now, lead := time.Now(), st.ReminderLead()
	have := map[string]map[string]bool{} // customer id -> products subscribed
	langs := map[string]string{}         // customer id -> their language
	for _, pl := range subscriptionPlans(st.Today(), lead) {
		name, ok := names[pl.product]
		if !ok {
			continue
		}
		cred, err := st.CredentialsByEmail(ctx, pl.email)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		id := cred.CustomerID
		if have[id] == nil {
			// Its mails go in the customer's language, as Subscribe copies it.
			c, err := st.Customer(ctx, id)
			if err != nil {
				return err
			}
			langs[id] = c.Lang
			subs, err := st.Subscriptions(ctx, id)
			if err != nil {
				return err
			}
			have[id] = map[string]bool{}
			for _, s := range subs {
				have[id][s.ProductID] = true
			}
		}
		if have[id][pl.product] {
			continue
		}
		sub, receipts := pl.build(id, langs[id], name, st.Location(), now, lead)
		if err := st.SeedSubscription(ctx, sub, receipts); err != nil && !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("demo subscription %s to %s: %w", pl.email, pl.product, err)
		}
		if err := chargesInLedger(ctx, st, receipts); err != nil {
			return err
		}
		have[id][pl.product] = true
	}
	if err := scheduleDemoPriceChange(ctx, st); err != nil {
		return err
	}
	if err := st.Mark(ctx, subscriptionsMarker); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

// Refresh brings a demo shop loaded days ago up to today: a demo
// customer's subscription whose payment (or retry) date has passed without
// the jobs running is due today again, as on the day the demo was loaded,
// so "Run now" has real work and nothing falls out of the catch-up window.
// Each change is a versioned write; what the jobs already moved is left.
func Refresh(ctx context.Context, st *store.Store) (moved int, err error) {
	today := st.Today()
	for _, email := range []string{CustomerEmail, "henrik@fikafield.example", "samaneh@fikafield.example"} {
		cred, err := st.CredentialsByEmail(ctx, email)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return moved, err
		}
		subs, err := st.Subscriptions(ctx, cred.CustomerID)
		if err != nil {
			return moved, err
		}
		for _, s := range subs {
			next := s
			switch {
			case s.Status == store.SubscriptionActive && !s.Ending() && s.NextPaymentDate.Before(today):
				next.PaymentDay = today.Day()
				next.NextPaymentDate = today
				next.NextReminderDate, next.Intent = time.Time{}, nil
			case s.Status == store.SubscriptionPastDue && s.RetryDate.Before(today):
				next.RetryDate, next.Intent = today, nil
			default:
				continue
			}
			if _, err := st.UpdateSubscription(ctx, next); err != nil && !errors.Is(err, store.ErrConflict) {
				return moved, err
			}
			moved++
		}
	}
	return moved, nil
}

// DemoSubscriptionChargeKey is the test gateway's key of a demo receipt's
// charge: the ledger holds the receipts' charges, so staff can refund them.
func DemoSubscriptionChargeKey(number string) string { return "demo-sub-" + number }

// chargesInLedger records the receipts' charges on the test gateway's side.
func chargesInLedger(ctx context.Context, st *store.Store, receipts []store.Receipt) error {
	for _, r := range receipts {
		if r.ChargeID == "" {
			continue // free first days: nothing was charged
		}
		_, err := st.RecordGatewayCharge(ctx, store.GatewayCharge{Key: DemoSubscriptionChargeKey(r.Number), ID: r.ChargeID,
			Token: demoCard.Token, Last4: demoCard.Last4, Amount: r.Amount, At: r.ProcessedAt, Outcome: payment.OutcomeOK})
		if err != nil && !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("demo charge of receipt %s: %w", r.Number, err)
		}
	}
	return nil
}

// scheduleDemoPriceChange schedules a new monthly price of Ada's monthly
// beans 45 days after the demo is loaded: staff see it under Price
// changes, and the reminders job announces it in 15 days.
func scheduleDemoPriceChange(ctx context.Context, st *store.Store) error {
	p, err := st.Product(ctx, "cf-gbg-dark")
	if errors.Is(err, store.ErrNotFound) || (err == nil && !p.Subscribable) {
		return nil // staff removed it or stopped its subscriptions
	}
	if err != nil {
		return err
	}
	if _, err := st.ProductPriceChange(ctx, p.ID); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	newPrice := store.Money{Amount: p.MonthlyPrice.Amount + 100, Currency: p.MonthlyPrice.Currency}
	_, err = st.SchedulePriceChange(ctx, p, newPrice, st.Today().AddDate(0, 0, 45), "Demo staff")
	if errors.Is(err, store.ErrPriceAnnounced) {
		return nil
	}
	return err
}
