package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	stripepay "shop/store/payment/stripe"
	"shop/web/paths"
)

// Card payments' settings (SHOP_PAYMENTS and its neighbours), read from the
// environment only: they hold secrets, which a flag would show in ps.
const (
	paymentsTest   = "test"
	paymentsStripe = "stripe"
)

// Hold limits by provider: Stripe Checkout's expires_at is 30 minutes to
// 24 hours after the session's creation; the test provider's page takes a
// minute's hold, for tests and the demo.
var holdLimits = map[string][2]time.Duration{
	paymentsTest:   {time.Minute, store.MaxPaymentHold},
	paymentsStripe: {30 * time.Minute, store.MaxPaymentHold},
}

// paymentsConfig is how the shop takes cards.
type paymentsConfig struct {
	mode   string        // SHOP_PAYMENTS: test (default) or stripe
	hold   time.Duration // SHOP_PAYMENT_HOLD: how long checkout holds the goods for the card
	stripe stripepay.Config
}

// paymentsFromEnv reads and checks the payment settings. In stripe mode
// the key and the webhook secret are required, each named when missing.
func paymentsFromEnv() (paymentsConfig, error) {
	pc := paymentsConfig{mode: strings.ToLower(strings.TrimSpace(env("SHOP_PAYMENTS", paymentsTest)))}
	if pc.mode == "" {
		pc.mode = paymentsTest
	}
	limits, ok := holdLimits[pc.mode]
	if !ok {
		return pc, fmt.Errorf("SHOP_PAYMENTS %q: use test (the built-in test provider) or stripe", pc.mode)
	}
	hold, err := envParse("SHOP_PAYMENT_HOLD", 30*time.Minute, time.ParseDuration, "a duration such as 30m")
	if err != nil {
		return pc, err
	}
	if hold < limits[0] || hold > limits[1] {
		return pc, fmt.Errorf("SHOP_PAYMENT_HOLD %s: with SHOP_PAYMENTS=%s use %s to %s", hold, pc.mode, shortDuration(limits[0]), shortDuration(limits[1]))
	}
	pc.hold = hold
	pc.stripe = stripepay.Config{
		SecretKey:     strings.TrimSpace(os.Getenv("STRIPE_SECRET_KEY")),
		WebhookSecret: strings.TrimSpace(os.Getenv("STRIPE_WEBHOOK_SECRET")),
		APIURL:        strings.TrimSpace(os.Getenv("SHOP_STRIPE_API_URL")),
	}
	if pc.mode != paymentsStripe {
		return pc, nil
	}
	var missing []string
	if pc.stripe.SecretKey == "" {
		missing = append(missing, "STRIPE_SECRET_KEY")
	}
	if pc.stripe.WebhookSecret == "" {
		missing = append(missing, "STRIPE_WEBHOOK_SECRET")
	}
	if len(missing) > 0 {
		return pc, fmt.Errorf("SHOP_PAYMENTS=stripe needs %s (the account's secret key and the webhook endpoint's signing secret)", strings.Join(missing, " and "))
	}
	return pc, nil
}

// shortDuration writes 1m0s as 1m and 24h0m0s as 24h.
func shortDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// errLiveKeyOnDemo refuses real money on a table with the demo shop.
var errLiveKeyOnDemo = errors.New("STRIPE_SECRET_KEY is a live key (sk_live_…) and this table holds the demo shop (published passwords, made-up orders): " +
	"use a test key (sk_test_…) to try Stripe on the demo, or a table without demo data (SHOP_DEMO=false) to take real payments")

// liveKey says whether a Stripe key moves real money.
func liveKey(key string) bool {
	return strings.HasPrefix(key, "sk_live_") || strings.HasPrefix(key, "rk_live_")
}

// checkLive refuses a live Stripe key on a table with the demo shop.
func (pc paymentsConfig) checkLive(demoData bool) error {
	if pc.mode == paymentsStripe && liveKey(pc.stripe.SecretKey) && demoData {
		return errLiveKeyOnDemo
	}
	return nil
}

// providers builds the card providers: in test mode the test provider
// takes new payments; with Stripe, Stripe does, and the test provider
// stays, refunds only, for the payments it took before. The second value
// is the test provider either way.
func (pc paymentsConfig) providers(ctx context.Context, st *store.Store, baseURL string, demoData bool) (payment.Providers, *payment.TestProvider, error) {
	test, err := payment.NewTestProvider(ctx, st, baseURL)
	if err != nil {
		return payment.Providers{}, nil, err
	}
	if pc.mode != paymentsStripe {
		return payment.NewProviders(test), test, nil
	}
	if liveKey(pc.stripe.SecretKey) && !demoData {
		var err error
		if demoData, err = demo.Present(ctx, st); err != nil {
			return payment.Providers{}, nil, err
		}
	}
	if err := pc.checkLive(demoData); err != nil {
		return payment.Providers{}, nil, err
	}
	sp, err := stripepay.New(pc.stripe)
	if err != nil {
		return payment.Providers{}, nil, err
	}
	test.RefundsOnly = true
	return payment.NewProviders(sp, test), test, nil
}

// payments is the serving shop's card payments wired together.
type payments struct {
	mode      string
	hold      time.Duration
	providers payment.Providers
	test      *payment.TestProvider // the test provider (refunds only with Stripe)
	settler   *jobs.PaymentSettler
	// subscriptions pays subscriptions through the providers; dashboard
	// is Stripe's Dashboard for the key (its test half for a test key).
	subscriptions *jobs.SubscriptionPayments
	dashboard     string
}

// setUpPayments reads the payment settings and builds the providers and
// the settler of held orders (webhooks, cancels, the reconcile job).
// demoData: the demo shop is (or is about to be) in the table.
func setUpPayments(ctx context.Context, st *store.Store, baseURL string, demoData bool, log *slog.Logger) (*payments, error) {
	pc, err := paymentsFromEnv()
	if err != nil {
		return nil, err
	}
	providers, test, err := pc.providers(ctx, st, baseURL, demoData)
	if err != nil {
		return nil, err
	}
	log.Info("card payments", "provider", providers.Active().Name(), "hold", pc.hold)
	settler, sp := jobs.NewCardPayments(st, providers, baseURL, log)
	p := &payments{mode: pc.mode, hold: pc.hold, providers: providers, test: test, settler: settler, subscriptions: sp}
	if pc.mode == paymentsStripe && strings.HasPrefix(pc.stripe.SecretKey, "sk_test_") {
		p.dashboard = "https://dashboard.stripe.com/test"
	}
	return p, nil
}

// deliverTestEvents schedules, in test mode, the test provider's delivery
// of its events to the shop's own webhook at addr.
func (p *payments) deliverTestEvents(sched *jobs.Scheduler, st *store.Store, addr string, log *slog.Logger) error {
	if p == nil || p.mode != paymentsTest {
		return nil
	}
	base, err := loopbackURL(addr)
	if err != nil {
		return err
	}
	d := &jobs.TestPaymentEvents{Store: st, Provider: p.test, URL: base + paths.WebhookTest, Log: log}
	p.test.OnEvent = d.Wake // a payment on its page is delivered at the next tick, not after the idle rest
	return sched.DeliverTestPaymentEvents(d, "")
}
