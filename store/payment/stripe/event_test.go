package stripepay

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"shop/store"
	"shop/store/payment"
)

const testWebhookSecret = "whsec_test_secret"

func stripeCode(s string) stripe.Currency { return stripe.Currency(s) }

// eventProvider is a provider for ParseEvent alone: it makes no request.
func eventProvider(t *testing.T) *Provider {
	t.Helper()
	p, err := New(Config{SecretKey: "sk_test_123", WebhookSecret: testWebhookSecret})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// eventBody is an event as Stripe sends it, of the library's API version
// unless version says otherwise.
func eventBody(t testing.TB, id, typ, version string, object map[string]any) []byte {
	t.Helper()
	if version == "" {
		version = stripe.APIVersion
	}
	b, err := json.Marshal(map[string]any{
		"id": id, "object": "event", "api_version": version, "created": 1767225600,
		"type": typ, "livemode": false, "pending_webhooks": 1,
		"data": map[string]any{"object": object},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sign signs body as Stripe does, at the given time, with the library's
// test helper.
func sign(body []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: at}).Header
}

func TestParseEventChecksTheSignature(t *testing.T) {
	p := eventProvider(t)
	body := eventBody(t, "evt_1", payment.EventPaymentSucceeded, "", map[string]any{"id": "pi_1", "object": "payment_intent", "status": "succeeded", "amount": 1250, "currency": "eur"})
	now := time.Now()

	if _, err := p.ParseEvent(body, sign(body, testWebhookSecret, now)); err != nil {
		t.Fatalf("a good signature: %v", err)
	}
	tampered := append([]byte(nil), body...)
	tampered[len(tampered)-2] = ' '
	for name, tc := range map[string]struct {
		body      []byte
		signature string
	}{
		"another secret":          {body, sign(body, "whsec_other", now)},
		"no header":               {body, ""},
		"not a header":            {body, "v1"},
		"no v1 signature":         {body, "t=1767225600"},
		"body changed":            {tampered, sign(body, testWebhookSecret, now)},
		"replayed ten min later":  {body, sign(body, testWebhookSecret, now.Add(-10*time.Minute))},
		"just past the tolerance": {body, sign(body, testWebhookSecret, now.Add(-webhook.DefaultTolerance-time.Second))},
	} {
		t.Run(name, func(t *testing.T) {
			ev, err := p.ParseEvent(tc.body, tc.signature)
			if !errors.Is(err, payment.ErrBadSignature) {
				t.Fatalf("err = %v, want ErrBadSignature", err)
			}
			if ev.ID != "" || ev.Payment != nil {
				t.Fatalf("a refused event was read: %+v", ev)
			}
		})
	}
	if _, err := p.ParseEvent(body, sign(body, testWebhookSecret, now.Add(-webhook.DefaultTolerance+5*time.Second))); err != nil {
		t.Fatalf("within the tolerance: %v", err)
	}
}

// The endpoint must send events of the library's release: a later version
// of the same release reads; another release, or a version from before
// releases had names, is refused with ErrEventVersion, not read.
func TestParseEventRefusesAnotherAPIRelease(t *testing.T) {
	p := eventProvider(t)
	object := map[string]any{"id": "pi_1", "object": "payment_intent", "status": "succeeded", "amount": 1250, "currency": "eur"}
	for _, tc := range []struct {
		version string
		want    error
	}{
		{stripe.APIVersion, nil},
		{"2026-08-26.dahlia", nil},
		{"2025-03-31.basil", ErrEventVersion},
		{"2024-06-20", ErrEventVersion},
		{"", ErrEventVersion},
	} {
		body := eventBody(t, "evt_v", payment.EventPaymentSucceeded, tc.version, object)
		if tc.version == "" { // eventBody's default is the library's: make it empty
			body = []byte(`{"id":"evt_v","object":"event","api_version":"","created":1767225600,"type":"payment_intent.succeeded","data":{"object":{"id":"pi_1"}}}`)
		}
		ev, err := p.ParseEvent(body, sign(body, testWebhookSecret, time.Now()))
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("version %q: err = %v, want %v", tc.version, err, tc.want)
		}
		if tc.want != nil && (ev.Payment != nil || errors.Is(err, payment.ErrBadSignature)) {
			t.Errorf("version %q: %+v, %v", tc.version, ev, err)
		}
	}
}

func TestParseEventReadsEachType(t *testing.T) {
	p := eventProvider(t)
	meta := map[string]any{"order": "o_42"}
	created := time.Unix(1767225600, 0).UTC()

	t.Run("checkout.session.completed", func(t *testing.T) {
		body := eventBody(t, "evt_cs", payment.EventCheckoutCompleted, "", map[string]any{
			"id": "cs_test_1", "object": "checkout.session", "mode": "payment", "status": "complete",
			"payment_status": "paid", "amount_total": 4250, "currency": "eur", "customer": "cus_1",
			"payment_intent": "pi_1", "metadata": meta, "expires_at": 1767229200, "url": nil,
		})
		ev := parse(t, p, body)
		if ev.ID != "evt_cs" || ev.Type != payment.EventCheckoutCompleted || !ev.Created.Equal(created) {
			t.Fatalf("event %+v", ev)
		}
		s := ev.Session
		if s == nil || ev.Payment != nil || ev.Refund != nil {
			t.Fatalf("want a session alone: %+v", ev)
		}
		want := payment.CheckoutSession{ID: "cs_test_1", Status: payment.SessionComplete, Paid: true,
			Amount: store.Money{Amount: 4250, Currency: "EUR"}, PaymentRef: "pi_1", CustomerRef: "cus_1",
			Metadata: map[string]string{"order": "o_42"}, ExpiresAt: time.Unix(1767229200, 0).UTC()}
		if !reflect.DeepEqual(*s, want) {
			t.Fatalf("session\n got %+v\nwant %+v", *s, want)
		}
	})
	t.Run("checkout.session.completed in setup mode", func(t *testing.T) {
		body := eventBody(t, "evt_cs_setup", payment.EventCheckoutCompleted, "", map[string]any{
			"id": "cs_test_2", "object": "checkout.session", "mode": "setup", "status": "complete",
			"payment_status": "no_payment_required", "amount_total": nil, "currency": "krw", "customer": "cus_2",
			"setup_intent": "seti_1", "metadata": map[string]any{"subscription": "s_7"},
		})
		s := parse(t, p, body).Session
		if s == nil || !s.Paid || s.Amount != (store.Money{Currency: "KRW"}) || s.CustomerRef != "cus_2" || s.Card != nil || s.PaymentRef != "" {
			t.Fatalf("session %+v", s)
		}
	})
	t.Run("checkout.session.expired", func(t *testing.T) {
		body := eventBody(t, "evt_cx", payment.EventCheckoutExpired, "", map[string]any{
			"id": "cs_test_3", "object": "checkout.session", "mode": "payment", "status": "expired",
			"payment_status": "unpaid", "amount_total": 900, "currency": "usd", "metadata": meta,
		})
		s := parse(t, p, body).Session
		if s == nil || s.Paid || s.Status != payment.SessionExpired || s.Metadata["order"] != "o_42" {
			t.Fatalf("session %+v", s)
		}
	})
	t.Run("payment_intent.succeeded", func(t *testing.T) {
		body := eventBody(t, "evt_pi", payment.EventPaymentSucceeded, "", map[string]any{
			"id": "pi_2", "object": "payment_intent", "status": "succeeded", "amount": 50000, "currency": "jpy",
			"payment_method": "pm_1", "metadata": map[string]any{"shop_key": "sub_1/2026-01/1"},
		})
		pi := parse(t, p, body).Payment
		want := payment.PaymentIntent{ID: "pi_2", Status: payment.PaymentSucceeded, Amount: store.Money{Amount: 50000, Currency: "JPY"}, Metadata: map[string]string{"shop_key": "sub_1/2026-01/1"}}
		if pi == nil || !reflect.DeepEqual(*pi, want) {
			t.Fatalf("payment\n got %+v\nwant %+v", pi, want)
		}
	})
	t.Run("payment_intent.payment_failed", func(t *testing.T) {
		body := eventBody(t, "evt_pf", payment.EventPaymentFailed, "", map[string]any{
			"id": "pi_3", "object": "payment_intent", "status": "requires_payment_method", "amount": 1999, "currency": "gbp",
			"last_payment_error": map[string]any{"type": "card_error", "code": "card_declined", "decline_code": "insufficient_funds", "message": "Your card has insufficient funds."},
		})
		pi := parse(t, p, body).Payment
		if pi == nil || pi.Status != payment.PaymentRequiresMethod || pi.DeclineCode != "insufficient_funds" || pi.Amount != (store.Money{Amount: 1999, Currency: "GBP"}) {
			t.Fatalf("payment %+v", pi)
		}
	})
	t.Run("charge.refunded", func(t *testing.T) {
		body := eventBody(t, "evt_ch", payment.EventChargeRefunded, "", map[string]any{
			"id": "ch_1", "object": "charge", "amount": 5000, "amount_refunded": 3000, "currency": "sek",
			"payment_intent": "pi_4", "refunded": false, "metadata": meta,
			"refunds": map[string]any{"object": "list", "data": []any{
				map[string]any{"id": "re_2", "object": "refund", "amount": 1000, "created": 1767225500, "status": "pending"},
				map[string]any{"id": "re_1", "object": "refund", "amount": 2000, "created": 1767225400, "status": "succeeded"},
			}},
		})
		r := parse(t, p, body).Refund
		want := payment.Refund{ID: "re_2", PaymentRef: "pi_4", Status: payment.RefundPending, Amount: store.Money{Amount: 3000, Currency: "SEK"}, Metadata: map[string]string{"order": "o_42"}}
		if r == nil || !reflect.DeepEqual(*r, want) {
			t.Fatalf("refund\n got %+v\nwant %+v", r, want)
		}
	})
	t.Run("charge.refunded without its refunds", func(t *testing.T) {
		body := eventBody(t, "evt_ch2", payment.EventChargeRefunded, "", map[string]any{
			"id": "ch_2", "object": "charge", "amount": 5000, "amount_refunded": 5000, "currency": "usd",
			"payment_intent": "pi_5", "refunded": true,
		})
		r := parse(t, p, body).Refund
		if r == nil || r.ID != "" || r.PaymentRef != "pi_5" || r.Amount != (store.Money{Amount: 5000, Currency: "USD"}) {
			t.Fatalf("refund %+v", r)
		}
	})
	t.Run("refund.updated", func(t *testing.T) {
		body := eventBody(t, "evt_re", payment.EventRefundUpdated, "", map[string]any{
			"id": "re_3", "object": "refund", "amount": 700, "currency": "idr", "status": "failed",
			"payment_intent": "pi_6", "metadata": map[string]any{"return": "r_9"},
		})
		r := parse(t, p, body).Refund
		want := payment.Refund{ID: "re_3", PaymentRef: "pi_6", Status: payment.RefundFailed, Amount: store.Money{Amount: 700, Currency: "IDR"}, Metadata: map[string]string{"return": "r_9"}}
		if r == nil || !reflect.DeepEqual(*r, want) {
			t.Fatalf("refund\n got %+v\nwant %+v", r, want)
		}
	})
	t.Run("a type the shop does not act on", func(t *testing.T) {
		body := eventBody(t, "evt_other", "customer.created", "", map[string]any{"id": "cus_9", "object": "customer"})
		ev := parse(t, p, body)
		if ev.ID != "evt_other" || ev.Type != "customer.created" || !ev.Created.Equal(created) || ev.Session != nil || ev.Payment != nil || ev.Refund != nil {
			t.Fatalf("event %+v", ev)
		}
	})
	t.Run("a known type with an object that does not read", func(t *testing.T) {
		body := eventBody(t, "evt_bad", payment.EventRefundUpdated, "", map[string]any{"id": "re_4", "amount": "a lot"})
		if _, err := p.ParseEvent(body, sign(body, testWebhookSecret, time.Now())); err == nil || errors.Is(err, payment.ErrBadSignature) {
			t.Fatalf("err = %v, want an error about the object", err)
		}
	})
}

func parse(t *testing.T, p *Provider, body []byte) payment.Event {
	t.Helper()
	ev, err := p.ParseEvent(body, sign(body, testWebhookSecret, time.Now()))
	if err != nil {
		t.Fatalf("ParseEvent: %v", err)
	}
	return ev
}

// FuzzParseEvent: whatever a correctly signed body holds, ParseEvent does
// not panic, and an event it accepts has an id and a type, and the object
// its type names.
func FuzzParseEvent(f *testing.F) {
	p, err := New(Config{SecretKey: "sk_test_123", WebhookSecret: testWebhookSecret})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(eventBody(f, "evt_1", payment.EventCheckoutCompleted, "", map[string]any{"id": "cs_1", "mode": "payment", "status": "complete", "payment_intent": map[string]any{"id": "pi_1", "payment_method": map[string]any{"id": "pm_1", "card": map[string]any{"brand": "visa", "last4": "4242"}}}}))
	f.Add(eventBody(f, "evt_2", payment.EventChargeRefunded, "", map[string]any{"id": "ch_1", "refunds": map[string]any{"data": []any{nil, map[string]any{"id": "re_1"}}}}))
	f.Add(eventBody(f, "evt_3", payment.EventRefundUpdated, "", nil))
	f.Add([]byte(`{"object":"event","id":"evt_4","type":"refund.updated","api_version":"2026-03-25.dahlia"}`))
	f.Add([]byte(`{"object":"event","id":"evt_5","type":"payment_intent.succeeded","api_version":"2026-03-25.dahlia","data":{"object":"pi_1"}}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := p.ParseEvent(body, sign(body, testWebhookSecret, time.Now()))
		if errors.Is(err, payment.ErrBadSignature) {
			t.Fatalf("a correctly signed body was refused as unsigned: %v", err)
		}
		if err != nil {
			return
		}
		if ev.ID == "" || ev.Type == "" {
			t.Fatalf("accepted an event without id or type: %+v", ev)
		}
		switch ev.Type {
		case payment.EventCheckoutCompleted, payment.EventCheckoutExpired:
			if ev.Session == nil {
				t.Fatalf("%s without a session", ev.Type)
			}
		case payment.EventPaymentSucceeded, payment.EventPaymentFailed:
			if ev.Payment == nil {
				t.Fatalf("%s without a payment", ev.Type)
			}
		case payment.EventChargeRefunded, payment.EventRefundUpdated:
			if ev.Refund == nil {
				t.Fatalf("%s without a refund", ev.Type)
			}
		}
	})
}
