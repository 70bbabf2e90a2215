package stripepay

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
)

// wantForm checks the fields a request sent: "" means the field must be
// absent.
func wantForm(t *testing.T, what string, got url.Values, want map[string]string) {
	t.Helper()
	for k, v := range want {
		switch {
		case v == "" && got.Has(k):
			t.Errorf("%s sent %s=%q, want none", what, k, got.Get(k))
		case v != "" && got.Get(k) != v:
			t.Errorf("%s sent %s=%q, want %q", what, k, got.Get(k), v)
		}
	}
}

func TestWhatTheAdapterSends(t *testing.T) {
	const session = `{"id":"cs_1","object":"checkout.session","mode":"payment","status":"open","payment_status":"unpaid","url":"https://checkout.stripe.com/c/pay/cs_1","amount_total":4250,"currency":"eur","customer":"cus_1","expires_at":1767229200,"metadata":{"order":"o_42"}}`
	r, p := newReplay(t, map[string]answer{
		"POST /v1/customers":         {status: 200, body: `{"id":"cus_1","object":"customer"}`},
		"POST /v1/checkout/sessions": {status: 200, body: session},
		"POST /v1/payment_intents":   {status: 200, body: `{"id":"pi_1","object":"payment_intent","status":"requires_confirmation","amount":1250,"currency":"eur","metadata":{"shop_key":"sub_1/2026-01/1"}}`},
		"POST /v1/refunds":           {status: 200, body: `{"id":"re_1","object":"refund","status":"succeeded","amount":500,"currency":"eur","payment_intent":"pi_1","metadata":{"return":"r_7"}}`},
	})
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	ctx := context.Background()

	ref, err := p.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: "c_1", Email: "ada@example.com", Name: "Ada Lovelace", Key: "c_1"})
	if err != nil || ref != "cus_1" {
		t.Fatalf("EnsureCustomer: %q, %v", ref, err)
	}
	c := r.requests("POST /v1/customers")[0]
	wantForm(t, "customer", c.form, map[string]string{"email": "ada@example.com", "name": "Ada Lovelace", "metadata[shop_customer_id]": "c_1"})
	if c.key != "customer:c_1" {
		t.Errorf("customer key %q", c.key)
	}

	s, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: store.Money{Amount: 4250, Currency: "EUR"},
		Description: "Order 1042", CustomerRef: "cus_1", SaveCard: true, ExpiresAt: now.Add(time.Hour),
		SuccessURL: "https://shop.example/checkout/o_42/paid", CancelURL: "https://shop.example/checkout/o_42", Key: "o_42",
		Metadata: map[string]string{"order": "o_42"}})
	if err != nil || s.ID != "cs_1" || s.URL == "" || s.Status != payment.SessionOpen || s.Paid {
		t.Fatalf("StartCheckout: %+v, %v", s, err)
	}
	c = r.requests("POST /v1/checkout/sessions")[0]
	wantForm(t, "payment checkout", c.form, map[string]string{
		"mode": "payment", "payment_method_types[0]": "card", "customer": "cus_1",
		"line_items[0][quantity]": "1", "line_items[0][price_data][currency]": "eur", "line_items[0][price_data][unit_amount]": "4250",
		"line_items[0][price_data][product_data][name]": "Order 1042",
		"expires_at":  fmt.Sprint(now.Add(time.Hour).Unix()),
		"success_url": "https://shop.example/checkout/o_42/paid?session_id={CHECKOUT_SESSION_ID}",
		"cancel_url":  "https://shop.example/checkout/o_42", "metadata[order]": "o_42",
		"payment_intent_data[setup_future_usage]": "off_session", "payment_intent_data[metadata][order]": "o_42",
		"payment_intent_data[description]": "Order 1042", "currency": "",
	})
	if c.key != "checkout:o_42" {
		t.Errorf("checkout key %q", c.key)
	}

	_, err = p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: store.Money{Amount: 5000, Currency: "KRW"},
		Description: "Order 1043", CustomerRef: "cus_1", ExpiresAt: now.Add(10 * time.Minute), SuccessURL: "https://shop.example/done?o=1", Key: "o_43"})
	if err != nil {
		t.Fatal(err)
	}
	c = r.requests("POST /v1/checkout/sessions")[1]
	wantForm(t, "checkout without saving the card", c.form, map[string]string{
		"line_items[0][price_data][currency]": "krw", "line_items[0][price_data][unit_amount]": "5000",
		"payment_intent_data[setup_future_usage]": "", "cancel_url": "",
		"expires_at":  fmt.Sprint(now.Add(31 * time.Minute).Unix()), // Stripe's least is 30 minutes
		"success_url": "https://shop.example/done?o=1&session_id={CHECKOUT_SESSION_ID}",
	})

	_, err = p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModeSetup, Amount: store.Money{Currency: "IDR"}, CustomerRef: "cus_1",
		ExpiresAt: now.Add(48 * time.Hour), SuccessURL: "https://shop.example/account/cards?session={CHECKOUT_SESSION_ID}", Key: "card-c_1-1",
		Metadata: map[string]string{"subscription": "s_7"}})
	if err != nil {
		t.Fatal(err)
	}
	c = r.requests("POST /v1/checkout/sessions")[2]
	wantForm(t, "setup checkout", c.form, map[string]string{
		"mode": "setup", "currency": "idr", "customer": "cus_1", "payment_method_types[0]": "card",
		"metadata[subscription]": "s_7", "setup_intent_data[metadata][subscription]": "s_7",
		"line_items[0][quantity]": "", "payment_intent_data[setup_future_usage]": "",
		"expires_at":  fmt.Sprint(now.Add(24*time.Hour - time.Minute).Unix()), // Stripe's most is 24 hours
		"success_url": "https://shop.example/account/cards?session={CHECKOUT_SESSION_ID}",
	})

	pi, err := p.CreatePayment(ctx, payment.PaymentRequest{Amount: store.Money{Amount: 1250, Currency: "EUR"}, CustomerRef: "cus_1", MethodRef: "pm_1",
		Description: "Coffee, January", Key: "sub_1/2026-01/1", ReturnURL: "https://shop.example/account/payments", Metadata: map[string]string{"subscription": "sub_1"}})
	if err != nil || pi.ID != "pi_1" || pi.Status != payment.PaymentRequiresConfirmation {
		t.Fatalf("CreatePayment: %+v, %v", pi, err)
	}
	c = r.requests("POST /v1/payment_intents")[0]
	wantForm(t, "payment", c.form, map[string]string{
		"amount": "1250", "currency": "eur", "customer": "cus_1", "payment_method": "pm_1", "payment_method_types[0]": "card",
		"description": "Coffee, January", "confirm": "false", "off_session": "", "return_url": "",
		"metadata[shop_key]": "sub_1/2026-01/1", "metadata[shop_return_url]": "https://shop.example/account/payments", "metadata[subscription]": "sub_1",
	})
	if c.key != "payment:sub_1/2026-01/1" {
		t.Errorf("payment key %q", c.key)
	}

	rf, err := p.Refund(ctx, payment.RefundRequest{PaymentRef: "pi_1", Amount: store.Money{Amount: 500, Currency: "EUR"}, Key: "return-7", Metadata: map[string]string{"return": "r_7"}})
	want := payment.Refund{ID: "re_1", PaymentRef: "pi_1", Status: payment.RefundSucceeded, Amount: store.Money{Amount: 500, Currency: "EUR"}, Metadata: map[string]string{"return": "r_7"}}
	if err != nil || rf.ID != want.ID || rf.PaymentRef != want.PaymentRef || rf.Status != want.Status || rf.Amount != want.Amount || rf.Metadata["return"] != "r_7" {
		t.Fatalf("Refund: %+v, %v", rf, err)
	}
	c = r.requests("POST /v1/refunds")[0]
	wantForm(t, "refund", c.form, map[string]string{"payment_intent": "pi_1", "amount": "500", "metadata[return]": "r_7"})
	if c.key != "refund:return-7" {
		t.Errorf("refund key %q", c.key)
	}
}

// Requests the adapter refuses before asking Stripe.
func TestRefusedBeforeStripe(t *testing.T) {
	r, p := newReplay(t, map[string]answer{})
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"a payment checkout without a description": func() error {
			_, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: store.Money{Amount: 1000, Currency: "EUR"}})
			return err
		},
		"a checkout of another mode": func() error {
			_, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: "subscription", Amount: store.Money{Amount: 1000, Currency: "EUR"}, Description: "x"})
			return err
		},
		"a setup checkout without a currency": func() error {
			_, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModeSetup})
			return err
		},
		"a refund of nothing": func() error {
			_, err := p.Refund(ctx, payment.RefundRequest{PaymentRef: "pi_1", Amount: store.Money{Currency: "EUR"}, Key: "k"})
			return err
		},
		"a payment in a currency the adapter does not know": func() error {
			_, err := p.CreatePayment(ctx, payment.PaymentRequest{Amount: store.Money{Amount: 100000, Currency: "HUF"}, Key: "k"})
			return err
		},
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if len(r.asked) != 0 {
		t.Errorf("asked Stripe: %+v", r.asked)
	}
}

func TestNewRefusesAnIncompleteConfig(t *testing.T) {
	for _, cfg := range []Config{
		{WebhookSecret: "whsec_1"},
		{SecretKey: "pk_test_123", WebhookSecret: "whsec_1"},
		{SecretKey: "sk_test_123"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) took it", cfg)
		}
	}
	p, err := New(Config{SecretKey: "sk_test_123", WebhookSecret: "whsec_1"})
	if err != nil || p.Name() != payment.ProviderStripe {
		t.Fatalf("New: %v", err)
	}
}
