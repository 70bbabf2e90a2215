package jobs_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
)

// TestPaymentJobThroughput measures the payment job against the raw
// requests one charge needs, in one run on this machine. It is a load run,
// not a check: set SHOP_BENCH=1 (SHOP_BENCH_TOTAL and SHOP_BENCH_DUE change
// the sizes; defaults 100,000 subscriptions of which 10,000 are due).
func TestPaymentJobThroughput(t *testing.T) {
	if os.Getenv("SHOP_BENCH") == "" {
		t.Skip("a load run: set SHOP_BENCH=1")
	}
	total, due := envInt("SHOP_BENCH_TOTAL", 100_000), envInt("SHOP_BENCH_DUE", 10_000)
	const concurrency = 16
	b := newBilling(t, "2026-03-15")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()

	started := time.Now()
	seedMany(t, ctx, b, total-due, "2026-04-15") // not due: next month
	seedMany(t, ctx, b, due, "2026-03-15")
	t.Logf("seeded %d subscriptions (%d due) in %v", total, due, time.Since(started).Round(time.Second))

	// Warm DynamoDB Local's JVM with the same requests first, so that
	// neither measurement below pays for it.
	rawChargeRequests(t, ctx, b, 300, concurrency)

	b.env.Counter.Reset()
	jobStart := time.Now() // the table's clock here is a test clock: time with the wall's
	run, err := jobs.NewRunner(b.env.Store, b.gateway, jobs.Config{Replica: "bench", Concurrency: concurrency}).
		Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(jobStart)
	jobRate := float64(run.Counts.Charged) / took.Seconds()
	t.Logf("payment job: %d charged in %v: %.0f charges/s; DynamoDB requests %v", run.Counts.Charged, took.Round(time.Millisecond), jobRate, b.env.Counter.Ops())

	// The same requests one charge makes (intent put, the ledger's two
	// reads and its put, the receipt transaction of four items), issued
	// raw from the same client at the same concurrency.
	raw := rawChargeRequests(t, ctx, b, min(due, 5000), concurrency)
	t.Logf("raw requests of one charge: %.0f charges/s; the job runs at %.0f %% of it", raw, 100*jobRate/raw)
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// seedMany writes n subscriptions due on due, in batches in parallel.
func seedMany(t *testing.T, ctx context.Context, b *billing, n int, due string) {
	t.Helper()
	d := day(due)
	now := b.clock.Now()
	var g errgroup.Group
	g.SetLimit(8)
	for start := 0; start < n; start += 400 {
		batch := make([]store.Subscriber, 0, 400)
		for i := start; i < min(n, start+400); i++ {
			c := store.Customer{ID: store.NewID(), Name: "Bench", Role: store.RoleCustomer, CreatedAt: now}
			c.Email = "bench-" + c.ID + "@seed.example"
			batch = append(batch, store.Subscriber{Customer: c, Subscription: store.Subscription{
				ID: store.NewID(), AccountID: c.ID, ProductID: "beans", ProductName: "Fika beans", Email: c.Email,
				MonthlyPrice: eur(990), PeriodMonths: 1, PaymentDay: d.Day(), Status: store.SubscriptionActive, Card: b.good,
				NextPaymentDate: d, NextReminderDate: d.AddDate(0, 0, -7), CreatedAt: now, Version: 1,
			}})
		}
		g.Go(func() error { return b.env.Store.SeedSubscribers(ctx, batch) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// rawChargeRequests issues, n times at the given concurrency, the DynamoDB
// requests of one charge through the store's own methods but without the
// job around them, and returns the rate.
func rawChargeRequests(t *testing.T, ctx context.Context, b *billing, n, concurrency int) float64 {
	t.Helper()
	st := b.env.Store
	subs := make([]store.Subscription, n)
	now := b.clock.Now()
	for i := range subs {
		id := store.NewID()
		// In the same indexes as the job's subscriptions, the reminder's too.
		subs[i] = store.Subscription{ID: id, AccountID: "raw" + id, ProductID: "beans", ProductName: "Fika beans",
			MonthlyPrice: eur(990), PeriodMonths: 1, PaymentDay: 15, Status: store.SubscriptionActive, Card: b.good,
			NextPaymentDate: day("2026-05-15"), NextReminderDate: day("2026-05-08"), CreatedAt: now, Version: 1}
	}
	seed := make([]store.Subscriber, n)
	for i, s := range subs {
		seed[i] = store.Subscriber{Customer: store.Customer{ID: s.AccountID, Email: s.AccountID + "@raw.example", CreatedAt: now}, Subscription: s}
	}
	for i := 0; i < n; i += 400 {
		if err := st.SeedSubscribers(ctx, seed[i:min(n, i+400)]); err != nil {
			t.Fatal(err)
		}
	}
	gw := payment.NewTestGateway(st)
	gw.Now = b.clock.Now
	b.env.Counter.Reset()
	defer func() { t.Logf("raw requests: %v", b.env.Counter.Ops()) }()
	var g errgroup.Group
	g.SetLimit(concurrency)
	started := time.Now()
	for _, s := range subs {
		g.Go(func() error {
			s, err := st.RecordPaymentIntent(ctx, s) // PutItem
			if err != nil {
				return err
			}
			c, err := gw.ChargeAt(ctx, s.Card.Token, s.Amount(), s.Intent.Key(s.ID)) // 2 GetItem + PutItem
			if err != nil {
				return err
			}
			_, _, err = st.CompletePayment(ctx, s, c, day("2026-05-15"), func(r store.Receipt) *store.Mail { // TransactWriteItems
				return &store.Mail{ID: fmt.Sprintf("raw-%s", r.Number+s.ID), To: "x@raw.example", Kind: store.MailReceipt, CreatedAt: now, Status: store.MailPending}
			})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return float64(n) / time.Since(started).Seconds()
}
