package stripepay

import (
	"time"

	"github.com/stripe/stripe-go/v85"

	"shop/store/payment"
)

// sessionOf is a Checkout Session in the shop's terms. Its card is known
// only when the session was read with its intent's payment method expanded
// (RetrieveCheckout); an event's session names the intent alone.
func sessionOf(s *stripe.CheckoutSession) payment.CheckoutSession {
	out := payment.CheckoutSession{
		ID:       s.ID,
		URL:      s.URL,
		Status:   string(s.Status),
		Amount:   fromStripe(s.AmountTotal, s.Currency),
		Metadata: s.Metadata,
	}
	if s.ExpiresAt != 0 {
		out.ExpiresAt = time.Unix(s.ExpiresAt, 0).UTC()
	}
	if s.Customer != nil {
		out.CustomerRef = s.Customer.ID
	}
	complete := s.Status == stripe.CheckoutSessionStatusComplete
	switch s.Mode {
	case stripe.CheckoutSessionModeSetup:
		out.Paid = complete // the card is saved; nothing was to pay
		if s.SetupIntent != nil {
			out.Card = cardOf(s.SetupIntent.PaymentMethod)
		}
	default:
		out.Paid = complete && s.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid
		if pi := s.PaymentIntent; pi != nil {
			out.PaymentRef = pi.ID
			if pi.SetupFutureUsage == stripe.PaymentIntentSetupFutureUsageOffSession {
				out.Card = cardOf(pi.PaymentMethod)
			}
		}
	}
	return out
}

// intentOf is a PaymentIntent in the shop's terms.
func intentOf(pi *stripe.PaymentIntent) payment.PaymentIntent {
	out := payment.PaymentIntent{
		ID:       pi.ID,
		Status:   string(pi.Status),
		Amount:   fromStripe(pi.Amount, pi.Currency),
		Card:     cardOf(pi.PaymentMethod),
		Metadata: pi.Metadata,
	}
	if na := pi.NextAction; na != nil && na.RedirectToURL != nil {
		out.RedirectURL = na.RedirectToURL.URL
	}
	if e := pi.LastPaymentError; e != nil {
		out.DeclineCode = string(e.DeclineCode)
		if out.DeclineCode == "" {
			out.DeclineCode = string(e.Code)
		}
	}
	return out
}

// outcome is a confirmed payment and the error its status means: a bank
// asking for authentication, a decline, a cancelled intent. Processing is
// no error: the outcome comes as payment_intent.succeeded or
// payment_intent.payment_failed (cards rarely stop there).
func outcome(pi *stripe.PaymentIntent) (payment.PaymentIntent, error) {
	out := intentOf(pi)
	switch pi.Status {
	case stripe.PaymentIntentStatusRequiresAction:
		return out, payment.ErrAuthenticationRequired
	case stripe.PaymentIntentStatusRequiresPaymentMethod:
		if e := pi.LastPaymentError; e != nil {
			return out, declineError(e.Code, e.DeclineCode)
		}
		return out, payment.ErrDeclined
	case stripe.PaymentIntentStatusCanceled:
		return out, payment.ErrVoided
	}
	return out, nil
}

// refundOf is a Refund in the shop's terms.
func refundOf(r *stripe.Refund) payment.Refund {
	out := payment.Refund{
		ID:       r.ID,
		Status:   string(r.Status),
		Amount:   fromStripe(r.Amount, r.Currency),
		Metadata: r.Metadata,
	}
	if r.PaymentIntent != nil {
		out.PaymentRef = r.PaymentIntent.ID
	}
	return out
}

// refundOfCharge is what a charge.refunded event says: the charge's total
// refunded so far (Amount), its payment, and the newest refund's id and
// status when the event carries the charge's refunds (Stripe leaves them
// out of the charge since API version 2022-11-15; refund.updated has each).
func refundOfCharge(c *stripe.Charge) payment.Refund {
	out := payment.Refund{
		Amount:   fromStripe(c.AmountRefunded, c.Currency),
		Metadata: c.Metadata,
	}
	if c.PaymentIntent != nil {
		out.PaymentRef = c.PaymentIntent.ID
	}
	if c.Refunds != nil {
		var newest *stripe.Refund
		for _, r := range c.Refunds.Data {
			if r != nil && (newest == nil || r.Created > newest.Created) {
				newest = r
			}
		}
		if newest != nil {
			out.ID, out.Status = newest.ID, string(newest.Status)
		}
	}
	return out
}

// cardOf is what the shop keeps of a saved card; nil when the payment
// method is not expanded or not a card.
func cardOf(pm *stripe.PaymentMethod) *payment.SavedMethod {
	if pm == nil || pm.Card == nil {
		return nil
	}
	return &payment.SavedMethod{
		Provider: payment.ProviderStripe,
		Ref:      pm.ID,
		Brand:    brandName(pm.Card.Brand),
		Last4:    pm.Card.Last4,
		ExpMonth: int(pm.Card.ExpMonth),
		ExpYear:  int(pm.Card.ExpYear),
	}
}

// brandName is the brand as the shop writes it (payment.brandOf's names).
func brandName(b stripe.PaymentMethodCardBrand) string {
	switch b {
	case stripe.PaymentMethodCardBrandVisa:
		return "Visa"
	case stripe.PaymentMethodCardBrandMastercard:
		return "Mastercard"
	case stripe.PaymentMethodCardBrandAmex:
		return "American Express"
	case stripe.PaymentMethodCardBrandDiscover:
		return "Discover"
	case stripe.PaymentMethodCardBrandDiners:
		return "Diners Club"
	case stripe.PaymentMethodCardBrandJCB:
		return "JCB"
	case stripe.PaymentMethodCardBrandUnionpay:
		return "UnionPay"
	}
	return "Card"
}
