package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
	"shop/web/paths"
)

// The demo's subscriptions, made relative to the day they are loaded:
// Ada has an active monthly one, an active one every three months (taken
// out 12 days before its first payment day, so its first receipt is of
// those days, prorated) and a paused one; Henrik has a payment due today and a past-due one retried
// today; Samaneh has a reminder due today and a cancelled one. Every past
// period was paid at the test provider (payments.go) and has its receipt
// (those of the last six months). The card is the test provider's
// succeeding Visa, saved by each subscription's first payment on its page,
// so that "Run now" in the staff console charges the ones due through it.

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
		s.NextReminderDate = rules.ReminderDate(next, today, lead)
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
			first: rules.BillingDate(today.Year(), today.Month()-3, henrikDay), paidBefore: today,
			finish: func(s *store.Subscription, next time.Time) {
				// Due today; its reminder went out already.
				s.Status, s.NextPaymentDate, s.LastReminderDate = store.SubscriptionActive, next, next.AddDate(0, 0, -lead)
			}},
		{email: "henrik@fikafield.example", product: "cf-filters", months: 1, day: missed.Day(),
			first: rules.BillingDate(missed.Year(), missed.Month()-2, missed.Day()), paidBefore: missed,
			finish: func(s *store.Subscription, next time.Time) {
				// The payment three days ago was declined; it is retried today.
				s.Status, s.NextPaymentDate, s.RetryDate = store.SubscriptionPastDue, next, today
			}},
		{email: "samaneh@fikafield.example", product: "cf-espresso", months: 1, day: remindedFor.Day(),
			first: rules.BillingDate(remindedFor.Year(), remindedFor.Month()-2, remindedFor.Day()), paidBefore: tomorrow, finish: active},
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

// demoCharge is one payment of a demo subscription: its first (the
// subscribe, on the provider's page, which saved the card) or a
// period's, charged off-session.
type demoCharge struct {
	start, end time.Time // the period it paid, [start, end)
	at         time.Time
	amount     store.Money
	// firstDays: it paid the days up to the first payment day (free: they
	// were free, nothing was charged).
	firstDays, free bool
	kept            bool   // its receipt is still kept (six months)
	ref             string // the provider's payment, once paid
}

// build makes the subscription, without its card, and its payments, the
// first one first.
func (pl subscriptionPlan) build(customerID, lang, productName string, loc *time.Location, now time.Time, lead int) (store.Subscription, []demoCharge) {
	created := paidAt(pl.first, loc, now)
	if !pl.joined.IsZero() {
		created = paidAt(pl.joined, loc, now)
	}
	sub := store.Subscription{
		ID: store.NewIDAt(created), AccountID: customerID, ProductID: pl.product, ProductName: productName, Names: namesOf(pl.product), Category: categoryOf(pl.product), Email: pl.email, Lang: lang,
		MonthlyPrice: store.Money{Amount: monthlyPrices[pl.product], Currency: store.DefaultCurrency},
		PeriodMonths: pl.months, PaymentDay: pl.day, CreatedAt: created, Version: 1,
	}
	// Receipts are kept six months: only those still in that window.
	keptFrom := now.AddDate(0, -store.ReceiptRetention, 0).Add(time.Hour)
	var charges []demoCharge
	first := pl.first
	if !pl.joined.IsZero() {
		// The first days, as Subscribe charged them; whole periods from
		// the first payment date they end on.
		prorated := rules.FirstPeriod(pl.joined, pl.day, pl.months, sub.Amount())
		first = prorated.Next
		at := paidAt(pl.joined, loc, now)
		charges = append(charges, demoCharge{start: pl.joined, end: prorated.Next, at: at, amount: prorated.Charge,
			firstDays: true, free: prorated.Free, kept: !at.Before(keptFrom)})
	}
	var paid []time.Time
	for d := first; d.Before(pl.paidBefore); d = rules.NextBillingDate(d, pl.months, pl.day) {
		paid = append(paid, d)
		at := paidAt(d, loc, now)
		charges = append(charges, demoCharge{start: d, end: rules.NextBillingDate(d, pl.months, pl.day), at: at, amount: sub.Amount(), kept: !at.Before(keptFrom)})
	}
	last := paid[len(paid)-1]
	next := rules.NextBillingDate(last, pl.months, pl.day)
	sub.LastPaymentDate = last
	if len(paid) > 1 {
		sub.LastReminderDate = last.AddDate(0, 0, -lead)
	}
	pl.finish(&sub, next)
	return sub, charges
}

// receiptsOf are the receipts still kept of a subscription's payments.
func receiptsOf(sub store.Subscription, charges []demoCharge) []store.Receipt {
	var receipts []store.Receipt
	for _, c := range charges {
		if !c.kept {
			continue
		}
		charge := store.GatewayCharge{ID: c.ref, Amount: c.amount, At: c.at}
		if c.ref != "" {
			charge.Provider = payment.ProviderTest
		}
		r := store.NewReceipt(sub, charge, c.start, c.end)
		switch {
		case c.free:
			r.Kind = store.ReceiptFreeDays
		case c.firstDays:
			r.Kind = store.ReceiptFirstDays
		}
		receipts = append(receipts, r)
	}
	return receipts
}

// pay takes a demo subscription's payments at the test provider, as its
// customer paid them: the first on the provider's page, which saved the
// card (in setup mode when the first days were free), then each period's
// off-session with that card. It sets the subscription's card and each
// payment's reference. The keys are the customer's and product's, so a
// load cut short and run again makes no payment twice.
func (p *payments) pay(ctx context.Context, c store.Customer, sub *store.Subscription, charges []demoCharge) error {
	first := &charges[0]
	ref, err := p.customer(ctx, c, first.at)
	if err != nil {
		return err
	}
	key := "demo-sub-" + c.ID + "-" + sub.ProductID
	meta := func(c demoCharge) map[string]string {
		return map[string]string{metaDemo: "subscription", payment.MetaCustomer: sub.AccountID, payment.MetaSubscription: sub.ID,
			payment.MetaPeriod: store.FormatDate(c.start)}
	}
	req := payment.CheckoutRequest{Mode: payment.ModePayment, Amount: first.amount, Description: sub.ProductName, CustomerRef: ref,
		SaveCard: true, SuccessURL: paths.Subscriptions, CancelURL: paths.Subscriptions, Key: key, Metadata: meta(*first)}
	if first.free {
		req.Mode, req.Amount = payment.ModeSetup, store.Money{Currency: first.amount.Currency}
	}
	cs, err := p.payOnPage(ctx, first.at, req)
	if err != nil {
		return fmt.Errorf("demo subscription %s to %s: %w", c.Email, sub.ProductID, err)
	}
	if cs.Status != payment.SessionComplete || cs.MethodRef == "" || cs.Card == nil {
		return fmt.Errorf("demo subscription %s to %s: session %s is %s and saved no card", c.Email, sub.ProductID, cs.ID, cs.Status)
	}
	saved := payment.SavedMethod{Provider: payment.ProviderTest, Ref: cs.MethodRef, Brand: cs.Card.Brand, Last4: cs.Card.Last4,
		ExpMonth: cs.Card.ExpMonth, ExpYear: cs.Card.ExpYear}
	sub.Card = saved.Card(ref)
	first.ref = cs.PaymentRef
	for i := range charges[1:] {
		ch := &charges[i+1]
		ch.ref, err = p.payOffSession(ctx, ch.at, sub.Card, payment.PaymentRequest{Amount: ch.amount, Description: sub.ProductName,
			Key: key + "-" + store.FormatDate(ch.start), Metadata: meta(*ch)})
		if err != nil {
			return fmt.Errorf("demo subscription %s to %s, period %s: %w", c.Email, sub.ProductID, store.FormatDate(ch.start), err)
		}
	}
	return nil
}

// loadSubscriptions makes the demo products subscribable (a table loaded
// before they were) and writes the demo subscriptions, each unless its
// customer already subscribes to its product.
func loadSubscriptions(ctx context.Context, st *store.Store) error {
	names, err := subscribableProducts(ctx, st)
	if err != nil {
		return err
	}
	pays, err := newPayments(ctx, st)
	if err != nil {
		return err
	}
	now, lead := time.Now(), st.ReminderLead()
	have := map[string]map[string]bool{} // customer id -> products subscribed
	people := map[string]store.Customer{}
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
			people[id] = c
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
		sub, charges := pl.build(id, people[id].Lang, name, st.Location(), now, lead)
		if err := pays.pay(ctx, people[id], &sub, charges); err != nil {
			return err
		}
		if err := st.SeedSubscription(ctx, sub, receiptsOf(sub, charges)); err != nil && !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("demo subscription %s to %s: %w", pl.email, pl.product, err)
		}
		have[id][pl.product] = true
		if c := people[id]; c.ProviderCustomers[payment.ProviderTest] == "" {
			// Kept on the customer now: their next subscription uses it.
			c.ProviderCustomers = map[string]string{payment.ProviderTest: sub.Card.Customer}
			people[id] = c
		}
	}
	if err := pays.delivered(ctx); err != nil {
		return err
	}
	if err := scheduleDemoPriceChange(ctx, st); err != nil {
		return err
	}
	// Seeded whole, the demo's subscriptions are counted into the billing
	// dashboard's totals afterwards (a recount: loading again counts the same).
	if _, err := st.RecountSubscriptionTotals(ctx); err != nil {
		return err
	}
	if err := st.Mark(ctx, subscriptionsMarker); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

// subscribableProducts makes the demo's products one subscribes to
// subscribable (a table loaded before they were): their names, by id.
func subscribableProducts(ctx context.Context, st *store.Store) (map[string]string, error) {
	names := map[string]string{}
	for id, cents := range monthlyPrices {
		p, err := st.Product(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // staff removed it
		}
		if err != nil {
			return nil, err
		}
		names[id] = p.Name
		if !p.Subscribable {
			p.Subscribable, p.MonthlyPrice = true, store.Money{Amount: cents, Currency: p.Price.Currency}
			if err := st.PutProduct(ctx, p); err != nil {
				return nil, err
			}
		}
	}
	return names, nil
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
