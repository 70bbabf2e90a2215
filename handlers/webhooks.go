package handlers

import (
	"context"
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"shop/store/payment"
)

// PaymentEvents applies a card provider's verified events to the shop's
// records: a paid checkout places its held order, an expired one lets its
// goods go, and so on. Each event is applied once by its ID, however
// often it comes (the store implements it).
type PaymentEvents interface {
	ApplyPaymentEvent(ctx context.Context, ev payment.Event) error
}

// Webhook receives one card provider's signed events: POST /webhooks/test
// (the test provider, in test mode) and, with Stripe's provider,
// /webhooks/stripe. No session and no CSRF token: the signature is the
// check, made over the raw body before anything in it is read.
type Webhook struct {
	Provider payment.Provider
	// Header carries the provider's signature (payment.TestSignatureHeader,
	// Stripe-Signature).
	Header string
	Events PaymentEvents
	Log    *slog.Logger
}

// Receive answers 400 to a missing or bad signature (the provider's
// delivery will not fix it by sending again), 200 to an event the shop
// does not act on, and 200 once a known one is applied; 500 when it could
// not be, so the provider sends it again.
func (h *Webhook) Receive(c *fiber.Ctx) error {
	sig := c.Get(h.Header)
	if sig == "" {
		return c.Status(fiber.StatusBadRequest).SendString("no signature")
	}
	ev, err := h.Provider.ParseEvent(c.Body(), sig)
	if err != nil {
		h.Log.Warn("webhook refused", "provider", h.Provider.Name(), "err", err)
		if errors.Is(err, payment.ErrBadSignature) {
			return c.Status(fiber.StatusBadRequest).SendString("bad signature")
		}
		return c.Status(fiber.StatusBadRequest).SendString("not an event")
	}
	if !actsOn(ev.Type) {
		return c.SendString("ignored")
	}
	if err := h.Events.ApplyPaymentEvent(c.UserContext(), ev); err != nil {
		h.Log.Error("webhook not applied", "provider", h.Provider.Name(), "event", ev.ID, "type", ev.Type, "err", err)
		return c.Status(fiber.StatusInternalServerError).SendString("not applied; send it again")
	}
	return c.SendString("ok")
}

// actsOn tells the event types the shop acts on.
func actsOn(typ string) bool {
	switch typ {
	case payment.EventCheckoutCompleted, payment.EventCheckoutExpired, payment.EventPaymentSucceeded,
		payment.EventPaymentFailed, payment.EventChargeRefunded, payment.EventRefundUpdated:
		return true
	}
	return false
}
