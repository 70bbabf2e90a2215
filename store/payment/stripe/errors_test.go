package stripepay

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"shop/store"
	"shop/store/payment"
)

// replay is a server answering as Stripe does, from bodies copied from
// Stripe's documentation of errors, and recording what it was asked.
type replay struct {
	t       *testing.T
	mu      sync.Mutex
	answers map[string]answer // "POST /v1/payment_intents/pi_1/confirm"
	asked   []asked
}

type answer struct {
	status int
	body   string
	header http.Header
}

type asked struct {
	route string
	form  url.Values
	key   string // Idempotency-Key
}

func newReplay(t *testing.T, answers map[string]answer) (*replay, *Provider) {
	t.Helper()
	r := &replay{t: t, answers: answers}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	p, err := New(Config{SecretKey: "sk_test_123", WebhookSecret: testWebhookSecret, APIURL: srv.URL, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

var quiet = &stripe.LeveledLogger{Level: stripe.LevelNull}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	_ = req.ParseForm()
	route := req.Method + " " + req.URL.Path
	r.mu.Lock()
	r.asked = append(r.asked, asked{route: route, form: req.Form, key: req.Header.Get("Idempotency-Key")})
	a, ok := r.answers[route]
	r.mu.Unlock()
	if !ok {
		r.t.Errorf("unexpected request %s %s", route, req.Form.Encode())
		a = answer{status: 404, body: `{"error":{"type":"invalid_request_error","code":"resource_missing","message":"Unrecognized request URL"}}`}
	}
	for k, vs := range a.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_replay")
	w.WriteHeader(a.status)
	_, _ = w.Write([]byte(a.body))
}

func (r *replay) requests(route string) []asked {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []asked
	for _, a := range r.asked {
		if a.route == route {
			out = append(out, a)
		}
	}
	return out
}

const (
	intentToConfirm = `{"id":"pi_1","object":"payment_intent","status":"requires_confirmation","amount":1250,"currency":"eur","customer":"cus_1","payment_method":{"id":"pm_1","object":"payment_method","type":"card","card":{"brand":"visa","last4":"4242","exp_month":12,"exp_year":2030}},"metadata":{"shop_key":"sub_1/2026-01/1"}}`
	// An off-session charge the bank declines: 402, card_error, with the
	// intent as it now stands (docs.stripe.com/api/errors, /declines/codes).
	declinedInsufficient = `{"error":{"type":"card_error","code":"card_declined","decline_code":"insufficient_funds","message":"Your card has insufficient funds.","doc_url":"https://stripe.com/docs/error-codes/card-declined","charge":"ch_1",
		"payment_intent":{"id":"pi_1","object":"payment_intent","status":"requires_payment_method","amount":1250,"currency":"eur","metadata":{"shop_key":"sub_1/2026-01/1"},"last_payment_error":{"type":"card_error","code":"card_declined","decline_code":"insufficient_funds","message":"Your card has insufficient funds."}}}}`
	declinedGeneric = `{"error":{"type":"card_error","code":"card_declined","decline_code":"generic_decline","message":"Your card was declined.",
		"payment_intent":{"id":"pi_1","object":"payment_intent","status":"requires_payment_method","amount":1250,"currency":"eur","last_payment_error":{"type":"card_error","code":"card_declined","decline_code":"generic_decline"}}}}`
	// Off-session, a bank asking for authentication is a decline with
	// code authentication_required (docs.stripe.com/payments/save-and-reuse,
	// "Handle post-payment events": "authentication_required").
	authenticationRequired = `{"error":{"type":"card_error","code":"authentication_required","decline_code":"authentication_required","message":"Your card was declined. This transaction requires authentication.",
		"payment_intent":{"id":"pi_1","object":"payment_intent","status":"requires_payment_method","amount":1250,"currency":"eur","last_payment_error":{"type":"card_error","code":"authentication_required","decline_code":"authentication_required"}}}}`
	// With a return URL the confirmation is on-session: the intent waits
	// for the customer on the bank's page.
	requiresAction = `{"id":"pi_1","object":"payment_intent","status":"requires_action","amount":1250,"currency":"eur","metadata":{"shop_return_url":"https://shop.example/account/payments/pi_1"},
		"next_action":{"type":"redirect_to_url","redirect_to_url":{"url":"https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1&payment_intent=pi_1","return_url":"https://shop.example/account/payments/pi_1"}}}`
	apiError500  = `{"error":{"type":"api_error","message":"Sorry, something went wrong. We've already been notified of the problem."}}`
	rateLimit429 = `{"error":{"type":"invalid_request_error","code":"rate_limit","message":"Too many requests hit the API too quickly. We recommend an exponential backoff of your requests."}}`
)

func TestConfirmPaymentMapsDeclines(t *testing.T) {
	for _, tc := range []struct {
		name        string
		body        string
		want        error
		notWant     error
		declineCode string
	}{
		{"insufficient funds", declinedInsufficient, payment.ErrInsufficientFunds, nil, "insufficient_funds"},
		{"generic decline", declinedGeneric, payment.ErrDeclined, payment.ErrInsufficientFunds, "generic_decline"},
		{"authentication required off-session", authenticationRequired, payment.ErrAuthenticationRequired, payment.ErrDeclined, "authentication_required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, p := newReplay(t, map[string]answer{
				"GET /v1/payment_intents/pi_1":          {status: 200, body: intentToConfirm},
				"POST /v1/payment_intents/pi_1/confirm": {status: 402, body: tc.body},
			})
			pi, err := p.ConfirmPayment(context.Background(), "pi_1")
			if !errors.Is(err, tc.want) || tc.notWant != nil && errors.Is(err, tc.notWant) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var se *stripe.Error
			if !errors.As(err, &se) || se.RequestID != "req_replay" || !strings.Contains(err.Error(), "req_replay") {
				t.Errorf("the error should carry Stripe's and name its request: %v", err)
			}
			if pi.ID != "pi_1" || pi.Status != payment.PaymentRequiresMethod || pi.DeclineCode != tc.declineCode || pi.RedirectURL != "" {
				t.Errorf("intent as it stands: %+v", pi)
			}
			confirms := r.requests("POST /v1/payment_intents/pi_1/confirm")
			if len(confirms) != 1 {
				t.Fatalf("%d confirmations, want 1 (a 402 is not retried)", len(confirms))
			}
			c := confirms[0]
			if c.form.Get("off_session") != "true" || c.form.Has("return_url") || c.key != "confirm:pi_1" {
				t.Errorf("confirmation sent %v with key %q", c.form, c.key)
			}
		})
	}
}

func TestConfirmPaymentWithReturnURLGivesTheBanksPage(t *testing.T) {
	r, p := newReplay(t, map[string]answer{
		"GET /v1/payment_intents/pi_1":          {status: 200, body: strings.Replace(intentToConfirm, `"metadata":{`, `"metadata":{"shop_return_url":"https://shop.example/account/payments/pi_1",`, 1)},
		"POST /v1/payment_intents/pi_1/confirm": {status: 200, body: requiresAction},
	})
	pi, err := p.ConfirmPayment(context.Background(), "pi_1")
	if !errors.Is(err, payment.ErrAuthenticationRequired) {
		t.Fatalf("err = %v", err)
	}
	if pi.Status != payment.PaymentRequiresAction || !strings.HasPrefix(pi.RedirectURL, "https://hooks.stripe.com/3d_secure_2/") {
		t.Fatalf("intent %+v", pi)
	}
	c := r.requests("POST /v1/payment_intents/pi_1/confirm")[0]
	if c.form.Get("return_url") != "https://shop.example/account/payments/pi_1" || c.form.Has("off_session") {
		t.Errorf("confirmation sent %v", c.form)
	}
}

// A confirmation repeated after a crash finds the payment already done and
// does not confirm it again.
func TestConfirmPaymentAlreadyConfirmed(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   error
	}{
		{"succeeded", nil},
		{"processing", nil},
		{"requires_action", payment.ErrAuthenticationRequired},
		{"canceled", payment.ErrVoided},
	} {
		r, p := newReplay(t, map[string]answer{
			"GET /v1/payment_intents/pi_1": {status: 200, body: strings.Replace(intentToConfirm, "requires_confirmation", tc.status, 1)},
		})
		pi, err := p.ConfirmPayment(context.Background(), "pi_1")
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.status, err, tc.want)
		}
		if pi.Status != tc.status || pi.Card == nil || pi.Card.Last4 != "4242" || pi.Card.Brand != "Visa" {
			t.Errorf("%s: intent %+v", tc.status, pi)
		}
		if n := len(r.requests("POST /v1/payment_intents/pi_1/confirm")); n != 0 {
			t.Errorf("%s: confirmed %d times", tc.status, n)
		}
	}
}

// Stripe unreachable, failing or limiting the rate is ErrProviderUnavailable.
// The library retries (twice by default, with the same idempotency key) a
// request that got no answer or an answer that is not Stripe's JSON; a JSON
// error from Stripe, 500 included, it returns at once (Stripe's idempotency
// would replay the same 500), except a 429 lock_timeout.
func TestUnavailableStripe(t *testing.T) {
	refund := payment.RefundRequest{PaymentRef: "pi_1", Amount: store.Money{Amount: 500, Currency: "EUR"}, Key: "return-7"}
	for _, tc := range []struct {
		name     string
		answer   answer
		requests int
	}{
		{"Stripe's 500", answer{status: 500, body: apiError500}, 1},
		{"Stripe's 503", answer{status: 503, body: apiError500}, 1},
		{"rate limited", answer{status: 429, body: rateLimit429}, 1},
		{"a proxy's HTML 502, retried twice", answer{status: 502, body: "<html><body>Bad Gateway</body></html>"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, p := newReplay(t, map[string]answer{"POST /v1/refunds": tc.answer})
			_, err := p.Refund(context.Background(), refund)
			if !errors.Is(err, payment.ErrProviderUnavailable) {
				t.Fatalf("err = %v", err)
			}
			asked := r.requests("POST /v1/refunds")
			if len(asked) != tc.requests {
				t.Fatalf("%d requests, want %d", len(asked), tc.requests)
			}
			for _, a := range asked {
				if a.key != "refund:return-7" || a.form.Get("payment_intent") != "pi_1" || a.form.Get("amount") != "500" {
					t.Errorf("sent %v with key %q", a.form, a.key)
				}
			}
		})
	}
	t.Run("nothing listening", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		p, err := New(Config{SecretKey: "sk_test_123", WebhookSecret: testWebhookSecret, APIURL: srv.URL, Logger: quiet, MaxNetworkRetries: stripe.Int64(0)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.RetrievePayment(context.Background(), "pi_1")
		if !errors.Is(err, payment.ErrProviderUnavailable) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the caller's deadline stays a deadline", func(t *testing.T) {
		_, p := newReplay(t, map[string]answer{})
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		_, err := p.RetrievePayment(ctx, "pi_1")
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, payment.ErrProviderUnavailable) {
			t.Fatalf("err = %v", err)
		}
	})
}

// A request Stripe refuses (a wrong key, a bad parameter) is neither a
// decline nor worth a retry.
func TestRefusedRequestIsNoneOfTheShopsKinds(t *testing.T) {
	_, p := newReplay(t, map[string]answer{"GET /v1/payment_intents/pi_1": {status: 401, body: `{"error":{"type":"invalid_request_error","message":"Invalid API Key provided: sk_test_***123"}}`}})
	_, err := p.RetrievePayment(context.Background(), "pi_1")
	for _, kind := range []error{payment.ErrProviderUnavailable, payment.ErrDeclined, payment.ErrProcessing} {
		if errors.Is(err, kind) {
			t.Errorf("err = %v is %v", err, kind)
		}
	}
	if !errors.Is(err, errStripe) || !strings.Contains(err.Error(), "Invalid API Key") {
		t.Errorf("err = %v", err)
	}
}

func TestIdempotencyErrors(t *testing.T) {
	_, p := newReplay(t, map[string]answer{
		"POST /v1/refunds":         {status: 400, body: `{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than 'refund:return-7' if you meant to execute a different request."}}`},
		"POST /v1/payment_intents": {status: 409, body: `{"error":{"type":"invalid_request_error","code":"idempotency_key_in_use","message":"There is currently another in-progress request using this Stripe token (probably the same request). Try again later."}}`, header: http.Header{"Stripe-Should-Retry": {"false"}}},
	})
	ctx := context.Background()
	_, err := p.Refund(ctx, payment.RefundRequest{PaymentRef: "pi_1", Amount: store.Money{Amount: 900, Currency: "EUR"}, Key: "return-7"})
	if !errors.Is(err, payment.ErrKeyReused) {
		t.Errorf("a key reused with another amount: %v", err)
	}
	_, err = p.CreatePayment(ctx, payment.PaymentRequest{Amount: store.Money{Amount: 900, Currency: "EUR"}, Key: "sub_1/2026-01/1"})
	if !errors.Is(err, payment.ErrProviderUnavailable) {
		t.Errorf("a key in use: %v", err)
	}
}

// Below Stripe's minimum is refused before any request where the table
// knows it, and mapped from Stripe's amount_too_small where only Stripe
// does (a KRW charge settles converted).
func TestBelowMinimum(t *testing.T) {
	r, p := newReplay(t, map[string]answer{
		"POST /v1/payment_intents": {status: 400, body: `{"error":{"type":"invalid_request_error","code":"amount_too_small","param":"amount","message":"Amount must convert to at least 50 cents. ₩100 converts to approximately €0.06."}}`},
	})
	ctx := context.Background()
	_, err := p.CreatePayment(ctx, payment.PaymentRequest{Amount: store.Money{Amount: 49, Currency: "EUR"}, Key: "k1"})
	if !errors.Is(err, payment.ErrBelowMinimum) {
		t.Fatalf("EUR 0.49: err = %v", err)
	}
	_, err = p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: store.Money{Amount: 29, Currency: "GBP"}, Description: "Order 1"})
	if !errors.Is(err, payment.ErrBelowMinimum) {
		t.Fatalf("GBP 0.29: err = %v", err)
	}
	if len(r.asked) != 0 {
		t.Fatalf("asked Stripe: %+v", r.asked)
	}
	_, err = p.CreatePayment(ctx, payment.PaymentRequest{Amount: store.Money{Amount: 100, Currency: "KRW"}, Key: "k2"})
	if !errors.Is(err, payment.ErrBelowMinimum) {
		t.Fatalf("KRW 100: err = %v", err)
	}
}

const (
	// Stripe's answer to expiring a session that is no longer open.
	notOpen = `{"error":{"type":"invalid_request_error","message":"Only Checkout Sessions with a status in [\"open\"] can be expired. This Checkout Session has a status of ` + "`complete`" + `."}}`
	// A paid session read with its intent's card expanded.
	completeSession = `{"id":"cs_1","object":"checkout.session","mode":"payment","status":"complete","payment_status":"paid","amount_total":4250,"currency":"eur","customer":"cus_1","expires_at":1767229200,"metadata":{"order":"o_42"},
		"payment_intent":{"id":"pi_9","object":"payment_intent","status":"succeeded","amount":4250,"currency":"eur","setup_future_usage":"off_session",
			"payment_method":{"id":"pm_9","object":"payment_method","type":"card","card":{"brand":"mastercard","last4":"4444","exp_month":3,"exp_year":2031}}}}`
	expiredSession = `{"id":"cs_1","object":"checkout.session","mode":"payment","status":"expired","payment_status":"unpaid","amount_total":4250,"currency":"eur","payment_intent":null}`
)

func TestExpireCheckoutOfAPaidSession(t *testing.T) {
	r, p := newReplay(t, map[string]answer{
		"POST /v1/checkout/sessions/cs_1/expire": {status: 400, body: notOpen},
		"GET /v1/checkout/sessions/cs_1":         {status: 200, body: completeSession},
	})
	s, err := p.ExpireCheckout(context.Background(), "cs_1")
	if !errors.Is(err, payment.ErrCheckoutComplete) {
		t.Fatalf("err = %v, want ErrCheckoutComplete", err)
	}
	want := &payment.SavedMethod{Provider: "stripe", Ref: "pm_9", Brand: "Mastercard", Last4: "4444", ExpMonth: 3, ExpYear: 2031}
	if s.ID != "cs_1" || !s.Paid || s.PaymentRef != "pi_9" || s.Card == nil || *s.Card != *want || s.Amount != (store.Money{Amount: 4250, Currency: "EUR"}) {
		t.Fatalf("session %+v card %+v", s, s.Card)
	}
	get := r.requests("GET /v1/checkout/sessions/cs_1")
	if len(get) != 1 || get[0].form.Get("expand[0]") != "payment_intent.payment_method" || get[0].form.Get("expand[1]") != "setup_intent.payment_method" {
		t.Fatalf("read the session as %+v", get)
	}
}

func TestExpireCheckoutAlreadyExpired(t *testing.T) {
	_, p := newReplay(t, map[string]answer{
		"POST /v1/checkout/sessions/cs_1/expire": {status: 400, body: strings.Replace(notOpen, "complete", "expired", 1)},
		"GET /v1/checkout/sessions/cs_1":         {status: 200, body: expiredSession},
	})
	s, err := p.ExpireCheckout(context.Background(), "cs_1")
	if err != nil || s.Status != payment.SessionExpired || s.Paid {
		t.Fatalf("%+v, %v", s, err)
	}
}

func TestExpireCheckoutOfNoSuchSession(t *testing.T) {
	_, p := newReplay(t, map[string]answer{
		"POST /v1/checkout/sessions/cs_x/expire": {status: 404, body: `{"error":{"type":"invalid_request_error","code":"resource_missing","param":"session","message":"No such checkout.session: 'cs_x'"}}`},
	})
	_, err := p.ExpireCheckout(context.Background(), "cs_x")
	if err == nil || errors.Is(err, payment.ErrCheckoutComplete) {
		t.Fatalf("err = %v", err)
	}
}

func TestDeleteCustomerAlreadyGone(t *testing.T) {
	_, p := newReplay(t, map[string]answer{
		"DELETE /v1/customers/cus_gone": {status: 404, body: `{"error":{"type":"invalid_request_error","code":"resource_missing","param":"id","message":"No such customer: 'cus_gone'"}}`},
		"DELETE /v1/customers/cus_500":  {status: 500, body: apiError500, header: http.Header{"Stripe-Should-Retry": {"false"}}},
	})
	if err := p.DeleteCustomer(context.Background(), "cus_gone"); err != nil {
		t.Fatalf("a customer already gone: %v", err)
	}
	if err := p.DeleteCustomer(context.Background(), "cus_500"); !errors.Is(err, payment.ErrProviderUnavailable) {
		t.Fatalf("a failure: %v", err)
	}
}
