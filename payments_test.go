package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// SHOP_PAYMENTS and its neighbours: test mode by default with a 30-minute
// hold; Stripe's mode names each missing secret; a hold outside what the
// provider allows is refused saying the range; a live key on the demo
// shop is refused, a test key is not.
func TestPaymentSettings(t *testing.T) {
	for _, v := range []string{"SHOP_PAYMENTS", "SHOP_PAYMENT_HOLD", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "SHOP_STRIPE_API_URL"} {
		t.Setenv(v, "")
	}
	pc, err := paymentsFromEnv()
	if err != nil || pc.mode != paymentsTest || pc.hold != 30*time.Minute {
		t.Fatalf("defaults: %+v, %v", pc, err)
	}
	for _, tc := range []struct {
		env  map[string]string
		want string // in the error; "" for none
	}{
		{map[string]string{"SHOP_PAYMENTS": "paypal"}, `SHOP_PAYMENTS "paypal": use test`},
		{map[string]string{"SHOP_PAYMENTS": "stripe"}, "needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET"},
		{map[string]string{"SHOP_PAYMENTS": "stripe", "STRIPE_SECRET_KEY": "sk_test_1"}, "needs STRIPE_WEBHOOK_SECRET ("},
		{map[string]string{"SHOP_PAYMENTS": "stripe", "STRIPE_WEBHOOK_SECRET": "whsec_1"}, "needs STRIPE_SECRET_KEY ("},
		{map[string]string{"SHOP_PAYMENTS": "stripe", "STRIPE_SECRET_KEY": "sk_test_1", "STRIPE_WEBHOOK_SECRET": "whsec_1"}, ""},
		{map[string]string{"SHOP_PAYMENTS": "stripe", "STRIPE_SECRET_KEY": "sk_test_1", "STRIPE_WEBHOOK_SECRET": "whsec_1", "SHOP_PAYMENT_HOLD": "10m"}, "SHOP_PAYMENT_HOLD 10m0s: with SHOP_PAYMENTS=stripe use 30m to 24h"},
		{map[string]string{"SHOP_PAYMENT_HOLD": "2m"}, ""},
		{map[string]string{"SHOP_PAYMENT_HOLD": "30s"}, "use 1m to 24h"},
		{map[string]string{"SHOP_PAYMENT_HOLD": "25h"}, "use 1m to 24h"},
		{map[string]string{"SHOP_PAYMENT_HOLD": "soon"}, "SHOP_PAYMENT_HOLD"},
	} {
		t.Run(strings.Join(keysOf(tc.env), ","), func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := paymentsFromEnv()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
	live := paymentsConfig{mode: paymentsStripe}
	live.stripe.SecretKey = "sk_live_1"
	if err := live.checkLive(true); !errors.Is(err, errLiveKeyOnDemo) {
		t.Fatalf("a live key on the demo shop: %v", err)
	}
	if err := live.checkLive(false); err != nil {
		t.Fatalf("a live key on a real shop: %v", err)
	}
	live.stripe.SecretKey = "sk_test_1"
	if err := live.checkLive(true); err != nil {
		t.Fatalf("a test key on the demo shop: %v", err)
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}
