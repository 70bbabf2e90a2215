package web

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers"
	"shop/jobs"
	"shop/store/payment"
	"shop/web/paths"
)

// DefaultPaymentHold is how long checkout holds an order for its card
// payment unless told otherwise.
const DefaultPaymentHold = 30 * time.Minute

// paymentDefaults fills in the card payments' configuration (the hold,
// the test provider in test mode, what moves subscriptions' money, the
// settler and what applies the webhooks' events) and returns the
// provider's pages for checkout and the order page. returnBase starts the
// links a provider sends the customer back to ("" is the request's own
// address). Without a card provider there is no way to pay by card: an
// error.
func (cfg *Config) paymentDefaults(returnBase string) (*handlers.PaymentPages, error) {
	if cfg.Payments.Active() == nil {
		return nil, errors.New("web: no card provider (Config.Payments)")
	}
	if cfg.PaymentHold == 0 {
		cfg.PaymentHold = DefaultPaymentHold
	}
	if tp, ok := cfg.Payments.Active().(*payment.TestProvider); ok && cfg.TestPayments == nil {
		cfg.TestPayments = tp
	}
	if cfg.Settler == nil || cfg.SubscriptionPayments == nil {
		settler, sp := jobs.NewCardPayments(cfg.Store, cfg.Payments, cfg.BaseURL, cfg.Log)
		if cfg.SubscriptionPayments == nil {
			cfg.SubscriptionPayments = sp
		} else {
			settler.Subscriptions = cfg.SubscriptionPayments.Applier()
		}
		if cfg.Settler == nil {
			cfg.Settler = settler
		}
	}
	if cfg.PaymentEvents == nil {
		cfg.PaymentEvents = cfg.Settler
	}
	return &handlers.PaymentPages{Payments: cfg.Payments, Store: cfg.Store, BaseURL: returnBase, Log: cfg.Log}, nil
}

// webhooks routes the active card provider's webhook: the test
// provider's in test mode, Stripe's with Stripe (its Stripe-Signature
// header). No session and no CSRF: the signature, checked over the raw
// body first, is the check.
func (cfg *Config) webhooks(app *fiber.App, testMode bool) error {
	if testMode {
		if cfg.PaymentEvents == nil {
			return errors.New("web: test payments need PaymentEvents to apply their webhook's events")
		}
		hook := &handlers.Webhook{Provider: cfg.TestPayments, Header: payment.TestSignatureHeader, Events: cfg.PaymentEvents, Log: cfg.Log}
		app.Post(paths.WebhookTest, deadline(cfg.RequestTimeout), hook.Receive)
	}
	if pr := cfg.Payments.Active(); pr != nil && pr.Name() == payment.ProviderStripe {
		hook := &handlers.Webhook{Provider: pr, Header: "Stripe-Signature", Events: cfg.PaymentEvents, Log: cfg.Log}
		app.Post(paths.WebhookStripe, deadline(cfg.RequestTimeout), hook.Receive)
	}
	return nil
}
