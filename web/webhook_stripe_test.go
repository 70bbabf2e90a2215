package web_test

import (
	"bytes"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"shop/store/payment"
	stripepay "shop/store/payment/stripe"
	"shop/store/storetest"
	"shop/web"
	"shop/web/paths"
)

// With Stripe's provider active, POST /webhooks/stripe takes Stripe's
// signed events (Stripe-Signature, verified before anything is read; no
// session, no CSRF): a good one is answered 200 (an order it names that
// this shop does not hold is acknowledged, not retried), a missing or bad
// signature 400. The test provider's webhook and pages are not routed.
func TestStripeWebhookIsRoutedInStripesMode(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	const secret = "whsec_test_route"
	base, _ := startApp(t, env, env.Table, [][]byte{keyA}, func(_ storetest.Env, cfg *web.Config) {
		sp, err := stripepay.New(stripepay.Config{SecretKey: "sk_test_route", WebhookSecret: secret, APIURL: "http://127.0.0.1:9"})
		if err != nil {
			t.Fatal(err)
		}
		test := cfg.Payments.Active().(*payment.TestProvider)
		test.RefundsOnly = true
		cfg.Payments = payment.NewProviders(sp, test)
	})
	body := []byte(`{"id":"evt_route_1","object":"event","api_version":"` + stripe.APIVersion + `","created":1767225600,"type":"checkout.session.expired",` +
		`"data":{"object":{"id":"cs_route_1","object":"checkout.session","mode":"payment","status":"expired","payment_status":"unpaid","metadata":{"order":"nosuchorder"}}}}`)
	post := func(sig string) int {
		req, _ := http.NewRequest(http.MethodPost, base+paths.WebhookStripe, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sig != "" {
			req.Header.Set("Stripe-Signature", sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if c := resp.Header.Get("Set-Cookie"); c != "" {
			t.Errorf("the webhook set a cookie: %s", c)
		}
		return resp.StatusCode
	}
	good := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: time.Now()}).Header
	bad := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: "whsec_other", Timestamp: time.Now()}).Header
	for _, tc := range []struct {
		name, sig string
		want      int
	}{{"signed", good, http.StatusOK}, {"signed by another secret", bad, http.StatusBadRequest}, {"unsigned", "", http.StatusBadRequest}} {
		if got := post(tc.sig); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	b := newBrowser(t, base)
	wantStatus(t, "the test provider's page", b.get("/test-payments/checkout/cs_test_1"), http.StatusNotFound)
	wantStatus(t, "the test provider's webhook", b.post(paths.WebhookTest, url.Values{}), http.StatusNotFound)
}
