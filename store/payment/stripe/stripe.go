// Package stripepay is the shop's card payments through Stripe: a
// payment.Provider on the official library (github.com/stripe/stripe-go),
// with Stripe Checkout's hosted page for the card, PaymentIntents for
// off-session charges of a saved card, Refunds, and signed webhook events.
// Its directory is store/payment/stripe; the package is named stripepay so
// that it does not shadow the library's package stripe.
//
// docs/payments-stripe.md says what it sends and how to set Stripe up.
package stripepay

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"

	"shop/store"
	"shop/store/payment"
)

// Config is how the shop reaches its Stripe account.
type Config struct {
	// SecretKey is the account's secret (sk_...) or restricted (rk_...)
	// key: STRIPE_SECRET_KEY.
	SecretKey string
	// WebhookSecret signs the events of the webhook endpoint (whsec_...):
	// STRIPE_WEBHOOK_SECRET.
	WebhookSecret string
	// APIURL replaces https://api.stripe.com, for stripe-mock in tests:
	// SHOP_STRIPE_API_URL. Empty is Stripe's.
	APIURL string
	// HTTPClient, if set, makes the requests (the library's own has an 80 s
	// timeout).
	HTTPClient *http.Client
	// MaxNetworkRetries, if set, replaces the library's default: 2 retries,
	// with the same idempotency key, of a request that got no answer or an
	// answer that is not Stripe's JSON (a proxy's 502), and of a 429
	// lock_timeout. A JSON error from Stripe, a 500 too, is not retried.
	MaxNetworkRetries *int64
	// Logger, if set, replaces the library's default (errors to stderr).
	Logger stripe.LeveledLoggerInterface
}

// Provider is Stripe as the shop's payment.Provider.
type Provider struct {
	sc            *stripe.Client
	webhookSecret string
	now           func() time.Time
}

var _ payment.Provider = (*Provider)(nil)

// New returns the provider for cfg.
func New(cfg Config) (*Provider, error) {
	switch {
	case cfg.SecretKey == "":
		return nil, errors.New("stripe: the secret key is empty (STRIPE_SECRET_KEY)")
	case strings.HasPrefix(cfg.SecretKey, "pk_"):
		return nil, errors.New("stripe: STRIPE_SECRET_KEY is a publishable key (pk_...); the server needs the secret key (sk_... or rk_...)")
	case cfg.WebhookSecret == "":
		return nil, errors.New("stripe: the webhook signing secret is empty (STRIPE_WEBHOOK_SECRET): events could not be verified")
	}
	bc := &stripe.BackendConfig{HTTPClient: cfg.HTTPClient, MaxNetworkRetries: cfg.MaxNetworkRetries}
	if cfg.APIURL != "" {
		bc.URL = stripe.String(cfg.APIURL)
	}
	if cfg.Logger != nil {
		bc.LeveledLogger = cfg.Logger
	}
	sc := stripe.NewClient(cfg.SecretKey, stripe.WithBackends(stripe.NewBackendsWithConfig(bc)))
	return &Provider{sc: sc, webhookSecret: cfg.WebhookSecret, now: time.Now}, nil
}

// Name is "stripe".
func (p *Provider) Name() string { return payment.ProviderStripe }

// Metadata keys the adapter adds to what it sends.
const (
	metaCustomerID = "shop_customer_id" // on the Stripe customer
	metaKey        = "shop_key"         // on a payment intent: the shop's idempotency key
	metaReturnURL  = "shop_return_url"  // on a payment intent: where authentication returns
)

// Idempotency keys are per Stripe account, across endpoints: each request
// kind prefixes the shop's key, so that one key of the shop used for two
// kinds of request is two keys at Stripe, not a conflict.
func idempotencyKey(kind, key string) *string {
	if key == "" {
		return nil // the library makes one, good for its own retries
	}
	return stripe.String(kind + ":" + key)
}

// EnsureCustomer creates the Stripe customer for one of the shop's, once
// per c.Key.
func (p *Provider) EnsureCustomer(ctx context.Context, c payment.CustomerRequest) (string, error) {
	params := &stripe.CustomerCreateParams{
		Email:    optional(c.Email),
		Name:     optional(c.Name),
		Metadata: map[string]string{metaCustomerID: c.CustomerID},
	}
	params.IdempotencyKey = idempotencyKey("customer", c.Key)
	cus, err := p.sc.V1Customers.Create(ctx, params)
	if err != nil {
		return "", mapError(err)
	}
	return cus.ID, nil
}

// DeleteCustomer deletes a Stripe customer, and its saved cards with it. A
// customer already gone (404, resource_missing) is not an error.
func (p *Provider) DeleteCustomer(ctx context.Context, ref string) error {
	_, err := p.sc.V1Customers.Delete(ctx, ref, &stripe.CustomerDeleteParams{})
	var se *stripe.Error
	if errors.As(err, &se) && se.Code == stripe.ErrorCodeResourceMissing {
		return nil
	}
	if err != nil {
		return mapError(err)
	}
	return nil
}

// Stripe takes an expires_at from 30 minutes to 24 hours after it creates
// the session. A hold shorter than that is released by the shop, which
// expires the session then (ExpireCheckout); a margin covers the clocks.
const (
	minSessionLife = 31 * time.Minute
	maxSessionLife = 24*time.Hour - time.Minute
)

// sessionExpiry is req's expiry within what Stripe takes.
func (p *Provider) sessionExpiry(want time.Time) int64 {
	now := p.now()
	switch {
	case want.IsZero(), want.After(now.Add(maxSessionLife)):
		want = now.Add(maxSessionLife)
	case want.Before(now.Add(minSessionLife)):
		want = now.Add(minSessionLife)
	}
	return want.Unix()
}

// successURL asks Stripe to put the session's id in the URL it returns the
// customer to, unless the shop's URL already has the placeholder. The braces
// stay literal: Stripe looks for them as they are.
func successURL(u string) string {
	const placeholder = "{CHECKOUT_SESSION_ID}"
	if u == "" || strings.Contains(u, placeholder) {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "session_id=" + placeholder
}

// StartCheckout creates a Checkout Session, card only: in payment mode one
// line of the shop's amount (the shop computed it), in setup mode a card
// saved for the customer. The session's expiry is req.ExpiresAt within the
// 30 minutes to 24 hours Stripe takes; the returned session says which.
func (p *Provider) StartCheckout(ctx context.Context, req payment.CheckoutRequest) (payment.CheckoutSession, error) {
	params := &stripe.CheckoutSessionCreateParams{
		Mode:               stripe.String(string(req.Mode)),
		PaymentMethodTypes: stripe.StringSlice([]string{"card"}),
		Customer:           optional(req.CustomerRef),
		ExpiresAt:          stripe.Int64(p.sessionExpiry(req.ExpiresAt)),
		SuccessURL:         stripe.String(successURL(req.SuccessURL)),
		CancelURL:          optional(req.CancelURL),
		Metadata:           req.Metadata,
	}
	params.IdempotencyKey = idempotencyKey("checkout", req.Key)
	switch req.Mode {
	case payment.ModePayment:
		amount, currency, err := chargeable(req.Amount)
		if err != nil {
			return payment.CheckoutSession{}, err
		}
		if strings.TrimSpace(req.Description) == "" {
			return payment.CheckoutSession{}, errors.New("stripe: a payment checkout needs a description: it is the line the customer reads on Stripe's page")
		}
		params.LineItems = []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(currency),
				UnitAmount:  stripe.Int64(amount),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(req.Description)},
			},
		}}
		params.PaymentIntentData = &stripe.CheckoutSessionCreatePaymentIntentDataParams{
			Description: stripe.String(req.Description),
			Metadata:    req.Metadata,
		}
		if req.SaveCard {
			params.PaymentIntentData.SetupFutureUsage = stripe.String(string(stripe.PaymentIntentSetupFutureUsageOffSession))
		}
	case payment.ModeSetup:
		_, currency, err := toStripe(req.Amount)
		if err != nil {
			return payment.CheckoutSession{}, err
		}
		params.Currency = stripe.String(currency)
		params.SetupIntentData = &stripe.CheckoutSessionCreateSetupIntentDataParams{Metadata: req.Metadata}
	default:
		return payment.CheckoutSession{}, fmt.Errorf("stripe: checkout mode %q is neither payment nor setup", req.Mode)
	}
	s, err := p.sc.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return payment.CheckoutSession{}, mapError(err)
	}
	return sessionOf(s), nil
}

// RetrieveCheckout reads a session with its payment or setup intent and
// their card, so that a paid session says which card was saved.
func (p *Provider) RetrieveCheckout(ctx context.Context, id string) (payment.CheckoutSession, error) {
	params := &stripe.CheckoutSessionRetrieveParams{}
	params.AddExpand("payment_intent.payment_method")
	params.AddExpand("setup_intent.payment_method")
	s, err := p.sc.V1CheckoutSessions.Retrieve(ctx, id, params)
	if err != nil {
		return payment.CheckoutSession{}, mapError(err)
	}
	return sessionOf(s), nil
}

// ExpireCheckout ends an open session. Stripe refuses to expire a session
// that is not open (400, invalid_request_error, "Only Checkout Sessions with
// a status in ["open"] can be expired"); the session is then read: paid, it
// is ErrCheckoutComplete with the session; already expired, it is done.
func (p *Provider) ExpireCheckout(ctx context.Context, id string) (payment.CheckoutSession, error) {
	s, err := p.sc.V1CheckoutSessions.Expire(ctx, id, &stripe.CheckoutSessionExpireParams{})
	if err == nil {
		return sessionOf(s), nil
	}
	var se *stripe.Error
	if errors.As(err, &se) && se.Type == stripe.ErrorTypeInvalidRequest && se.HTTPStatusCode == http.StatusBadRequest {
		cur, rerr := p.RetrieveCheckout(ctx, id)
		switch {
		case rerr != nil:
			return payment.CheckoutSession{}, rerr
		case cur.Status == payment.SessionComplete:
			return cur, payment.ErrCheckoutComplete
		case cur.Status == payment.SessionExpired:
			return cur, nil
		}
	}
	return payment.CheckoutSession{}, mapError(err)
}

// CreatePayment creates an unconfirmed PaymentIntent of a saved card, with
// req.Key in its metadata (and req.ReturnURL, which ConfirmPayment reads
// back: the intent is where it survives a restart between the two).
// off_session is a parameter of the confirmation, not of an unconfirmed
// intent: Stripe takes it on create only with confirm=true.
func (p *Provider) CreatePayment(ctx context.Context, req payment.PaymentRequest) (payment.PaymentIntent, error) {
	amount, currency, err := chargeable(req.Amount)
	if err != nil {
		return payment.PaymentIntent{}, err
	}
	meta := make(map[string]string, len(req.Metadata)+2)
	for k, v := range req.Metadata {
		meta[k] = v
	}
	meta[metaKey] = req.Key
	if req.ReturnURL != "" {
		meta[metaReturnURL] = req.ReturnURL
	}
	params := &stripe.PaymentIntentCreateParams{
		Amount:             stripe.Int64(amount),
		Currency:           stripe.String(currency),
		Customer:           optional(req.CustomerRef),
		PaymentMethod:      optional(req.MethodRef),
		PaymentMethodTypes: stripe.StringSlice([]string{"card"}),
		Description:        optional(req.Description),
		Confirm:            stripe.Bool(false),
		Metadata:           meta,
	}
	params.IdempotencyKey = idempotencyKey("payment", req.Key)
	pi, err := p.sc.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		return payment.PaymentIntent{}, mapError(err)
	}
	return intentOf(pi), nil
}

// ConfirmPayment charges a payment created by CreatePayment: off-session,
// or on-session with its return URL when it was given one, so that a bank
// asking for authentication gives a page to send the customer to.
//
// It reads the intent first: a payment already confirmed (a retry after a
// crash, or after a confirmation whose answer was lost) is answered as it
// stands rather than confirmed again, and the return URL is read from it. The confirmation's idempotency key is the
// intent's id: a repeat within Stripe's 24 hours gets the first answer.
func (p *Provider) ConfirmPayment(ctx context.Context, id string) (payment.PaymentIntent, error) {
	rp := &stripe.PaymentIntentRetrieveParams{}
	rp.AddExpand("payment_method")
	pi, err := p.sc.V1PaymentIntents.Retrieve(ctx, id, rp)
	if err != nil {
		return payment.PaymentIntent{}, mapError(err)
	}
	switch pi.Status {
	case stripe.PaymentIntentStatusRequiresConfirmation, stripe.PaymentIntentStatusRequiresPaymentMethod:
	default:
		return outcome(pi)
	}
	params := &stripe.PaymentIntentConfirmParams{}
	params.AddExpand("payment_method")
	params.IdempotencyKey = idempotencyKey("confirm", id)
	if u := pi.Metadata[metaReturnURL]; u != "" {
		params.ReturnURL = stripe.String(u)
	} else {
		params.OffSession = stripe.Bool(true)
	}
	confirmed, err := p.sc.V1PaymentIntents.Confirm(ctx, id, params)
	if err != nil {
		// A decline (402) carries the intent as it now stands.
		var se *stripe.Error
		if errors.As(err, &se) && se.PaymentIntent != nil && se.PaymentIntent.ID != "" {
			return intentOf(se.PaymentIntent), mapError(err)
		}
		return intentOf(pi), mapError(err)
	}
	return outcome(confirmed)
}

// RetrievePayment reads a payment as it stands; its status says the rest.
func (p *Provider) RetrievePayment(ctx context.Context, id string) (payment.PaymentIntent, error) {
	params := &stripe.PaymentIntentRetrieveParams{}
	params.AddExpand("payment_method")
	pi, err := p.sc.V1PaymentIntents.Retrieve(ctx, id, params)
	if err != nil {
		return payment.PaymentIntent{}, mapError(err)
	}
	return intentOf(pi), nil
}

// Refund gives back amount of a payment, once per req.Key.
func (p *Provider) Refund(ctx context.Context, req payment.RefundRequest) (payment.Refund, error) {
	amount, _, err := toStripe(req.Amount)
	if err != nil {
		return payment.Refund{}, err
	}
	if amount <= 0 {
		return payment.Refund{}, store.ErrBadRefund
	}
	params := &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(req.PaymentRef),
		Amount:        stripe.Int64(amount),
		Metadata:      req.Metadata,
	}
	params.IdempotencyKey = idempotencyKey("refund", req.Key)
	r, err := p.sc.V1Refunds.Create(ctx, params)
	if err != nil {
		return payment.Refund{}, mapError(err)
	}
	return refundOf(r), nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return stripe.String(s)
}
