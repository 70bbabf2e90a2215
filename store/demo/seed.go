package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
)

// LoadShop loads the demo shop and its shipping zones, each once per
// table (Load, LoadShipping); loaded says the shop was loaded now.
func LoadShop(ctx context.Context, st *store.Store, bcryptCost int) (loaded bool, err error) {
	loaded, err = Load(ctx, st, bcryptCost)
	if err != nil {
		return loaded, err
	}
	return loaded, LoadShipping(ctx, st)
}

// Seed is the seed command: it loads the demo shop onto a table that has
// not had it, and on a demo shop loaded before, brings its dates up to
// today.
func Seed(ctx context.Context, st *store.Store, bcryptCost int, log *slog.Logger) error {
	loaded, err := LoadShop(ctx, st, bcryptCost)
	log.Info("demo data", "loaded_now", loaded, "table", st.Table())
	if err != nil || loaded {
		return err
	}
	moved, err := Refresh(ctx, st)
	log.Info("demo dates brought up to today", "subscriptions", moved)
	return err
}

// SeedSubscriptions makes count customers, each with one active monthly
// subscription to a subscribable product (made if the shop has none), due
// on the date, paid by a card the test provider saved that pays or, for the
// declining percent, one short of funds (its charges are declined). The
// cards are saved once, for one customer of the provider's that every
// seeded subscriber shares (seeded load, not people). It charges nothing
// and writes no receipts. It returns the subscribers it made. It is for
// benchmarks and checks of the billing jobs, on any table.
func SeedSubscriptions(ctx context.Context, st *store.Store, p *payment.TestProvider, count int, due time.Time, declining int, out io.Writer) ([]store.Subscriber, error) {
	product, err := seededProduct(ctx, st)
	if err != nil {
		return nil, err
	}
	ref, err := p.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: "seed", Email: "subscribers@seed.example", Name: "Seeded subscribers", Key: "seed-subscribers"})
	if err != nil {
		return nil, err
	}
	good, err := saveTestCard(ctx, p, ref, payment.CardSucceeds)
	if err != nil {
		return nil, err
	}
	bad, err := saveTestCard(ctx, p, ref, payment.CardInsufficientFunds)
	if err != nil {
		return nil, err
	}
	now := st.Now()
	var seeded []store.Subscriber
	// Written in batches, each counted on out: a big seed shows progress.
	const batch = 400
	for done := 0; done < count; {
		n := min(batch, count-done)
		subs := make([]store.Subscriber, n)
		for i := range subs {
			k := done + i
			card := good
			if k*100 < count*declining { // the first P percent decline
				card = bad
			}
			subs[i] = seededSubscriber(st, product, k, card, due, now)
		}
		if err := st.SeedSubscribers(ctx, subs); err != nil {
			return nil, err
		}
		seeded = append(seeded, subs...)
		done += n
		fmt.Fprintf(out, "seeded %d of %d subscriptions due %s\n", done, count, store.FormatDate(due))
	}
	return seeded, nil
}

// seededProduct is the shop's first subscribable product, or one made for
// the seeded subscriptions.
func seededProduct(ctx context.Context, st *store.Store) (store.Product, error) {
	product, err := st.FirstSubscribableProduct(ctx)
	if !errors.Is(err, store.ErrNotFound) {
		return product, err
	}
	product = store.Product{ID: "seed-coffee", Name: "Seeded coffee subscription", Category: "coffee",
		Price: store.Money{Amount: 1490, Currency: store.DefaultCurrency}, Subscribable: true,
		MonthlyPrice: store.Money{Amount: 1290, Currency: store.DefaultCurrency}}
	// ErrConflict: another seed made it first, as asked here.
	if product, err = st.CreateProduct(ctx, product); err != nil && !errors.Is(err, store.ErrConflict) {
		return store.Product{}, err
	}
	return product, nil
}

// seededSubscriber is the k-th seeded customer with their subscription.
func seededSubscriber(st *store.Store, product store.Product, k int, card store.Card, due, now time.Time) store.Subscriber {
	c := store.Customer{ID: store.NewID(), Name: fmt.Sprintf("Subscriber %d", k+1), Role: store.RoleCustomer, CreatedAt: now}
	c.Email = "subscriber-" + c.ID + "@seed.example"
	return store.Subscriber{Customer: c, Subscription: store.Subscription{
		ID: store.NewID(), AccountID: c.ID, ProductID: product.ID, ProductName: product.Name, Email: c.Email,
		MonthlyPrice: product.MonthlyPrice, PeriodMonths: 1, PaymentDay: due.Day(), Status: store.SubscriptionActive,
		Card: card, NextPaymentDate: due, NextReminderDate: rules.ReminderDate(due, due.AddDate(0, 0, -st.ReminderLead()), st.ReminderLead()),
		CreatedAt: now, Version: 1,
	}}
}

// saveTestCard saves a test card for the provider's customer ref, as its
// setup page does, and returns it as a subscription keeps it.
func saveTestCard(ctx context.Context, p *payment.TestProvider, ref, number string) (store.Card, error) {
	cs, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModeSetup, Amount: store.Money{Currency: store.DefaultCurrency},
		CustomerRef: ref, SuccessURL: p.BaseURL + "/subscriptions", Key: "seed-card-" + store.NewID()})
	if err != nil {
		return store.Card{}, err
	}
	if _, err := p.PayCheckout(ctx, cs.ID, payment.CardForm{Number: number, Expiry: "12/99", CVC: "123", Name: "Seeded subscriber"}); err != nil {
		return store.Card{}, fmt.Errorf("save test card: %w", err)
	}
	if cs, err = p.RetrieveCheckout(ctx, cs.ID); err != nil || cs.Card == nil {
		return store.Card{}, fmt.Errorf("save test card: %v", err)
	}
	return cs.Card.Card(ref), nil
}
