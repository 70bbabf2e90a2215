package web

import (
	"errors"
	"time"

	"shop/handlers"
	"shop/jobs"
	"shop/store/payment"
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
