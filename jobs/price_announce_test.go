package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
)

// swappingAway is the store with one subscriber swapping away from the
// product while the announcement job holds the page of subscribers that
// still lists them (the job read the list, then the customer swapped).
type swappingAway struct {
	*store.Store
	once sync.Once
	swap func(ctx context.Context)
}

func (s *swappingAway) SubscriptionsOfProduct(ctx context.Context, productID string, status store.SubscriptionStatus, limit int, cursor string) (store.Page[store.Subscription], error) {
	p, err := s.Store.SubscriptionsOfProduct(ctx, productID, status, limit, cursor)
	if err == nil && status == store.SubscriptionActive {
		s.once.Do(func() { s.swap(ctx) })
	}
	return p, err
}

// A price change is announced to the subscribers who will pay it: not to
// one who swapped to another product before the announcement, nor to one
// who swapped away while the job was announcing (their subscription,
// read again, is another product's: the price is not written onto it);
// one who swapped to the product after the change was scheduled was shown
// the new price at the swap and is not mailed again.
func TestPriceAnnouncementTellsOnlyWhoWillPayIt(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-01")
	ctx := ctxT(t)
	st := b.env.Store
	beans := store.Product{ID: "beans", Name: "Fika beans", Category: "coffee", Price: eur(1200), Subscribable: true, MonthlyPrice: eur(990)}
	tea := store.Product{ID: "tea", Name: "Green tea", Category: "tea", Price: eur(800), Subscribable: true, MonthlyPrice: eur(1450)}
	for _, p := range []store.Product{beans, tea} {
		if err := st.PutProduct(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	subs := b.seed(t, 4, "2026-04-15", b.good)
	pc, err := st.SchedulePriceChange(ctx, beans, eur(1190), day("2026-04-20"), "staff")
	if err != nil {
		t.Fatal(err)
	}
	swap := func(ctx context.Context, s store.Subscription, p store.Product, qty int, change *store.PriceChange) store.Subscription {
		t.Helper()
		cur := b.reread(t, s)
		next, err := st.ChangeSubscription(ctx, cur.AccountID, cur.ID, cur.Version, store.SwapProduct(p, qty, change))
		if err != nil {
			t.Fatal(err)
		}
		return next
	}
	swap(ctx, subs[0], tea, 1, nil) // away, before the announcement
	swap(ctx, subs[1], tea, 1, nil) // away, then back to two beans with the change shown
	if back := swap(ctx, subs[1], beans, 2, &pc); back.NewPrice != eur(1190) || store.FormatDate(back.NewPriceFrom) != "2026-04-20" {
		t.Fatalf("swapped to the product: new price %v from %s, want €11.90 from 2026-04-20", back.NewPrice, store.FormatDate(back.NewPriceFrom))
	}
	racing := &swappingAway{Store: st, swap: func(ctx context.Context) { swap(ctx, subs[2], tea, 1, nil) }}
	r := jobs.NewRunner(racing, b.gateway, jobs.Config{Replica: "r", Concurrency: 8, RetryDays: []int{1, 3, 7}})
	b.clock.Set(day("2026-03-21").Add(12 * time.Hour))
	if run, err := r.Run(ctx, jobs.JobReminders, day("2026-03-21"), jobs.TriggerSchedule); err != nil || run.Counts.Failed != 0 {
		t.Fatalf("reminders: %+v %v", run.Counts, err)
	}

	var told []string
	for _, m := range mailsOfKind(t, b.env, store.MailPriceChange) {
		told = append(told, m.SubscriptionID)
	}
	if len(told) != 1 || told[0] != subs[3].ID {
		t.Fatalf("price mails to %v, want one, to the subscriber still on the product (%s)", told, subs[3].ID)
	}
	if s := b.reread(t, subs[2]); s.ProductID != tea.ID || !s.NewPriceFrom.IsZero() {
		t.Fatalf("swapped away while announcing: %s with a new price %v from %s", s.ProductID, s.NewPrice, store.FormatDate(s.NewPriceFrom))
	}
	if got, err := st.ProductPriceChange(ctx, beans.ID); err != nil || got.Announced != 1 {
		t.Fatalf("the change after announcing: %+v %v", got, err)
	}
}
