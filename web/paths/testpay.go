package paths

// The built-in test provider's pages, served by the shop in test mode as
// a provider serves its hosted checkout, and the webhook it sends its
// events to.
const (
	// WebhookTest receives the test provider's signed events (POST).
	WebhookTest = "/webhooks/test"
	// WebhookStripe receives Stripe's signed events (POST), with Stripe.
	WebhookStripe = "/webhooks/stripe"
)

// The patterns of the test provider's pages, each filled by the builder
// of its name.
const (
	TestPaymentCheckoutPattern        = "/test-payments/checkout/:session"
	TestPaymentCheckoutConfirmPattern = "/test-payments/checkout/:session/confirm"
	TestPaymentConfirmPattern         = "/test-payments/payments/:id/confirm"
)

// TestPaymentCheckout is a hosted checkout session's page (GET) and its
// card form (POST).
func TestPaymentCheckout(sessionID string) string { return fill(TestPaymentCheckoutPattern, sessionID) }

// TestPaymentCheckoutConfirm answers the bank's question about a session's
// card: approve or fail (POST).
func TestPaymentCheckoutConfirm(sessionID string) string {
	return fill(TestPaymentCheckoutConfirmPattern, sessionID)
}

// TestPaymentConfirm is the bank's question about an off-session payment
// (GET), and its answer (POST).
func TestPaymentConfirm(paymentID string) string {
	return fill(TestPaymentConfirmPattern, paymentID)
}
