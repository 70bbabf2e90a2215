package store_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/rules"
)

// billingFigures is the totals now and this month's, in words.
func billingFigures(b store.BillingTotals) string {
	m := b.Months[len(b.Months)-1]
	return fmt.Sprintf("active %d paused %d past due %d mrr %v | %s new %d cancelled %d dunned %d recovered %v",
		b.Active, b.Paused, b.PastDue, b.MRR, m.Month, m.New, m.Cancelled, m.Dunned, m.Recovered)
}

func billingNow(t *testing.T, st *store.Store) string {
	t.Helper()
	b, err := st.BillingTotals(ctxT(t), st.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Months) != store.BillingMonths {
		t.Fatalf("%d months, want %d", len(b.Months), store.BillingMonths)
	}
	return billingFigures(b)
}

// The totals follow the subscriptions through the shop's own flows:
// subscribing, pausing, resuming, a failed charge and its successful retry
// (recovered), dunning to the end (involuntary), and a customer's cancel.
func TestBillingTotalsFollowSubscribePauseDunningAndRetries(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC))
	ctx, st := ctxT(t), f.env.Store
	step := func(what, want string) {
		t.Helper()
		if got := billingNow(t, st); got != want {
			t.Fatalf("after %s:\n got  %s\n want %s", what, got, want)
		}
	}
	ada := f.subscribe(t, "ada", 10, 1)
	step("subscribing", "active 1 paused 0 past due 0 mrr [€12.99] | 2026-11 new 1 cancelled 0 dunned 0 recovered [€0.00]")
	ada, err := st.ChangeSubscription(ctx, "ada", ada.ID, ada.Version, store.Pause())
	if err != nil {
		t.Fatal(err)
	}
	step("pausing", "active 0 paused 1 past due 0 mrr [€0.00] | 2026-11 new 1 cancelled 0 dunned 0 recovered [€0.00]")
	if ada, err = st.ChangeSubscription(ctx, "ada", ada.ID, ada.Version, store.Resume()); err != nil {
		t.Fatal(err)
	}
	step("resuming", "active 1 paused 0 past due 0 mrr [€12.99] | 2026-11 new 1 cancelled 0 dunned 0 recovered [€0.00]")

	// Bo's payment fails, then its retry succeeds.
	bo := f.subscribe(t, "bo", 10, 1)
	retry := []int{3, 5}
	f.clock.Set(time.Date(2026, 12, 10, 7, 0, 0, 0, time.UTC))
	today := rules.DateOf(f.clock.Now(), time.UTC)
	due, err := st.RecordPaymentIntent(ctx, bo)
	if err != nil {
		t.Fatal(err)
	}
	if bo, err = st.FailPayment(ctx, due, today, retry, nil); err != nil {
		t.Fatal(err)
	}
	step("a failed charge", "active 1 paused 0 past due 1 mrr [€12.99] | 2026-12 new 0 cancelled 0 dunned 0 recovered [€0.00]")
	if due, err = st.RecordPaymentIntent(ctx, bo); err != nil {
		t.Fatal(err)
	}
	charge, err := f.pay.Renew(ctx, due)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.CompletePayment(ctx, due, charge, today.AddDate(0, 0, 3), nil); err != nil {
		t.Fatal(err)
	}
	step("the retry paid", "active 2 paused 0 past due 0 mrr [€25.98] | 2026-12 new 0 cancelled 0 dunned 0 recovered [€12.99]")

	// Cy's charge fails three times: cancelled by dunning.
	cy := f.subscribe(t, "cy", 10, 1)
	f.clock.Set(time.Date(2027, 1, 10, 7, 0, 0, 0, time.UTC))
	for range len(retry) + 1 {
		if cy, err = st.RecordPaymentIntent(ctx, cy); err != nil {
			t.Fatal(err)
		}
		if cy, err = st.FailPayment(ctx, cy, rules.DateOf(f.clock.Now(), time.UTC), retry, nil); err != nil {
			t.Fatal(err)
		}
	}
	if cy.Status != store.SubscriptionCancelled {
		t.Fatalf("after the last retry cy is %s", cy.Status)
	}
	// Ada cancels.
	if _, err := st.CancelSubscriptionNowWithoutRefund(ctx, "ada", ada.ID, ada.Version); err != nil {
		t.Fatal(err)
	}
	step("dunning and a cancel", "active 1 paused 0 past due 0 mrr [€12.99] | 2027-01 new 0 cancelled 2 dunned 1 recovered [€0.00]")
	b, err := st.BillingTotals(ctx, f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	var months []string
	for _, m := range b.Months[len(b.Months)-3:] {
		months = append(months, fmt.Sprintf("%s +%d -%d", m.Month, m.New, m.Cancelled))
	}
	if got := fmt.Sprint(months); got != "[2026-11 +2 -0 2026-12 +1 -0 2027-01 +0 -2]" {
		t.Errorf("the last three months: %s", got)
	}
	_ = bo
}

// Many customers pausing, resuming and cancelling at once, and the
// payments job failing their charges meanwhile, on the same totals items:
// the totals equal a count of the subscriptions afterwards.
func TestBillingTotalsRaceToARecount(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 6, 3, 9, 0, 0, 0, time.UTC))
	ctx, st := ctxT(t), f.env.Store
	const customers, changes = 8, 6
	ids := make([]string, customers)
	for i := range ids {
		ids[i] = f.subscribe(t, fmt.Sprintf("c%d", i), 3, 1).ID
	}
	var wg sync.WaitGroup
	for i := range customers { // the payments job: a declined charge, then a retry that pays
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc, id := fmt.Sprintf("c%d", i), ids[i]
			for range changes {
				cur, err := st.SubscriptionConsistent(ctx, acc, id)
				if err != nil {
					t.Error(err)
					return
				}
				today := rules.DateOf(st.Now(), time.UTC)
				switch cur.Status {
				case store.SubscriptionActive:
					_, err = st.FailPayment(ctx, cur, today, []int{3, 5}, nil)
				case store.SubscriptionPastDue:
					var due store.Subscription
					if due, err = st.RecordPaymentIntent(ctx, cur); err == nil {
						var charge store.GatewayCharge
						if charge, err = f.pay.Renew(ctx, due); err == nil {
							_, _, err = st.CompletePayment(ctx, due, charge, today, nil)
						}
					}
				}
				if err != nil && !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrAlreadyPaid) {
					t.Errorf("payments job: %v", err)
				}
			}
		}()
	}
	for i := range customers * 2 { // two tabs a customer
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc, id := fmt.Sprintf("c%d", i%customers), ids[i%customers]
			for n := range changes {
				cur, err := st.SubscriptionConsistent(ctx, acc, id)
				if err != nil {
					t.Error(err)
					return
				}
				change := []store.SubscriptionChange{store.Pause(), store.Resume(), store.Pause(), store.Resume()}[rand.N(4)]
				if n == changes-1 && i%3 == 0 {
					change = store.CancelNow()
				}
				// A change the state refuses (pausing a past-due one, resuming
				// an active one) writes nothing: only what was written counts.
				if _, err = st.ChangeSubscription(ctx, acc, id, cur.Version, change); err != nil && !errors.Is(err, store.ErrConflict) {
					t.Logf("change refused: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	want := map[store.SubscriptionStatus]int{}
	var mrr int64
	for i, id := range ids {
		sub, err := st.SubscriptionConsistent(ctx, fmt.Sprintf("c%d", i), id)
		if err != nil {
			t.Fatal(err)
		}
		want[sub.Status]++
		if sub.Status == store.SubscriptionActive {
			mrr += sub.MonthlyPrice.Amount * int64(sub.Units())
		}
	}
	b, err := st.BillingTotals(ctx, st.Now())
	if err != nil {
		t.Fatal(err)
	}
	m := b.Months[len(b.Months)-1]
	if m.Recovered[0].Amount%1299 != 0 {
		t.Errorf("recovered %v: not whole payments", m.Recovered)
	}
	got := fmt.Sprintf("active %d paused %d past due %d mrr %d new %d cancelled %d", b.Active, b.Paused, b.PastDue, b.MRR[0].Amount, m.New, m.Cancelled)
	recount := fmt.Sprintf("active %d paused %d past due %d mrr %d new %d cancelled %d", want[store.SubscriptionActive], want[store.SubscriptionPaused],
		want[store.SubscriptionPastDue], mrr, customers, want[store.SubscriptionCancelled])
	if got != recount {
		t.Fatalf("kept totals %s\nrecount     %s", got, recount)
	}
}

// Subscriptions written without their totals (seeded as the demo does, or
// from before the totals) are counted by the recount Migrate runs once on
// a table without its mark; a recount again, or Migrate again, leaves the
// same totals.
func TestRecountingSubscriptionTotalsTwiceGivesTheSameTotals(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC))
	ctx, st := ctxT(t), f.env.Store
	live := f.subscribe(t, "ada", 10, 1)
	if _, err := st.ChangeSubscription(ctx, "ada", live.ID, live.Version, store.Pause()); err != nil {
		t.Fatal(err)
	}
	for i, status := range []store.SubscriptionStatus{store.SubscriptionActive, store.SubscriptionPastDue, store.SubscriptionCancelled} {
		sub := store.Subscription{ID: store.NewID(), AccountID: fmt.Sprintf("old%d", i), ProductID: "beans", ProductName: "Fika beans",
			Email: "old@example.com", MonthlyPrice: eur(1000), Quantity: 2, PeriodMonths: 1, PaymentDay: 5, Status: status, Card: f.card,
			CreatedAt: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)}
		if status == store.SubscriptionCancelled {
			sub.CancelledOn, sub.Attempt = d("2026-11-02"), 3
		}
		if err := st.SeedSubscription(ctx, sub, nil); err != nil {
			t.Fatal(err)
		}
	}
	before := billingNow(t, st)
	if want := "active 0 paused 1 past due 0 mrr [€0.00] | 2026-11 new 1 cancelled 0 dunned 0 recovered [€0.00]"; before != want {
		t.Fatalf("before the recount: %s, want %s", before, want)
	}
	const counted = "active 1 paused 1 past due 1 mrr [€20.00] | 2026-11 new 1 cancelled 1 dunned 1 recovered [€0.00]"
	// A table from before the totals has no mark of their count: shop
	// migrate counts its subscriptions, once.
	if _, err := f.env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "meta"}, "SK": &types.AttributeValueMemberS{Value: "marker#subscription-totals-counted"}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got := billingNow(t, st); got != counted {
		t.Fatalf("after migrating a table from before the totals: %s, want %s", got, counted)
	}
	for run := range 2 {
		n, err := st.RecountSubscriptionTotals(ctx)
		if err != nil || n != 4 {
			t.Fatalf("recount %d: %d subscriptions, %v", run, n, err)
		}
		if got := billingNow(t, st); got != counted {
			t.Fatalf("after recount %d: %s, want %s", run, got, counted)
		}
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if got := billingNow(t, st); got != counted {
			t.Fatalf("after migrate: %s, want %s", got, counted)
		}
	}
	b, err := st.BillingTotals(ctx, st.Now())
	if err != nil {
		t.Fatal(err)
	}
	if sept := b.Months[len(b.Months)-3]; sept.Month.String() != "2026-09" || sept.New != 3 {
		t.Errorf("September: %+v, want the three seeded ones new", sept)
	}
}

// The dashboard's read is one Query per list shard, however many
// subscriptions there are.
func TestBillingTotalsReadIsOneQueryAShard(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC), store.WithListShards(4))
	f.subscribe(t, "ada", 10, 1)
	f.env.Costs(t, "billing totals", 4, func() {
		if _, err := f.env.Store.BillingTotals(ctxT(t), f.env.Store.Now()); err != nil {
			t.Error(err)
		}
	})
}
