package paths

// The built-in test provider's pages, served by the shop in test mode as
// a provider serves its hosted checkout, and the webhook it sends its
// events to.
const (
	testPayments = "/test-payments"
	// WebhookTest receives the test provider's signed events (POST).
	WebhookTest = "/webhooks/test"
	// WebhookStripe receives Stripe's signed events (POST), with Stripe.
	WebhookStripe = "/webhooks/stripe"
)

// TestPaymentCheckout is a hosted checkout session's page (GET) and its
// card form (POST).
func TestPaymentCheckout(sessionID string) string { return under(testPayments+"/checkout", sessionID) }

// TestPaymentCheckoutConfirm answers the bank's question about a session's
// card: approve or fail (POST).
func TestPaymentCheckoutConfirm(sessionID string) string {
	return under(testPayments+"/checkout", sessionID, "confirm")
}

// TestPaymentConfirm is the bank's question about an off-session payment
// (GET), and its answer (POST).
func TestPaymentConfirm(paymentID string) string {
	return under(testPayments+"/payments", paymentID, "confirm")
}
